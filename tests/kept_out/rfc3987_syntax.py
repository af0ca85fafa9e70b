"""Stands in for ``rfc3987_syntax`` in every process the suite starts (kernels, servers, the
demo): importing it fails, as if it were not installed, so jsonschema skips the ``iri``
format check instead of building its parsers (tests/conftest.py)."""

raise ImportError("rfc3987_syntax is kept out of the suite's processes (tests/conftest.py)")
