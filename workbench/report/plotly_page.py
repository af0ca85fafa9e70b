"""Deprecated: this module is now the private ``workbench.report._plotly_page``;
this alias goes in the next release (see "Moved in this release" in docs/api.md)."""

import warnings

from workbench.report._plotly_page import CSS, chart_div, page_scripts, plotly_js

warnings.warn(
    "workbench.report.plotly_page is deprecated: it is now private "
    "(workbench.report._plotly_page); this alias goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["CSS", "chart_div", "page_scripts", "plotly_js"]
