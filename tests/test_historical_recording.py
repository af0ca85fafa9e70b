"""A recording on historical bars keeps the mask secret in its manifest and replays exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError, RecordingError, ReplayMiss
from workbench.recordings import record, replay

ARMS = ["workbench.testing.scripted:trend_agent", "momentum", "random"]


@pytest.fixture
def bars_file(tmp_path: Path) -> Path:
    source = tmp_path / "bars" / "bars.csv"
    source.parent.mkdir()
    sample_bars(days=60, names=4, seed=3).to_csv(source, index=False)
    return source


def test_a_historical_recording_replays_with_its_own_secret(
    tmp_path: Path, bars_file: Path
) -> None:
    folder = tmp_path / "rec"
    results = record(folder, ARMS, seed=2, days=12, data=bars_file)
    manifest = json.loads((folder / "manifest.json").read_text())
    data = manifest["data"]
    assert data["path"] == "../bars/bars.csv" and len(data["secret"]) == 32
    assert data["variant"] == {"kind": "real", "label": "real"}
    assert manifest["preset"]["name"] == "standard-v1"
    transcripts = (folder / "transcripts" / "trend.json").read_text()
    assert data["secret"] not in transcripts + (folder / "expected_results.json").read_text()
    report = replay(folder)
    assert report.matched and report.digest == results.digest()


def test_two_recordings_of_the_same_bars_draw_different_secrets(
    tmp_path: Path, bars_file: Path
) -> None:
    secrets = set()
    for name in ("a", "b"):
        record(tmp_path / name, ["momentum"], seed=2, days=5, data=bars_file)
        secrets.add(json.loads((tmp_path / name / "manifest.json").read_text())["data"]["secret"])
    assert len(secrets) == 2


def test_changed_or_missing_bars_fail_the_replay_naming_the_file(
    tmp_path: Path, bars_file: Path
) -> None:
    folder = tmp_path / "rec"
    record(folder, ["momentum"], seed=2, days=5, data=bars_file)
    sample_bars(days=60, names=4, seed=4).to_csv(bars_file, index=False)
    with pytest.raises(ReplayMiss, match=r"the bars at .*bars\.csv changed since the recording"):
        replay(folder)
    shutil.rmtree(bars_file.parent)
    with pytest.raises(RecordingError, match=r"made on the bars at .*bars\.csv, which are not"):
        replay(folder)


def test_a_recording_needs_bars_from_a_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="takes the path of a bars file"):
        record(tmp_path / "rec", ["cash"], seed=1, data=sample_bars(days=30, names=2))  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="record needs universe= and days= on the simulator"):
        record(tmp_path / "rec", ["cash"], seed=1)
