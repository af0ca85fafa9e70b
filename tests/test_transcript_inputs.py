"""A saved transcript's inputs are kept as their text at load and read on first use:
the same exchanges, values and seals as a load that parses every input, and every
edit refused as before."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from workbench._jsonio import digest, read_json
from workbench.errors import RecordingError, TranscriptEdited
from workbench.evaluation import evaluate
from workbench.integrations import callable_agent
from workbench.transcript import Exchange, Transcript

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"
SAVED = sorted(RECORDINGS.glob("*/transcripts/*.json"))


def trader(payload: dict[str, Any]) -> dict[str, Any]:
    symbol = sorted(payload["symbols"])[0]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 2.0}], "rationale": "r"}


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    path = tmp_path / "t.json"
    evaluate([callable_agent(trader, mode="record", recorder=path)], seed=5, universe=3, days=3)
    return path


def _parsed_whole(text: str) -> dict[str, Exchange]:
    return {e.key: e for e in map(Exchange.from_json, read_json(text)["exchanges"])}


@pytest.mark.parametrize("path", SAVED, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_every_recording_loads_the_exchanges_a_whole_parse_gives(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    loaded = Transcript.from_json(text)
    whole = _parsed_whole(text)
    assert sorted(e.key for e in loaded) == sorted(whole)
    for exchange in loaded:
        expected = whole[exchange.key]
        assert exchange.sealed == expected.sealed  # before its input is read
        assert exchange.input == expected.input
        assert exchange == expected and expected == exchange
        assert exchange.to_json() == expected.to_json()
    assert loaded.to_json() == text


def test_a_loaded_transcript_saves_to_the_same_bytes(recorded: Path, tmp_path: Path) -> None:
    again = Transcript.load(recorded).save(tmp_path / "again.json")
    assert again.read_bytes() == recorded.read_bytes()


def test_an_exchange_read_later_copies_pickles_and_replaces_as_a_plain_one(
    recorded: Path,
) -> None:
    exchange = next(iter(Transcript.load(recorded)))
    plain = Exchange.from_json(exchange.to_json())
    assert pickle.loads(pickle.dumps(exchange)) == plain
    assert copy.deepcopy(exchange) == plain
    replaced = dataclasses.replace(exchange, day=exchange.day + 1)
    assert replaced.input == plain.input and replaced.day == plain.day + 1
    assert replaced.sealed == dataclasses.replace(plain, day=plain.day + 1).sealed
    with pytest.raises(AttributeError):
        exchange.no_such_field  # noqa: B018


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")


def _first_input(line: str) -> tuple[int, int]:
    start = line.index(',"input":') + len(',"input":')
    return start, line.index(',"key":"', start)


def test_an_edited_input_is_refused(recorded: Path) -> None:
    lines = _lines(recorded)
    lines[1] = lines[1].replace('"cash":', '"cash":1', 1)  # its key no longer its digest
    recorded.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(TranscriptEdited, match="question"):
        Transcript.load(recorded)


def test_an_input_edited_with_its_key_is_refused_by_its_seal(recorded: Path) -> None:
    _edited_in_place(recorded, '"cash":', '"cash":1', rekey=True)
    with pytest.raises(TranscriptEdited, match="question"):
        Transcript.load(recorded)


def test_a_damaged_saved_transcript_names_the_whole_text_position(recorded: Path) -> None:
    text = recorded.read_text(encoding="utf-8")
    damaged = text.replace('"rationale":"r"', '"rationale":r"', 1)
    assert damaged != text
    recorded.write_text(damaged, encoding="utf-8")
    with pytest.raises(json.JSONDecodeError) as whole:
        json.loads(damaged)
    where = f"line {whole.value.lineno}, column {whole.value.colno}"
    with pytest.raises(RecordingError, match=f"corrupt or truncated .*{where}"):
        Transcript.load(recorded)


def test_a_line_whose_key_is_not_its_inputs_digest_is_read_whole(recorded: Path) -> None:
    lines = _lines(recorded)
    start, _ = _first_input(lines[1])
    spaced = lines[1][:start] + " " + lines[1][start:]  # the same value, other text
    recorded.write_text("\n".join([lines[0], spaced, *lines[2:]]), encoding="utf-8")
    loaded = Transcript.load(recorded)
    assert {e.key: e for e in loaded} == _parsed_whole(recorded.read_text(encoding="utf-8"))


def _edited_in_place(path: Path, old: str, new: str, *, rekey: bool) -> None:
    """``old`` -> ``new`` in the first exchange's input (its key made its digest again if
    ``rekey``), every other byte as it was."""
    lines = _lines(path)
    start, end = _first_input(lines[1])
    edited = lines[1][start:end].replace(old, new, 1)
    assert edited != lines[1][start:end]
    line = lines[1][:start] + edited + lines[1][end:]
    if rekey:
        old_key = lines[1][end + len(',"key":"') :][:64]
        line = line.replace(old_key, hashlib.sha256(edited.encode()).hexdigest())
    path.write_text("\n".join([lines[0], line, *lines[2:]]), encoding="utf-8")


@pytest.mark.parametrize("rekey", [False, True])
def test_an_input_edited_after_a_load_is_refused(recorded: Path, rekey: bool) -> None:
    Transcript.load(recorded)  # its seals checked, its text known
    _edited_in_place(recorded, '"cash":', '"cash":1', rekey=rekey)
    with pytest.raises(TranscriptEdited, match="question"):
        Transcript.load(recorded)


def test_an_answer_edited_after_a_load_is_refused(recorded: Path) -> None:
    Transcript.load(recorded)
    text = recorded.read_text(encoding="utf-8")
    recorded.write_text(text.replace('"rationale":"r"', '"rationale":"s"', 1), encoding="utf-8")
    with pytest.raises(TranscriptEdited, match="answer"):
        Transcript.load(recorded)


@pytest.mark.parametrize("path", SAVED, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_every_recording_loads_from_its_file_as_from_its_text(path: Path) -> None:
    from_file = {e.key: e for e in Transcript.load(path)}
    from_text = {e.key: e for e in Transcript.from_json(path.read_text(encoding="utf-8"))}
    assert from_file == from_text
    assert all(from_file[key].sealed == from_text[key].sealed for key in from_file)


def _with_words(path: Path) -> Transcript:
    """A saved transcript whose one input holds text beyond ASCII, keyed by its digest."""
    question = {"headline": "Société Générale — 5 € 株", "day": 0}
    transcript = Transcript()
    transcript.add(digest(question), question, {"actions": [], "rationale": "é"}, day=0, step=0)
    transcript.save(path)
    return transcript


def test_an_input_beyond_ascii_is_read_and_checked_as_written(tmp_path: Path) -> None:
    saved = _with_words(tmp_path / "t.json")
    (loaded,) = Transcript.load(tmp_path / "t.json")
    (exchange,) = saved
    assert loaded.sealed == exchange.sealed
    assert loaded.input == exchange.input and loaded == exchange
    _edited_in_place(tmp_path / "t.json", "Générale", "Generale", rekey=True)
    with pytest.raises(TranscriptEdited, match="question"):
        Transcript.load(tmp_path / "t.json")


def test_a_file_with_windows_line_ends_loads_the_same_exchanges(recorded: Path) -> None:
    expected = {e.key: e for e in Transcript.load(recorded)}
    recorded.write_bytes(recorded.read_bytes().replace(b"\n", b"\r\n"))
    assert {e.key: e for e in Transcript.load(recorded)} == expected


def test_a_file_that_is_not_utf8_is_refused_naming_it(recorded: Path) -> None:
    raw = recorded.read_bytes()
    recorded.write_bytes(raw.replace(b'"rationale":"r"', b'"rationale":"\xff"', 1))
    with pytest.raises(RecordingError, match=f"cannot read transcript file {recorded}"):
        Transcript.load(recorded)
