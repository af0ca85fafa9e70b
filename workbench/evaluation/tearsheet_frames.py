"""The tearsheet's tables over time: calendar returns, worst drawdowns, rolling risk, activity,
and the headline metrics' spread over seeds.

Each is a function of a ``Results`` (or a list of them, one per seed) to a DataFrame,
built from the pure functions of ``workbench.evaluation.metrics`` and ``risk``.
On historical bars the calendar is the bars' dates; on the simulator it is trading
days, in blocks of 21 (a trading month) and 252 (a trading year), labelled so.

One day numbering serves every table and chart over time: x counts the day returns
behind a point. x = 0 is the start (the first anchor of ``metrics.daily_returns``) and
x = n the n-th day close after it, so day return n (``rolling``, ``cumulative_returns``)
ends at x = n. With one step a day the start is day 0's close, so day d's close is x = d;
with more steps a day day d's close is x = d + 1 and the step closes fall in between
(step k of day d at x = d + (k + 1) / steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.engine.market import TRADING_DAYS
from workbench.errors import ConfigError
from workbench.evaluation import metrics, risk

TRADING_MONTH = 21
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
ROLLING_WINDOW = 20
HEADLINE = ("return_pct", "sharpe", "sortino", "max_drawdown_pct", "annual_volatility_pct")
SPREAD_COLUMNS = ("seeds", "seed_mean", "seed_sd", "seed_ci_low", "seed_ci_high")


def _steps(results: Any) -> int:
    return int(results.meta.get("steps_per_day") or 1)


def close_offset(results: Any) -> int:
    """x of day 0's close: 0 with one step a day (the start is that close), else 1."""
    return 0 if _steps(results) == 1 else 1


def step_x(results: Any, step: Any) -> Any:
    """x of the close of (0-based) equity row ``step`` in the one day numbering."""
    return (np.asarray(step) + 1) / _steps(results) - (1 - close_offset(results))


def _returns(results: Any, arm: str) -> np.ndarray:
    return metrics.daily_returns(results.equity[arm].to_numpy(dtype=float), _steps(results))


def return_dates(results: Any, count: int) -> pd.DatetimeIndex | None:
    """The date each of ``count`` day returns ends on, on historical bars; else None. With
    one step a day the first return ends on the second date (it starts at the first close)."""
    dates = results.meta.get("dates")
    if not dates:
        return None
    first = 1 if _steps(results) == 1 else 0
    chosen = list(dates)[first : first + count]
    return pd.DatetimeIndex(pd.to_datetime(chosen)) if len(chosen) == count else None


def calendar_returns(results: Any, arm: str) -> pd.DataFrame:
    """One arm's compounded return % by month: rows are years, columns the 12 months and
    the whole year (``year``). Dated bars use calendar months; otherwise trading months
    of 21 day returns in trading years of 252 (rows ``trading year N``, columns ``M1``..)."""
    returns = _returns(results, arm)
    dates = return_dates(results, returns.size)
    if dates is not None:
        months = np.asarray(dates.year * 100 + dates.month)
        years, names = np.asarray(dates.year), list(MONTHS)
        row_of: dict[int, object] = {int(m): int(m // 100) for m in months}
        col_of = {int(m): names[int(m % 100) - 1] for m in months}
    else:
        months = np.arange(returns.size) // TRADING_MONTH
        years, names = np.arange(returns.size) // TRADING_DAYS, [f"M{i}" for i in range(1, 13)]
        row_of = {int(m): f"trading year {m // 12 + 1}" for m in months}
        col_of = {int(m): names[int(m % 12)] for m in months}
    rows = list(dict.fromkeys(row_of.values()))
    cells = np.full((len(rows), len(names) + 1), np.nan)
    for month, value in risk.period_returns_pct(returns, months).items():
        at = int(month)  # type: ignore[call-overload]  # period labels here are month numbers
        cells[rows.index(row_of[at]), names.index(col_of[at])] = value
    cells[:, -1] = list(risk.period_returns_pct(returns, years).values())
    table = pd.DataFrame(cells, index=pd.Index(rows), columns=[*names, "year"])
    table.index.name = "year" if dates is not None else "trading year"
    return table


def worst_drawdowns(results: Any, arm: str, top: int = 5) -> pd.DataFrame:
    """One arm's ``top`` deepest drawdowns: when each started (the peak), bottomed and
    recovered (dates on historical bars, else trading days), its depth and lengths in days."""
    steps = _steps(results)
    spells = risk.drawdowns(results.equity[arm].to_numpy(dtype=float))[:top]
    dates = results.meta.get("dates")

    def when(step: int | None) -> object:
        if step is None:
            return "not recovered"
        return str(dates[step // steps]) if dates else round(float(step_x(results, step)), 3)

    rows = [
        {
            "peak": when(d.peak), "trough": when(d.trough), "recovered": when(d.recovered),
            "depth_pct": d.depth_pct, "days_to_trough": (d.trough - d.peak) / steps,
            "days_under_water": np.nan if d.recovered is None else (d.recovered - d.peak) / steps,
        }
        for d in spells
    ]  # fmt: skip
    columns = ["peak", "trough", "recovered", "depth_pct", "days_to_trough", "days_under_water"]
    table = pd.DataFrame(rows, columns=columns, index=pd.RangeIndex(1, len(rows) + 1, name="rank"))
    return table


def rolling_risk(
    results: Any, window: int = ROLLING_WINDOW, benchmark: str | None = None
) -> pd.DataFrame:
    """Per day, each arm's rolling volatility %, Sortino and beta against ``benchmark``
    (default ``buy_and_hold`` when it is an arm) over the last ``window`` day returns:
    columns (metric, arm), NaN until a full window."""
    if window < 2:
        raise ConfigError(f"a rolling window needs at least 2 days, got {window}")
    arms = list(results.equity.columns)
    against = benchmark or ("buy_and_hold" if "buy_and_hold" in arms else None)
    returns = {arm: _returns(results, arm) for arm in arms}
    size = min(r.size for r in returns.values())
    table: dict[tuple[str, str], np.ndarray] = {}
    for arm, r in returns.items():
        table["rolling_volatility_pct", arm] = risk.rolling_volatility_pct(r[:size], window)
        table["rolling_sortino", arm] = risk.rolling_sortino(r[:size], window)
        bench = returns[against][:size] if against else None
        beta = risk.rolling_beta(r[:size], bench, window) if bench is not None else None
        table["rolling_beta", arm] = beta if beta is not None else np.full(size, metrics.NAN)
    frame = pd.DataFrame(table, index=pd.RangeIndex(1, size + 1, name="day"))
    frame.columns.names = ["metric", "arm"]
    return frame


def cumulative_returns(results: Any, benchmark: str | None = None) -> pd.DataFrame:
    """Per day, each arm's cumulative return % as run (``cumulative_return_pct``) and with
    its day returns scaled to the benchmark's volatility (``volatility_matched_pct``):
    columns (kind, arm)."""
    arms = list(results.equity.columns)
    against = benchmark or ("buy_and_hold" if "buy_and_hold" in arms else None)
    returns = {arm: _returns(results, arm) for arm in arms}
    size = min(r.size for r in returns.values())
    table: dict[tuple[str, str], np.ndarray] = {}
    for arm, r in returns.items():
        table["cumulative_return_pct", arm] = (np.cumprod(1.0 + r[:size]) - 1.0) * 100.0
        if against:
            matched = risk.volatility_matched(r[:size], returns[against][:size])
            table["volatility_matched_pct", arm] = (np.cumprod(1.0 + matched) - 1.0) * 100.0
    frame = pd.DataFrame(table, index=pd.RangeIndex(1, size + 1, name="day"))
    frame.columns.names = ["kind", "arm"]
    return frame


def activity(results: Any) -> pd.DataFrame:
    """Per arm and day close: gross exposure over equity, the number of names held and the
    day's turnover (traded notional over that close's equity). Fills of an order decided
    at step k count from step k + 1, when the market executed them."""
    steps, equity = _steps(results), results.equity.reset_index(drop=True)
    closes = np.arange(steps - 1, len(equity), steps)
    frames, fills = {}, _fills(results.orders, steps)
    for arm in equity.columns:
        value = equity[arm].to_numpy(dtype=float)[closes]
        solvent = np.where(value > 0.0, value, np.nan)
        exposure = results.exposure
        gross = exposure[arm].to_numpy(dtype=float)[closes] if arm in exposure else None
        held, traded = _holdings(fills, arm, len(closes))
        frames[arm] = pd.DataFrame(
            {
                "gross_exposure": gross / solvent if gross is not None else np.nan,
                "positions": held,
                "day_turnover": traded / solvent,
            }
        )
    frame = pd.concat(frames, axis=1, names=["arm", "measure"])
    first = close_offset(results)
    frame.index = pd.RangeIndex(first, first + len(closes), name="day")
    return frame.swaplevel(axis=1).sort_index(axis=1, level=0, sort_remaining=False)


def _fills(orders: pd.DataFrame, steps: int) -> dict[str, np.ndarray]:
    """Every filled order as arrays: arm, the day its fill counts from, symbol, signed shares
    and notional."""
    if orders.empty or "quantity" not in orders:
        return {}
    filled = orders[orders["quantity"].astype(float) > 0]
    quantity = filled["quantity"].to_numpy(dtype=float)
    at = filled["day"].to_numpy(dtype=int) * steps + filled["step"].to_numpy(dtype=int) + 1
    return {
        "arm": filled["arm"].to_numpy(dtype=object),
        "day": at // steps,
        "symbol": filled["symbol"].to_numpy(dtype=object),
        "shares": quantity * np.where(filled["side"].to_numpy() == "buy", 1.0, -1.0),
        "notional": quantity * filled["price"].to_numpy(dtype=float),
    }


def _holdings(fills: dict[str, np.ndarray], arm: str, days: int) -> tuple[np.ndarray, np.ndarray]:
    """(names held at each day's close, notional traded in each day) from one arm's fills."""
    if not fills:
        return np.zeros(days), np.zeros(days)
    mine = (fills["arm"] == arm) & (fills["day"] < days)
    day = fills["day"][mine]
    traded = np.bincount(day, weights=fills["notional"][mine], minlength=days)
    codes, names = pd.factorize(fills["symbol"][mine])
    change = np.zeros((days, len(names)))
    np.add.at(change, (day, codes), fills["shares"][mine])
    held = np.abs(np.cumsum(change, axis=0)) > 1e-9
    return held.sum(axis=1).astype(float), traded


def seed_spread(sheets: Sequence[pd.DataFrame], columns: Sequence[str] = HEADLINE) -> pd.DataFrame:
    """The headline metrics over the tearsheets of several runs (``Results.tearsheet()`` of
    each seed): per arm and metric, the number of seeds, the mean, the sample standard
    deviation (ddof=1) and, with three seeds or more, the 95 % Student-t interval of the
    mean (mean +- t(0.975, n-1) sd / sqrt(n))."""
    from scipy import stats

    if not sheets:
        raise ConfigError("seed_spread needs the tearsheet of at least one run")
    stacked = pd.concat([sheet[list(columns)] for sheet in sheets], keys=range(len(sheets)))
    rows = {}
    for arm in dict.fromkeys(stacked.index.get_level_values(1)):
        for column in columns:
            values = stacked.xs(arm, level=1)[column].dropna().to_numpy(dtype=float)
            n, mean = values.size, float(values.mean()) if values.size else metrics.NAN
            sd = float(values.std(ddof=1)) if n > 1 else metrics.NAN
            half = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n) if n >= 3 else metrics.NAN
            rows[arm, column] = (n, mean, sd, mean - half, mean + half)
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(SPREAD_COLUMNS))
    frame.index = pd.MultiIndex.from_tuples(list(frame.index), names=["arm", "metric"])
    return frame


__all__ = [
    "HEADLINE",
    "ROLLING_WINDOW",
    "TRADING_MONTH",
    "activity",
    "calendar_returns",
    "close_offset",
    "cumulative_returns",
    "return_dates",
    "rolling_risk",
    "seed_spread",
    "step_x",
    "worst_drawdowns",
]
