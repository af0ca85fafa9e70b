"""A recording on historical bars keeps the mask secret in its manifest and replays exactly."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError, RecordingError, ReplayMiss, UntrustedRecording
from workbench.recordings import record, replay

ARMS = ["workbench.testing.scripted:trend_agent", "momentum", "random"]


@pytest.fixture
def bars_file(tmp_path: Path) -> Path:
    source = tmp_path / "bars" / "bars.csv"
    source.parent.mkdir()
    sample_bars(days=60, names=4, seed=3).to_csv(source, index=False)
    return source


@pytest.mark.slow
def test_a_historical_recording_replays_with_its_own_secret(
    tmp_path: Path, bars_file: Path
) -> None:
    folder = tmp_path / "rec"
    results = record(folder, ARMS, seed=2, days=12, data=bars_file)
    manifest = json.loads((folder / "manifest.json").read_text())
    data = manifest["data"]
    assert data["path"] == "bars.parquet" and len(data["secret"]) == 32
    assert data["variant"] == {"kind": "real", "label": "real"}
    assert manifest["preset"]["name"] == "standard-v1"
    transcripts = (folder / "transcripts" / "trend.json").read_text()
    assert data["secret"] not in transcripts, "never in what an agent was asked"
    expected = json.loads((folder / "expected_results.json").read_text())
    assert expected["meta"]["data"]["secret"] == data["secret"], "the results keep it too"
    shutil.rmtree(bars_file.parent)  # the recording carries its own copy of the bars
    report = replay(folder)
    assert report.matched and report.digest == results.digest()


@pytest.mark.slow
def test_two_recordings_of_the_same_bars_mask_them_the_same_way(
    tmp_path: Path, bars_file: Path
) -> None:
    """The secret is derived from the bars and the project's key, not drawn per recording:
    recording the same run again gives the same results."""
    secrets, digests = set(), set()
    for name in ("a", "b"):
        results = record(tmp_path / name, ["momentum"], seed=2, days=5, data=bars_file)
        secrets.add(json.loads((tmp_path / name / "manifest.json").read_text())["data"]["secret"])
        digests.add(results.digest())
    assert len(secrets) == 1 and len(digests) == 1


@pytest.mark.slow
def test_edited_missing_or_outside_bars_fail_the_replay_naming_the_file(
    tmp_path: Path, bars_file: Path
) -> None:
    folder = tmp_path / "rec"
    record(folder, ["momentum"], seed=2, days=5, data=bars_file)
    sample_bars(days=60, names=4, seed=4).to_parquet(folder / "bars.parquet", index=False)
    with pytest.raises(ReplayMiss, match=r"the bars in .*bars\.parquet changed since the record"):
        replay(folder)
    (folder / "bars.parquet").unlink()
    with pytest.raises(RecordingError, match=r"made on the bars in .*bars\.parquet, which is not"):
        replay(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["data"]["path"] = "../bars/bars.csv"
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(UntrustedRecording, match="points outside the recording folder"):
        replay(folder)


@pytest.mark.slow
def test_bars_from_a_dataframe_record_and_replay(tmp_path: Path) -> None:
    folder = tmp_path / "rec"
    results = record(folder, ["momentum"], seed=1, days=5, data=sample_bars(days=40, names=3))
    assert replay(folder).digest == results.digest()
    with pytest.raises(ConfigError, match="record needs universe= and days= on the simulator"):
        record(tmp_path / "sim", ["cash"], seed=1)
