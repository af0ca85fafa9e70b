"""Pure metric functions: equity and fills in, numbers out.

Conventions (stated once, used by the scorecard, the tearsheet, the glossary and the reports):

- ``equity`` is an arm's marked-to-mid equity at the close of every step, in step
  order. Its first value is marked at the close of the first step, before any
  order has filled, so it is the starting capital.
- Day returns are simple returns between consecutive *anchors*: the start
  (``equity[0]``) and every day's close (the last step of the day). With one step
  a day the start is the first day's close, so a run of D days has D - 1 day
  returns and none of them is a structural zero; with more steps a day the first
  return runs from the start to the first day's close (the part of the first day
  the arm could trade). A last day cut short (a stopped run) is left out.
- Bust: a curve that reaches zero or below is read up to its first such point,
  which counts as exactly zero; nothing after it enters any metric, so no metric
  is ever computed across zero or negative equity. The fall to zero is the last
  day return (-100 %), even when it happens inside a day.
- Annualisation uses TRADING_DAYS (252) day returns a year: means times 252,
  standard deviations times sqrt(252). The risk-free rate is zero throughout.
- Sharpe is the mean day return over its sample standard deviation (ddof=1),
  times sqrt(252) (Sharpe 1994). It is 0.0 when there are fewer than two day
  returns or no variation, not NaN, so a flat arm scores as flat. Every other
  ratio is NaN (null in JSON) when it is undefined.
- Max drawdown is the largest peak-to-trough fall of step equity, as a positive
  percentage of the peak (as in backtesting.py's "Max. Drawdown").
- Turnover is traded notional over mean equity (one-way, not annualised).
"""

from __future__ import annotations

import math

import numpy as np

from workbench.engine.market import TRADING_DAYS

NAN = float("nan")


def until_bust(equity: np.ndarray) -> np.ndarray:
    """The curve up to its first point at or below zero, that point set to exactly 0.0."""
    curve = np.asarray(equity, dtype=float)
    if curve.size and curve.min() > 0.0:  # the common case, in one pass (NaN: read on)
        return curve
    broke = np.flatnonzero(curve <= 0.0)
    if broke.size == 0:
        return curve
    cut = curve[: broke[0] + 1].copy()
    cut[-1] = 0.0
    return cut


def day_closes(equity: np.ndarray, steps_per_day: int) -> np.ndarray:
    """Equity at the anchors day returns run between: the start, each day close, the bust."""
    curve = until_bust(equity)
    closes = curve[steps_per_day - 1 :: steps_per_day]
    if steps_per_day > 1:  # the start is no day's close
        closes = np.concatenate([curve[:1], closes])
    last = curve.size - 1
    bust = curve.size < len(equity) or curve[-1] == 0.0
    if bust and last > 0 and last % steps_per_day != steps_per_day - 1:  # not an anchor yet
        closes = np.append(closes, curve[last])
    return closes


def daily_returns(equity: np.ndarray, steps_per_day: int) -> np.ndarray:
    """Simple returns between consecutive anchors (see the module's conventions)."""
    closes = day_closes(equity, steps_per_day)
    return np.diff(closes) / closes[:-1]


def total_return_pct(equity: np.ndarray) -> float:
    curve = until_bust(equity)
    return float((curve[-1] / curve[0] - 1.0) * 100.0)


def pnl(equity: np.ndarray) -> float:
    curve = until_bust(equity)
    return float(curve[-1] - curve[0])


def sharpe(equity: np.ndarray, steps_per_day: int) -> float:
    # Sharpe (1994), "The Sharpe Ratio", J. Portfolio Management: mean excess return over
    # its standard deviation; zero risk-free rate, annualised by sqrt(252).
    returns = daily_returns(equity, steps_per_day)
    if returns.size < 2:
        return 0.0
    spread = returns.std(ddof=1)
    if not spread > 1e-15:
        return 0.0
    return float(returns.mean() / spread * math.sqrt(TRADING_DAYS))


def max_drawdown_pct(equity: np.ndarray) -> float:
    curve = until_bust(equity)
    peaks = np.maximum.accumulate(curve)
    return float(np.max((peaks - curve) / peaks) * 100.0)


def turnover(traded_notional: float, equity: np.ndarray) -> float:
    return float(traded_notional / np.mean(until_bust(equity)))


def annual_return_pct(equity: np.ndarray, steps_per_day: int) -> float:
    # Compound annual growth rate: (end / start) ** (252 / day returns) - 1, the geometric
    # mean day return compounded over a year (as backtesting.py's "Return (Ann.) [%]").
    closes = day_closes(equity, steps_per_day)
    days = closes.size - 1
    if days < 1:
        return NAN
    return float(((closes[-1] / closes[0]) ** (TRADING_DAYS / days) - 1.0) * 100.0)


def annual_volatility_pct(equity: np.ndarray, steps_per_day: int) -> float:
    # Sample standard deviation (ddof=1) of day returns times sqrt(252): the square-root-of-
    # time rule for independent returns, the same spread the Sharpe ratio divides by.
    returns = daily_returns(equity, steps_per_day)
    if returns.size < 2:
        return NAN
    return float(returns.std(ddof=1) * math.sqrt(TRADING_DAYS) * 100.0)


def sortino(equity: np.ndarray, steps_per_day: int) -> float:
    # Sortino & Price (1994), "Performance measurement in a downside risk framework",
    # J. Investing: mean return over the downside deviation below a target of 0, where the
    # downside deviation is sqrt(mean(min(r, 0) ** 2)) over *every* day (Sortino & van der
    # Meer 1991), not only the losing ones; annualised by sqrt(252).
    returns = daily_returns(equity, steps_per_day)
    if returns.size < 2:
        return NAN
    downside = math.sqrt(float(np.mean(np.minimum(returns, 0.0) ** 2)))
    if not downside > 1e-15:
        return NAN
    return float(returns.mean() / downside * math.sqrt(TRADING_DAYS))


def calmar(equity: np.ndarray, steps_per_day: int) -> float:
    # Young (1991), "Calmar Ratio: A Smoother Tool", Futures: annual return over the maximum
    # drawdown. Young uses the trailing 36 months; here both span the whole run.
    drawdown = max_drawdown_pct(equity)
    if not drawdown > 1e-12:
        return NAN
    return annual_return_pct(equity, steps_per_day) / drawdown


def hit_rate_pct(equity: np.ndarray, steps_per_day: int) -> float:
    # Share of day returns above zero (a flat day is not a hit), in percent.
    returns = daily_returns(equity, steps_per_day)
    if returns.size == 0:
        return NAN
    return float(np.count_nonzero(returns > 0.0) / returns.size * 100.0)


def average_gross_exposure(exposure: np.ndarray, equity: np.ndarray) -> float:
    # Gross leverage (sum of |position value| over equity) averaged over the step closes
    # while equity is positive, as pyfolio's gross_lev; 1.0 is fully invested, long only.
    curve = until_bust(equity)
    solvent = curve > 0.0
    if not solvent.any():
        return NAN
    gross = np.asarray(exposure, dtype=float)[: curve.size][solvent]
    return float(np.mean(gross / curve[solvent]))


def paired_returns(
    equity: np.ndarray, benchmark: np.ndarray, steps_per_day: int
) -> tuple[np.ndarray, np.ndarray]:
    """Day returns of an arm and its benchmark over the same days: both curves are cut at
    the earlier bust (which ends the last, possibly part, day of both)."""
    arm, bench = until_bust(equity), until_bust(benchmark)
    common = min(arm.size, bench.size, len(equity), len(benchmark))
    bust = common < len(equity) or common < len(benchmark) or 0.0 in (arm[-1], bench[-1])
    anchors = [np.array([0]), np.arange(steps_per_day - 1, common, steps_per_day)]
    if bust:
        anchors.append(np.array([common - 1]))
    points = np.unique(np.concatenate(anchors))
    a, b = arm[points], bench[points]
    return np.diff(a) / a[:-1], np.diff(b) / b[:-1]


def beta(equity: np.ndarray, benchmark: np.ndarray, steps_per_day: int) -> float:
    # CAPM beta (Sharpe 1964) as the least-squares slope of arm on benchmark day returns:
    # cov(r_arm, r_bench) / var(r_bench), both with ddof=1.
    arm, bench = paired_returns(equity, benchmark, steps_per_day)
    if arm.size < 2:
        return NAN
    spread = bench.var(ddof=1)
    if not spread > 1e-30:
        return NAN
    return float(np.cov(arm, bench, ddof=1)[0, 1] / spread)


def alpha_pct(equity: np.ndarray, benchmark: np.ndarray, steps_per_day: int) -> float:
    # Jensen (1968), "The Performance of Mutual Funds in the Period 1945-1964", J. Finance:
    # mean(r_arm) - beta * mean(r_bench) with a zero risk-free rate, times 252, in percent.
    arm, bench = paired_returns(equity, benchmark, steps_per_day)
    slope = beta(equity, benchmark, steps_per_day)
    if math.isnan(slope):
        return NAN
    return float((arm.mean() - slope * bench.mean()) * TRADING_DAYS * 100.0)


def tracking_error_pct(equity: np.ndarray, benchmark: np.ndarray, steps_per_day: int) -> float:
    # Grinold & Kahn (2000), "Active Portfolio Management", ch. 5: active risk is the standard
    # deviation (ddof=1) of the active return r_arm - r_bench, times sqrt(252), in percent.
    arm, bench = paired_returns(equity, benchmark, steps_per_day)
    if arm.size < 2:
        return NAN
    return float((arm - bench).std(ddof=1) * math.sqrt(TRADING_DAYS) * 100.0)


def information_ratio(equity: np.ndarray, benchmark: np.ndarray, steps_per_day: int) -> float:
    # Grinold & Kahn (2000), ch. 5: mean active return over active risk, annualised by
    # sqrt(252). NaN against itself (no active risk).
    arm, bench = paired_returns(equity, benchmark, steps_per_day)
    if arm.size < 2:
        return NAN
    active = arm - bench
    spread = active.std(ddof=1)
    if not spread > 1e-15:
        return NAN
    return float(active.mean() / spread * math.sqrt(TRADING_DAYS))
