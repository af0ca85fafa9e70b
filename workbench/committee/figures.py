"""The number check: every figure a role writes must be in the verified snapshot.

Roles are told to cite numbers only from the snapshot; this module checks that
they did. ``unverified_figures(text, snapshot)`` lists the figures in ``text``
that match no number in the snapshot within the rounding the figure was written
with (``20.52`` matches ``20.5213``; ``2.63%`` matches ``2.6312`` and, as a
fraction, ``0.0263``), comparing sizes (``fell 3.6%`` cites ``-3.6001``). What is
not read as a figure:

- a number joined to a letter or an underscore (``SMA5``, ``rsi_14``, ``10y``);
- a whole number from 0 to 10 (a count or an ordinal: "2 debate turns", "turn 1").

On a snapshot that reads the market's information (observation schema 2, see
``snapshot.has_reading``) the check is stricter where a figure says what it is:
a figure written after "EPS" (or "earnings per share") in the same clause must
be an EPS the snapshot holds (reported, consensus or guidance), and one written
after "revenue" (or "sales") a reported revenue, so an EPS that was never
reported is flagged even when some price happens to round to it. When the
sentence names a symbol before the figure, the figure must be that symbol's
(its report, its coming consensus, or an item about it): "NFW EPS 1.37" is
flagged when 1.37 is another name's EPS. Figures may
carry a scale there (``$1,234.5 million``, ``1.2bn``). A clause ends at ``,``
``;`` ``(``, a line break or a full stop. On a price-only snapshot nothing of
this applies and the check is exactly as above.

The check runs live and on replay over the recorded text, so a replay reports the
same flags. It is a count, not a filter: a flagged memo still reaches the executor.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from workbench.committee.snapshot import EPS_FIGURES

SMALL_COUNT = 10
_FIGURE = re.compile(r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)(%?)(?![\w])")
_SCALED_FIGURE = re.compile(
    r"(?<![\w.])(-?\d[\d,]*(?:\.\d+)?)(%|\s?(?:million|billion|mn|bn|m)\b)?(?!\w)", re.I
)
_SCALES = {"million": 1e6, "mn": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9}
_CLAUSE_END = re.compile(r"[,;(\n]|\.(?!\d)")
_SENTENCE_END = re.compile(r"[\n!?]|\.(?!\d)")
_NAMED = (
    ("eps", re.compile(r"\beps\b|earnings per share", re.I)),
    ("revenue", re.compile(r"\brevenues?\b|\bsales\b", re.I)),
)


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
    if "news" in snapshot:
        return _unverified_reading(text, snapshot)
    known = snapshot_numbers(snapshot)
    return [
        written
        for written, value, decimals, percent in figures(text)
        if not _known(value, decimals, percent, known)
    ]


def _known(value: float, decimals: int, percent: bool, known: list[float]) -> bool:
    return _known_within(value, 0.5 * 10.0**-decimals + 1e-9, percent, known)


# --- the stricter check on a snapshot that reads information --------------------------
def _named(before: str) -> str | None:
    """What the clause a figure sits in says it is, by the nearest word naming one."""
    ends = [m.end() for m in _CLAUSE_END.finditer(before)]
    clause = before[ends[-1] :] if ends else before
    hits = [(hit.start(), name) for name, pattern in _NAMED for hit in pattern.finditer(clause)]
    return max(hits)[1] if hits else None


_NAMED_KEYS = {"eps": EPS_FIGURES, "revenue": ("revenue",)}


def _unverified_reading(text: str, snapshot: Mapping[str, Any]) -> list[str]:
    known: dict[str | None, list[float]] = {None: snapshot_numbers(snapshot)}
    for name, keys in _NAMED_KEYS.items():
        known[name] = sorted(set(_named_numbers(snapshot, keys)))
    mentions = _symbol_pattern(snapshot)
    flagged = []
    for match in _SCALED_FIGURE.finditer(text):
        checked = _reading_figure(text, match)
        if checked is None:
            continue
        written, value, tolerance, percent, named = checked
        subject = _subject(text[: match.start()], mentions) if named else None
        numbers = known[named]
        if subject is not None and named is not None:
            numbers = _symbol_numbers(snapshot, subject, named)
        if not _known_within(value, tolerance, percent, numbers):
            flagged.append(written)
    return flagged


def _symbol_pattern(snapshot: Mapping[str, Any]) -> re.Pattern[str] | None:
    symbols = sorted(snapshot.get("fundamentals", {}).get("reported", {}), key=len, reverse=True)
    if not symbols:
        return None
    return re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, symbols)) + r")(?![\w])")


def _subject(before: str, mentions: re.Pattern[str] | None) -> str | None:
    """The last symbol named in the sentence before a figure, if any."""
    if mentions is None:
        return None
    ends = [m.end() for m in _SENTENCE_END.finditer(before)]
    hits = mentions.findall(before[ends[-1] :] if ends else before)
    return hits[-1] if hits else None


def _symbol_numbers(snapshot: Mapping[str, Any], symbol: str, named: str) -> list[float]:
    """The EPS or revenue figures the snapshot holds for ``symbol``: its last report, its
    coming consensus and the items about it."""
    fundamentals = snapshot.get("fundamentals", {})
    own = [
        fundamentals.get("reported", {}).get(symbol),
        fundamentals.get("calendar", {}).get(symbol),
        *[i for i in snapshot["news"]["items"] if symbol in (i.get("symbols") or [])],
    ]
    return sorted(set(_named_numbers(own, _NAMED_KEYS[named])))


def _reading_figure(
    text: str, match: re.Match[str]
) -> tuple[str, float, float, bool, str | None] | None:
    """(as written, value, tolerance, is a percent, named as) or None for a count."""
    number, suffix = match.group(1).rstrip(","), match.group(2) or ""
    digits = number.replace(",", "")
    try:
        value = float(digits)
    except ValueError:
        return None
    decimals = len(digits.split(".", 1)[1]) if "." in digits else 0
    scale = _SCALES.get(suffix.strip().lower(), 1.0)
    if decimals == 0 and abs(value) <= SMALL_COUNT and scale == 1.0:
        return None
    percent = suffix == "%"
    named = None if percent else _named(text[: match.start()])
    tolerance = (0.5 * 10.0**-decimals + 1e-9) * scale
    return number + suffix, value * scale, tolerance, percent, named


def _known_within(value: float, tolerance: float, percent: bool, known: list[float]) -> bool:
    # Sizes are compared: "fell 3.6%" cites a change of -3.6001.
    candidates = [(abs(value), tolerance)]
    if percent:  # 2.63% may be a percent figure (2.6312) or a fraction (0.026312)
        candidates.append((abs(value) / 100, tolerance / 100))
    return any(abs(abs(number) - want) <= slack for want, slack in candidates for number in known)


def _named_numbers(value: Any, keys: tuple[str, ...]) -> Iterator[float]:
    """Every number the snapshot holds under one of ``keys``, at any depth."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key in keys and isinstance(item, int | float) and not isinstance(item, bool):
                yield float(item)
            else:
                yield from _named_numbers(item, keys)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _named_numbers(item, keys)


__all__ = ["SMALL_COUNT", "figures", "snapshot_numbers", "unverified_figures"]
