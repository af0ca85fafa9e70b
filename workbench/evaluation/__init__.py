"""Evaluation: worlds, the runner, sweeps, results and metrics."""

from workbench.evaluation.results import Results, canonical_json
from workbench.evaluation.runner import aevaluate, evaluate, run_world
from workbench.evaluation.sweep import scorecards, sweep
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS, tearsheet
from workbench.evaluation.world import World

__all__ = [
    "TEARSHEET_COLUMNS",
    "Results",
    "World",
    "aevaluate",
    "canonical_json",
    "evaluate",
    "run_world",
    "scorecards",
    "sweep",
    "tearsheet",
]
