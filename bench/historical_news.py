"""What a researcher's news costs on historical bars: once per run, and each decision.

    python bench/historical_news.py

100,000 items (50 a day, headline and a three-sentence body naming a company, a
date and a price) and a report a quarter per name, on 2,000 dates x 6 names.

Once per run:
1. The join: reading and checking the items and the reports, and placing each on
   the row it is first seen (``TextData.load`` and the ``TextFeed``), in CPU
   seconds against the 1 s budget: ratio = seconds / 1 s (target <= 1).
2. The mask: each item a payload carries is masked the first time it is carried
   (headline and body, about 30 us an item), and only those: at most NEWS_CAP a
   decision. Printed per item and for the run, with no target of its own.

Each decision (target <= 1.2), against a baseline measured in the same run:
3. The whole decision of ``momentum`` (payload, decision, execution, marking) on a
   path whose text is joined and masked, with the text over the same without it,
   masked (the default) and unmasked.
4. The payload alone for an arm that gets its own copy (every arm but the
   baselines): the news is copied item by item; before, the whole payload took a
   JSON round trip, which re-encoded every headline and body (printed beside it).

5. For reference, the whole run with the once-per-run work in it, over the run
   without text.
Each figure is the best of three, a ratio the best of five of each side taken in turn
(two for the whole runs).
"""

from __future__ import annotations

import bisect
import json
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from workbench.bridge import run_sync
from workbench.engine.execution import Portfolio
from workbench.engine.historical import Historical
from workbench.engine.market import MarketPath
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textfeed import TextFeed
from workbench.evaluation import World, evaluate
from workbench.evaluation.observation import arm_payload, market_payload
from workbench.evaluation.runner import run_world
from workbench.schema import NEWS_CAP

DAYS, NAMES, ITEMS = 2_000, 6, 100_000
NAMES_MAP = {"ACME": "Acme Industries", "BOLT": "Bolt Systems", "CRUX": "Crux Materials"}


def best(work: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return min(times)


def best_pair(
    work: Callable[[], object], baseline: Callable[[], object], repeats: int = 5
) -> tuple[float, float]:
    """The best of ``repeats`` of each, taken in turn, so a machine that slows down part
    way through slows both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeats):
        for kept, task in zip(times, (work, baseline), strict=True):
            started = time.process_time()
            task()
            kept.append(time.process_time() - started)
    return min(times[0]), min(times[1])


def news(bars: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    dates = np.array(sorted(bars["date"].unique()), dtype="datetime64[D]")
    symbols = np.array(sorted(bars["symbol"].unique()))
    day = np.sort(rng.integers(0, len(dates), ITEMS))
    minutes = rng.integers(0, 24 * 60, ITEMS)
    local = pd.DatetimeIndex(dates[day]) + pd.to_timedelta(minutes, unit="min")
    stamps = local.tz_localize("America/New_York", ambiguous="NaT", nonexistent="shift_forward")
    who = rng.integers(0, len(symbols), ITEMS)
    frame = pd.DataFrame(
        {
            "published": stamps.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "symbols": symbols[who],
            "headline": [
                f"{s} shares move on demand update {k}" for k, s in enumerate(symbols[who])
            ],
            "body": [
                f"Acme Industries said on March 4, 2016 that {s} traded at $123.45. Orders "
                "were firm. The company declined further comment."
                for s in symbols[who]
            ],
        }
    )
    return frame[stamps.notna()].reset_index(drop=True)


def reports(bars: pd.DataFrame) -> pd.DataFrame:
    dates = sorted(bars["date"].unique())[30::63]
    rows = [(f"{d}T07:30:00-05:00", s, 1.5, 400.0) for d in dates for s in bars["symbol"].unique()]
    return pd.DataFrame(rows, columns=["published", "symbol", "eps", "revenue"])


def main() -> None:
    bars = sample_bars(days=DAYS + 20, names=NAMES, seed=3)
    items, figures = news(bars), reports(bars)
    plain = Historical.load(bars, secret="bench-secret-0123456789")
    texted = plain.with_text(news=items, fundamentals=figures, names=NAMES_MAP)
    print(f"{len(items):,} items, {len(figures)} reports on {DAYS:,} dates x {NAMES} names")
    print_join(plain, items, figures)
    print_mask(texted)
    print_decisions(plain, texted, "masked")
    raw = Historical.load(bars, mask=False)
    print_decisions(raw, raw.with_text(news=items, fundamentals=figures), "unmasked")
    print_payloads(plain, texted)
    whole, bare = best_pair(
        lambda: evaluate(["momentum"], data=texted, days=DAYS),
        lambda: evaluate(["momentum"], data=plain, days=DAYS),
        repeats=2,
    )
    print(f"  for reference, the whole run with the join and the mask in it: {whole:.2f} s "
          f"CPU, without text {bare:.2f} s  ratio {whole / bare:.2f}")  # fmt: skip


def print_join(plain: Historical, items: pd.DataFrame, figures: pd.DataFrame) -> None:
    world = World(data=plain)

    def join() -> object:
        data = plain.with_text(news=items, fundamentals=figures, names=NAMES_MAP)
        return data.path(world.preset, warmup_days=20, days=DAYS)

    path_only = best(lambda: plain.path(world.preset, warmup_days=20, days=DAYS))
    joined = best(join) - path_only
    print(f"  once: join (check, place, index) {joined:.3f} s CPU  ratio to 1 s: {joined:.2f}  "
          "(<= 1)")  # fmt: skip


def print_mask(texted: Historical) -> None:
    feed = World(data=texted, days=DAYS).path.text
    assert feed is not None
    shown = sorted({i for row in range(20, 20 + DAYS) for i in shown_items(feed, row)})
    started = time.process_time()
    for i in shown:
        feed.item(i)
    spent = time.process_time() - started
    print(f"  once: mask {len(shown):,} items a payload carries, {spent / len(shown) * 1e6:.0f} "
          f"us each: {spent:.2f} s CPU")  # fmt: skip


def shown_items(feed: TextFeed, row: int) -> range:
    low, high = (
        bisect.bisect_right(feed.news_rows, row - 1),
        bisect.bisect_right(feed.news_rows, row),
    )
    return range(max(low, high - NEWS_CAP), high)


def print_decisions(plain: Historical, texted: Historical, label: str) -> None:
    runs = []
    for data in (texted, plain):
        world = World(data=data, days=DAYS)
        run_sync(run_world(world, ["momentum"]))  # the path joined, the items masked
        runs.append(partial(lambda w: run_sync(run_world(w, ["momentum"])), world))
    costs = best_pair(*runs)
    each = [cost / DAYS * 1e6 for cost in costs]
    print(f"  each decision, {label}: with news {each[0]:.0f} us, without {each[1]:.0f} us  "
          f"ratio {costs[0] / costs[1]:.2f}  (<= 1.2)")  # fmt: skip


def print_payloads(plain: Historical, texted: Historical) -> None:
    copied = payload_ratio(texted, plain, round_trip=False)
    round_trip = payload_ratio(texted, plain, round_trip=True)
    print(f"  each payload an arm may mutate: ratio {copied:.2f}  (<= 1.2; with the JSON round "
          f"trip it replaced: {round_trip:.2f})")  # fmt: skip


def payload_ratio(texted: Historical, plain: Historical, *, round_trip: bool) -> float:
    builds = []
    for data in (texted, plain):
        world = World(data=data, days=DAYS)
        path, symbols = world.path, world.universe.symbols
        book = Portfolio(1e6, np.zeros(NAMES), 2.0, 0.5)
        build = partial(build_payloads, path, book, symbols, round_trip)
        build()  # items are masked once per run, as in a run: the first pass pays it
        builds.append(build)
    with_news, without = best_pair(*builds)
    return with_news / without


def build_payloads(
    path: MarketPath, book: Portfolio, symbols: tuple[str, ...], round_trip: bool
) -> None:
    for row in range(20, 20 + DAYS):
        market = market_payload(path, row)
        shown = path.text.news(row - 1, row) if path.text is not None else None
        if round_trip:  # how the payload was copied before
            payload = {**market, **shown} if shown is not None else market
            json.loads(json.dumps(payload))
            arm_payload(market, book, symbols, equity=1e6, gross=0, private=False)
        else:
            arm_payload(market, book, symbols, equity=1e6, gross=0, news=shown)


if __name__ == "__main__":
    main()
