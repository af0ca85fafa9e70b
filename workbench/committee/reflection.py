"""The reference committee that remembers: the factory recordings name for it.

The memory itself (reflecting roles, lessons recalled and written after outcomes)
is ``workbench.committee.lessons``.
"""

from __future__ import annotations

from typing import Any

from workbench.committee.agent import Committee
from workbench.memory.settings import Memory


def reflecting_committee(**kwargs: Any) -> Committee:
    """The reference committee with ``Memory()`` (horizon 1, k 2): a factory recordings name."""
    kwargs.setdefault("memory", Memory())
    return Committee(**kwargs)


__all__ = ["reflecting_committee"]
