"""The number check: every figure a role writes must be in the verified snapshot.

Roles are told to cite numbers only from the snapshot; this module checks that
they did. ``unverified_figures(text, snapshot)`` lists the figures in ``text``
that match no number in the snapshot within the rounding the figure was written
with (``20.52`` matches ``20.5213``; ``2.63%`` matches ``2.6312`` and, as a
fraction, ``0.0263``), comparing sizes (``fell 3.6%`` cites ``-3.6001``). What is
not read as a figure:

- a number joined to a letter or an underscore (``SMA5``, ``rsi_14``, ``10y``);
- a whole number from 0 to 10 (a count or an ordinal: "2 debate turns", "turn 1").

The check runs live and on replay over the recorded text, so a replay reports the
same flags. It is a count, not a filter: a flagged memo still reaches the executor.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

SMALL_COUNT = 10
_FIGURE = re.compile(r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)(%?)(?![\w])")


def figures(text: str) -> list[tuple[str, float, int, bool]]:
    """Each figure in ``text``: (as written, value, decimals, is a percent)."""
    found = []
    for match in _FIGURE.finditer(text):
        written, percent = match.group(1).rstrip(","), bool(match.group(2))
        digits = written.replace(",", "")
        try:
            value = float(digits)
        except ValueError:
            continue
        decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
        if decimals == 0 and abs(value) <= SMALL_COUNT:
            continue
        found.append((written + match.group(2), value, decimals, percent))
    return found


def snapshot_numbers(snapshot: Any) -> list[float]:
    """Every number in the snapshot (booleans and no-data markers left out)."""
    return sorted(set(_numbers(snapshot)))


def _numbers(value: Any) -> Iterator[float]:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        if math.isfinite(value):
            yield float(value)
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _numbers(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _numbers(item)


def unverified_figures(text: str, snapshot: Mapping[str, Any]) -> list[str]:
    """The figures in ``text`` that no snapshot number rounds to, as written."""
    known = snapshot_numbers(snapshot)
    return [
        written
        for written, value, decimals, percent in figures(text)
        if not _known(value, decimals, percent, known)
    ]


def _known(value: float, decimals: int, percent: bool, known: list[float]) -> bool:
    # Sizes are compared: "fell 3.6%" cites a change of -3.6001.
    tolerance = 0.5 * 10.0**-decimals + 1e-9
    candidates = [(abs(value), tolerance)]
    if percent:  # 2.63% may be a percent figure (2.6312) or a fraction (0.026312)
        candidates.append((abs(value) / 100, tolerance / 100))
    return any(abs(abs(number) - want) <= slack for want, slack in candidates for number in known)


__all__ = ["SMALL_COUNT", "figures", "snapshot_numbers", "unverified_figures"]
