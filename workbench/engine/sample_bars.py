"""Synthetic daily OHLCV bars in the shape of a real data set, for examples and tests.

No third-party market data ships with the workbench; this generator stands in
for it. The names are made up and differ the way real ones do — price level,
volatility, beta and traded value — so a contamination audit has something to
recognise; the market factor's variance clusters (GARCH(1,1), Bollerslev 1986),
volume rises with the size of the day's move, and the dates are business days.

    python -m workbench.engine.sample_bars notebooks/data/example_bars.csv

writes the example data set the README and the notebooks use (the same bytes
on every run), and beside it synthetic news and fundamentals for those bars
(``example_news.csv``, ``example_fundamentals.csv``, ``example_names.csv``;
``workbench.engine.sample_news``).
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.engine import portable

SYMBOLS = ("ACME", "BOLT", "CRUX", "DUNE", "EMBR", "FJRD", "GLOW", "HALO")
SECTORS = ("industrials", "technology", "materials", "energy", "utilities", "consumer")


def sample_bars(
    days: int = 504, names: int = 6, *, seed: int = 2024, start: str = "2016-01-04"
) -> pd.DataFrame:
    """A long table ``date, symbol, sector, open, high, low, close, volume`` (business days)."""
    if not 1 <= names <= len(SYMBOLS):
        raise ValueError(f"names must be between 1 and {len(SYMBOLS)}, got {names}")
    rng = np.random.default_rng(seed)
    traits = _traits(rng, names)
    returns = _returns(rng, days, traits)
    close = traits["level"] * portable.exp(np.cumsum(returns, axis=0))
    gap = rng.normal(0, 0.25, (days, names)) * np.abs(returns)
    open_ = np.vstack([traits["level"][None, :], close[:-1]]) * portable.exp(gap)
    reach = np.abs(rng.normal(0, 0.5, (days, 2, names))) * traits["vol"] / np.sqrt(252)
    high = np.maximum(open_, close) * portable.exp(reach[:, 0])
    low = np.minimum(open_, close) * portable.exp(-reach[:, 1])
    surprise = np.abs(returns) / (traits["vol"] / np.sqrt(252))
    noise = rng.normal(0, 0.3, close.shape)
    shares = traits["traded"] / traits["level"] * portable.exp(0.3 * surprise + noise)
    dates = pd.bdate_range(start, periods=days).strftime("%Y-%m-%d")
    return _long(dates, names, {"open": open_, "high": high, "low": low, "close": close}, shares)


def _traits(rng: np.random.Generator, names: int) -> dict[str, np.ndarray]:
    return {
        "level": portable.exp(rng.uniform(math.log(8), math.log(600), names)),
        "vol": rng.uniform(0.15, 0.65, names),  # annualised idiosyncratic vol
        "beta": rng.uniform(0.5, 1.6, names),
        "traded": portable.exp(rng.uniform(math.log(5e6), math.log(5e9), names)),  # dollars a day
        "drift": rng.normal(0.06, 0.08, names) / 252,
    }


def _returns(rng: np.random.Generator, days: int, traits: dict[str, np.ndarray]) -> np.ndarray:
    """Daily log returns: beta x a GARCH(1,1) market factor + idiosyncratic noise."""
    omega, alpha, beta = 2e-6, 0.08, 0.9
    variance = omega / (1 - alpha - beta)
    market = np.empty(days)
    for day in range(days):
        market[day] = np.sqrt(variance) * rng.standard_normal()
        variance = omega + alpha * market[day] ** 2 + beta * variance
    idio = rng.standard_normal((days, len(traits["vol"]))) * traits["vol"] / np.sqrt(252)
    return traits["drift"] + traits["beta"] * market[:, None] + idio


def _long(
    dates: pd.Index, names: int, prices: dict[str, np.ndarray], shares: np.ndarray
) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "date": np.repeat(np.asarray(dates), names),
            "symbol": np.tile(SYMBOLS[:names], len(dates)),
            "sector": np.tile([SECTORS[i % len(SECTORS)] for i in range(names)], len(dates)),
            **{k: np.round(v.ravel(), 4) for k, v in prices.items()},
            "volume": np.floor(shares.ravel()).astype(np.int64),
        }
    )
    frame["high"] = frame[["open", "high", "close"]].max(axis=1)  # rounding keeps the order
    frame["low"] = frame[["open", "low", "close"]].min(axis=1)
    return frame


def write_example(path: str | Path) -> Path:
    """Write the example data set as CSV (byte-identical on every run)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    sample_bars(days=300, names=6, seed=2024).to_csv(
        out, index=False, lineterminator="\n", float_format="%.4f"
    )
    return out


TEXT_FILES = ("news", "fundamentals", "names")


def text_paths(bars_path: str | Path) -> list[Path]:
    """Where the example news, fundamentals and company names go beside ``bars_path``
    (``example_bars.csv`` → ``example_news.csv``, ``example_fundamentals.csv``,
    ``example_names.csv``)."""
    bars = Path(bars_path)
    stem = bars.stem.replace("bars", "{}") if "bars" in bars.stem else bars.stem + "_{}"
    return [bars.with_name(stem.format(kind) + ".csv") for kind in TEXT_FILES]


def write_example_text(bars_path: str | Path) -> list[Path]:
    """Write synthetic news, fundamentals and company names for the example bars beside
    them (CSV, the same bytes on every run; ``workbench.engine.sample_news``)."""
    from workbench.engine.sample_news import COMPANY_NAMES, sample_fundamentals, sample_news

    bars = sample_bars(days=300, names=6, seed=2024)
    names = pd.DataFrame(
        [(s, COMPANY_NAMES[s]) for s in sorted(bars["symbol"].unique())], columns=["symbol", "name"]
    )
    tables = (sample_news(bars), sample_fundamentals(bars), names)
    paths = text_paths(bars_path)
    for table, path in zip(tables, paths, strict=True):
        table.to_csv(path, index=False, lineterminator="\n")
    return paths


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Write the synthetic example bars as CSV.")
    parser.add_argument("path", type=Path, help="where to write the CSV")
    args = parser.parse_args(argv)
    print(f"wrote {write_example(args.path)}")
    for path in write_example_text(args.path):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
