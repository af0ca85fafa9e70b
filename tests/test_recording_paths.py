"""Where a recording writes: only inside its folder, and never over something already there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.errors import RecordingError
from workbench.recordings import record, replay, service

TREND = "workbench.testing.scripted:trend_agent"
MARKET: dict[str, Any] = {"seed": 4, "universe": 5, "days": 2}


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every evaluation a recording started (so a refusal is seen to come before the run)."""
    started: list[dict[str, Any]] = []
    real = service.evaluate

    def counting(arms: Any, **market: Any) -> Any:
        started.append(market)
        return real(arms, **market)

    monkeypatch.setattr(service, "evaluate", counting)
    return started


def _files(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


@pytest.mark.parametrize(
    "name",
    ["../../x", "../escaped", "a/b", "a\\b", "..", ".", "", " ", "nul\0byte", "x" * 101, "c:d"],
)
def test_an_arm_name_that_is_not_a_safe_file_name_is_refused_before_any_work(
    tmp_path: Path, name: str, runs: list[dict[str, Any]]
) -> None:
    folder = tmp_path / "deep" / "rec"
    with pytest.raises(RecordingError, match=r"arm name .* names the arm's transcript file"):
        record(folder, {name: TREND}, **MARKET)
    assert runs == [], "refused before the market opened"
    assert _files(tmp_path) == [], "nothing written, inside the folder or out of it"


def test_arm_names_differing_only_in_case_are_refused(tmp_path: Path) -> None:
    with pytest.raises(RecordingError, match="differ only in case"):
        record(tmp_path / "rec", {"Trend": TREND, "trend": TREND}, **MARKET)


@pytest.mark.slow
def test_a_safe_unusual_arm_name_records_and_replays(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    record(folder, {"trend v2.1_b-c": TREND}, **MARKET)
    assert (folder / "transcripts" / "trend v2.1_b-c.json").is_file()
    assert replay(folder).matched


@pytest.mark.slow
def test_recording_again_into_a_recording_refuses_unless_overwrite(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    folder = tmp_path / "rec"
    record(folder, [TREND], **MARKET)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    with pytest.raises(RecordingError, match=r"already holds a recording; pass overwrite=True"):
        record(folder, [TREND], **{**MARKET, "seed": 5})
    assert len(runs) == 1 and {p: p.read_bytes() for p in before} == before
    record(folder, [TREND], **{**MARKET, "seed": 5}, overwrite=True)
    assert replay(folder).results.meta["seed"] == 5


def test_recording_into_a_file_is_refused_before_the_run(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    target = tmp_path / "run.json"
    target.write_text("something of the user's")
    for overwrite in (False, True):
        with pytest.raises(RecordingError, match="is a file; a recording is a folder"):
            record(target, [TREND], **MARKET, overwrite=overwrite)
    assert runs == [] and target.read_text() == "something of the user's"


def test_recording_under_a_file_is_refused_before_the_run(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(RecordingError, match=r"cannot be made: .*notes\.txt is a file"):
        record(blocker / "rec", [TREND], **MARKET)
    assert runs == []


@pytest.mark.slow
def test_recording_into_a_folder_of_other_files_refuses_unless_overwrite(
    tmp_path: Path, runs: list[dict[str, Any]]
) -> None:
    folder = tmp_path / "rec"
    (folder / "transcripts").mkdir(parents=True)
    (folder / "transcripts" / "trend.json").write_text("an unfinished recording's answers")
    with pytest.raises(RecordingError, match="holds files but no recording"):
        record(folder, [TREND], **MARKET)
    assert runs == []
    assert (folder / "transcripts" / "trend.json").read_text().startswith("an unfinished")
    record(folder, [TREND], **MARKET, overwrite=True)
    assert replay(folder).matched


@pytest.mark.slow
def test_the_cli_refuses_to_record_over_a_recording_unless_overwrite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "rec"
    argv = ["record", str(folder), "--arms", "momentum", "--universe", "4", "--days", "2"]
    assert main([*argv, "--seed", "1"]) == 0
    before = (folder / "manifest.json").read_bytes()
    capsys.readouterr()
    assert main([*argv, "--seed", "2"]) == 2
    error = capsys.readouterr().err
    assert "already holds a recording" in error and "--overwrite" in error
    assert "Traceback" not in error and (folder / "manifest.json").read_bytes() == before
    assert main([*argv, "--seed", "2", "--overwrite"]) == 0
    assert replay(folder).results.meta["seed"] == 2
