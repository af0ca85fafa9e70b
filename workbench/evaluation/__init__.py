"""Evaluation: worlds, the runner, sweeps, results, metrics and P&L attribution."""

from workbench.evaluation.attribution_frame import (
    ATTRIBUTION_COLUMNS,
    attribute,
    attribution_per_seed,
    attribution_totals,
)
from workbench.evaluation.capture import information_frame
from workbench.evaluation.results import Results, canonical_json
from workbench.evaluation.runner import aevaluate, evaluate, run_world
from workbench.evaluation.sweep import scorecards, sweep
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS, tearsheet
from workbench.evaluation.world import MARKET_DEFAULTS, MarketDefaults, MarketOptions, World

__all__ = [
    "ATTRIBUTION_COLUMNS",
    "MARKET_DEFAULTS",
    "TEARSHEET_COLUMNS",
    "MarketDefaults",
    "MarketOptions",
    "Results",
    "World",
    "aevaluate",
    "attribute",
    "attribution_per_seed",
    "attribution_totals",
    "canonical_json",
    "evaluate",
    "information_frame",
    "run_world",
    "scorecards",
    "sweep",
    "tearsheet",
]
