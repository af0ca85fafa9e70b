"""Pure risk and distribution metrics: day returns or equity in, numbers out.

The day returns are ``metrics.daily_returns`` (simple returns between the start and
each day's close, nothing past a bust); see ``workbench.evaluation.metrics`` for the
conventions. Every function states its formula's source; where quantstats (the
library most tearsheets are compared with) defines the figure differently, the
comment says how.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from workbench.engine.market import TRADING_DAYS
from workbench.evaluation.metrics import NAN, daily_returns, until_bust

VAR_LEVEL = 0.95  # the confidence of VaR and CVaR: the worst 5 % of days


def value_at_risk_pct(equity: np.ndarray, steps_per_day: int, level: float = VAR_LEVEL) -> float:
    # Historical VaR (Jorion, "Value at Risk", 3rd ed., ch. 5): the loss a day return exceeds
    # on only 1 - level of days, read as the (1 - level) quantile of the day returns with
    # numpy's linear interpolation (Hyndman & Fan type 7), reported as a positive loss in
    # percent. quantstats' value_at_risk is parametric instead (a normal quantile from the
    # mean and standard deviation), which understates fat left tails.
    returns = daily_returns(equity, steps_per_day)
    if returns.size < 2:
        return NAN
    return float(-np.quantile(returns, 1.0 - level) * 100.0)


def conditional_value_at_risk_pct(
    equity: np.ndarray, steps_per_day: int, level: float = VAR_LEVEL
) -> float:
    # Historical CVaR / expected shortfall (Rockafellar & Uryasev 2000, J. Risk): the mean
    # of the day returns at or below the historical VaR quantile, as a positive loss in
    # percent. quantstats' cvar averages the returns below its parametric VaR instead.
    returns = daily_returns(equity, steps_per_day)
    if returns.size < 2:
        return NAN
    cut = np.quantile(returns, 1.0 - level)
    return float(-returns[returns <= cut].mean() * 100.0)


def skew(equity: np.ndarray, steps_per_day: int) -> float:
    # Adjusted Fisher-Pearson sample skewness G1 = sqrt(n(n-1)) / (n-2) * m3 / m2**1.5
    # (Joanes & Gill 1998, The Statistician), pandas' Series.skew and so quantstats' skew.
    r = daily_returns(equity, steps_per_day)
    n = r.size
    m2 = float(np.mean((r - r.mean()) ** 2)) if n else 0.0
    if n < 3 or not m2 > 1e-30:
        return NAN
    m3 = float(np.mean((r - r.mean()) ** 3))
    return math.sqrt(n * (n - 1)) / (n - 2) * m3 / m2**1.5


def kurtosis(equity: np.ndarray, steps_per_day: int) -> float:
    # Excess kurtosis, the unbiased sample estimator G2 (Joanes & Gill 1998):
    # ((n+1) g2 + 6) (n-1) / ((n-2)(n-3)) with g2 = m4 / m2**2 - 3; 0 for a normal
    # distribution. pandas' Series.kurt and so quantstats' kurtosis are the same.
    r = daily_returns(equity, steps_per_day)
    n = r.size
    m2 = float(np.mean((r - r.mean()) ** 2)) if n else 0.0
    if n < 4 or not m2 > 1e-30:
        return NAN
    g2 = float(np.mean((r - r.mean()) ** 4)) / m2**2 - 3.0
    return ((n + 1) * g2 + 6.0) * (n - 1) / ((n - 2) * (n - 3))


def best_day_pct(equity: np.ndarray, steps_per_day: int) -> float:
    # The largest day return, in percent (quantstats' best with aggregate="day").
    returns = daily_returns(equity, steps_per_day)
    return float(returns.max() * 100.0) if returns.size else NAN


def worst_day_pct(equity: np.ndarray, steps_per_day: int) -> float:
    # The smallest day return, in percent (quantstats' worst with aggregate="day").
    returns = daily_returns(equity, steps_per_day)
    return float(returns.min() * 100.0) if returns.size else NAN


def _windows(values: np.ndarray, window: int) -> np.ndarray:
    """Every run of ``window`` consecutive values, one per row (a view, no copy)."""
    return np.lib.stride_tricks.sliding_window_view(values, window)


def _at_window_ends(values: np.ndarray, size: int, window: int) -> np.ndarray:
    """One value per day: NaN until the first full window, then ``values``."""
    out = np.full(size, NAN)
    out[window - 1 :] = values
    return out


def rolling_volatility_pct(returns: np.ndarray, window: int) -> np.ndarray:
    # The annualised volatility (std ddof=1 times sqrt(252), in percent) of the last
    # ``window`` day returns at every day; NaN until a full window. quantstats'
    # rolling_volatility uses the same formula with a 126-day window.
    if returns.size < window:
        return np.full(returns.size, NAN)
    spread = _windows(returns, window).std(axis=1, ddof=1)
    return _at_window_ends(spread * math.sqrt(TRADING_DAYS) * 100.0, returns.size, window)


def rolling_sortino(returns: np.ndarray, window: int) -> np.ndarray:
    # Sortino & Price (1994) over the last ``window`` day returns (downside deviation over
    # every day of the window, target 0), times sqrt(252); NaN with no downside.
    if returns.size < window:
        return np.full(returns.size, NAN)
    parts = _windows(returns, window)
    downside = np.sqrt(np.mean(np.minimum(parts, 0.0) ** 2, axis=1))
    ratio = parts.mean(axis=1) / np.where(downside > 1e-15, downside, NAN)
    return _at_window_ends(ratio * math.sqrt(TRADING_DAYS), returns.size, window)


def rolling_beta(returns: np.ndarray, benchmark: np.ndarray, window: int) -> np.ndarray:
    # CAPM beta (Sharpe 1964), cov / var with ddof=1, over the last ``window`` paired day
    # returns; NaN where the benchmark did not move. quantstats' rolling_greeks likewise.
    if returns.size < window:
        return np.full(returns.size, NAN)
    arm, bench = _windows(returns, window), _windows(benchmark, window)
    arm_dev = arm - arm.mean(axis=1, keepdims=True)
    bench_dev = bench - bench.mean(axis=1, keepdims=True)
    covariance = (arm_dev * bench_dev).sum(axis=1) / (window - 1)
    variance = (bench_dev**2).sum(axis=1) / (window - 1)
    slope = covariance / np.where(variance > 1e-30, variance, NAN)
    return _at_window_ends(slope, returns.size, window)


def volatility_matched(returns: np.ndarray, benchmark: np.ndarray) -> np.ndarray:
    # The arm's day returns scaled by std(benchmark) / std(arm) (ddof=1), so both have the
    # benchmark's volatility (quantstats' match_volatility); compounding them shows what the
    # arm would have made at the benchmark's risk. Unscaled when the arm never moved.
    spread = returns.std(ddof=1) if returns.size > 1 else 0.0
    if not spread > 1e-15:
        return returns.copy()
    return returns * (benchmark.std(ddof=1) / spread)


def period_returns_pct(returns: np.ndarray, periods: np.ndarray) -> dict[object, float]:
    # A period's return compounds its day returns: prod(1 + r) - 1, in percent (quantstats'
    # monthly_returns with compounded=True). ``periods`` labels every day return.
    out: dict[object, float] = {}
    for label in dict.fromkeys(periods.tolist()):
        chosen = returns[periods == label]
        out[label] = float((np.prod(1.0 + chosen) - 1.0) * 100.0)
    return out


class Drawdown(NamedTuple):
    """One fall from a peak: its step indices (``recovered`` None while under water) and
    its depth as a positive percentage of the peak."""

    peak: int
    trough: int
    recovered: int | None
    depth_pct: float


def drawdowns(equity: np.ndarray) -> list[Drawdown]:
    # Every underwater spell of step equity, deepest first (ties: earliest): it starts at
    # the last running peak, bottoms at its lowest close and ends at the first close back at
    # or above the peak (pyfolio's gen_drawdown_table; quantstats' drawdown_details).
    curve = until_bust(equity)
    peaks = np.maximum.accumulate(curve)
    under = curve < peaks
    spells, start = [], None
    for i, below in enumerate([*under.tolist(), False]):
        if below and start is None:
            start = i
        elif not below and start is not None:
            trough = start + int(np.argmin(curve[start:i]))
            depth = float((peaks[start] - curve[trough]) / peaks[start] * 100.0)
            spells.append(Drawdown(start - 1, trough, i if i < curve.size else None, depth))
            start = None
    return sorted(spells, key=lambda d: (-d.depth_pct, d.peak))


__all__ = [
    "VAR_LEVEL",
    "Drawdown",
    "best_day_pct",
    "conditional_value_at_risk_pct",
    "drawdowns",
    "kurtosis",
    "period_returns_pct",
    "rolling_beta",
    "rolling_sortino",
    "rolling_volatility_pct",
    "skew",
    "value_at_risk_pct",
    "volatility_matched",
    "worst_day_pct",
]
