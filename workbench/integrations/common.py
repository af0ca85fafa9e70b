"""The shared layer every adapter uses, whatever its framework.

Seven constants (the observation allowlist and decision schema, with their
versions), the decision classes ``Action``/``Decision`` and ``AdapterInfo``,
``require`` (an optional dependency or a clear install line), ``digest`` and
``replay_response`` (transcripts keyed by the exact input), the recorded-preset
check (``preset_of``, ``stamp_preset``, ``refuse_a_changed_preset``,
``stamp_artefact``, ``PRESET_VECTOR_KEY``), ``run_sync`` and the error classes.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from workbench._jsonio import canonical_json, digest
from workbench._stamps import PRESET_VECTOR_KEY, stamp_artefact
from workbench.bridge import run_sync
from workbench.errors import (
    DecisionError,
    FrameworkError,
    MissingDependency,
    RecordingError,
    ReplayMiss,
    RunError,
    UsageLimitReached,
    renamed,
)
from workbench.integrations._replay import (
    preset_of,
    refuse_a_changed_preset,
    replay_response,
    stamp_preset,
)
from workbench.integrations.base import AdapterInfo, BaseAdapter
from workbench.schema import (
    DECISION_SCHEMA_VERSION,
    HISTORY_STEPS,
    MAX_PARTICIPATION,
    OBSERVABLE_MACRO,
    OBSERVATION_SCHEMA_VERSION,
    ORDER_TYPES,
    SIDES,
    Action,
    Decision,
    parse_decision,
)
from workbench.transcript import Transcript


def require(module: str, *, extra: str, purpose: str, package: str | None = None) -> ModuleType:
    """Import an optional dependency, or raise ``MissingDependency`` with the pip line."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependency(package or module, extra, purpose) from exc


__all__ = [
    # constants
    "DECISION_SCHEMA_VERSION",
    "HISTORY_STEPS",
    "MAX_PARTICIPATION",
    "OBSERVABLE_MACRO",
    "OBSERVATION_SCHEMA_VERSION",
    "ORDER_TYPES",
    # preset check
    "PRESET_VECTOR_KEY",
    "SIDES",
    # classes
    "Action",
    "AdapterInfo",
    "BaseAdapter",
    "Decision",
    # errors
    "DecisionError",
    "FrameworkError",
    "MissingDependency",
    "RecordingError",
    "ReplayMiss",
    "RunError",
    "Transcript",
    "UsageLimitReached",
    # functions
    "canonical_json",
    "digest",
    "parse_decision",
    "preset_of",
    "refuse_a_changed_preset",
    "replay_response",
    "require",
    "run_sync",
    "stamp_artefact",
    "stamp_preset",
]


def __getattr__(name: str) -> Any:
    return renamed(name, __name__)  # ValidationError, the old name of RunError
