"""Deprecated: this module is now the private ``workbench.memory._running``;
this alias goes in the next release (see "Moved in this release" in docs/api.md)."""

import warnings

from workbench.memory._running import hold, holding, release

warnings.warn(
    "workbench.memory.running is deprecated: it is now private "
    "(workbench.memory._running); this alias goes in the next release",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["hold", "holding", "release"]
