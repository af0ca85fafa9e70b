"""A second market source: real historical OHLCV bars, masked, replayed step by step.

Input is a long table with one row per (date, symbol) and columns ``date,
symbol, open, high, low, close, volume`` (optionally ``sector``), from a CSV or
Parquet file or a DataFrame. Each date becomes one decision step.

Masking (on by default) hides what a model could recognise: symbols become
opaque aliases in a seeded shuffled order, dates become relative day numbers
(the payload never carries a calendar date), and every name's prices are
rebased to start at 100 (volume scaled the other way, so traded value holds). ``mapping`` keeps the
aliases so you can unmask the results afterwards. Spreads and depth come from
the preset's liquidity dials, scaled by each name's trailing realised vol. The
only macro reading the bars support is the volatility index (trailing realised
vol of the equal-weight index); the others are None, the payload's no-data mark.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.engine import portable
from workbench.engine.market import TRADING_DAYS, MarketPath
from workbench.engine.presets import Preset
from workbench.engine.universe import Universe
from workbench.errors import ConfigError
from workbench.schema import OBSERVABLE_MACRO

REQUIRED = ("date", "symbol", "open", "high", "low", "close", "volume")
_VOL_WINDOW = 20


@dataclass(frozen=True)
class Historical:
    """Historical bars ready to trade: a complete (dates × symbols) panel."""

    bars: pd.DataFrame  # long form, sorted by date then symbol
    mask: bool = True
    seed: int = 0

    @classmethod
    def load(
        cls, source: str | Path | pd.DataFrame, *, mask: bool = True, seed: int = 0
    ) -> Historical:
        frame = _read(source)
        return cls(bars=_validated(frame), mask=mask, seed=seed)

    @property
    def dates(self) -> list[str]:
        return sorted(self.bars["date"].astype(str).unique())

    @property
    def mapping(self) -> dict[str, str]:
        """Alias → real symbol (identity when unmasked)."""
        real = sorted(self.bars["symbol"].unique())
        if not self.mask:
            return {s: s for s in real}
        order = np.random.default_rng(self.seed).permutation(len(real))
        return {f"ASSET{rank + 1:03d}": real[i] for rank, i in enumerate(order)}

    def tradable_days(self, warmup_days: int) -> int:
        """Dates left to trade after ``warmup_days`` of history; refuses too little data."""
        dates = len(self.dates)
        if dates <= warmup_days:
            raise ConfigError(
                f"the data has {dates} dates; {warmup_days} are needed as history before the "
                "first decision and at least one more to trade"
            )
        return dates - warmup_days

    def fingerprint(self, preset: Preset) -> str:
        hashed = pd.util.hash_pandas_object(self.bars, index=False).to_numpy()
        digest = hashlib.sha256(hashed.tobytes())
        digest.update(repr(sorted(preset.vector.items())).encode())
        digest.update(f"{self.mask}:{self.seed}".encode())
        return "historical-" + digest.hexdigest()[:8]

    def path(self, preset: Preset, *, warmup_days: int, days: int) -> MarketPath:
        aliases = self.mapping
        real = list(aliases.values())
        panel = {
            field: self.bars.pivot(index="date", columns="symbol", values=field)[real].to_numpy(
                float
            )
            for field in ("open", "high", "low", "close", "volume")
        }
        rows, dates = warmup_days + days, panel["close"].shape[0]
        if rows > dates:
            most = max(dates - warmup_days, 0)
            raise ConfigError(
                f"the data has {dates} dates and {warmup_days} are needed as history before the "
                f"first decision, so at most {most} days can be traded; pass days <= {most} "
                "or more data"
            )
        panel = {k: v[:rows] for k, v in panel.items()}
        if self.mask:
            panel = _rebased(panel)
        return self._market_path(panel, preset, aliases, warmup_days)

    def _market_path(
        self, panel: dict[str, np.ndarray], p: Preset, aliases: dict[str, str], warmup_days: int
    ) -> MarketPath:
        vol = _trailing_vol(panel["close"])
        stress = vol / pd.DataFrame(vol).expanding().median().to_numpy()  # no look-ahead
        half_spread = p["spread_bps"] / 1e4 * portable.power(stress, p["spread_vol_elasticity"])
        return MarketPath(
            universe=self.universe,
            steps_per_day=1,
            ticks_per_step=1,
            warmup_days=warmup_days,
            open=panel["open"],
            high=panel["high"],
            low=panel["low"],
            close=panel["close"],
            volume=panel["volume"],
            half_spread=half_spread,
            depth=np.floor(np.maximum(panel["volume"] * p["depth_fraction"], 1.0)),
            macro=_macro(panel["close"]),
            levels=int(p["depth_levels"]),
            level_step=p["level_step_bps"] / 1e4,
        )

    @property
    def universe(self) -> Universe:
        """The aliases, with each name's sector when the data carries one."""
        aliases = self.mapping
        if "sector" not in self.bars:
            return Universe(tuple(aliases), ("unknown",) * len(aliases))
        by_symbol = self.bars.drop_duplicates("symbol").set_index("symbol")["sector"]
        return Universe(tuple(aliases), tuple(str(by_symbol[real]) for real in aliases.values()))


def _read(source: str | Path | pd.DataFrame) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return source.copy()
    path = Path(source)
    if not path.exists():
        raise ConfigError(f"no such data file: {path}")
    if path.suffix.lower() in (".parquet", ".pq"):
        return pd.read_parquet(path)
    if path.suffix.lower() == ".csv":
        return pd.read_csv(path)
    raise ConfigError(f"{path}: historical bars must be a .csv or .parquet file (or a DataFrame)")


def _validated(frame: pd.DataFrame) -> pd.DataFrame:
    frame = frame.rename(columns=str.lower)
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise ConfigError(f"historical bars need columns {', '.join(REQUIRED)}; missing {missing}")
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%Y-%m-%d")
    frame["symbol"] = frame["symbol"].astype(str)
    if frame.duplicated(["date", "symbol"]).any():
        row = frame[frame.duplicated(["date", "symbol"])].iloc[0]
        raise ConfigError(f"two bars for {row['symbol']} on {row['date']}; keep one per date")
    _refuse_gaps(frame)
    return frame.sort_values(["date", "symbol"]).reset_index(drop=True)


def _refuse_gaps(frame: pd.DataFrame) -> None:
    values = frame[["open", "high", "low", "close", "volume"]]
    bad = frame[
        values.isna().any(axis=1) | (frame[["open", "high", "low", "close"]] <= 0).any(axis=1)
    ]
    if len(bad):
        row = bad.iloc[0]
        raise ConfigError(
            f"bar for {row['symbol']} on {row['date']} has a missing or non-positive price; "
            "fill or drop it before loading"
        )
    counts = frame.groupby("symbol")["date"].nunique()
    dates = frame["date"].nunique()
    short = counts[counts < dates]
    if len(short):
        raise ConfigError(
            f"{short.index[0]} has bars on {short.iloc[0]} of {dates} dates; every symbol needs "
            "a bar on every date (drop the symbol or fill the gaps)"
        )


def _rebased(panel: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every name starts at 100, so a price level cannot identify it; volume is scaled
    the other way so each bar's traded value is unchanged."""
    scale = 100.0 / panel["close"][0]
    prices = {k: panel[k] * scale for k in ("open", "high", "low", "close")}
    return {**prices, "volume": np.floor(panel["volume"] / scale)}


def _trailing_vol(close: np.ndarray) -> np.ndarray:
    """Realised vol over the previous ``_VOL_WINDOW`` bars, known at each bar's close."""
    returns = np.vstack([np.zeros((1, close.shape[1])), np.diff(portable.log(close), axis=0)])
    frame = pd.DataFrame(returns).rolling(_VOL_WINDOW, min_periods=2).std()
    return np.maximum(frame.fillna(0.01).to_numpy(), 1e-4)


def _macro(close: np.ndarray) -> dict[str, np.ndarray]:
    index = (close / close[0]).mean(axis=1, keepdims=True)  # equal weight from the first date
    vix = _trailing_vol(index)[:, 0] * np.sqrt(TRADING_DAYS) * 100
    out = {key: np.full(close.shape[0], np.nan) for key in OBSERVABLE_MACRO}
    out["vix"] = vix
    return out
