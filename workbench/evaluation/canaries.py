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
``check_canaries`` raises ``CanaryLeak`` naming the arm, day, step, channel and
path of the first hit; a test over a run or its transcripts makes a look-ahead
bug a failing test.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from workbench._jsonio import canonical_json
from workbench.errors import CanaryLeak
from workbench.evaluation.results import Results
from workbench.memory.reflection import REFLECTION_PHASE
from workbench.transcript import Exchange, Transcript

CANARY_COLUMNS = ("arm", "day", "step", "channel", "path", "token", "seen_from_day")


def canary_hits(
    canaries: Iterable[Mapping[str, Any]], arm: str, day: int, step: int, text: str, path: str
) -> list[list[Any]]:
    """A row (CANARY_COLUMNS) for each canary ``text`` holds before its day, in any case
    (a tool that lower-cases what it quotes is caught too), and one for each canary-shaped
    token this run did not plant (``seen_from_day`` None): a canary of another run or of
    another path, which only a tool that reads outside the run's feed can have found."""
    canaries = list(canaries)
    folded = text.casefold()
    rows = [
        [arm, day, step, c["channel"], path, c["token"], c["day"]]
        for c in canaries
        if day < c["day"] and c["token"].casefold() in folded
    ]
    planted = {str(c["token"]).casefold() for c in canaries}
    for match in _CANARY_SHAPED.finditer(text):
        if match.group(0).casefold() not in planted:
            channel = "memory" if match.group(1).casefold() == "mnemo" else "news"
            rows.append([arm, day, step, channel, path, match.group(0), None])
    return rows


_CANARY_SHAPED = re.compile(r"\b(Vexlor|Mnemo)-[0-9a-f]{8}\b", re.IGNORECASE)


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
