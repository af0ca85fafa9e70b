"""workbench: a reproducible evaluation workbench for LLM trading agents."""

from workbench.bridge import run_sync
from workbench.errors import (
    ConfigError,
    DecisionError,
    FrameworkError,
    MissingDependency,
    RecordingError,
    ReplayMiss,
    UsageLimitReached,
    ValidationError,
    WorkbenchError,
)

__version__ = "0.1.0"

__all__ = [
    # errors
    "ConfigError",
    "DecisionError",
    "FrameworkError",
    "MissingDependency",
    "RecordingError",
    "ReplayMiss",
    "UsageLimitReached",
    "ValidationError",
    "WorkbenchError",
    # bridge
    "run_sync",
    "__version__",
]
