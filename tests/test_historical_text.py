"""News and fundamentals on historical bars: point in time, masked, the simulated payload's keys."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.baselines import Cash, Momentum
from workbench.bridge import run_sync
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textfeed import TextData
from workbench.evaluation.runner import run_world

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

SECRET = "text-secret-0123456789"
BARS = sample_bars(days=60, names=3, seed=5)  # ACME, BOLT, CRUX from 2016-01-04
DATES = sorted(BARS["date"].unique())
ZONE = "America/New_York"


class Spy(Agent):
    def __init__(self) -> None:
        super().__init__("spy")
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(payload)
        return {"actions": []}


def close_of(row: int, minutes: int = 0) -> str:
    """The close of date ``row`` (16:00 New York) moved by ``minutes``, as ISO with offset."""
    local = pd.Timestamp(f"{DATES[row]} 16:00") + pd.Timedelta(minutes=minutes)
    return local.tz_localize(ZONE).isoformat()


def item(published: str, symbols: str = "ACME", headline: str = "ACME news") -> dict[str, Any]:
    return {"published": published, "symbols": symbols, "headline": headline, "body": "Body."}


def feed(items: list[dict[str, Any]], **options: Any) -> Any:
    data = Historical.load(BARS, news=pd.DataFrame(items), secret=SECRET, **options)
    return World(data=data).path.text


def test_an_item_is_seen_only_at_the_first_close_strictly_after_it() -> None:
    text = feed([item(close_of(25, -1)), item(close_of(25)), item(close_of(25, +1))])
    assert text.news_rows == [25, 26, 26]  # one minute before the close: seen at it
    assert [i["id"] for i in text.news(24, 25)["news"]] == [0]
    assert [i["id"] for i in text.news(25, 26)["news"]] == [2, 1]  # newest first


def test_an_embargo_delays_what_is_seen() -> None:
    text = feed([item(close_of(25, -10)), item(close_of(25, -20))], embargo="15min")
    assert text.news_rows == [25, 26]


@pytest.mark.slow
def test_the_close_time_and_time_zone_can_be_set() -> None:
    tokyo = pd.Timestamp(f"{DATES[25]} 14:00").tz_localize("Asia/Tokyo").isoformat()
    text = feed([item(tokyo)], close_time="13:00", timezone="Asia/Tokyo")
    assert text.news_rows == [26]  # after Tokyo's close: seen at the next one
    assert feed([item(tokyo)]).news_rows == [25]  # before New York's close that day


def test_items_seen_by_no_decision_are_left_out_and_the_cap_holds() -> None:
    items = [item(close_of(30, -m)) for m in range(1, 26)] + [item(close_of(59, +5))]
    text = feed(items)
    assert len(text.news_rows) == 25
    window = text.news(29, 30)
    assert len(window["news"]) == 20 and window["news_omitted"] == 5


def random_items(rng: np.random.Generator, count: int) -> list[dict[str, Any]]:
    rows = rng.integers(0, len(DATES), count)
    minutes = rng.integers(-900, 900, count)
    minutes[: count // 5] = 0  # a fifth of them exactly at a close
    symbols = rng.choice(["ACME", "BOLT", "CRUX", "ACME;CRUX", ""], count)
    return [
        item(close_of(int(r), int(m)), str(s), f"headline {k}")
        for k, (r, m, s) in enumerate(zip(rows, minutes, symbols, strict=True))
    ]


def reports(rng: np.random.Generator, count: int) -> pd.DataFrame:
    rows, minutes = rng.integers(0, len(DATES), count), rng.integers(-900, 900, count)
    return pd.DataFrame(
        {
            "published": [close_of(int(r), int(m)) for r, m in zip(rows, minutes, strict=True)],
            "symbol": rng.choice(["ACME", "BOLT", "CRUX"], count),
            "eps": rng.normal(2, 0.5, count).round(2),
        }
    )


def payloads(news: pd.DataFrame, fundamentals: pd.DataFrame) -> list[str]:
    spy = Spy()
    data = Historical.load(BARS, news=news, fundamentals=fundamentals, secret=SECRET)
    evaluate([spy], data=data)
    return [json.dumps({k: v for k, v in p.items() if k != "portfolio"}) for p in spy.seen]


@pytest.mark.parametrize("cut", [22, 35, 50])
@pytest.mark.slow
def test_poisoning_every_item_at_or_after_a_close_changes_no_payload_before_it(cut: int) -> None:
    rng = np.random.default_rng(cut)
    news, fundamentals = pd.DataFrame(random_items(rng, 400)), reports(rng, 60)
    clean = payloads(news, fundamentals)
    close = TextData.load(BARS).closes([DATES[cut]])[0]

    def poison(table: pd.DataFrame, column: str, value: Any) -> pd.DataFrame:
        stamps = pd.to_datetime(table["published"], utc=True).to_numpy("datetime64[ns]")
        late = stamps.view(np.int64) >= close
        poisoned = table.copy()
        poisoned.loc[late, column] = [value(i) for i in np.flatnonzero(late)]  # each distinct
        return poisoned.drop(index=np.flatnonzero(late)[::3])  # a third removed, the rest changed

    leaked = poison(news, "headline", lambda i: f"LEAKED {i}")
    poisoned = payloads(leaked, poison(fundamentals, "eps", lambda i: 999.0))
    decided = cut - 20 + 1  # decisions at rows 20..cut (HISTORY_STEPS rows of warm-up)
    assert poisoned[:decided] == clean[:decided]
    assert poisoned[decided:] != clean[decided:]  # the poison is there to be seen later
    assert "LEAKED" not in "".join(poisoned[:decided]) and "LEAKED" in "".join(poisoned)


def test_the_payload_has_the_simulated_markets_keys() -> None:
    spy, simulated = Spy(), Spy()
    data = Historical.load(
        BARS,
        news=pd.DataFrame([item(close_of(21, -30))]),
        fundamentals=reports(np.random.default_rng(1), 10),
        secret=SECRET,
    )
    evaluate([spy], data=data)
    evaluate([simulated], preset="standard-v2", universe=3, days=3, seed=1)
    text_keys, sim_keys = set(spy.seen[0]), set(simulated.seen[0])
    assert sim_keys - text_keys == {"calendar"}  # no calendar is known ahead on real text
    assert text_keys <= sim_keys and spy.seen[0]["schema_version"] == "2"
    shown = spy.seen[1]["news"][0]
    assert set(shown) == {"id", "day", "step", "kind", "symbols", "headline", "body"}
    assert shown["day"] == 1 and shown["symbols"][0].startswith("ASSET")
    assert set(spy.seen[0]["fundamentals"]) == set(spy.seen[0]["symbols"])


def test_bars_without_text_keep_the_price_only_payload() -> None:
    spy = Spy()
    evaluate([spy], data=BARS, days=2)
    assert "news" not in spy.seen[0] and spy.seen[0]["schema_version"] == "1"


NAMES = {"ACME": ["Acme Industries", "Acme"], "BOLT": "Bolt Systems"}


def masked(headline: str, symbols: str = "ACME", **options: Any) -> dict[str, Any]:
    data = Historical.load(
        BARS, news=pd.DataFrame([item(close_of(22, -60), symbols, headline)]), names=NAMES,
        secret=SECRET, **options,
    )  # fmt: skip
    path = World(data=data).path
    return {"item": path.text.item(0), "data": data, "path": path}


def test_names_and_tickers_become_aliases_in_the_text() -> None:
    shown = masked("Acme Industries ($ACME, NYSE:ACME) beats BOLT; acme and Bolt Systems on")
    alias = {real: alias for alias, real in shown["data"].mapping.items()}
    a, b = alias["ACME"], alias["BOLT"]
    assert shown["item"]["headline"] == f"{a} ({a}, {a}) beats {b}; {a} and {b} on"


def test_dates_in_the_text_become_relative_days() -> None:
    text = "Set on 2016-02-02, moved from Feb 3, 2016 to 4 February 2016, in March 2016 or 2017"
    headline = masked(text)["item"]["headline"]
    day = DATES.index("2016-02-02") - 20
    assert headline == (
        f"Set on day {day}, moved from day {day + 1} to day {day + 2}, in [date] or [date]"
    )


def test_prices_in_the_text_are_rescaled_with_the_mask() -> None:
    shown = masked("ACME closed at $1,000.00 and BOLT at $5")
    data, path = shown["data"], shown["path"]
    column = list(data.mapping.values()).index("ACME")
    factor = (
        path.close[0, column]
        / data.real_panel["close"][0, sorted(data.mapping.values()).index("ACME")]
    )
    alias = list(data.mapping)[column]
    expected = f"${1000 * factor:,.2f}"
    assert shown["item"]["headline"].startswith(f"{alias} closed at {expected} and ")
    several = masked("ACME and BOLT trade at $10", symbols="ACME;BOLT")["item"]["headline"]
    assert several.endswith("trade at $[amount]")


def test_unmasked_runs_keep_the_text_as_written() -> None:
    data = Historical.load(
        BARS, news=pd.DataFrame([item(close_of(22, -60), "ACME", "Acme on 2016-02-02")]), mask=False
    )
    assert World(data=data).path.text.item(0)["headline"] == "Acme on 2016-02-02"


def test_masked_fundamentals_scale_money_and_keep_ratios() -> None:
    table = pd.DataFrame(
        {"published": [close_of(21, -60)], "symbol": ["ACME"], "eps": [2.0], "net_margin": [0.1]}
    )
    data = Historical.load(BARS, fundamentals=table, secret=SECRET)
    path = World(data=data).path
    alias = {real: alias for alias, real in data.mapping.items()}["ACME"]
    report = path.text.fundamentals(21)[alias]
    assert report["report_day"] == 1 and report["net_margin"] == 0.1 and report["eps"] != 2.0
    assert path.text.fundamentals(20)[alias] is None


def test_the_text_enters_the_fingerprint_and_the_meta() -> None:
    plain = Historical.load(BARS, secret=SECRET)
    with_text = Historical.load(BARS, news=pd.DataFrame([item(close_of(22))]), secret=SECRET)
    assert World(data=plain).fingerprint != World(data=with_text).fingerprint
    meta = evaluate(["cash"], data=with_text, days=5).meta["data"]["text"]
    assert meta["news_items"] == 1 and meta["embargo"] == "0 days 00:00:00"


_CHILD = """
import json, sys
import numpy as np, pandas as pd
sys.path.insert(0, {tests!r})
from test_historical_text import payloads, random_items, reports
rng = np.random.default_rng(7)
print(json.dumps(payloads(pd.DataFrame(random_items(rng, 200)), reports(rng, 30))))
"""


@pytest.mark.slow
def test_payloads_with_text_repeat_bit_for_bit_in_another_process() -> None:
    rng = np.random.default_rng(7)
    here = payloads(pd.DataFrame(random_items(rng, 200)), reports(rng, 30))
    code = _CHILD.format(tests=str(Path(__file__).parent))
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(child.stdout) == here


@pytest.mark.slow
def test_the_example_text_runs_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    from workbench.cli import main

    folder = Path(__file__).resolve().parents[1] / "notebooks" / "data"
    argv = ["evaluate", "--data", str(folder / "example_bars.csv"), "--days", "30"]
    argv += ["--news", str(folder / "example_news.csv"), "--arms", "headline_sentiment"]
    argv += ["--fundamentals", str(folder / "example_fundamentals.csv")]
    argv += ["--company-names", str(folder / "example_names.csv"), "--embargo", "5min"]
    assert main(argv) == 0
    assert "headline_sentiment" in capsys.readouterr().out


def test_text_flags_need_data(capsys: pytest.CaptureFixture[str]) -> None:
    from workbench.cli import main

    assert main(["evaluate", "--news", "news.csv"]) == 2
    assert "--news needs --data" in capsys.readouterr().err


def test_an_arm_that_mutates_its_news_cannot_change_what_another_sees() -> None:
    class Vandal(Spy):
        def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
            for shown in payload["news"]:
                shown["headline"], shown["day"] = "vandalised", -1
                shown["symbols"].append("ASSETX")
            payload["news"].clear()
            return {"actions": []}

    items = [item(close_of(row, -30), headline=f"ACME news {row}") for row in (21, 22, 23)]
    data = Historical.load(BARS, news=pd.DataFrame(items), secret=SECRET)
    vandal, spy = Vandal(), Spy()
    vandal.name = "vandal"
    evaluate([vandal, spy], data=data)
    shown = [n for payload in spy.seen for n in payload["news"]]
    assert [n["day"] for n in shown] == [1, 2, 3]
    assert all(n["headline"] != "vandalised" and len(n["symbols"]) == 1 for n in shown)


def test_one_text_about_different_names_is_scaled_by_each_ones_factor() -> None:
    quote = "It traded at $100.00 on 2016-02-02."
    names = ("ACME", "BOLT", "ACME;BOLT", "ACME")
    items = [item(close_of(21, -30 + k), s, quote) for k, s in enumerate(names)]
    feed = World(data=Historical.load(BARS, news=pd.DataFrame(items), secret=SECRET)).path.text
    shown = [feed.item(i)["headline"] for i in range(4)]
    assert shown[0] == shown[3] and len(set(shown)) == 3  # replacements are reused per factor
    assert shown[2] == "It traded at $[amount] on day 1."


def test_an_arm_that_reads_no_news_gets_none_and_masks_nothing() -> None:
    class PriceOnly(Spy):
        reads_news = False

    items = [item(close_of(row, -30), headline=f"ACME news {row}") for row in (21, 22, 23)]
    data = Historical.load(BARS, news=pd.DataFrame(items), secret=SECRET)
    prices, reader = PriceOnly(), Spy()
    prices.name = "prices"
    alone = World(data=data)
    run_sync(run_world(alone, [prices, "momentum"]))
    assert all("news" not in payload for payload in prices.seen)
    assert alone.path.text is not None
    assert all(shown is None for shown in alone.path.text._items)  # nothing masked
    evaluate([prices, reader], data=data)
    assert [n["day"] for payload in reader.seen for n in payload["news"]] == [1, 2, 3]


class MomentumOnNews(Momentum):
    """Momentum with a news signal added; it does not say it reads the news."""

    name = "momentum_on_news"

    def __init__(self) -> None:
        super().__init__()
        self.headlines: list[str] = []

    def targets(self, payload: dict[str, Any]) -> dict[str, float]:
        self.headlines += [n["headline"] for n in payload.get("news", [])]
        return super().targets(payload)


def test_a_subclass_of_a_price_only_baseline_reads_the_news_unless_it_says_not() -> None:
    class QuietCash(Cash):
        reads_news = False

    assert MomentumOnNews.reads_news and not Momentum.reads_news and not QuietCash.reads_news
    items = [item(close_of(row, -30), headline=f"ACME news {row}") for row in (21, 22, 23)]
    arm = MomentumOnNews()
    run_sync(run_world(World(data=Historical.load(BARS, news=pd.DataFrame(items))), [arm]))
    assert len(arm.headlines) == 3 and all("ACME" not in h for h in arm.headlines)


def test_the_clis_default_arms_read_the_researchers_news_on_bars() -> None:
    from workbench.services.presets import default_arms

    price_rules = default_arms(None, bars=True)
    assert "headline_sentiment" not in price_rules and "earnings_drift" not in price_rules
    with_news = default_arms(None, bars=True, news=True)
    assert with_news == [*price_rules, "headline_sentiment"]  # earnings need the simulator's
    assert "earnings_drift" in default_arms("standard-v2") and "earnings_drift" not in default_arms(
        "standard-v1"
    )


def test_the_scripted_news_reader_reads_an_earnings_headline_without_figures() -> None:
    from workbench.testing.scripted import news_reader

    item = {"kind": "earnings", "symbols": ["ASSET001"], "headline": "ASSET001 beats, shares surge"}
    payload = {
        "portfolio": {"equity": 1e6, "positions": {}},
        "symbols": {"ASSET001": {"last": 10.0}},
    }
    answer = json.loads(news_reader({**payload, "news": [{**item, "body": ""}]}))
    assert answer["actions"] == [{"symbol": "ASSET001", "side": "buy", "quantity": 4000.0}]
