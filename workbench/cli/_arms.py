"""Your own arms on the command line: ``--arms my_agent:build`` from the folder you are in.

The working folder is put first on the import path while a command runs (as
``python -m``, pytest's rootdir and uvicorn's ``--app-dir .`` do), so a module
beside you imports without ``PYTHONPATH``. A ``module:attribute`` arm is either

- a **factory**: ``build(mode, transcript=None, name=None, every=None, **options)``
  returning an Agent (it takes ``mode``, or ``**options``); the recording names it,
  so a replay calls it again and needs it trusted (``workbench replay --trust``); or
- a **plain function** of one argument, the payload, returning a decision: it is
  recorded as a callable arm (``CallableAgentAdapter``), whose replay answers from
  the transcript and needs no trust and no code of yours.

Anything else is refused naming both shapes.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import sys
from collections.abc import Callable, Iterator
from typing import Any

from workbench.errors import ConfigError

SHAPES = (
    "a factory build(mode, transcript=None, name=None, every=None) returning an Agent, "
    "or a plain function fn(payload) returning a decision"
)


@contextlib.contextmanager
def working_folder_importable() -> Iterator[None]:
    """The working folder first on ``sys.path`` while the block runs."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    try:
        yield
    finally:
        if added and here in sys.path:
            sys.path.remove(here)


def arm_list(text: str) -> list[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def recording_arm(item: str) -> Any:
    """What ``recordings.record`` is given for one ``--arms`` item (see the module doc)."""
    if ":" not in item:
        return item  # a baseline name, checked by the library
    target = import_arm(item)
    if _takes_mode(target):
        return item
    if _takes_payload(target):
        from workbench.integrations.callable import CallableAgentAdapter

        name = item.rpartition(":")[2].rpartition(".")[2]
        return CallableAgentAdapter(target, name=name, mode="record")
    raise ConfigError(f"--arms {item}: takes {_signature(target)}; an arm must be {SHAPES}")


def import_arm(item: str) -> Any:
    """The object ``module:attribute`` names, imported from the working folder too."""
    import importlib

    module_name, _, qualname = item.partition(":")
    if not module_name or not qualname:
        raise ConfigError(f"--arms {item}: must look like 'module:function'")
    try:
        target: Any = importlib.import_module(module_name)
    except Exception as exc:  # the user's module may fail in any way while it imports
        raise ConfigError(
            f"--arms {item}: importing {module_name!r} failed: {type(exc).__name__}: {exc} "
            f"(searched the working folder {os.getcwd()} and the installed packages)"
        ) from None
    for part in qualname.split("."):
        if not hasattr(target, part):
            raise ConfigError(f"--arms {item}: module {module_name!r} has no {qualname!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ConfigError(f"--arms {item}: is a {type(target).__name__}; an arm must be {SHAPES}")
    return target


def _parameters(target: Callable[..., Any]) -> list[inspect.Parameter] | None:
    try:
        return list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature
        return None


def _takes_mode(target: Callable[..., Any]) -> bool:
    parameters = _parameters(target) or []
    return any(p.name == "mode" or p.kind is p.VAR_KEYWORD for p in parameters)


def _takes_payload(target: Callable[..., Any]) -> bool:
    if isinstance(target, type):
        return False
    try:
        inspect.signature(target).bind({})
    except (TypeError, ValueError):
        return False
    return True


def _signature(target: Callable[..., Any]) -> str:
    try:
        return f"{getattr(target, '__name__', 'it')}{inspect.signature(target)}"
    except (TypeError, ValueError):
        return "an unknown signature"
