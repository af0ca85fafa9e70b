"""Stands in for ``rfc3987_syntax`` in the suite and every process it starts (kernels, servers,
the demo), which find it first on their ``PYTHONPATH`` (tests/conftest.py).

jsonschema imports ``is_valid_syntax`` from it to check the ``iri`` formats, and the real
package builds some thirty Earley parsers as it is imported, a few CPU-seconds in every
process. Here the real package is imported at the first check instead: a process that
checks no IRI never pays for it, one that does gets the real answer, and where the real
package is not installed this module is not importable either, as it would not be.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

_HERE = Path(__file__).resolve().parent
_LOADING = threading.Lock()
_real: ModuleType | None = None


def _real_spec() -> importlib.machinery.ModuleSpec | None:
    elsewhere = [path for path in sys.path if Path(path or ".").resolve() != _HERE]
    return importlib.machinery.PathFinder.find_spec(__name__, elsewhere)


_SPEC = _real_spec()
if _SPEC is None or _SPEC.loader is None:
    raise ImportError(f"No module named {__name__!r} beside the suite's stand-in")


def _the_real_package() -> ModuleType:
    global _real
    with _LOADING:
        if _real is None:
            module = importlib.util.module_from_spec(_SPEC)  # type: ignore[arg-type]
            stand_in = sys.modules.get(__name__)
            sys.modules[__name__] = module  # its own modules import it by this name
            try:
                _SPEC.loader.exec_module(module)  # type: ignore[union-attr]
            except BaseException:
                sys.modules[__name__] = stand_in  # type: ignore[assignment]
                raise
            _real = module
    return _real


def is_valid_syntax(term: str, value: str) -> Any:
    return _the_real_package().is_valid_syntax(term, value)


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # what tools probe modules for: no reason to build the parsers
        raise AttributeError(name)
    return getattr(_the_real_package(), name)
