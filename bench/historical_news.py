"""What a researcher's news costs on historical bars: once per run, and each decision.

    python bench/historical_news.py [--mask]

100,000 items (50 a day; a headline and a body of three sentences drawn from
varied templates, each naming a company, a date, a price and a volume with
numbers of its own, so no two bodies are alike) and a report a quarter per
name, on 2,000 dates x 6 names.

Once per run:
1. The join (target <= 1 s CPU): reading and checking the items and the reports,
   and placing each on the row it is first seen (``TextData.load`` and the ``TextFeed``), in CPU
   seconds: ratio = seconds / 1 s.
2. The mask: each item a payload carries is masked the first time it is carried
   (headline and body), and only those: at most NEWS_CAP a decision, the items a
   decision first carries masked together, as a run does (each decision's news
   built in turn). Printed per item and for the run, at the run's 6 names and with a
   map of 500 names (the cost follows the text, not the names), and join + mask
   (over 1 s: the mask is the cost of reading, paid in a run with an arm that reads
   the news; an arm that says ``reads_news = False`` makes it pay none, line 5).
   Measured on a loaded two-core machine (load average 3-4), taken in turn with the
   tree before the runs of digits were read one after another, what stands around each
   learnt once (``textspans``) and the texts kept for the run by factor and text:
   join 0.25-0.26 s, mask 27-28 us an item (30-31 for the tree before; 38-44 before
   the mask read a text in ASCII in two passes), join + mask 1.34-1.36 s (1.45-1.48):
   over the 1 s target still, which needs about 18 us. Part of the mask's figure is
   not the mask's: the collector's full passes (one or two a run, 0.06-0.14 s each),
   which the item dicts the feed builds and keeps set off, and building them.
   ``python bench/in_turn.py BEFORE_TREE mask --rounds 4`` compares two trees in turn
   (those changes: 0.85-0.91; the mask's own work alone, the texts masked without the
   feed, 0.75), and ``python bench/text_mask_digest.py`` checks the mask's text is
   unchanged by such work.

Each decision, against a baseline measured in the same run:
3. **The payload** (target <= 1.2), the issue's figure: building a decision's
   payload as the runner builds it (the market part from the prices rounded once for
   the run, ``MarketPayloads.at``; the news since the last decision, ``reading.news``;
   the arm's part) on the path with text over the same path without it (the same
   prices). The items are masked in a first pass and read again in each timed one,
   out of the CPU's cache by then (in a first run a decision reads items just
   built), so this is the dearer case. For an arm that gets its own
   copy (every arm but the baselines: the reports copied one by one, the news item
   by item; beside it, what a JSON round trip of all of it costs) and for an arm
   that shares the payload and reads the news (the price-only baselines share it
   but read none: on historical bars their payload carries no news at all).
4. The whole decision (payload, the arm's own work, execution, marking), labelled
   as such, for ``momentum`` (never reads the news) and ``headline_sentiment``
   (reads every headline): an arm that reads 20 headlines a decision does work an
   arm with nothing to read does not, so this ratio is the arm's cost, not the
   payload's. Masked (the default) and unmasked; the items are masked in a first
   run, so this is the steady cost.
5. The first run, where each item is masked as it is first carried: the whole
   run with the join and the mask in it, over the run without text. ``momentum``
   reads no news (``reads_news = False``), so its run masks no item and pays the join
   alone; ``headline_sentiment`` reads the news, so its run pays the mask too.
Each figure is the best of three, a ratio the best of five of each side taken in turn
(two for the whole runs). ``--mask`` prints lines 1 and 2 alone (some 15 s instead of
four minutes), to time a change of the join or the mask.
"""

from __future__ import annotations

import argparse
import bisect
import dataclasses
import json
import time
from collections.abc import Callable
from functools import partial

import numpy as np
import pandas as pd

from workbench.bridge import run_sync
from workbench.engine.execution import Portfolio
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textfeed import TextFeed
from workbench.engine.textmask import TextMask
from workbench.evaluation import World, evaluate, reading
from workbench.evaluation.observation import MarketPayloads, arm_payload
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
            "headline": [headline(rng, s, k) for k, s in enumerate(symbols[who])],
            "body": [body(rng, s) for s in symbols[who]],
        }
    )
    return frame[stamps.notna()].reset_index(drop=True)


_OPENINGS = (
    "{name} said on {date} that {sym} traded at ${price}.",
    "Shares of {sym} closed at ${price} on {date}, {name} reported.",
    "{name} ({sym}) set a target of ${price} a share in a note dated {date}.",
    "On {date} {sym} changed hands at ${price} after {name} spoke to analysts.",
)
_MIDDLES = (
    "Volume reached {volume} shares.",
    "Orders were {mood} and margins held.",
    "The board met in {city} to review {mood} demand.",
    "Traders moved {volume} shares by midday.",
)
_ENDINGS = (
    "The company declined further comment.",
    "Analysts were {mood} on the outlook.",
    "A spokesperson pointed to the {quarter} results.",
)
_WORDS = {
    "mood": ("firm", "soft", "mixed", "strong", "weak", "steady"),
    "city": ("Boston", "Denver", "Austin", "Chicago", "Seattle"),
    "quarter": ("first-quarter", "second-quarter", "third-quarter", "fourth-quarter"),
}


def headline(rng: np.random.Generator, symbol: str, k: int) -> str:
    verb = ("rises", "falls", "holds", "jumps", "slips")[int(rng.integers(5))]
    return f"{symbol} {verb} on demand update {k}"


def body(rng: np.random.Generator, symbol: str) -> str:
    """Three sentences with their own numbers: no mask replacement cache hits by accident."""
    day = pd.Timestamp("2016-01-04") + pd.Timedelta(days=int(rng.integers(0, 2800)))
    fill = {
        "name": NAMES_MAP.get(symbol, f"{symbol.title()} Corp"),
        "sym": symbol,
        "date": f"{day:%B} {day.day}, {day.year}",
        "price": f"{rng.uniform(5, 500):.2f}",
        "volume": f"{int(rng.integers(10_000, 5_000_000)):,}",
        **{key: str(words[int(rng.integers(len(words)))]) for key, words in _WORDS.items()},
    }
    parts = (_OPENINGS, _MIDDLES, _ENDINGS)
    return " ".join(p[int(rng.integers(len(p)))].format(**fill) for p in parts)


def reports(bars: pd.DataFrame) -> pd.DataFrame:
    dates = sorted(bars["date"].unique())[30::63]
    rows = [(f"{d}T07:30:00-05:00", s, 1.5, 400.0) for d in dates for s in bars["symbol"].unique()]
    return pd.DataFrame(rows, columns=["published", "symbol", "eps", "revenue"])


def main(mask_only: bool = False) -> None:
    bars = sample_bars(days=DAYS + 20, names=NAMES, seed=3)
    items, figures = news(bars), reports(bars)
    plain = Historical.load(bars, secret="bench-secret-0123456789")
    texted = plain.with_text(news=items, fundamentals=figures, names=NAMES_MAP)
    print(f"{len(items):,} items, {len(figures)} reports on {DAYS:,} dates x {NAMES} names")
    joined = print_join(plain, items, figures)
    print_mask(texted, joined)
    if mask_only:
        return
    print_payloads(plain, texted)
    raw = Historical.load(bars, mask=False)
    for arm in ("momentum", "headline_sentiment"):
        print_decisions(plain, texted, "masked", arm)
        print_decisions(raw, raw.with_text(news=items, fundamentals=figures), "unmasked", arm)
        whole, bare = best_pair(
            lambda arm=arm: evaluate([arm], data=texted, days=DAYS),
            lambda arm=arm: evaluate([arm], data=plain, days=DAYS),
            repeats=2,
        )
        print(f"  first run of {arm}, join in it (and the mask, if it reads the news): "
              f"{whole:.2f} s CPU, without text "
              f"{bare:.2f} s  ratio {whole / bare:.2f}")  # fmt: skip


def print_join(plain: Historical, items: pd.DataFrame, figures: pd.DataFrame) -> float:
    world = World(data=plain)

    def join() -> object:
        data = plain.with_text(news=items, fundamentals=figures, names=NAMES_MAP)
        return data.path(world.preset, warmup_days=20, days=DAYS)

    path_only = best(lambda: plain.path(world.preset, warmup_days=20, days=DAYS))
    joined = best(join) - path_only
    print(f"  once: join (check, place, index) {joined:.3f} s CPU  ratio to 1 s: {joined:.2f}  "
          "(<= 1)")  # fmt: skip
    return joined


def print_mask(texted: Historical, joined: float) -> None:
    """The mask as a run pays it: each decision's news built, the items first carried
    masked together; on fresh paths, best of three."""
    runs, shown = [], 0
    for _ in range(3):
        feed = World(data=texted, days=DAYS).path.text
        assert feed is not None and feed.mask is not None
        started = time.process_time()
        for row in range(20, 20 + DAYS):
            shown += len(feed.news(row - 1, row)["news"])
        runs.append(time.process_time() - started)
    spent, shown = min(runs), shown // 3
    print(f"  once, in a run with an arm that reads the news: mask {shown:,} items a payload "
          f"carries, {spent / shown * 1e6:.0f} us each: {spent:.2f} s CPU; join + mask "
          f"{joined + spent:.2f} s  ratio to 1 s: {joined + spent:.2f}  (<= 1)")  # fmt: skip
    wide = many_names(feed.mask, 500)
    rows = [[i for i in shown_items(feed, row)] for row in range(20, 270)]
    news = feed._news
    started = time.process_time()
    for items in rows:
        wide.texts([(news[k][i], news["symbols"][i]) for i in items for k in ("headline", "body")])
    each = (time.process_time() - started) / sum(map(len, rows)) * 1e6
    print(f"  mask per item with a map of 500 names: {each:.0f} us (6 names: "
          f"{spent / shown * 1e6:.0f} us)")  # fmt: skip


def many_names(mask: TextMask, count: int) -> TextMask:
    """The run's mask with ``count`` names in all, the others made up."""
    extra = [f"Z{i:04d}" for i in range(count - len(mask.aliases))]
    return dataclasses.replace(
        mask,
        aliases={**mask.aliases, **{s: f"ASSET{1000 + i}" for i, s in enumerate(extra)}},
        price_factor={**mask.price_factor, **dict.fromkeys(extra, 1.0)},
        names={**mask.names, **{s: (f"Company{s} Holdings",) for s in extra}},
    )


def shown_items(feed: TextFeed, row: int) -> range:
    low, high = (
        bisect.bisect_right(feed.news_rows, row - 1),
        bisect.bisect_right(feed.news_rows, row),
    )
    return range(max(low, high - NEWS_CAP), high)


def print_decisions(plain: Historical, texted: Historical, label: str, arm: str) -> None:
    runs = []
    for data in (texted, plain):
        world = World(data=data, days=DAYS)
        run_sync(run_world(world, [arm]))  # the path joined, the items masked: a first run
        runs.append(partial(lambda w: run_sync(run_world(w, [arm])), world))
    costs = best_pair(*runs)
    each = [cost / DAYS * 1e6 for cost in costs]
    print(f"  whole decision of {arm} (payload, the arm's own work, execution), {label}: "
          f"with news {each[0]:.0f} us, without {each[1]:.0f} us  ratio "
          f"{costs[0] / costs[1]:.2f}")  # fmt: skip


def print_payloads(plain: Historical, texted: Historical) -> None:
    shared = "a shared one (shares_payload, reads the news)"
    for label, copy in (("an arm's own copy", "private"), (shared, "shared")):
        with_news, without = payload_costs(texted, plain, copy)
        print(f"  each decision's payload, {label}: with news {with_news:.0f} us, without "
              f"{without:.0f} us  ratio {with_news / without:.2f}  (<= 1.2)")  # fmt: skip
    with_news, without = payload_costs(texted, plain, "round trip")
    print(f"    (copied by one JSON round trip of everything instead: ratio "
          f"{with_news / without:.2f})")  # fmt: skip


def payload_costs(texted: Historical, plain: Historical, copy: str) -> tuple[float, float]:
    """Microseconds to build one decision's payload, on the path with text and without."""
    builds = []
    for data in (texted, plain):
        world = World(data=data, days=DAYS)
        path, symbols = world.path, world.universe.symbols
        book = Portfolio(1e6, np.zeros(NAMES), 2.0, 0.5)
        # the run's prices rounded once, as the runner does before its first decision
        build = partial(build_payloads, MarketPayloads(path), book, symbols, copy)
        build()  # items are masked once per run, as in a run: the first pass pays it
        builds.append(build)
    with_news, without = best_pair(*builds)
    return with_news / DAYS * 1e6, without / DAYS * 1e6


def build_payloads(
    payloads: MarketPayloads, book: Portfolio, symbols: tuple[str, ...], copy: str
) -> None:
    """Each decision's payload as the runner builds it: the market part once (``at``), the
    news since the last decision, and the arm's part (its own copy, or shared as a
    baseline's)."""
    path = payloads.path
    for row in range(20, 20 + DAYS):
        market = payloads.at(row)
        shown = reading.news(path, row - 1, row) if path.text is not None else None
        if copy == "round trip":  # one JSON round trip of the market part and the news
            payload = {**market, **shown} if shown is not None else market
            json.loads(json.dumps(payload))
            arm_payload(market, book, symbols, equity=1e6, gross=0, private=False)
        else:
            private = copy == "private"
            arm_payload(market, book, symbols, equity=1e6, gross=0, private=private, news=shown)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mask", action="store_true", help="the join and the mask alone")
    main(mask_only=parser.parse_args().mask)
