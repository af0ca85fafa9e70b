"""Recordings as regression tests: record, replay, every changed cause named, damaged files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.engine import presets
from workbench.errors import RecordingError, ReplayMiss, RunError
from workbench.recordings import find_recordings, record, replay
from workbench.testing import scripted

ARMS = [
    "workbench.testing.scripted:trend_agent",
    "workbench.testing.scripted:contrarian_agent",
    "momentum",
]
MARKET: dict[str, Any] = {"seed": 4, "universe": 5, "days": 3}
SHIPPED = Path(__file__).resolve().parent.parent / "recordings"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("made") / "small"
    record(folder, ARMS, **MARKET)
    return folder


@pytest.fixture
def recording(made: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(made, tmp_path / "small"))


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_recording_holds_manifest_transcripts_and_expected_results(recording: Path) -> None:
    names = sorted(p.relative_to(recording).as_posix() for p in recording.rglob("*.json"))
    assert names == [
        "expected_results.json",
        "manifest.json",
        "transcripts/contrarian.json",
        "transcripts/trend.json",
    ]
    manifest = json.loads((recording / "manifest.json").read_text())
    assert [arm["name"] for arm in manifest["roster"]] == ["trend", "contrarian", "momentum"]
    assert manifest["seed"] == 4 and manifest["universe"] == 5 and manifest["days"] == 3
    assert manifest["steps_per_day"] == 6 and manifest["preset"]["name"] == "standard-v4"
    assert manifest["observation_schema_version"] == "2"
    assert len(manifest["expected"]["digest"]) == 64 and len(manifest["expected"]["scorecard"]) == 3


def test_replay_matches_the_recording(recording: Path) -> None:
    report = replay(recording)
    assert report.matched and report.differences == []
    assert report.results.scorecard.loc["trend", "model_calls"] == 3


def test_recording_twice_refuses_to_overwrite_silently(recording: Path) -> None:
    with pytest.raises(Exception, match="overwrite=True"):
        record(recording, ARMS, **MARKET)


# --- every changed cause fails before the market opens (or at its step), named ------------
def test_a_changed_seed_is_named(recording: Path) -> None:
    with pytest.raises(ReplayMiss, match="seed 4, but this run has seed 5"):
        replay(recording, seed=5)


def test_a_changed_cadence_is_named(recording: Path) -> None:
    with pytest.raises(ReplayMiss, match="steps_per_day 6, but this run has steps_per_day 4"):
        replay(recording, steps_per_day=4)


def test_a_changed_decision_cadence_of_an_arm_is_named(recording: Path) -> None:
    def finer(manifest: dict[str, Any]) -> None:
        manifest["roster"][0]["every"] = "step"

    _edit(recording / "manifest.json", finer)
    with pytest.raises(ReplayMiss, match="every 'day', but this run has every 'step'"):
        replay(recording)


def test_the_margin_rule_is_recorded_and_a_changed_one_is_named(recording: Path) -> None:
    manifest = json.loads((recording / "manifest.json").read_text())
    assert manifest["options"] == {"leverage_cap": 2.0, "maintenance_multiple": 3.0}
    _edit(recording / "manifest.json", lambda m: m["options"].update(maintenance_multiple=2.5))
    report = replay(recording, check=False)
    assert "experiment maintenance_multiple: recorded 3.0, replayed 2.5" in report.differences


def test_a_changed_roster_is_named(recording: Path) -> None:
    _edit(recording / "manifest.json", lambda m: m["roster"].pop())
    with pytest.raises(ReplayMiss, match=r"roster \['trend', 'contrarian', 'momentum'\]"):
        replay(recording)


def test_a_changed_preset_name_is_named(recording: Path) -> None:
    with pytest.raises(ReplayMiss, match=r"recorded on preset 'standard-v4'.*runs 'calm-v1'"):
        replay(recording, preset="calm-v1")
    with (
        pytest.warns(DeprecationWarning, match=r"replay\(model=\.\.\.\)"),
        pytest.raises(ReplayMiss, match="runs 'calm-v1'"),
    ):
        replay(recording, model="calm-v1")  # the old name, for one release


def test_a_moved_dial_of_the_recorded_preset_is_listed(recording: Path, monkeypatch) -> None:
    recut = {**presets._SHIPPED["standard-v4"], "spread_bps": 4.5}
    monkeypatch.setitem(presets._SHIPPED, "standard-v4", recut)
    with pytest.raises(ReplayMiss, match=r"dials have moved since: spread_bps 4\.0 -> 4\.5"):
        replay(recording)


def test_a_changed_schema_version_names_both_versions(recording: Path) -> None:
    _edit(recording / "manifest.json", lambda m: m.update(observation_schema_version="0"))
    with pytest.raises(ReplayMiss, match=r"observation schema version '0'.*version '1'"):
        replay(recording)


def test_a_changed_schema_in_a_transcript_stops_before_the_first_lookup(recording: Path) -> None:
    _edit(
        recording / "transcripts" / "trend.json",
        lambda t: t["meta"].update(decision_schema_version="1"),
    )
    with pytest.raises(ReplayMiss, match=r"decision schema version '1'.*version '2'"):
        replay(recording)


def test_changed_instructions_are_refused_when_the_adapter_is_built(
    recording: Path, monkeypatch
) -> None:
    monkeypatch.setattr(scripted, "TREND_INSTRUCTIONS", scripted.TREND_INSTRUCTIONS + " Be bold.")
    with pytest.raises(RunError, match=r"arm 'trend'.*instructions changed"):
        replay(recording)


# --- damaged files and changed results ----------------------------------------------------
@pytest.mark.parametrize("name", ["manifest.json", "transcripts/trend.json"])
def test_a_truncated_file_is_named_without_a_parser_traceback(recording: Path, name: str) -> None:
    path = recording / name
    path.write_text(path.read_text()[:200])
    with pytest.raises(RecordingError, match=name.replace(".", r"\.")) as caught:
        replay(recording)
    assert "truncated" in str(caught.value) and caught.value.__cause__ is None


def _drop_digest(m: dict[str, Any]) -> None:
    del m["expected"]["digest"]


def _drop_vector(m: dict[str, Any]) -> None:
    del m["preset"]["vector"]


def _drop_transcript(m: dict[str, Any]) -> None:
    del m["roster"][0]["transcript"]


def _bogus_kwargs(m: dict[str, Any]) -> None:
    baseline = next(entry for entry in m["roster"] if "agent" in entry)
    baseline["kwargs"] = {**baseline.get("kwargs", {}), "bogus": 1}


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (_drop_digest, "expected.digest is not a string"),
        (_drop_vector, "preset needs a name and a vector"),
        (_drop_transcript, "roster entry 'trend' has no transcript"),
        (lambda m: m.update(roster="abc"), "roster is not a non-empty list"),
        (_bogus_kwargs, "cannot be rebuilt: .*bogus"),
    ],
)
def test_a_manifest_of_the_wrong_shape_is_named_with_what_is_wrong(
    recording: Path, damage: Any, fragment: str
) -> None:
    _edit(recording / "manifest.json", damage)
    with pytest.raises(RecordingError, match=rf"manifest\.json.*{fragment}"):
        replay(recording)


@pytest.mark.slow
def test_changed_expected_results_are_reported_cell_by_cell(recording: Path) -> None:
    def tamper(manifest: dict[str, Any]) -> None:
        manifest["expected"]["digest"] = "0" * 64
        manifest["expected"]["scorecard"][0]["trades"] += 1

    _edit(recording / "manifest.json", tamper)
    report = replay(recording, check=False)
    assert not report.matched
    assert any(line.startswith("scorecard[trend].trades:") for line in report.differences)
    with pytest.raises(RecordingError, match=r"differs from the recording:\n  - scorecard"):
        replay(recording)


# --- the shipped recordings, the CLI and the pytest plugin ---------------------------------
def test_the_shipped_recordings_cover_a_sync_and_an_async_function() -> None:
    folders = find_recordings(SHIPPED)
    assert len(folders) >= 2
    factories = {
        arm.get("factory")
        for folder in folders
        for arm in json.loads((folder / "manifest.json").read_text())["roster"]
    }
    assert {
        "workbench.testing.scripted:trend_agent",
        "workbench.testing.scripted:contrarian_agent",
    } <= factories


@pytest.mark.slow
def test_cli_replay_checks_and_exits_nonzero_on_a_difference(recording: Path, capsys) -> None:
    assert main(["replay", str(recording), "--check"]) == 0
    assert "replay matches the recording" in capsys.readouterr().out
    _edit(recording / "manifest.json", lambda m: m["expected"].update(digest="0" * 64))
    assert main(["replay", str(recording), "--check"]) == 1
    assert "differs" in capsys.readouterr().out


def test_cli_record_passes_the_market_to_the_service(tmp_path: Path, monkeypatch) -> None:
    seen: dict[str, Any] = {}

    def fake_record(path: Path, arms: list[str], **kwargs: Any) -> Any:
        seen.update(path=path, arms=arms, **kwargs)
        raise RecordingError("stop here")

    monkeypatch.setattr("workbench.recordings.record", fake_record)
    argv = ["record", str(tmp_path / "r"), "--arms", "momentum, cash", "--seed", "3"]
    assert main([*argv, "--universe", "7", "--days", "2", "--preset", "calm-v1"]) == 2
    assert seen["arms"] == ["momentum", "cash"] and seen["seed"] == 3
    assert seen["universe"] == 7 and seen["days"] == 2 and seen["preset"] == "calm-v1"


@pytest.mark.slow
def test_the_pytest_plugin_turns_each_recording_into_a_test(made: Path, tmp_path: Path) -> None:
    root = tmp_path / "recs"
    shutil.copytree(made, root / "good")
    shutil.copytree(made, root / "bad")
    _edit(root / "bad" / "manifest.json", lambda m: m["expected"].update(digest="0" * 64))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    command = [sys.executable, "-m", "pytest", "--recordings", str(root), "-p", "no:cacheprovider"]
    run = subprocess.run(
        [*command, "-q", "-W", "error"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    output = run.stdout + run.stderr
    assert run.returncode == 1, output
    assert "1 failed, 1 passed" in run.stdout, output
    assert "RecordingError" in run.stdout and "replay differs" in run.stdout, output


def test_git_never_converts_the_line_endings_of_a_recording() -> None:
    """Replays check recorded files byte for byte; a checkout that turned LF into CRLF
    (Git for Windows' default) would make every shipped recording look edited."""
    import shutil
    import subprocess

    root = Path(__file__).resolve().parents[1]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("not a git checkout")
    probe = "recordings/callable-sync-trend/expected_results.json"
    done = subprocess.run(
        ["git", "check-attr", "text", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == f"{probe}: text: unset"
