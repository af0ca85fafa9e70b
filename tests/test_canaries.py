"""Canaries: planted items dated after the decisions they test catch an arm that looks ahead."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import CanaryLeak, ConfigError
from workbench.evaluation.canaries import canary_audit, check_canaries
from workbench.transcript import Transcript

BARS = sample_bars(days=80, names=3, seed=8)
DATES = sorted(BARS["date"].unique())
SECRET = "canary-secret-0123456789"


def stamp(row: int, hour: int = 9) -> str:
    return pd.Timestamp(f"{DATES[row]} {hour:02d}:00").tz_localize("America/New_York").isoformat()


NEWS = pd.DataFrame(
    [(stamp(r), "ACME", f"ACME item {r}", "Body.") for r in range(0, 80, 3)],
    columns=["published", "symbols", "headline", "body"],
)
REPORTS = pd.DataFrame(
    [(stamp(r, 7), s, 1.0 + r / 100) for r in range(5, 80, 20) for s in ("ACME", "BOLT")],
    columns=["published", "symbol", "eps"],
)


def data(canaries: int = 3) -> Historical:
    return Historical.load(BARS, news=NEWS, fundamentals=REPORTS, secret=SECRET, canaries=canaries)


class Quoter(Agent):
    """Writes every headline and figure it reads into its rationale."""

    def __init__(self, name: str, read: Any) -> None:
        super().__init__(name)
        self.read = read
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(payload)
        return {"actions": [], "rationale": json.dumps(self.read(payload))}


def honest(payload: dict[str, Any]) -> Any:
    return [payload.get("news"), payload.get("fundamentals")]


def looking_ahead(feed: Any) -> Any:
    """A news tool whose as-of is one day late: the off-by-one every tracker gets once."""

    def read(payload: dict[str, Any]) -> Any:
        row = payload["day"] + feed.warmup_days
        return [feed.news(row - 1, row + 1), feed.fundamentals(row + 1)]

    return read


def test_canaries_are_planted_in_each_channel_and_seen_only_from_their_day() -> None:
    spy = Quoter("spy", honest)
    results = evaluate([spy], data=data())
    canaries = results.meta["canaries"]
    assert [c["channel"] for c in canaries] == ["news"] * 3 + ["fundamentals"] * 3
    assert len({c["token"] for c in canaries}) == 6
    shown = [json.dumps(honest(payload)) for payload in spy.seen]
    for canary in canaries:
        assert (
            next(day for day, text in enumerate(shown) if canary["token"] in text) == canary["day"]
        )


def test_an_honest_agent_passes_the_audit() -> None:
    results = evaluate([Quoter("honest", honest)], data=data())
    assert canary_audit(results).empty
    check_canaries(results)


def test_an_agent_whose_tool_looks_ahead_is_caught_naming_step_and_channel() -> None:
    planted = data()
    feed = World(data=planted).path.text
    cheat = Quoter("cheat", looking_ahead(feed))
    results = evaluate([Quoter("honest", honest), cheat], data=planted)
    hits = canary_audit(results)
    assert set(hits["arm"]) == {"cheat"}
    assert set(hits["channel"]) == {"news", "fundamentals"} and set(hits["path"]) == {"rationale"}
    assert (hits["day"] == hits["seen_from_day"] - 1).all()  # one day early, every time
    first = hits.iloc[0]
    said = f"arm 'cheat' quoted the {first['channel']} canary '{first['token']}' on day "
    said += f"{first['day']}, step 0, through its rationale"
    with pytest.raises(CanaryLeak, match=said):
        check_canaries(results)


def test_a_transcript_that_holds_a_canary_early_is_caught_by_path() -> None:
    results = evaluate([Quoter("honest", honest)], data=data())
    canary = results.meta["canaries"][0]
    transcript = Transcript()
    early = canary["day"] - 2
    transcript.add("k1", {"tool_result": f"... {canary['token']} ..."}, "hold", day=early, step=0)
    transcript.add("k2", {"prompt": "x"}, f"I recall {canary['token']}", day=early + 1, step=0)
    transcript.add("k3", {"prompt": canary["token"]}, "fine", day=canary["day"], step=0)
    hits = canary_audit(results, {"llm": transcript})
    assert hits[["day", "path"]].values.tolist() == [
        [early, "model input"], [early + 1, "model output"],
    ]  # fmt: skip


def test_the_audit_refuses_a_run_without_canaries() -> None:
    results = evaluate(["cash"], data=data(canaries=0), days=5)
    assert "canaries" not in results.meta
    with pytest.raises(CanaryLeak, match="planted no canaries"):
        check_canaries(results)


def test_canaries_repeat_and_are_counted_in_the_fingerprint() -> None:
    assert World(data=data()).path.text.canaries == World(data=data()).path.text.canaries
    assert World(data=data()).fingerprint != World(data=data(canaries=0)).fingerprint


@pytest.mark.parametrize("count", [-1, 2.5, 51, "3"])
def test_a_bad_canary_count_is_refused(count: object) -> None:
    with pytest.raises(ConfigError, match="canaries is a whole number of items per channel"):
        Historical.load(BARS, news=NEWS, canaries=count)
