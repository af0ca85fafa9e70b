"""Timing a hostile user gets wrong: text from other years, a feed delay of centuries, an
item dated at the end of what a timestamp holds. None may reach a payload early; a run that
could read nothing is refused rather than run silent."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from workbench import evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textfeed import TextData
from workbench.errors import ConfigError
from workbench.evaluation.world import World

BARS = sample_bars(days=60, names=3, seed=5)  # ACME, BOLT, CRUX
DATES = sorted(BARS["date"].unique())


def news(*published: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "published": list(published),
            "symbols": ["ACME"] * len(published),
            "headline": [f"Acme item {i}" for i in range(len(published))],
            "body": [""] * len(published),
        }
    )


def test_an_item_at_the_end_of_time_with_an_embargo_is_never_seen() -> None:
    # published + embargo lies past what a nanosecond timestamp holds: it must not wrap
    # around to the first row
    bars = sample_bars(days=320, names=3, seed=5)
    first = sorted(bars["date"].unique())[0]
    text = news(f"{first}T09:00:00Z", "2261-12-01T00:00:00Z")
    data = Historical.load(bars, news=text, embargo="300D", secret="hostile-secret-0123")
    feed = World(data=data).path.text
    assert feed is not None
    shown = [feed.item(i)["headline"] for i in range(len(feed.news_rows))]
    assert shown == ["Acme item 0"] and feed.news_rows[0] > 200


def test_an_embargo_longer_than_a_year_is_refused() -> None:
    with pytest.raises(ConfigError, match="embargo '100000D' is longer than a year"):
        Historical.load(BARS, news=news(f"{DATES[3]}T09:00:00Z"), embargo="100000D")


def test_an_embargo_is_refused_from_the_first_day_past_a_year_of_365() -> None:
    text = news(f"{DATES[3]}T09:00:00Z")
    with pytest.raises(ConfigError, match=r"embargo '366D' is longer than a year \(365 days\)"):
        Historical.load(BARS, news=text, embargo="366D")
    with pytest.raises(ConfigError, match="embargo '365D 1min' is longer than a year"):
        Historical.load(BARS, news=text, embargo="365D 1min")
    # a year's embargo is taken: these bars are too short for any item to outlast it
    with pytest.raises(ConfigError, match=r"none of the 1 news items is seen .* embargo of 365"):
        Historical.load(BARS, news=text, embargo="365D")


def test_news_from_other_years_is_refused_not_run_silent() -> None:
    later = news("2030-01-02T09:00:00Z", "2030-01-03T09:00:00Z")
    with pytest.raises(ConfigError, match=r"none of the 2 news items is seen by the bars' last"):
        Historical.load(BARS, news=later)


def test_reports_the_embargo_pushes_past_the_last_close_are_refused() -> None:
    reports = pd.DataFrame(
        {"published": [f"{DATES[-1]}T09:00:00-05:00"], "symbol": ["ACME"], "eps": [1.0]}
    )
    assert Historical.load(BARS, fundamentals=reports).text is not None
    with pytest.raises(ConfigError, match=r"none of the 1 reports .*embargo of 1 days"):
        Historical.load(BARS, fundamentals=reports, embargo="1D")


def test_news_some_of_which_the_bars_see_is_kept() -> None:
    text = news(f"{DATES[10]}T09:00:00Z", "2030-01-02T09:00:00Z")
    data = Historical.load(BARS, news=text)
    assert data.text is not None and data.text.news is not None and len(data.text.news) == 2


def test_poisoning_what_the_embargo_lets_out_at_or_after_a_close_changes_nothing_before() -> None:
    from test_historical_text import SECRET, Spy, random_items  # the same bars as BARS

    rng = np.random.default_rng(11)
    news = pd.DataFrame(random_items(rng, 300))
    cut, embargo = 35, pd.Timedelta("2h")

    def payloads(table: pd.DataFrame) -> list[str]:
        spy = Spy()
        data = Historical.load(BARS, news=table, embargo="2h", secret=SECRET)
        evaluate([spy], data=data)
        return [json.dumps(p["news"]) for p in spy.seen]

    close = TextData.load(BARS).closes([DATES[cut]])[0]
    stamps = pd.to_datetime(news["published"], utc=True).to_numpy("datetime64[ns]")
    late = stamps.view(np.int64) + embargo.value >= close  # out only at or after that close
    poisoned = news.copy()
    poisoned.loc[late, "headline"] = [f"LEAKED {i}" for i in np.flatnonzero(late)]
    clean, dirty = payloads(news), payloads(poisoned)
    decided = cut - 20 + 1  # decisions at rows 20..cut
    assert dirty[:decided] == clean[:decided] and "LEAKED" not in "".join(dirty[:decided])
    assert "LEAKED" in "".join(dirty[decided:])
