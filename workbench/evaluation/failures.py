"""The part of a failed decision's traceback that is the agent's own code.

An agent that raises is recorded as a ``FrameworkError`` whose ``__cause__`` is
the original exception. Its traceback runs through the event loop, the runner
and the adapter before it reaches the user's function; a researcher wants the
last part only, so frames of the workbench package and the standard library
(event loop, thread pool) are left out.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from workbench._jsonio import printable

_WORKBENCH = Path(__file__).parent.parent
_STDLIB = Path(os.__file__).parent


def agent_traceback(exc: BaseException) -> str:
    """The formatted traceback of what ``exc`` wraps, outside the workbench; "" if none."""
    cause = exc.__cause__
    if cause is None or cause.__traceback__ is None:
        return ""
    frames = [f for f in traceback.extract_tb(cause.__traceback__) if _own(f.filename)]
    if not frames:
        frames = list(traceback.extract_tb(cause.__traceback__))[-1:]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)]
    # an unpaired surrogate in the message would make the text unwritable as UTF-8
    return printable("".join(lines + traceback.format_exception_only(cause)))


def _own(filename: str) -> bool:
    """Not the workbench, not the standard library (event loop, thread pool); frameworks stay."""
    path = Path(filename)
    if path.is_relative_to(_WORKBENCH):
        return False
    return not path.is_relative_to(_STDLIB) or "site-packages" in path.parts
