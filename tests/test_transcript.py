"""Transcripts: canonical bytes, atomic saves, journals, corrupt files, and replay checks."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from workbench._jsonio import canonical_json, digest
from workbench.agents import DecisionRequest, PresetStamp
from workbench.engine.presets import preset
from workbench.errors import ConfigError, RecordingError, ReplayMiss
from workbench.integrations._replay import UnstampedRecordingWarning
from workbench.integrations.common import (
    PRESET_VECTOR_KEY,
    preset_of,
    refuse_a_changed_preset,
    replay_response,
    stamp_artefact,
    stamp_preset,
)
from workbench.transcript import Transcript

STAMP = PresetStamp("standard-v1", {"market_vol": 0.16, "spread_bps": 4.0})
FIXED_META = {"recorded_utc": "2026-01-01T00:00:00Z"}


def _filled(meta: dict | None = None) -> Transcript:
    transcript = Transcript({**FIXED_META, **(meta or {})})
    for step in range(3):
        sent = {"day": 0, "step": step, "px": 100.0 + step / 3}
        answer = {"actions": [], "rationale": f"s{step}"}
        transcript.add(digest(sent), sent, answer, day=0, step=step)
    return transcript


# --- canonical JSON and digest ---------------------------------------------------------
def test_canonical_json_sorts_keys_and_writes_floats_by_repr() -> None:
    text = canonical_json({"b": 0.1 + 0.2, "a": [1, 2.5, "é"], "c": {"z": 1, "y": None}})
    assert text == '{"a":[1,2.5,"é"],"b":0.30000000000000004,"c":{"y":null,"z":1}}'


def test_digest_ignores_key_order_and_is_sha256_of_the_canonical_text() -> None:
    one, two = {"x": 1.5, "y": [1, 2]}, {"y": [1, 2], "x": 1.5}
    assert digest(one) == digest(two)
    assert digest(one) == hashlib.sha256(canonical_json(one).encode()).hexdigest()
    assert digest({"x": 1.5}) != digest({"x": 1.5000000000000002})


def test_canonical_json_takes_numpy_scalars_and_refuses_nan() -> None:
    assert canonical_json({"n": np.float64(2.5), "i": np.int64(3)}) == '{"i":3,"n":2.5}'
    with pytest.raises(ConfigError, match="NaN"):
        canonical_json({"x": float("nan")})
    with pytest.raises(ConfigError, match="object"):
        canonical_json({"x": object()})


# --- save, load, bytes -------------------------------------------------------------------
def test_save_is_byte_stable_and_round_trips(tmp_path: Path) -> None:
    first = _filled().save(tmp_path / "a.json")
    again = Transcript.load(first).save(tmp_path / "b.json")
    assert first.read_bytes() == again.read_bytes()
    assert b"\r" not in first.read_bytes() and first.read_bytes().endswith(b"\n")
    loaded = Transcript.load(first)
    assert [e.response for e in loaded] == [e.response for e in _filled()]
    assert loaded.meta["recorded_utc"] == "2026-01-01T00:00:00Z"


def test_save_is_atomic_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    path = _filled().save(tmp_path / "t.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
    assert path.stat().st_mode & 0o777 == 0o644


def test_save_stamps_recorded_utc_and_the_schemas_but_never_guesses_a_preset(monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "86400")
    meta = stamp_artefact({})
    assert meta["recorded_utc"] == "1970-01-02T00:00:00Z"
    assert "model_preset" not in meta  # the market is stamped by what ran it, or by none
    assert meta["observation_schema_version"] == "2" and meta["decision_schema_version"] == "2"


def test_a_transcript_naming_no_preset_keeps_naming_none_when_saved_and_replays_on_its_market(
    tmp_path: Path,
) -> None:
    from workbench import evaluate
    from workbench.integrations import callable_agent
    from workbench.integrations._replay import UnstampedRecordingWarning
    from workbench.testing.scripted import trend_agent

    market = {"seed": 3, "universe": 4, "days": 2, "preset": "standard-v2"}
    recorded = evaluate([trend_agent(mode="record", recorder=tmp_path / "t.json")], **market)
    old = Transcript.load(tmp_path / "t.json")
    del old.meta["model_preset"], old.meta["model_preset_vector"]  # as a release before stamps
    old.content_digest()
    assert "model_preset" not in old.meta
    old.save(tmp_path / "old.json")
    again = callable_agent(None, name="trend", mode="replay", transcript=tmp_path / "old.json")
    with pytest.warns(UnstampedRecordingWarning, match="names no model preset"):
        replayed = evaluate([again], **market)
    assert replayed.digest() == recorded.digest()


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # truncated mid-file
        lambda text: text.replace('"exchanges":[', '"exchanges":[[', 1),  # corrupt
        lambda text: "",  # empty
    ],
)
def test_a_damaged_transcript_names_the_file(tmp_path: Path, damage) -> None:
    path = _filled().save(tmp_path / "damaged.json")
    path.write_text(damage(path.read_text()))
    with pytest.raises(RecordingError, match=r"damaged\.json") as caught:
        Transcript.load(path)
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_a_missing_or_foreign_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="not found"):
        Transcript.load(tmp_path / "nope.json")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(RecordingError, match="not a workbench transcript"):
        Transcript.load(tmp_path / "other.json")


# --- journal: nothing lost when the process dies ------------------------------------------
def test_a_journal_holds_every_exchange_even_if_never_closed(tmp_path: Path) -> None:
    transcript = Transcript(FIXED_META)
    journal = transcript.journal(tmp_path / "run.journal")
    for step in range(4):
        transcript.add(f"k{step}", {"s": step}, {"r": step}, day=1, step=step)
    resumed = Transcript.load(journal)  # read while the writer is still open
    assert [e.key for e in resumed] == ["k0", "k1", "k2", "k3"]
    assert resumed.meta["recorded_utc"] == FIXED_META["recorded_utc"]
    transcript.close_journal()


def test_a_journal_cut_mid_line_drops_only_that_line_with_a_warning(tmp_path: Path) -> None:
    transcript = Transcript()
    journal = transcript.journal(tmp_path / "run.journal")
    for step in range(3):
        transcript.add(f"k{step}", {"s": step}, {"r": step}, day=0, step=step)
    transcript.close_journal()
    journal.write_text(journal.read_text()[:-10])
    with pytest.warns(UserWarning, match="unfinished line"):
        resumed = Transcript.load(journal)
    assert [e.key for e in resumed] == ["k0", "k1"]


def test_a_journal_corrupt_in_the_middle_names_file_and_line(tmp_path: Path) -> None:
    transcript = Transcript()
    journal = transcript.journal(tmp_path / "bad.journal")
    for step in range(3):
        transcript.add(f"k{step}", {"s": step}, {"r": step}, day=0, step=step)
    transcript.close_journal()
    lines = journal.read_text().split("\n")
    lines[3] = lines[3][:5]
    journal.write_text("\n".join(lines))
    with pytest.raises(RecordingError, match=r"bad.journal is corrupt at line 4"):
        Transcript.load(journal)


# --- replay_response: the order of checks -----------------------------------------------
def _stamped() -> Transcript:
    transcript = _filled()
    stamp_preset(transcript, STAMP)
    return transcript


def test_replay_response_returns_the_recorded_answer() -> None:
    sent = {"day": 0, "step": 1, "px": 100.0 + 1 / 3}
    answer = replay_response(_stamped(), digest(sent), step=1, day=0, preset=STAMP)
    assert answer == {"actions": [], "rationale": "s1"}


def test_schema_version_mismatch_stops_before_the_first_lookup() -> None:
    transcript = _stamped()
    transcript.meta["observation_schema_version"] = "0"
    with pytest.raises(ReplayMiss, match=r"observation schema version '0'.*version '1'"):
        replay_response(transcript, "not-a-recorded-key", step=0, day=0, preset=STAMP)


def test_a_different_preset_name_is_named_with_the_fix() -> None:
    other = PresetStamp("calm-v1", STAMP.vector)
    with pytest.raises(ReplayMiss) as caught:
        replay_response(_stamped(), "missing", step=0, day=0, preset=other)
    message = str(caught.value)
    assert "'standard-v1'" in message and "'calm-v1'" in message
    assert "evaluate(..., preset='standard-v1')" in message and "record the run again" in message


def test_the_same_name_with_moved_dials_lists_the_dials() -> None:
    moved = PresetStamp("standard-v1", {**STAMP.vector, "spread_bps": 5.0})
    with pytest.raises(ReplayMiss, match=r"spread_bps 4\.0 -> 5\.0") as caught:
        replay_response(_stamped(), "missing", step=0, day=0, preset=moved)
    assert "market_vol" not in str(caught.value)


def test_a_missing_digest_names_the_day_and_step() -> None:
    with pytest.raises(ReplayMiss, match="day 4, step 2"):
        replay_response(_stamped(), "f" * 64, step=2, day=4, preset=STAMP)


def test_a_recording_without_a_preset_warns_and_goes_on() -> None:
    transcript = _filled()
    sent = {"day": 0, "step": 0, "px": 100.0}
    with pytest.warns(UnstampedRecordingWarning, match="names no model preset"):
        answer = replay_response(transcript, digest(sent), step=0, day=0, preset=STAMP)
    assert answer["rationale"] == "s0"


# --- preset helpers ---------------------------------------------------------------------
def test_preset_of_reads_requests_stamps_presets_and_mappings() -> None:
    request = DecisionRequest("a", 0, 0, 0, {}, STAMP)
    assert preset_of(request) is STAMP and preset_of(STAMP) is STAMP and preset_of(None) is None
    engine = preset_of(preset("calm-v1"))
    assert engine is not None and engine.name == "calm-v1" and engine.vector["market_vol"] == 0.1
    meta = {"model_preset": "x", PRESET_VECTOR_KEY: {"d": 1}}
    assert preset_of(meta) == PresetStamp("x", {"d": 1.0})


def test_stamp_preset_writes_once_and_refuses_another_market() -> None:
    recorder = Transcript()
    stamp_preset(recorder, STAMP)
    assert recorder.meta["model_preset"] == "standard-v1"
    assert recorder.meta[PRESET_VECTOR_KEY] == STAMP.vector
    stamp_preset(recorder, STAMP)  # same market: fine
    with pytest.raises(ReplayMiss, match="calm-v1"):
        stamp_preset(recorder, PresetStamp("calm-v1", {}))
    refuse_a_changed_preset(recorder, None)  # nothing to compare: no error


# --- bytes are the same in another process ----------------------------------------------
_SCRIPT = textwrap.dedent(
    """
    import hashlib, sys
    from workbench._jsonio import digest
    from workbench.transcript import Transcript
    t = Transcript({"recorded_utc": "2026-01-01T00:00:00Z", "arm": "é"})
    for step in range(50):
        px = [step / 7, 1e-300 * step, -0.0, 12345678.9]
        sent = {"step": step, "px": px, "n": {"b": 1, "a": 2}}
        t.add(digest(sent), sent, {"q": step / 3}, day=step // 6, step=step % 6)
    sys.stdout.write(hashlib.sha256(t.to_json().encode()).hexdigest())
    """
)


@pytest.mark.slow
def test_transcript_bytes_are_identical_across_processes() -> None:
    seen = set()
    for hash_seed in ("0", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, check=True
        )
        seen.add(out.stdout)
    namespace: dict = {}
    local = _SCRIPT.replace("sys.stdout.write(", "RESULT = (")
    exec(compile(local, "<transcript-script>", "exec"), namespace)
    seen.add(namespace["RESULT"])
    assert len(seen) == 1


def test_the_saved_text_is_valid_json_with_one_exchange_per_line(tmp_path: Path) -> None:
    text = _filled().save(tmp_path / "t.json").read_text()
    data = json.loads(text)
    assert data["format"] == "workbench-transcript" and len(data["exchanges"]) == 3
    assert len(text.splitlines()) == 3 + 2
