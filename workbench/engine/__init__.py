"""The synthetic market: presets, universes, simulated paths and execution."""

from workbench.engine.execution import Executor, OrderRecord, Portfolio
from workbench.engine.market import MarketPath, simulate
from workbench.engine.presets import DEFAULT_PRESET, DIALS, Preset, diff, list_presets, preset
from workbench.engine.universe import SECTORS, Universe

__all__ = [
    "DEFAULT_PRESET",
    "DIALS",
    "SECTORS",
    "Executor",
    "MarketPath",
    "OrderRecord",
    "Portfolio",
    "Preset",
    "Universe",
    "diff",
    "list_presets",
    "preset",
    "simulate",
]
