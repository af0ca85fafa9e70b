"""Small checks every layer shares: whole numbers, and the nearest name to a wrong one."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard


def is_whole(value: Any) -> TypeGuard[int]:
    """An ``int`` that is not a ``bool`` (Python counts ``True`` as 1; we never do)."""
    return isinstance(value, int) and not isinstance(value, bool)


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``" Did you mean 'x'?"`` for the name in ``known`` nearest to ``name``, else ``""``."""
    near = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean {near[0]!r}?" if near else ""


def refuse_unknown_keywords(caller: str, given: Mapping[str, Any], known: Iterable[str]) -> None:
    """A keyword ``caller`` does not take is a TypeError naming it and the nearest one."""
    names = sorted(known)
    for name in given:
        if name not in names:
            hint = did_you_mean(name, names)
            raise TypeError(f"{caller}() got an unexpected keyword argument {name!r}.{hint}")


__all__ = ["did_you_mean", "is_whole", "refuse_unknown_keywords"]
