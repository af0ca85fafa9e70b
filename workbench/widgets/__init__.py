"""Jupyter widgets: the experiment panel (arms, preset, seeds, days, cadence; Run, Replay, Stop)."""

from typing import Any

from workbench.widgets.panel import ExperimentPanel

__all__ = ["ExperimentPanel", "panel"]


def panel(agents: Any = None, **options: Any) -> ExperimentPanel:
    """Build an ``ExperimentPanel``; display it as the last line of a cell."""
    return ExperimentPanel(agents, **options)
