"""The canary audit: did any arm quote a planted item before it was published?

A run with ``canaries=K`` (``workbench.engine.canaries``) lists its canaries in
``results.meta["canaries"]``: each one's channel (news, fundamentals or memory),
token and the first day a payload, or an arm's memory store, may carry it. Text
that holds a token on an earlier day came through a path that looks ahead: the
agent's own search or news tool, a memory that recalls lessons before they are
known, a date filter that lets undated items through.

One path is watched during the run, for every arm: each decision's rationale
(``results.meta["canary_hits"]``). A model-backed arm's transcript adds more when
given to the audit, exchange by exchange: the lessons its memory recalled into
the model's input (``memory``), the rest of the model's input (``model input``:
its prompt with every tool result in it), the model's output (``model output``)
and a lesson it wrote into its memory (``memory entry``: the answer to a
reflection).
Each text is read plain (``plain_text``: JSON escapes undone, NFKC, invisible
characters dropped, one hyphen, one space, any case); a news or memory canary is
found by its code as a whole token, with or without its word, a fundamentals
canary by any amount that rounds to it as written (grouped or not), or that
rounds to it when written past its cents (a float at its binary value). What is never
written (a trade made on a canary, a paraphrase) is not seen: the audit reads
text, not intent.
``check_canaries`` raises ``CanaryLeak`` naming the arm, day, step, channel and
path of the first hit; a test over a run or its transcripts makes a look-ahead
bug a failing test.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

import pandas as pd

from workbench._jsonio import canonical_json
from workbench.engine.canaries import is_figure_code
from workbench.errors import CanaryLeak
from workbench.evaluation.results import Results
from workbench.memory.reflection import REFLECTION_PHASE
from workbench.transcript import Exchange, Transcript

CANARY_COLUMNS = ("arm", "day", "step", "channel", "path", "token", "seen_from_day")


def canary_hits(
    canaries: Iterable[Mapping[str, Any]], arm: str, day: int, step: int, text: str, path: str
) -> list[list[Any]]:
    """A row (CANARY_COLUMNS) for each canary ``text`` holds before its day, however it is
    written (``plain_text``: any case, hyphen, space or invisible character; a news or
    memory code with or without its word; a figure rounded, with or without thousands
    separators), and one for each canary-shaped token this run did not plant
    (``seen_from_day`` None): a canary of another run or of another path, which only a
    tool that reads outside the run's feed can have found."""
    canaries = list(canaries)
    if not canaries or not text:
        return []
    plain = plain_text(text)
    amounts = list(_amounts(plain))
    rows = [
        [arm, day, step, c["channel"], path, c["token"], c["day"]]
        for c in canaries
        if day < c["day"] and _holds(plain, amounts, c)
    ]
    foreign = _foreign(plain, amounts, canaries)
    return rows + [[arm, day, step, channel, path, token, None] for channel, token in foreign]


def plain_text(text: str) -> str:
    """``text`` as the audit reads it: JSON escapes undone, NFKC, invisible (format)
    characters dropped, every hyphen and dash a ``-``, every space a `` ``, case folded."""
    if "\\u" in text:
        text = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text)
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text)
        text = text.translate(_plain_table(frozenset(c for c in text if not c.isascii())))
    return text.casefold()


_ESCAPE = re.compile(r"\\+u([0-9a-fA-F]{4})")
_PLAIN: dict[int, str | None] = {}


def _plain_table(chars: frozenset[str]) -> dict[int, str | None]:
    for char in chars:
        if ord(char) not in _PLAIN:
            kind = unicodedata.category(char)
            dash = kind == "Pd" or char in "\u2212\u2043"  # minus sign, hyphen bullet
            space = kind == "Zs" or char.isspace()
            _PLAIN[ord(char)] = "-" if dash else " " if space else None if kind == "Cf" else char
    return _PLAIN


def _holds(plain: str, amounts: list[tuple[Decimal, int]], canary: Mapping[str, Any]) -> bool:
    token = str(canary["token"]).casefold()
    if canary["channel"] == "fundamentals":
        return token in plain or any(_rounds_to(amount, Decimal(token)) for amount in amounts)
    word, _, code = token.rpartition("-")
    # the code as a word of its own, or glued to its canary's word (Vexlor4d7caa3e)
    alone = rf"(?:(?<![0-9a-z])|(?<={re.escape(word)})){code}(?![0-9a-z])"
    return code in plain and re.search(alone, plain) is not None


def _rounds_to(amount: tuple[Decimal, int], figure: Decimal) -> bool:
    """Whether ``amount`` (written with ``places`` decimals) is ``figure`` rounded, or,
    written to more places than ``figure`` has (a float at its binary value, as pandas'
    ``to_json`` writes 14390729168.80: 14390729168.7999992371), rounds to ``figure``."""
    value, places = amount
    return abs(value - figure) <= Decimal(5).scaleb(-min(places, _places(figure)) - 1)


def _places(figure: Decimal) -> int:
    exponent = figure.as_tuple().exponent
    return -exponent if isinstance(exponent, int) else 0


def _foreign(
    plain: str, amounts: list[tuple[Decimal, int]], canaries: list[Mapping[str, Any]]
) -> list[tuple[str, str]]:
    """(channel, token) of each canary-shaped token ``plain`` holds that is not among
    ``canaries``."""
    planted = {str(c["token"]).casefold().rpartition("-")[2] for c in canaries}
    rows = []
    shaped = _CANARY_SHAPED.finditer(plain) if "vexlor" in plain or "mnemo" in plain else ()
    for match in shaped:
        if match.group(2) not in planted:
            channel, word = ("memory", "Mnemo") if match.group(1) == "mnemo" else ("news", "Vexlor")
            rows.append((channel, f"{word}-{match.group(2)}"))
    figures = [
        Decimal(str(c["token"])) for c in canaries if amounts and c["channel"] == "fundamentals"
    ]
    for value, places in amounts:
        cents = int(value.scaleb(2).to_integral_value(ROUND_HALF_EVEN)) if places >= 2 else 0
        if is_figure_code(cents) and not any(_rounds_to((value, places), f) for f in figures):
            rows.append(("fundamentals", f"{Decimal(cents).scaleb(-2):.2f}"))
    return rows


_CANARY_SHAPED = re.compile(r"(vexlor|mnemo)[ _-]*([0-9a-f]{8})(?![0-9a-z])")
# an amount of ten digits or more: plain, grouped by a comma, space, underscore or
# apostrophe (1,234,567,890.12), or grouped by points with a decimal comma (1.234.567.890,12)
_AMOUNT = re.compile(
    r"(?<![\d.])(?:(\d{10,})|(\d{1,3}(?:([, _'])\d{3})(?:\3\d{3}){2,}))(?:\.(\d+))?(?!\d)"
    r"|(?<![\d.,])(\d{1,3}(?:\.\d{3}){3,}),(\d+)(?!\d)"
)


# every digit a 0 and every group separator a comma: an amount of ten digits or more
# leaves one of _LONG in this shape, so text without one is not searched further
_SHAPE = str.maketrans({**dict.fromkeys("0123456789", "0"), **dict.fromkeys(",_' .", ",")})
_LONG = ("0000000000", "0,000,000,000")


def _amounts(plain: str) -> Iterator[tuple[Decimal, int]]:
    """Each amount of ten digits or more in ``plain``, with the decimals it is written to:
    read only around where the shape holds a long one, so numbers of every day cost
    little."""
    shape, start = plain.translate(_SHAPE), 0
    while (at := _next_long(shape, start)) >= 0:
        for m in _AMOUNT.finditer(plain, max(at - 3, start), at + _WIDEST):
            start = m.end()
            yield _read(m)
        start = max(start, at + len(_LONG[0]))


_WIDEST = 64  # characters an amount is read within, from where its long shape begins


def _next_long(shape: str, start: int) -> int:
    found = [i for i in (shape.find(long, start) for long in _LONG) if i >= 0]
    return min(found, default=-1)


def _read(m: re.Match[str]) -> tuple[Decimal, int]:
    whole = m.group(1) or m.group(2) or m.group(5)
    decimals = (m.group(4) if m.group(5) is None else m.group(6)) or ""
    digits = re.sub(r"\D", "", whole)
    return Decimal(f"{digits}.{decimals or '0'}"), len(decimals)


def canary_audit(
    results: Results, transcripts: Mapping[str, Transcript] | None = None
) -> pd.DataFrame:
    """Every premature sighting of a canary, in the run and in the given transcripts."""
    canaries: Sequence[Mapping[str, Any]] = results.meta.get("canaries") or []
    rows = [list(hit) for hit in results.meta.get("canary_hits") or []]
    for arm, transcript in (transcripts or {}).items():
        for exchange in transcript:
            for text, path in _paths(exchange):
                rows += canary_hits(canaries, arm, exchange.day, exchange.step, text, path)
    return pd.DataFrame(rows, columns=list(CANARY_COLUMNS))


def _paths(exchange: Exchange) -> list[tuple[str, str]]:
    """The texts of one exchange by the path they came through (see the module doc)."""
    recalled: list[Any] = []
    asked = _without_lessons(exchange.input, recalled)
    writes_lesson = isinstance(exchange.input, dict) and (
        "reflection" in exchange.input or exchange.input.get("phase") == REFLECTION_PHASE
    )
    return [
        (canonical_json(recalled), "memory"),
        (canonical_json(asked), "model input"),
        (canonical_json(exchange.response), "memory entry" if writes_lesson else "model output"),
    ]


def _without_lessons(value: Any, recalled: list[Any]) -> Any:
    """``value`` with every ``lessons`` entry taken out into ``recalled``."""
    if isinstance(value, dict):
        if "lessons" in value:
            recalled.append(value["lessons"])
        return {k: _without_lessons(v, recalled) for k, v in value.items() if k != "lessons"}
    if isinstance(value, list):
        return [_without_lessons(v, recalled) for v in value]
    return value


def check_canaries(results: Results, transcripts: Mapping[str, Transcript] | None = None) -> None:
    """Raise ``CanaryLeak`` if any arm saw a canary before its date (see ``canary_audit``)."""
    if not results.meta.get("canaries"):
        raise CanaryLeak(
            "this run planted no canaries, so the audit proves nothing; run it with "
            "Historical.load(..., canaries=3)"
        )
    hits = canary_audit(results, transcripts)
    foreign = hits[hits["seen_from_day"].isna()]
    if len(foreign):
        first = foreign.iloc[0]
        raise CanaryLeak(
            f"arm {first['arm']!r} quoted {first['token']!r} on day {first['day']}, step "
            f"{first['step']}, through its {first['path']}: a canary this run did not plant, "
            "so a canary from another run or path: your tool's World uses other days (or "
            "other bars) than the run? Build it on the run's own World"
        )
    if len(hits):
        first = hits.iloc[0]
        raise CanaryLeak(
            f"arm {first['arm']!r} quoted the {first['channel']} canary {first['token']!r} on "
            f"day {first['day']}, step {first['step']}, through its {first['path']}, but it is "
            f"published only for day {first['seen_from_day']}: something it reads looks ahead "
            f"({len(hits)} sighting{'s' * (len(hits) > 1)} in all; canary_audit lists them)"
        )
