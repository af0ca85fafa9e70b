"""The shipped recording of the reference committee replays offline, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path

from workbench.committee import committee_agent
from workbench.evaluation import evaluate
from workbench.recordings import replay
from workbench.transcript import Transcript

FOLDER = Path(__file__).resolve().parent.parent / "recordings" / "committee-reference"


def test_the_committee_recording_replays_to_the_recorded_results() -> None:
    report = replay(FOLDER)
    assert report.matched, report.summary()
    card = report.results.scorecard
    assert card.loc["tradingagents-reference", "model_calls"] == 33
    assert card.loc["momentum", "model_calls"] == 0


def test_every_recorded_role_exchange_rebuilds_the_memo_once() -> None:
    manifest = json.loads((FOLDER / "manifest.json").read_text())
    transcript = Transcript.load(FOLDER / "transcripts" / "tradingagents-reference.json")
    arm = committee_agent(mode="replay", transcript=transcript)
    market = {k: manifest[k] for k in ("seed", "universe", "days", "steps_per_day")}
    market["preset"] = manifest["preset"]["name"]
    evaluate([arm, "momentum", "buy_and_hold"], **market)
    used = []
    for entry in arm.decision_log:
        for role in [*entry["roles"], entry["executor"]]:
            exchange = transcript.get(role["key"])
            assert exchange is not None and exchange.response == role["response"]
            assert exchange.input["role"] == role["role"]
            used.append(role["key"])
        assert entry["memo"].count("\n\n[") == len(entry["roles"]) - 1
    assert sorted(used) == sorted(e.key for e in transcript.exchanges)
    assert arm.calls_made == 0
