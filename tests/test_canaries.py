"""Canaries: planted items dated after the decisions they test catch an arm that looks ahead."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import CanaryLeak, ConfigError
from workbench.evaluation.canaries import canary_audit, check_canaries
from workbench.memory import Lesson, Memory, MemoryStore
from workbench.testing.learner import remembering_learner
from workbench.transcript import Transcript

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

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


def with_filings(feed: Any) -> Any:
    """The payload and a filings tool with the right as-of: every report seen so far."""

    def read(payload: dict[str, Any]) -> Any:
        return [*honest(payload), feed.filings(payload["day"] + feed.warmup_days)]

    return read


def looking_ahead(feed: Any) -> Any:
    """A news and filings tool whose as-of is one day late: the off-by-one every tracker
    gets once."""

    def read(payload: dict[str, Any]) -> Any:
        row = payload["day"] + feed.warmup_days
        return [feed.news(row - 1, row + 1), feed.filings(row + 1)]

    return read


def test_canaries_are_planted_in_each_channel_and_seen_only_from_their_day() -> None:
    planted = data()
    feed = World(data=planted).path.text
    spy = Quoter("spy", with_filings(feed))
    results = evaluate([spy], data=planted)
    canaries = results.meta["canaries"]
    assert [c["channel"] for c in canaries] == ["news"] * 3 + ["fundamentals"] * 3 + ["memory"] * 3
    assert len({c["token"] for c in canaries}) == 9
    shown = [json.dumps(with_filings(feed)(payload)) for payload in spy.seen]
    for canary in canaries[:6]:
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
    lesson = {"day": 1, "step": 0, "lesson": f"remember {canary['token']}"}
    transcript.add("k4", {"prompt": "y", "lessons": [lesson]}, "hold", day=early, step=0)
    reflection = {"reflection": {"role": "llm", "model": "m", "prompt": "what did you learn?"}}
    transcript.add("k5", reflection, f"{canary['token']} is coming", day=early, step=0)
    hits = canary_audit(results, {"llm": transcript})
    assert hits[["day", "path"]].values.tolist() == [
        [early, "model input"], [early, "memory"], [early, "memory entry"],
        [early + 1, "model output"],
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


class LeakyStore(MemoryStore):
    """A store whose recall forgets when a lesson becomes known: every lesson is visible."""

    def visible(self, at: Any, role: str | None = None) -> list[Lesson]:
        return [entry for entry in self.lessons if role is None or entry.role == role]


class LeakyMemory(Memory):
    def open(self, run: Any, **options: Any) -> None:
        super().open(run, **options)
        self.store.__class__ = LeakyStore


def memory_canaries(results: Any) -> list[dict[str, Any]]:
    return [c for c in results.meta["canaries"] if c["channel"] == "memory"]


def test_memory_canaries_are_planted_in_the_store_and_recalled_only_from_their_day() -> None:
    learner = remembering_learner(memory=Memory(horizon=1, k=3), mode="record")
    results = evaluate([learner], data=data())
    planted = memory_canaries(results)
    assert len(planted) == 3 and all(c["token"].startswith("Mnemo-") for c in planted)
    lessons = learner.lessons()
    for canary in planted:
        (row,) = lessons[lessons["lesson"].str.contains(canary["token"])].itertuples()
        assert (row.visible_day, row.visible_step, row.role) == (canary["day"], 0, learner.name)
    recalled = {entry["day"]: json.dumps(entry["recalled"]) for entry in learner.decision_log}
    assert all(c["token"] not in recalled[d] for c in planted for d in recalled if d < c["day"])
    assert canary_audit(results, {learner.name: learner.transcript}).empty


def test_an_arm_whose_memory_recalls_a_canary_early_is_caught_naming_the_memory() -> None:
    leaky = remembering_learner(memory=LeakyMemory(horizon=1, k=8), mode="record")
    results = evaluate([leaky], data=data())
    hits = canary_audit(results, {leaky.name: leaky.transcript})
    assert set(hits["channel"]) == {"memory"} and "memory" in set(hits["path"])
    assert (hits["day"] < hits["seen_from_day"]).all()
    first = hits.iloc[0]
    said = f"arm 'learner_memory' quoted the memory canary '{first['token']}' on day "
    said += f"{first['day']}, step 0, through its {first['path']}"
    with pytest.raises(CanaryLeak, match=said):
        check_canaries(results, {leaky.name: leaky.transcript})


def test_a_persisted_store_never_saves_the_memory_canaries(tmp_path: Path) -> None:
    store = tmp_path / "lessons.json"
    learner = remembering_learner(memory=Memory(horizon=1, k=3, path=store))
    results = evaluate([learner], data=data())
    saved = store.read_text()
    assert "VERDICT" in saved
    assert not any(c["token"] in saved for c in memory_canaries(results))


def test_a_tool_built_on_other_days_is_caught_by_its_foreign_canaries() -> None:
    planted = data()
    tool = looking_ahead(World(data=planted).path.text)  # every date; the run trades 40
    results = evaluate([Quoter("honest", honest), Quoter("cheat", tool)], data=planted, days=40)
    hits = canary_audit(results)
    foreign = hits[hits["seen_from_day"].isna()]
    assert len(foreign) and set(foreign["arm"]) == {"cheat"}
    by_channel = dict(tuple(foreign.groupby("channel")["token"]))
    assert set(by_channel) == {"news", "fundamentals"}  # the filings tool's figures too
    assert by_channel["news"].str.match(r"Vexlor-[0-9a-f]{8}$").all()
    assert by_channel["fundamentals"].str.match(r"1\d{10}\.\d\d$").all()
    ours = {c["token"] for c in results.meta["canaries"]}
    assert not set(foreign["token"]) & ours
    with pytest.raises(CanaryLeak, match=r"'cheat' quoted 'Vexlor-.*a canary from another run"):
        check_canaries(results)


def test_the_docs_print_each_leak_as_it_is_raised() -> None:
    page = Path(__file__).resolve().parents[1] / "docs" / "historical.md"
    printed = " ".join(page.read_text(encoding="utf-8").split())
    planted = data()
    cheat = Quoter("cheat", looking_ahead(World(data=planted).path.text))
    leaky = remembering_learner(memory=LeakyMemory(horizon=1, k=8), mode="record")
    for arm, transcripts in ((cheat, None), (leaky, {leaky.name: leaky.transcript})):
        results = evaluate([arm], data=planted)
        with pytest.raises(CanaryLeak) as leak:
            check_canaries(results, transcripts)
        assert f"CanaryLeak: {leak.value}" in printed
