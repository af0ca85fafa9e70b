"""A recording keeps the text of a historical run: the replay joins it again, canaries too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import CanaryLeak, ReplayMiss
from workbench.recordings import record, replay

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

BARS = sample_bars(days=60, names=3, seed=6)
DATES = sorted(BARS["date"].unique())


def stamp(row: int) -> str:
    return pd.Timestamp(f"{DATES[row]} 09:30").tz_localize("America/New_York").isoformat()


NEWS = pd.DataFrame(
    {
        "published": [stamp(r) for r in range(0, 60, 2)],
        "symbols": [["ACME"], ["BOLT", "CRUX"], ["CRUX"]] * 10,
        "headline": ["ACME raises outlook", "BOLT and CRUX cut outlook", "CRUX wins order"] * 10,
        "body": ["Acme Industries said so on 2016-02-03."] * 30,
    }
)
REPORTS = pd.DataFrame(
    {"published": [stamp(25), stamp(45)], "symbol": ["ACME", "BOLT"], "eps": [1.5, 2.5]}
)


def recorded(folder: Path, arms: list[str], **options: object) -> Path:
    record(
        folder, arms, seed=1, data=BARS, news=NEWS, fundamentals=REPORTS,
        overwrite=True, **options,
    )  # fmt: skip
    return folder


@pytest.mark.slow
def test_a_recording_with_text_replays_exactly(tmp_path: Path) -> None:
    folder = recorded(tmp_path / "rec", ["headline_sentiment", "buy_and_hold"])
    assert (folder / "news.parquet").is_file() and (folder / "fundamentals.parquet").is_file()
    text = json.loads((folder / "manifest.json").read_text())["data"]["text"]
    assert text["news_items"] == 30 and text["news_path"] == "news.parquet"
    assert replay(folder).matched


@pytest.mark.slow
def test_edited_text_is_refused_on_replay(tmp_path: Path) -> None:
    folder = recorded(tmp_path / "rec", ["buy_and_hold"])
    news = pd.read_parquet(folder / "news.parquet")
    news.loc[3, "headline"] = "ACME doubles outlook"
    news.to_parquet(folder / "news.parquet", index=False)
    with pytest.raises(ReplayMiss, match="its news or fundamentals changed"):
        replay(folder)


@pytest.mark.slow
def test_a_recording_with_canaries_replays_and_passes_the_audit(tmp_path: Path) -> None:
    data = Historical.load(BARS, news=NEWS, fundamentals=REPORTS, canaries=2)
    record(tmp_path / "rec", ["headline_sentiment"], seed=1, data=data)
    report = replay(tmp_path / "rec")
    assert report.matched and len(report.results.meta["canaries"]) == 6


@pytest.mark.slow
def test_a_replay_runs_the_canary_audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import workbench.recordings.service as service

    record(tmp_path / "rec", ["headline_sentiment"], seed=1, data=Historical.load(
        BARS, news=NEWS, canaries=2))  # fmt: skip
    honest = service.evaluate

    def looking_ahead(*args: Any, **kwargs: Any) -> Any:  # as if an arm's tool read ahead
        results = honest(*args, **kwargs)
        canary = results.meta["canaries"][0]
        sighting = ["headline_sentiment", canary["day"] - 1, 0, "news", "rationale"]
        results.meta["canary_hits"] = [[*sighting, canary["token"], canary["day"]]]
        return results

    monkeypatch.setattr(service, "evaluate", looking_ahead)
    with pytest.raises(CanaryLeak, match="'headline_sentiment' quoted the news canary"):
        replay(tmp_path / "rec", check=False)  # the digest aside: the audit alone fails it


def test_the_replay_audit_reads_the_memory_of_a_remembering_arm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import workbench.recordings.service as service

    data = Historical.load(BARS, news=NEWS, canaries=2)
    arm = "workbench.testing.learner:remembering_learner"
    record(tmp_path / "rec", [arm], seed=1, data=data, days=20)
    honest = replay(tmp_path / "rec")  # planted, recalled only from their day: it passes
    assert honest.matched
    canary = next(c for c in honest.results.meta["canaries"] if c["channel"] == "memory")
    recorded = service._transcripts

    def recalled_early(manifest: Any, folder: Path) -> Any:  # as if its store recalled ahead
        transcripts = recorded(manifest, folder)
        lesson = {"day": 0, "step": 0, "lesson": f"buy before {canary['token']}"}
        transcripts["learner_memory"].add(
            "early", {"lessons": [lesson]}, "{}", day=canary["day"] - 1, step=0
        )
        return transcripts

    monkeypatch.setattr(service, "_transcripts", recalled_early)
    with pytest.raises(CanaryLeak, match=r"'learner_memory' quoted the memory canary .* memory,"):
        replay(tmp_path / "rec", check=False)
