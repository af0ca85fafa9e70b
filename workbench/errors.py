"""Every error the workbench raises, in one place.

    WorkbenchError
    ├── ConfigError (ValueError)      bad input from the user: unknown preset or dial,
    │                                 zero names, days <= 0, unknown arm ...
    ├── MissingDependency (ImportError)
    │                                 an optional extra is not installed; says the pip line
    └── ValidationError               something in a run cannot be trusted
        ├── DecisionError             the agent answered badly (its own outcome)
        ├── FrameworkError            the framework or network failed around the agent
        │   └── UsageLimitReached     a deliberate budget stop (request limit)
        ├── ReplayMiss                a recording has no answer for this input or market
        └── RecordingError            a recording file is missing, corrupt or inconsistent

A DecisionError and a FrameworkError are kept apart so that a weak agent is not
mistaken for an unreliable network, and neither is ever turned into "no trade".
"""

from __future__ import annotations


class WorkbenchError(Exception):
    """Base of every error raised by the workbench."""


class ConfigError(WorkbenchError, ValueError):
    """The caller passed something the workbench cannot run; the message says the fix."""


class MissingDependency(WorkbenchError, ImportError):
    """An optional dependency is not installed."""

    def __init__(self, package: str, extra: str, purpose: str) -> None:
        self.package = package
        self.extra = extra
        super().__init__(
            f"{purpose} needs the '{package}' package, which is not installed. "
            f'Install it with: pip install "workbench[{extra}]"'
        )


class ValidationError(WorkbenchError):
    """A run cannot be trusted as it stands."""


class DecisionError(ValidationError):
    """The agent's answer is not a valid decision (its own bad outcome)."""


class FrameworkError(ValidationError):
    """The framework around the agent failed; the original exception is chained."""


class UsageLimitReached(FrameworkError):
    """A run hit its request budget: a deliberate stop, catchable by name."""


class ReplayMiss(ValidationError):
    """A replay found no recorded answer for this input, or a different market."""


class RecordingError(ValidationError):
    """A recording is unreadable, truncated or inconsistent with its manifest."""


__all__ = [
    "ConfigError",
    "DecisionError",
    "FrameworkError",
    "MissingDependency",
    "RecordingError",
    "ReplayMiss",
    "UsageLimitReached",
    "ValidationError",
    "WorkbenchError",
]
