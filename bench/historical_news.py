"""What a researcher's news costs on historical bars: the join once, and each decision.

    python bench/historical_news.py

100,000 items (50 a day, headline and a three-sentence body naming a company, a
date and a price) and a report a quarter per name, on 2,000 dates x 6 names.

1. The join: reading and checking the items and the reports, and placing each on
   the row it is first seen (``TextData.load`` and the ``TextFeed``), in CPU
   seconds against the 1 s budget: ratio = seconds / 1 s (target <= 1).
2. A decision: the whole run of ``momentum`` (payload, decision, execution,
   marking) with the text over the same run without it, per decision (target
   <= 1.2), masked (the default) and unmasked. Masking rewrites each item's text
   once, the first time a payload carries it (about 0.1 ms a text), and at 50 items
   a day that is most of a masked decision's cost. The payload's own cost (items
   already masked) is printed for reference.
Each figure is the best of three (two for the runs).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from workbench.engine.execution import Portfolio
from workbench.engine.historical import Historical
from workbench.engine.market import MarketPath
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation import World, evaluate
from workbench.evaluation.observation import arm_payload, market_payload

DAYS, NAMES, ITEMS = 2_000, 6, 100_000
NAMES_MAP = {"ACME": "Acme Industries", "BOLT": "Bolt Systems", "CRUX": "Crux Materials"}


def best(work: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        work()
        times.append(time.process_time() - started)
    return min(times)


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
    world = World(data=texted)

    def join() -> object:
        data = plain.with_text(news=items, fundamentals=figures, names=NAMES_MAP)
        return data.path(world.preset, warmup_days=20, days=DAYS)

    path_only = best(lambda: plain.path(world.preset, warmup_days=20, days=DAYS))
    joined = best(join) - path_only
    print(f"{len(items):,} items, {len(figures)} reports on {DAYS:,} dates x {NAMES} names")
    print(f"  join (check, place, index) {joined:.3f} s CPU  ratio to 1 s: {joined:.2f}  (<= 1)")

    with_text = best(lambda: evaluate(["momentum"], data=texted, days=DAYS), repeats=2)
    without = best(lambda: evaluate(["momentum"], data=plain, days=DAYS), repeats=2)
    each = (with_text / DAYS * 1e6, without / DAYS * 1e6)
    print(f"  decision with news {each[0]:.0f} us, without {each[1]:.0f} us  "
          f"ratio {with_text / without:.2f}  (<= 1.2)")  # fmt: skip
    print(f"  payload alone: ratio {payload_ratio(texted, plain):.2f} (for reference)")
    raw = Historical.load(bars, mask=False)
    raw_text = raw.with_text(news=items, fundamentals=figures)
    unmasked = best(lambda: evaluate(["momentum"], data=raw_text, days=DAYS), repeats=2)
    bare = best(lambda: evaluate(["momentum"], data=raw, days=DAYS), repeats=2)
    print(f"  unmasked: decision with news {unmasked / DAYS * 1e6:.0f} us, without "
          f"{bare / DAYS * 1e6:.0f} us  ratio {unmasked / bare:.2f}  (the feed without the "
          "text mask)")  # fmt: skip


def payload_ratio(texted: Historical, plain: Historical) -> float:
    costs = []
    for data in (texted, plain):
        world = World(data=data)
        path, symbols = world.path, world.universe.symbols
        book = Portfolio(1e6, np.zeros(NAMES), 2.0, 0.5)
        build = partial(build_payloads, path, book, symbols)
        build()  # items are masked once per run, as in a run: the first pass pays it
        costs.append(best(build))
    return costs[0] / costs[1]


def build_payloads(path: MarketPath, book: Portfolio, symbols: tuple[str, ...]) -> None:
    for row in range(20, 20 + DAYS):
        market = market_payload(path, row)
        shown = path.text.news(row - 1, row) if path.text is not None else None
        arm_payload(market, book, symbols, equity=1e6, gross=0, news=shown)


if __name__ == "__main__":
    main()
