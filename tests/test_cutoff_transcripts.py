"""An arm's training cutoff travels with its transcript and manifest, and a replay reads it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench import evaluate
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ReplayMiss
from workbench.recordings import record, replay
from workbench.testing.scripted import trend_agent
from workbench.transcript import Transcript

BARS = sample_bars(days=60, names=3, seed=5)  # 20 days of history, then 40 to trade
MIDDLE = sorted(BARS["date"].unique())[35]
ARMS = ["workbench.testing.scripted:trend_agent", "momentum"]
CUTOFFS = {"trend": str(MIDDLE)[:10], "momentum": "2001-01-01"}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("cutoff") / "rec"
    results = record(folder, ARMS, seed=1, days=30, data=BARS, model_cutoff=CUTOFFS)
    return folder, results


def _transcript(folder: Path) -> Transcript:
    return Transcript.load(folder / "transcripts" / "trend.json")


def test_the_cutoff_is_in_the_transcript_and_the_manifest(recorded) -> None:
    folder, _ = recorded
    assert _transcript(folder).meta["run"]["model_cutoff"] == CUTOFFS["trend"]
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["options"]["model_cutoff"] == CUTOFFS


def test_a_replay_has_the_recorded_cutoff_in_its_meta(recorded) -> None:
    folder, results = recorded
    report = replay(folder)
    assert report.matched and report.results.meta["model_cutoff"] == CUTOFFS
    assert report.results.meta["model_cutoff"] == results.meta["model_cutoff"]


def test_a_replay_reads_the_cutoff_back_from_the_transcript(recorded, tmp_path: Path) -> None:
    import shutil

    folder, _ = recorded
    copy = tmp_path / "rec"
    shutil.copytree(folder, copy)
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    manifest["options"]["model_cutoff"] = {"momentum": CUTOFFS["momentum"]}  # trend's left out
    (copy / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    report = replay(copy)
    assert report.matched and report.results.meta["model_cutoff"] == CUTOFFS


def test_a_replay_given_another_cutoff_is_refused(recorded) -> None:
    folder, _ = recorded
    arm = trend_agent(mode="replay", transcript=_transcript(folder), name="trend")
    with pytest.raises(ReplayMiss, match=r"training cutoff .* run with model_cutoff="):
        evaluate(
            [arm, "momentum"], seed=1, days=30, data=BARS, model_cutoff={"trend": "2001-01-01"}
        )


def test_an_arm_without_a_cutoff_records_none() -> None:
    arm = trend_agent(mode="record", name="trend")
    evaluate([arm], seed=1, days=5, data=BARS, model_cutoff={})
    assert arm.recorder is not None and "model_cutoff" not in arm.recorder.meta["run"]


@pytest.mark.slow
def test_a_recording_with_a_cutoff_made_in_another_process_replays_here(tmp_path: Path) -> None:
    import subprocess
    import sys

    folder = tmp_path / "elsewhere"
    script = (
        "from workbench.engine.sample_bars import sample_bars\n"
        "from workbench.recordings import record\n"
        f"record({str(folder)!r}, {ARMS!r}, seed=1, days=30,\n"
        f"       data=sample_bars(days=60, names=3, seed=5), model_cutoff={CUTOFFS!r})\n"
    )
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-c", script], check=True, cwd=root, timeout=300)
    report = replay(folder)
    assert report.matched and report.results.meta["model_cutoff"] == CUTOFFS
    assert _transcript(folder).meta["run"]["model_cutoff"] == CUTOFFS["trend"]


def test_evaluate_with_a_replaying_adapter_reads_the_cutoff_back(recorded) -> None:
    folder, _ = recorded
    arm = trend_agent(mode="replay", transcript=_transcript(folder), name="trend")
    results = evaluate([arm, "momentum"], seed=1, days=30, data=BARS)
    assert results.meta["model_cutoff"] == {"trend": CUTOFFS["trend"]}
    split = results.tearsheet(split="cutoff")
    assert ("trend", "gap") in split.index
