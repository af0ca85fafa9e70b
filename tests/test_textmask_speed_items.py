"""Items that name the same symbols carry one list of their aliases (one object fewer per
item kept in a run), and an arm's own copy of the news is still its own."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench import World
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textfeed import TextFeed
from workbench.evaluation.observation import private_news

pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

BARS = sample_bars(days=40, names=3, seed=5)  # ACME, BOLT, CRUX
DATES = sorted(BARS["date"].unique())
SYMBOLS = ("ACME;BOLT", "CRUX", "ACME;BOLT", "CRUX", "BOLT;ACME", "ACME")  # the items'


def _feed() -> TextFeed:
    news = pd.DataFrame(
        {
            "published": [f"{d}T12:00:00Z" for d in DATES[5:11]],
            "symbols": list(SYMBOLS),
            "headline": [f"Update {i}" for i in range(6)],
            "body": ["ACME closed at $12.50."] * 6,
        }
    )
    data = Historical.load(BARS, secret="items-secret-0123456789").with_text(news=news)
    feed = World(data=data, days=20).path.text
    assert feed is not None
    return feed


def test_items_naming_the_same_symbols_carry_their_aliases_in_order() -> None:
    feed = _feed()
    items = [feed.item(i) for i in range(6)]
    alias = feed.alias_of
    for item, real in zip(items, SYMBOLS, strict=True):
        assert item["symbols"] == [alias[s] for s in real.split(";")]
    assert items[0]["symbols"] is items[2]["symbols"]  # one list for the same symbols
    assert items[0]["symbols"] != items[4]["symbols"]  # in another order: another list


def test_an_arms_own_copy_of_an_item_changes_no_other_item() -> None:
    feed = _feed()
    first, same = feed.item(0), feed.item(2)
    mine = private_news({"news": [first], "news_omitted": 0})["news"][0]
    mine["symbols"].append("ASSET999")
    mine["symbols"][0] = "changed"
    assert first["symbols"] == same["symbols"] == [feed.alias_of[s] for s in ("ACME", "BOLT")]
