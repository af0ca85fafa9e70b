"""What a comparison's text leak report costs, as a ratio to the report of the real path.

    python bench/leak_report.py

20,000 items on 520 dates x 6 names, each about one name: its ticker or company name,
a date, a price and a volume, and now and then its product, spelt one of several ways
(``Roadrunner's``, ``ROADRUNNER``, ``Roadrunner-branded``, ...), which the report reads
as one token.
The report of the real path reads every item a run over all the dates could show;
a comparison's report reads the items its seeds' bootstrap variants showed (6 seeds
of 250 days), each item masked once however many variants or rows show it. This
times both, best of three taken in turn so load slows both alike, and prints the
ratio with how many distinct items each read. There is no target: the figure says
that reading six paths costs about what their distinct items do, not six reports.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from _timing import best_of_interleaved

from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation.textleaks import leak_report, shown_items

SEEDS, DAYS, ITEMS = 6, 250, 20_000
PRODUCTS = {"ACME": "Roadrunner", "BOLT": "Thunderbox", "CRUX": "Keystone"}
SPELLINGS = ("{}", "{}'s", "{}\u2019s", "{}-branded", "{}s")


def news(bars: pd.DataFrame) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    dates = sorted(bars["date"].unique())
    symbols = sorted(bars["symbol"].unique())
    day = np.sort(rng.integers(0, len(dates), ITEMS))
    who = rng.integers(0, len(symbols), ITEMS)
    rows = []
    for k, (d, w) in enumerate(zip(day, who, strict=True)):
        symbol, price = symbols[w], rng.uniform(10, 400)
        product = PRODUCTS.get(symbol, "") if k % 4 == 0 else ""
        if product:
            spelt = SPELLINGS[k // 4 % len(SPELLINGS)].format(product)
            product = spelt.upper() if k % 7 == 0 else spelt
        body = (
            f"{symbol} closed at ${price:.2f} on {dates[d]} after {rng.integers(1, 9)},"
            f"{rng.integers(100, 999)},000 shares traded; analysts cited {product or 'demand'}."
        )
        stamp = pd.Timestamp(f"{dates[d]} 09:00") + pd.Timedelta(seconds=k)
        published = stamp.tz_localize("America/New_York").isoformat()
        rows.append((published, symbol, f"{symbol} item {k}", body))
    return pd.DataFrame(rows, columns=["published", "symbols", "headline", "body"])


def main() -> None:
    bars = sample_bars(days=520, names=6, seed=3)
    items = news(bars)
    data = Historical.load(bars, secret="bench-secret-0123456789", news=items)
    variants = [f"bootstrap:{s}" for s in range(1, SEEDS + 1)]
    real = len(shown_items(data))
    compared = len(shown_items(data, days=DAYS, variants=variants))
    seeds, path = best_of_interleaved(
        lambda: leak_report(data, days=DAYS, variants=variants),
        lambda: leak_report(data),
        repeats=3,
    )
    print(f"{ITEMS:,} items on 520 dates x 6 names")
    print(f"  real path, every date: {real:,} items read, {path:.2f} s CPU")
    print(f"  {SEEDS} bootstrap seeds of {DAYS} days: {compared:,} distinct items read, "
          f"{seeds:.2f} s CPU  ratio {seeds / path:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
