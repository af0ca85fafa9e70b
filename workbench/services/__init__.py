"""The service core: every capability as a plain function returning JSON-safe data.

The CLI, the notebooks and the MCP server call these functions and hold no
business logic of their own. Services that write take the run store as their
first argument; large outputs are written into the store and returned by path.
"""

from collections.abc import Callable
from typing import Any

from workbench.services.catalogue import list_agents
from workbench.services.compare import compare_runs
from workbench.services.diff import decision_diff, diff_runs
from workbench.services.evaluation import MARKET_DEFAULTS, evaluate_arms, run_evaluation
from workbench.services.glossary import definitions_for, metrics_glossary
from workbench.services.history import compare_stored_runs, runs, show_run
from workbench.services.presets import describe_preset, diff_presets, list_presets
from workbench.services.recorded import list_recordings, replay_recording
from workbench.services.report import render_report
from workbench.services.runs import get_run, list_runs
from workbench.services.store import RunStore
from workbench.services.tracking import log_to_mlflow

# name -> service; the MCP server exposes each under the same name.
SERVICES: dict[str, Callable[..., dict[str, Any]]] = {
    "list_presets": list_presets,
    "describe_preset": describe_preset,
    "diff_presets": diff_presets,
    "list_agents": list_agents,
    "metrics_glossary": metrics_glossary,
    "run_evaluation": run_evaluation,
    "compare_runs": compare_runs,
    "replay_recording": replay_recording,
    "render_report": render_report,
    "list_runs": list_runs,
    "get_run": get_run,
    "compare_stored_runs": compare_stored_runs,
}

__all__ = [
    # the simulated market's defaults, which every front end shows
    "MARKET_DEFAULTS",
    # registry
    "SERVICES",
    # store
    "RunStore",
    # services
    "compare_runs",
    "compare_stored_runs",
    "decision_diff",
    "definitions_for",
    "describe_preset",
    "diff_presets",
    "diff_runs",
    "evaluate_arms",
    "get_run",
    "list_agents",
    "list_presets",
    "list_recordings",
    "list_runs",
    "log_to_mlflow",
    "metrics_glossary",
    "render_report",
    "replay_recording",
    "run_evaluation",
    "runs",
    "show_run",
]
