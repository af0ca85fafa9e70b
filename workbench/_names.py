"""Objects named by text: ``"package.module:qualname"`` written into a recording and read back.

``import_path`` gives the name of a module-level object (a ``ConfigError`` says how to
make one when a replay could not find it again); ``resolve`` imports the object a name
points to. Trust is checked elsewhere (``workbench._trust``) before ``resolve`` runs on
a name that came from data.
"""

from __future__ import annotations

import importlib
from typing import Any

from workbench.errors import ConfigError


def import_path(obj: Any, what: str) -> str:
    """``module:qualname`` of a module-level object, or ConfigError saying how to make one."""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", "")
    if not module or "<" in qualname or module == "__main__":
        raise ConfigError(
            f"{what} {obj!r} cannot be found again by a replay; define it at module level "
            "in an importable module (not a lambda, a nested function or __main__)"
        )
    return f"{module}:{qualname}"


def resolve(path: str, *, named_by: str = "the recording") -> Any:
    """The object named by ``module:qualname``; a ConfigError says what is wrong."""
    module_name, _, qualname = path.partition(":")
    if not module_name or not qualname:
        raise ConfigError(f"{path!r} must look like 'package.module:attribute'")
    try:
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            target = getattr(target, part)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot import {path!r} named by {named_by}: {exc}") from None
    return target
