"""An arm's own copy of a payload with reports and news: the same JSON, and its own."""

from __future__ import annotations

import bisect
import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import World
from workbench.baselines import HeadlineSentiment, Momentum
from workbench.bridge import run_sync
from workbench.engine.execution import Portfolio
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation.observation import (
    MarketPayloads,
    arm_payload,
    market_payload,
    private_market,
)
from workbench.evaluation.runner import run_world
from workbench.schema import HOLD, NEWS_CAP, Decision

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

BARS = sample_bars(days=80, names=3, seed=5)  # ACME, BOLT, CRUX from 2016-01-04
DATES = sorted(BARS["date"].unique())


def texted_world() -> World:
    news = pd.DataFrame(
        {
            "published": [f"{d}T12:00:00Z" for d in DATES[5:60]],
            "symbols": ["ACME;BOLT"] * 55,
            "headline": [f"ACME and BOLT update {i}" for i in range(55)],
            "body": ["ACME closed at $12.50 on March 4, 2016."] * 55,
        }
    )
    reports = pd.DataFrame(
        {
            "published": [f"{DATES[d]}T07:30:00-05:00" for d in (10, 30)],
            "symbol": ["ACME", "CRUX"],
            "eps": [1.5, float("nan")],
            "net_margin": [0.12, 0.2],
        }
    )
    data = Historical.load(BARS, secret="payload-secret-0123456789")
    return World(data=data.with_text(news=news, fundamentals=reports), days=40)


def payloads(world: World) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    path, out = world.path, []
    for row in range(path.warmup_steps, path.warmup_steps + 40 * path.steps_per_day):
        shown = path.text.news(row - 1, row) if path.text is not None else None
        out.append((market_payload(path, row), shown))
    return out


def simulated_world() -> World:
    return World(preset="standard-v2", seed=4, universe=12, days=40)  # news and reports


@pytest.mark.parametrize("make", [texted_world, simulated_world])
def test_an_arms_copy_is_the_json_of_the_shared_payload_key_for_key(make: Any) -> None:
    world = make()
    book = Portfolio(1e6, np.zeros(world.universe.size), 2.0, 0.5)
    symbols = world.universe.symbols
    seen_reports = 0
    for market, shown in payloads(world):
        shared = arm_payload(market, book, symbols, equity=1e6, gross=0, private=False, news=shown)
        own = arm_payload(market, book, symbols, equity=1e6, gross=0, news=shown)
        assert json.dumps(own) == json.dumps(shared)  # same keys in the same order, same values
        seen_reports += sum(r is not None for r in (market.get("fundamentals") or {}).values())
    assert seen_reports > 0


def test_changing_an_arms_copy_leaves_the_shared_market_as_it_was() -> None:
    market = next(m for m, _ in payloads(texted_world()) if any(m["fundamentals"].values()))
    before = json.dumps(market)
    own = private_market(market)
    for report in own["fundamentals"].values():
        if report is not None:
            report["eps"] = -1.0
            report["added"] = 1
    own["symbols"].clear()
    own["fundamentals"]["new"] = None
    assert json.dumps(market) == before


class _Scribbler(Momentum):
    """A baseline's subclass that reads the payload in its own way, and writes in it."""

    name = "scribbler"

    def decide(self, payload: dict[str, Any]) -> Decision:
        for item in payload.get("news", []):
            item["headline"] = "scribbled"
        payload.clear()
        return HOLD


def test_a_subclass_writing_its_own_decide_gets_its_own_copy_unless_it_says_not() -> None:
    """``shares_payload`` is said by the class that writes ``decide``: a subclass of a
    baseline that does not say it again may mutate its payload without reaching another's."""

    class Declared(Momentum):
        shares_payload = True

        def decide(self, payload: dict[str, Any]) -> Decision:
            return HOLD

    assert Momentum.shares_payload and Declared.shares_payload
    assert not _Scribbler.shares_payload
    seen: list[Any] = []

    class Reader(HeadlineSentiment):
        name = "reader"
        shares_payload = True

        def decide(self, payload: dict[str, Any]) -> Decision:
            seen.append(json.dumps(payload, sort_keys=True))
            return HOLD

    world = texted_world()
    run_sync(run_world(world, [_Scribbler(), Reader()]))
    assert seen and not any("scribbled" in p for p in seen)
    assert all("news" in json.loads(p) for p in seen)


@pytest.mark.parametrize("make", [texted_world, simulated_world])
def test_the_run_payloads_read_what_market_payload_reads_at_every_row(make: Any) -> None:
    """``MarketPayloads`` looks each historical row's reports up once for the run: every
    row's market part is still the one ``market_payload`` builds, key for key."""
    path = make().path
    payloads = MarketPayloads(path)
    for row in range(path.warmup_steps, path.steps):
        assert json.dumps(payloads.at(row)) == json.dumps(market_payload(path, row))


def test_a_news_window_is_the_items_first_seen_in_it_at_any_rows_asked() -> None:
    """A window is looked up in a table of the path's rows; windows that start before the
    first row or end past the last are answered too, as a search of the items' rows does."""
    feed = texted_world().path.text
    assert feed is not None
    rows, last = feed.news_rows, len(BARS["date"].unique())
    for after in range(-3, last + 2, 3):
        for until in range(after, last + 3, 4):
            low, high = bisect.bisect_right(rows, after), bisect.bisect_right(rows, until)
            window = feed.news(after, until)
            ids = list(range(high - 1, max(low, high - NEWS_CAP) - 1, -1))
            assert [item["id"] for item in window["news"]] == ids
            assert window["news_omitted"] == max(0, high - low - NEWS_CAP)
