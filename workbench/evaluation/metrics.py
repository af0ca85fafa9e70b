"""Pure metric functions: equity and fills in, numbers out.

Conventions (stated once, used by the scorecard, the glossary and the reports):
- returns are simple returns of marked-to-mid equity;
- Sharpe is the mean of daily returns over their sample standard deviation
  (ddof=1), times sqrt(252), with a zero risk-free rate (Sharpe 1994). It is 0.0
  when there are fewer than two days or no variation, not NaN, so a flat arm
  scores as flat;
- max drawdown is the largest peak-to-trough fall of step equity, as a positive
  percentage of the peak (as in backtesting.py's "Max. Drawdown");
- turnover is traded notional over mean equity (one-way, not annualised).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.market import TRADING_DAYS


def total_return_pct(equity: np.ndarray) -> float:
    return float((equity[-1] / equity[0] - 1.0) * 100.0)


def pnl(equity: np.ndarray) -> float:
    return float(equity[-1] - equity[0])


def daily_returns(equity: np.ndarray, steps_per_day: int) -> np.ndarray:
    """Returns between the day closes; the first close is compared to the starting capital."""
    closes = np.concatenate(([equity[0]], equity[steps_per_day - 1 :: steps_per_day]))
    return np.diff(closes) / closes[:-1]


def sharpe(equity: np.ndarray, steps_per_day: int) -> float:
    returns = daily_returns(equity, steps_per_day)
    if returns.size < 2:
        return 0.0
    spread = returns.std(ddof=1)
    if not spread > 1e-15:
        return 0.0
    return float(returns.mean() / spread * math.sqrt(TRADING_DAYS))


def max_drawdown_pct(equity: np.ndarray) -> float:
    peaks = np.maximum.accumulate(equity)
    return float(np.max((peaks - equity) / peaks) * 100.0)


def turnover(traded_notional: float, equity: np.ndarray) -> float:
    return float(traded_notional / np.mean(equity))
