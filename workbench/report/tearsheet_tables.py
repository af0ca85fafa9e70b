"""Deprecated: this module is now the private ``workbench.report._tearsheet_tables``;
this alias goes in the next release (see "Moved in this release" in docs/api.md)."""

import warnings

from workbench.report._tearsheet_tables import (
    calendar_section,
    drawdowns_section,
    heatmap,
    spread_section,
)

warnings.warn(
    "workbench.report.tearsheet_tables is deprecated: it is now private "
    "(workbench.report._tearsheet_tables); this alias goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["calendar_section", "drawdowns_section", "heatmap", "spread_section"]
