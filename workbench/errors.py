"""Every error the workbench raises, in one place.

    WorkbenchError
    ├── ConfigError (ValueError)      bad input from the user: unknown preset or dial,
    │   │                             zero names, days <= 0, unknown arm ...
    │   ├── MemoryLeak                a persisted memory store would remember the future:
    │   │                             it already learnt from this market path
    │   └── EndpointUnreachable       no server answered a model endpoint's first call:
    │                                 the run stops instead of counting every decision
    ├── MissingDependency (ImportError)
    │                                 an optional extra is not installed; says the pip line
    └── RunError                      something in a run cannot be trusted
        ├── DecisionError             the agent answered badly (its own outcome)
        ├── FrameworkError            the framework or network failed around the agent
        │   └── UsageLimitReached     a deliberate budget stop (request limit)
        │       └── BudgetExhausted   the arm spent its whole budget: it holds from then on
        ├── CanaryLeak                an arm quoted a planted item before it was published
        ├── ReplayMiss                a recording has no answer for this input or market
        └── RecordingError            a recording file is missing, corrupt or inconsistent
            ├── TranscriptEdited      a recorded exchange no longer matches its digest
            └── UntrustedRecording    a recording names code (or a path) it may not use

A DecisionError and a FrameworkError are kept apart so that a weak agent is not
mistaken for an unreliable network, and neither is ever turned into "no trade".

``RunError`` was called ``ValidationError`` until it was renamed so as not to be
mistaken for ``pydantic.ValidationError``; the old name still works, with a
``DeprecationWarning``, for one release.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # for the annotation only: the errors import nothing of the package
    from workbench.evaluation.results import Results


class WorkbenchError(Exception):
    """Base of every error raised by the workbench.

    ``results``: an evaluation that stops on this error after some steps ran keeps the
    ``Results`` of those steps here (and says so in a note); otherwise None.
    """

    results: Results | None = None


class ConfigError(WorkbenchError, ValueError):
    """The caller passed something the workbench cannot run; the message says the fix."""


class MemoryLeak(ConfigError):
    """A persisted memory store already learnt from this market path; reusing it would leak."""


class EndpointUnreachable(ConfigError):
    """No server answered an endpoint that has never answered: the run stops, once."""


class MissingDependency(WorkbenchError, ImportError):
    """An optional dependency is not installed."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{purpose} needs the '{package}' package, which is not installed. "
            f'Install it with: pip install "workbench[{extra}]"'
        )


class RunError(WorkbenchError):
    """A run cannot be trusted as it stands."""


class DecisionError(RunError):
    """The agent's answer is not a valid decision (its own bad outcome)."""


class FrameworkError(RunError):
    """The framework around the agent failed; the original exception is chained."""


class UsageLimitReached(FrameworkError):
    """A run hit its request budget: a deliberate stop, catchable by name."""


class BudgetExhausted(UsageLimitReached):
    """An arm used its whole budget (``max_calls``): it is asked nothing more and holds."""


class CanaryLeak(RunError):
    """An arm quoted a planted canary before its date: something it reads looks ahead."""


class ReplayMiss(RunError):
    """A replay found no recorded answer for this input, or a different market."""


class RecordingError(RunError):
    """A recording is unreadable, truncated or inconsistent with its manifest."""


class TranscriptEdited(RecordingError):
    """A recorded exchange differs from the digest written beside it: it was edited.

    Distinct from a ``ReplayMiss`` (no recorded answer for a new input): here the
    answer is there, but it is not the one the run was given.
    """


class UntrustedRecording(RecordingError):
    """A recording names a factory, hook or file the workbench will not use.

    A recording is data: it may name only arms and hooks in the trust registry
    (``workbench.recordings.trust``) and files inside its own folder.
    """


RENAMED = {"ValidationError": "RunError"}


def renamed(name: str, module: str) -> Any:
    """An error under its old name (``RENAMED``), with a DeprecationWarning; for a
    module's ``__getattr__``."""
    if name not in RENAMED:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new = RENAMED[name]
    warnings.warn(
        f"{module}.{name} is now {new} (the old name is pydantic's too); {name} goes in the "
        "next release",
        DeprecationWarning,
        stacklevel=3,
    )
    return globals()[new]


def __getattr__(name: str) -> Any:
    return renamed(name, __name__)


__all__ = [
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
]
