"""Tamper evidence: an exchange edited by hand is refused as edited, naming it, on every
replay path (a replay, a resumed run, a recording folder), and is never taken for a miss."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from workbench.errors import RecordingError, ReplayMiss, TranscriptEdited
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent
from workbench.recordings import replay
from workbench.transcript import Transcript, UnsealedTranscriptWarning

MARKET: dict[str, Any] = {"seed": 3, "universe": 4, "days": 2}
SHIPPED = Path(__file__).resolve().parents[1] / "recordings" / "callable-async-contrarian"


def trader(payload: dict[str, Any]) -> dict[str, Any]:
    symbol = sorted(payload["symbols"])[0]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 3.0}], "rationale": "one"}


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    evaluate([callable_agent(trader, every=3, mode="record", recorder=path)], **MARKET)
    return path


def _edit_last(path: Path, change: Callable[[dict[str, Any]], None]) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    last = max(i for i, line in enumerate(lines) if line.startswith('{"day"'))
    exchange = json.loads(lines[last].rstrip(","))
    change(exchange)
    comma = "," if lines[last].endswith(",") else ""
    lines[last] = json.dumps(exchange, sort_keys=True, separators=(",", ":")) + comma
    path.write_text("\n".join(lines), encoding="utf-8")


def _replay(path: Path) -> Any:
    arm = CallableAgentAdapter(None, name="trader", every=3, mode="replay", transcript=path)
    return evaluate([arm], **MARKET)


EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "response": lambda e: e["response"]["actions"][0].update(quantity=300.0),
    "rationale": lambda e: e["response"].update(rationale="edited"),
    "input": lambda e: e["input"]["portfolio"].update(cash=1.0),
    "usage": lambda e: e["usage"].update(model_calls=0),
    "error": lambda e: e.update(error={"type": "x:Y", "base": "DecisionError", "message": "m"}),
}


@pytest.mark.parametrize("part", sorted(EDITS))
@pytest.mark.slow
def test_an_edited_exchange_is_named_when_replayed(recorded: Path, part: str) -> None:
    _edit_last(recorded, EDITS[part])
    with pytest.raises(TranscriptEdited) as edited:
        _replay(recorded)
    message = str(edited.value)
    assert "was edited after it was recorded" in message and "day 1, step 3" in message
    assert ("question" if part == "input" else "answer") in message
    assert not isinstance(edited.value, ReplayMiss)


def test_an_unedited_transcript_replays_and_a_removed_digest_is_an_edit(recorded: Path) -> None:
    assert _replay(recorded).errors.empty
    _edit_last(recorded, lambda e: e.pop("sha256"))
    with pytest.raises(TranscriptEdited, match="has no sha256 digests"):
        Transcript.load(recorded)


def test_a_resume_from_an_edited_journal_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "run.json.journal"
    recording = Transcript()
    recording.journal(journal)
    recording.add("k1", {"q": 1}, {"actions": []}, day=0, step=0)
    lines = journal.read_text().splitlines()
    lines[-1] = lines[-1].replace('"actions":[]', '"actions":[],"rationale":"x"')
    journal.write_text("\n".join(lines) + "\n")
    with pytest.raises(TranscriptEdited, match="was edited"):
        callable_agent(trader, mode="record", recorder=tmp_path / "run.json", prior=journal)


def test_an_edited_transcript_in_a_recording_folder_is_named(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(SHIPPED, tmp_path / "rec"))
    _edit_last(folder / "transcripts" / "contrarian.json", EDITS["rationale"])
    with pytest.raises(TranscriptEdited, match=r"contrarian\.json"):
        replay(folder)


def _unsealed(path: Path, edit: Callable[[dict[str, Any]], None] | None = None) -> Path:
    """``path`` set back to format 1 with its seals stripped (and, given ``edit``, its last
    answer edited): what a hand edit that also hides its tracks leaves."""
    data = json.loads(path.read_text())
    data["version"] = 1
    for exchange in data["exchanges"]:
        exchange.pop("sha256")
    if edit is not None:
        edit(data["exchanges"][-1])
    path.write_text(json.dumps(data))
    return path


def test_an_unsealed_transcript_with_an_edited_answer_is_refused_on_a_direct_replay(
    recorded: Path,
) -> None:
    honest = _replay(recorded)
    _unsealed(recorded, EDITS["response"])
    with pytest.raises(RecordingError, match=r"accept_unsealed=True") as caught:
        _replay(recorded)
    assert "format version 1" in str(caught.value) and str(recorded) in str(caught.value)
    with pytest.raises(RecordingError, match="an edited answer in it would replay"):
        Transcript.load(recorded)
    assert honest.scorecard.loc["trader", "trades"] > 0


def test_an_unsealed_transcript_loads_only_when_accepted_and_saving_seals_it(
    recorded: Path,
) -> None:
    _unsealed(recorded)
    with pytest.warns(UnsealedTranscriptWarning, match="record it again to seal it"):
        old = Transcript.load(recorded, accept_unsealed=True)
    assert len(old) == 4
    old.save(recorded)
    assert json.loads(recorded.read_text())["version"] == 2
    _edit_last(recorded, EDITS["response"])
    with pytest.raises(TranscriptEdited, match="was edited"):
        Transcript.load(recorded)


def test_an_unsealed_journal_is_refused_unless_accepted(recorded: Path, tmp_path: Path) -> None:
    text = Transcript.load(recorded)
    lines = ['{"format":"workbench-journal","version":1}', json.dumps({"meta": text.meta})]
    for exchange in text.exchanges:
        item = exchange.to_json()
        item.pop("sha256")
        lines.append(json.dumps({"exchange": item}))
    unsealed = tmp_path / "old.jsonl"
    unsealed.write_text("\n".join(lines) + "\n")
    with pytest.raises(RecordingError, match=r"journal .*old\.jsonl.*accept_unsealed=True"):
        Transcript.load(unsealed)
    with pytest.warns(UnsealedTranscriptWarning):
        assert len(Transcript.load(unsealed, accept_unsealed=True)) == len(text)


def test_an_unsealed_transcript_in_a_recording_folder_is_refused_naming_it(
    tmp_path: Path,
) -> None:
    folder = Path(shutil.copytree(SHIPPED, tmp_path / "rec"))
    _unsealed(folder / "transcripts" / "contrarian.json")
    with pytest.raises(
        RecordingError, match=r"contrarian\.json was written before .*accept_unsealed"
    ):
        replay(folder)


def test_an_unknown_format_version_is_refused(recorded: Path) -> None:
    data = json.loads(recorded.read_text())
    data["version"] = 3
    recorded.write_text(json.dumps(data))
    with pytest.raises(RecordingError, match="format version 3"):
        Transcript.load(recorded)


def test_a_transcript_nested_too_deep_is_a_recording_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(RecordingError, match="nested too deeply"):
        Transcript.load(path)
