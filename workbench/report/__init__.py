"""Tables, plots and reports drawn from a ``Results`` object."""
