"""A transcript's seals are checked once per text: loading the same bytes again parses
them again without re-checking, and any edit makes other bytes, checked in full."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.errors import TranscriptEdited
from workbench.evaluation import evaluate
from workbench.integrations import callable_agent
from workbench.transcript import Exchange, Transcript


def trader(payload: dict[str, Any]) -> dict[str, Any]:
    symbol = sorted(payload["symbols"])[0]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 2.0}], "rationale": "r"}


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    evaluate([callable_agent(trader, mode="record", recorder=path)], seed=5, universe=3, days=3)
    return path


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    checks: list[int] = []
    original = Exchange.refuse_an_edit

    def counted(self: Exchange, data: Any, source: str) -> None:
        checks.append(1)
        original(self, data, source)

    monkeypatch.setattr(Exchange, "refuse_an_edit", counted)
    return checks


def test_the_same_bytes_are_checked_once(recorded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checks = _counting(monkeypatch)
    first = Transcript.load(recorded)
    checked = len(checks)
    second = Transcript.load(recorded)
    assert checked == len(first) > 0
    assert len(checks) == checked  # not checked again
    assert [e.to_json() for e in second] == [e.to_json() for e in first]


def test_an_edit_after_a_load_is_still_refused(recorded: Path) -> None:
    Transcript.load(recorded)
    data = json.loads(recorded.read_text(encoding="utf-8"))
    data["exchanges"][-1]["response"]["rationale"] = "edited"
    recorded.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TranscriptEdited, match="edited after it was recorded"):
        Transcript.load(recorded)
