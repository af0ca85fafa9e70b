"""Canaries change nothing an honest agent sees: no earlier payload, no figure, no day."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from workbench import Agent, World, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textdata import read_fundamentals, read_news
from workbench.evaluation.canaries import canary_hits

BARS = sample_bars(days=70, names=3, seed=4)
DATES = sorted(BARS["date"].unique())
SECRET = "trust-secret-0123456789"


def stamp(row: int, minutes: int) -> str:
    close = pd.Timestamp(f"{DATES[row]} 16:00") + pd.Timedelta(minutes=minutes)
    return close.tz_localize("America/New_York").isoformat()


NEWS = pd.DataFrame(
    [(stamp(r, -30), "ACME", f"ACME item {r}", f"Body {r}.") for r in range(10, 70)],
    columns=["published", "symbols", "headline", "body"],
)
REPORTS = pd.DataFrame(
    [(stamp(r, -600), s, 1 + r / 100, 50 + r) for r in range(5, 70, 15) for s in ("ACME", "BOLT")],
    columns=["published", "symbol", "eps", "revenue"],
)


class Spy(Agent):
    def __init__(self) -> None:
        super().__init__("spy")
        self.seen: list[str] = []

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        shown = {k: v for k, v in payload.items() if k != "portfolio"}
        self.seen.append(json.dumps(shown, sort_keys=True, default=str))
        return {"actions": []}


def payloads(news: pd.DataFrame, reports: pd.DataFrame, **text: Any) -> list[str]:
    spy = Spy()
    data = Historical.load(BARS, news=news, fundamentals=reports, secret=SECRET, **text)
    evaluate([spy], data=data)
    return spy.seen


def test_with_canaries_no_item_changes_a_payload_before_it_is_published() -> None:
    clean = payloads(NEWS, REPORTS, canaries=3)
    cut = 40
    late = NEWS.copy()
    future = late["published"] >= stamp(cut, 0)
    late.loc[future, "headline"] = "POISON"
    late.loc[future, "body"] = "POISON"
    poisoned = payloads(late[~late.index.isin(late.index[-3:])], REPORTS, canaries=3)
    warmup = World(data=Historical.load(BARS, news=NEWS, secret=SECRET)).path.warmup_days
    before = cut - warmup + 1  # decisions whose close precedes every changed item
    assert clean[:before] == poisoned[:before]
    assert clean[before:] != poisoned[before:]


def test_a_canary_is_first_shown_on_its_recorded_day_under_an_embargo() -> None:
    for embargo in (None, "2D", "90min"):
        data = Historical.load(BARS, news=NEWS, secret=SECRET, canaries=2, embargo=embargo)
        feed = World(data=data).path.text
        for canary in (c for c in feed.canaries if c["channel"] == "news"):
            shown = [
                feed.news_rows[i] - feed.warmup_days
                for i in range(len(feed.news_rows))
                if canary["token"] in feed.item(i)["headline"]
            ]
            assert shown == [canary["day"]], embargo


def test_fundamentals_canaries_leave_the_latest_report_view_as_it_was() -> None:
    plain = World(data=Historical.load(BARS, fundamentals=REPORTS, secret=SECRET)).path.text
    data = Historical.load(BARS, fundamentals=REPORTS, secret=SECRET, canaries=3)
    feed = World(data=data).path.text
    rows = range(feed.warmup_days, feed.warmup_days + 40)
    assert [feed.fundamentals(r) for r in rows] == [plain.fundamentals(r) for r in rows]
    for canary in (c for c in feed.canaries if c["channel"] == "fundamentals"):
        row = canary["day"] + feed.warmup_days
        assert canary["token"] in json.dumps(feed.filings(row))
        assert canary["token"] not in json.dumps(feed.filings(row - 1))


def test_honest_results_do_not_move_with_fundamentals_canaries() -> None:
    arms = ["headline_sentiment", "buy_and_hold"]
    without = evaluate(arms, data=Historical.load(BARS, fundamentals=REPORTS, secret=SECRET))
    planted = Historical.load(BARS, fundamentals=REPORTS, secret=SECRET, canaries=3)
    with_canaries = evaluate(arms, data=planted)
    columns = ["return_pct", "sharpe"]
    assert without.tearsheet()[columns].equals(with_canaries.tearsheet()[columns])


def test_the_audit_matches_a_canary_in_any_case() -> None:
    canary = {"channel": "news", "token": "Vexlor-cc57ffe3", "day": 9}
    hits = canary_hits([canary], "arm", 3, 0, "found VEXLOR-CC57FFE3 in search", "rationale")
    assert [hit[3:6] for hit in hits] == [["news", "rationale", "Vexlor-cc57ffe3"]]


def test_the_feed_exports_its_canaries_as_tables_the_loader_reads_back() -> None:
    data = Historical.load(BARS, news=NEWS, fundamentals=REPORTS, secret=SECRET, canaries=2)
    feed = World(data=data).path.text
    frames = feed.frames()
    symbols = sorted(BARS["symbol"].unique())
    news = read_news(frames["news"], symbols)
    reports = read_fundamentals(frames["fundamentals"], symbols)
    assert len(news) == len(NEWS) + 2 and len(reports) == len(REPORTS) + 2
    tokens = [c["token"] for c in feed.canaries if c["channel"] == "news"]
    assert all(news["headline"].str.contains(token).any() for token in tokens)
    assert news["published"].tolist() == feed.planted_news["published"].tolist()


def test_earnings_drift_skips_earnings_items_without_figures() -> None:
    news = NEWS.assign(kind="earnings")
    results = evaluate(["earnings_drift"], data=Historical.load(BARS, news=news), on_error="raise")
    assert results.tearsheet().loc["earnings_drift", "return_pct"] == 0.0
