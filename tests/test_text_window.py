"""The run's decision window on a researcher's feed: nothing published before the first
decision is lost, and a feed no decision sees is refused, not run silent."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textfeed import UnseenTextWarning
from workbench.errors import ConfigError
from workbench.evaluation.textleaks import shown_items
from workbench.evaluation.world import World
from workbench.schema import HISTORY_STEPS, NEWS_CAP

SECRET = "window-secret-0123456789"
BARS = sample_bars(days=60, names=3, seed=5)  # ACME, BOLT, CRUX from 2016-01-04
DATES = sorted(BARS["date"].unique())
FIRST = HISTORY_STEPS  # the row of day 0, the first decision


class Spy(Agent):
    def __init__(self) -> None:
        super().__init__("spy")
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(payload)
        return {"actions": []}


def at(row: int, minutes: int = -60) -> str:
    """An hour (or ``minutes``) from the close of date ``row``, New York time, with offset."""
    local = pd.Timestamp(f"{DATES[row]} 16:00") + pd.Timedelta(minutes=minutes)
    return local.tz_localize("America/New_York").isoformat()


def news(times: list[str]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "published": times,
            "symbols": "ACME",
            "headline": [f"item {k}" for k in range(len(times))],
            "body": "",
        }
    )


def run(times: list[str], days: int | None = None) -> list[dict[str, Any]]:
    spy = Spy()
    evaluate([spy], data=Historical.load(BARS, news=news(times), secret=SECRET), days=days)
    return spy.seen


def test_the_first_decision_carries_the_items_published_before_it() -> None:
    before = [at(row) for row in range(3, 18)] + ["2015-12-31T12:00:00Z"]  # and before any bar
    seen = run([*before, at(FIRST), at(FIRST + 1)], days=5)
    newest_first = ["item 16", *(f"item {k}" for k in range(14, -1, -1)), "item 15"]
    assert [i["headline"] for i in seen[0]["news"]] == newest_first
    assert seen[0]["news_omitted"] == 0
    assert [i["headline"] for i in seen[1]["news"]] == ["item 17"]


def test_the_first_decision_carries_the_newest_up_to_the_cap() -> None:
    seen = run([at(row, -k) for row in range(2, 14) for k in range(1, 3)], days=5)  # 24 items
    assert len(seen[0]["news"]) == NEWS_CAP and seen[0]["news_omitted"] == 24 - NEWS_CAP
    assert seen[0]["news"][0]["headline"] == "item 22"  # newest first: row 13, a minute before
    assert seen[0]["news"][0]["day"] == 13 - FIRST  # the day it was first seen, before day 0
    assert all(p["news"] == [] for p in seen[1:])


def test_a_feed_all_in_the_warm_up_is_read_at_the_first_decision() -> None:
    seen = run([at(row) for row in range(1, 6)], days=5)
    assert len(seen[0]["news"]) == 5


def test_a_feed_after_the_runs_last_decision_is_refused_naming_the_window() -> None:
    with pytest.raises(ConfigError, match=r"none of the 2 news items is seen by the run's") as e:
        run([at(FIRST + 10), at(FIRST + 20)], days=5)
    assert f"days 0-3, the closes of {DATES[FIRST]} to {DATES[FIRST + 3]}" in str(e.value)
    assert "days=, at most 40" in str(e.value)


def test_a_feed_partly_after_the_runs_last_decision_warns_with_counts() -> None:
    with pytest.warns(UnseenTextWarning, match=r"^2 of the 3 news items are published after"):
        seen = run([at(FIRST + 1), at(FIRST + 10), at(FIRST + 20)], days=5)
    assert [i["headline"] for p in seen for i in p["news"]] == ["item 0"]


def test_items_only_the_bars_last_day_could_show_are_no_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seen = run([at(FIRST + 1), at(len(DATES) - 1)])  # the last day decides nothing
    assert len(seen) == len(DATES) - FIRST - 1


def test_the_leak_report_reads_only_what_a_payload_carried() -> None:
    times = [at(row, -k) for row in range(2, 14) for k in range(1, 3)]  # 24 before day 0
    times += [at(FIRST + 2), at(len(DATES) - 1)]  # one read on day 2, one on no day
    data = Historical.load(BARS, news=news(times), secret=SECRET)
    carried = sorted(item["headline"] for item in shown_items(data))
    newest = [f"item {k}" for k in range(4, 24)]  # the first payload's 20
    assert carried == sorted([*newest, "item 24"])


def test_reports_from_before_the_first_decision_are_shown_as_before() -> None:
    reports = pd.DataFrame({"published": [at(3)], "symbol": ["ACME"], "eps": [1.5]})
    spy = Spy()
    evaluate([spy], data=Historical.load(BARS, fundamentals=reports, secret=SECRET), days=3)
    shown = [v for v in spy.seen[0]["fundamentals"].values() if v is not None]
    assert len(shown) == 1 and shown[0]["report_day"] == 3 - FIRST


def masked_items(bars: pd.DataFrame, items: pd.DataFrame) -> list[str]:
    data = Historical.load(bars.reset_index(drop=True), news=items, secret=SECRET)
    feed = World(data=data).path.text
    assert feed is not None
    return [feed.item(i)["body"] for i in range(len(feed.news_rows))]


def test_a_future_date_in_the_text_does_not_tell_which_later_dates_trade() -> None:
    later = [DATES[FIRST + 5], DATES[FIRST + 12], DATES[-1]]
    body = "Vote on {}, review on {} and again on {}.".format(*later)
    items = news([at(FIRST + 2)]).assign(body=body)
    for closed in (DATES[FIRST + 3], DATES[FIRST + 10]):
        fewer = masked_items(BARS[BARS["date"] != closed], items)
        assert fewer == masked_items(BARS, items)


def test_a_future_date_counts_business_days_from_the_day_the_item_is_seen() -> None:
    seen, when = FIRST + 2, pd.Timestamp(DATES[FIRST + 2]) + pd.Timedelta(days=10)
    items = news([at(seen)]).assign(body=f"Vote on {when.date()}.")
    ahead = int(np.busday_count(DATES[seen], when.date()))
    assert masked_items(BARS, items) == [f"Vote on day {2 + ahead}."]


def test_a_date_already_traded_keeps_its_trading_day() -> None:
    bars = BARS[BARS["date"] != DATES[FIRST + 3]]  # a closure the item has lived through
    dates = sorted(bars["date"].unique())
    items = news([at(FIRST + 6)]).assign(body=f"Voted on {dates[FIRST + 4]}.")
    assert masked_items(bars, items) == ["Voted on day 4."]


def test_what_an_agent_is_told_of_the_market_holds_no_item() -> None:
    times = [at(FIRST + 2), at(FIRST + 30)]
    edited = news(times).assign(headline=["item 0", "item 1 edited"])
    worlds = [
        World(data=Historical.load(BARS, news=n, secret=SECRET)) for n in (news(times), edited)
    ]
    assert worlds[0].fingerprint == worlds[1].fingerprint  # RunInfo.preset, each request's
    plain = World(data=Historical.load(BARS, secret=SECRET))
    assert plain.fingerprint != worlds[0].fingerprint  # text joined is still named


def test_a_date_read_ahead_early_reads_its_trading_day_once_traded() -> None:
    bars = BARS[BARS["date"] != DATES[FIRST + 5]]  # a closure between the two items
    dates = sorted(bars["date"].unique())
    ahead = dates[FIRST + 12]
    items = news([at(FIRST + 2), at(FIRST + 15)]).assign(body=f"Vote on {ahead}.")
    early, late = masked_items(bars, items)
    assert late == "Vote on day 12."  # its row on the bars' calendar, the closure known
    assert early == "Vote on day 13."  # ahead of the closure: business days from day 2
