"""Tables, plots and reports drawn from a ``Results`` object (or its dict form).

A report is a tearsheet (see ``html``). One renderer for every front end:
notebooks, the CLI and the MCP server call ``render_report(results_or_dict, path)``;
``write_outputs`` writes a run's whole output folder (tables, Parquet, PNG plots
and the HTML report); ``plot(results, chart)`` is one interactive chart (plotly).
"""

from workbench.report._data import as_results, as_runs, key_metrics
from workbench.report._format import readable
from workbench.report.html import render_report
from workbench.report.interactive import plot
from workbench.report.outputs import write_outputs
from workbench.report.plots import (
    drawdown_figure,
    drawdown_table,
    equity_figure,
    orders_figure,
    png_bytes,
    return_distribution_figure,
    returns_by_seed,
    returns_figure,
    rolling_sharpe_figure,
    save_equity_plot,
    save_figure,
)
from workbench.report.tables import format_scorecard
from workbench.report.tearsheet import memos_of

__all__ = [
    "as_results",
    "as_runs",
    "drawdown_figure",
    "drawdown_table",
    "equity_figure",
    "format_scorecard",
    "key_metrics",
    "memos_of",
    "orders_figure",
    "plot",
    "png_bytes",
    "readable",
    "render_report",
    "return_distribution_figure",
    "returns_by_seed",
    "returns_figure",
    "rolling_sharpe_figure",
    "save_equity_plot",
    "save_figure",
    "write_outputs",
]
