"""workbench: a reproducible evaluation workbench for LLM trading agents.

>>> from workbench import evaluate
>>> results = evaluate(["buy_and_hold", "momentum"], seed=7, universe=40, days=10)
>>> results.scorecard
"""

from typing import Any

from workbench._version import __version__
from workbench.agents import Agent, DecisionRequest, ExecutionReport, RunInfo, Usage
from workbench.baselines import BASELINES, baseline
from workbench.bridge import run_sync
from workbench.committee import Committee
from workbench.engine import Preset, Universe, diff, list_presets, preset
from workbench.errors import (
    BudgetExhausted,
    ConfigError,
    DecisionError,
    EndpointUnreachable,
    FrameworkError,
    MissingDependency,
    RecordingError,
    ReplayMiss,
    RunError,
    TranscriptEdited,
    UntrustedRecording,
    UsageLimitReached,
    WorkbenchError,
    renamed,
)
from workbench.evaluation import Results, World, aevaluate, evaluate
from workbench.integrations import AdapterInfo, callable_agent
from workbench.recordings import record, replay
from workbench.schema import Action, Decision

__all__ = [  # noqa: RUF022 - grouped by topic
    # running an evaluation
    "evaluate",
    "aevaluate",
    "World",
    "Results",
    "Universe",
    "Preset",
    "preset",
    "list_presets",
    "diff",
    # agents
    "Agent",
    "Action",
    "Decision",
    "DecisionRequest",
    "ExecutionReport",
    "RunInfo",
    "Usage",
    "BASELINES",
    "baseline",
    "Committee",
    # recording and replay
    "callable_agent",
    "AdapterInfo",
    "record",
    "replay",
    # interactive charts, past runs, decision diffs, MLflow (loaded on first use)
    "plot",
    "runs",
    "decision_diff",
    "log_to_mlflow",
    # async bridge
    "run_sync",
    # errors
    "BudgetExhausted",
    "ConfigError",
    "DecisionError",
    "EndpointUnreachable",
    "FrameworkError",
    "MissingDependency",
    "RecordingError",
    "ReplayMiss",
    "RunError",
    "TranscriptEdited",
    "UntrustedRecording",
    "UsageLimitReached",
    "WorkbenchError",
    "__version__",
]


# name -> module that defines it, imported on first use: the service core stays unloaded
# until a past run is asked for, and the report until a chart is.
_ON_FIRST_USE = {
    "plot": "workbench.report.interactive",
    "runs": "workbench.services.history",
    "decision_diff": "workbench.services.diff",
    "log_to_mlflow": "workbench.services.tracking",
}


def __getattr__(name: str) -> Any:
    if name in _ON_FIRST_USE:
        import importlib

        return getattr(importlib.import_module(_ON_FIRST_USE[name]), name)
    return renamed(name, __name__)  # ValidationError, the old name of RunError
