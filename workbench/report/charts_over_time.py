"""The tearsheet's charts over time, as inline SVG: the underwater plot, rolling risk,
cumulative return on a log scale and volatility-matched, and exposure, positions and turnover.

Each draws the tables of ``workbench.evaluation.tearsheet_frames``; with several runs
(seeds) the mean over them, day by day. The x axis is dates on historical bars and
trading days otherwise. ``all_charts`` returns every group by name, as the report and
the output folder (one ``.svg`` file per chart) use them.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation import tearsheet_frames as frames
from workbench.report import svg
from workbench.report._data import ResultsLike, as_runs


def _mean_over(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The day-by-day mean of same-shaped tables (one per seed), on the shortest one's days."""
    if len(tables) == 1:
        return tables[0]
    days = min(len(t) for t in tables)
    stacked = np.stack([t.iloc[:days].to_numpy(dtype=float) for t in tables])
    with warnings.catch_warnings():  # a day with no value in any seed stays NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(stacked, axis=0)
    return pd.DataFrame(mean, index=tables[0].index[:days], columns=tables[0].columns)


class MeanTables:
    """The tables over time of some runs (seeds), each averaged day by day on first use
    and kept: the SVG charts and the interactive ones (``interactive``) draw the same
    tables, so a report that writes both computes each once."""

    def __init__(self, runs: Sequence[ResultsLike] | ResultsLike) -> None:
        self.runs = as_runs(runs)

    @functools.cached_property
    def drawdown(self) -> pd.DataFrame:
        from workbench.report.plots import drawdown_table

        return _mean_over([drawdown_table(run) for run in self.runs])

    @functools.cached_property
    def risk(self) -> pd.DataFrame:
        return _mean_over([frames.rolling_risk(run, frames.ROLLING_WINDOW) for run in self.runs])

    @functools.cached_property
    def sharpe(self) -> pd.DataFrame:
        from workbench.report.plots import rolling_sharpe_table

        return _mean_over([rolling_sharpe_table(run, frames.ROLLING_WINDOW) for run in self.runs])

    @functools.cached_property
    def cumulative(self) -> pd.DataFrame:
        return _mean_over([frames.cumulative_returns(run) for run in self.runs])

    @functools.cached_property
    def activity(self) -> pd.DataFrame:
        return _mean_over([frames.activity(run) for run in self.runs])


Runs = Sequence[ResultsLike] | ResultsLike | MeanTables


def tables_of(runs: Runs) -> MeanTables:
    return runs if isinstance(runs, MeanTables) else MeanTables(runs)


def _x(runs: list[Any], days: pd.Index, *, of_returns: bool) -> tuple[Any, str]:
    """Dates on historical bars (the day a return ends on, or a day's close), else days."""
    first = runs[0]
    if of_returns:
        dates = frames.return_dates(first, len(days))
    else:
        listed = first.meta.get("dates")
        dates = pd.DatetimeIndex(pd.to_datetime(list(listed)[: len(days)])) if listed else None
    if dates is not None and len(dates) == len(days):
        return dates, "date"
    return days.to_numpy(), "trading day"


def _lines(table: Any, arms: list[str]) -> dict[str, np.ndarray]:
    """One line per arm from a table whose columns are arms."""
    return {arm: table[arm].to_numpy(dtype=float) for arm in arms if arm in table.columns}


def _seeds(runs: list[Any]) -> str:
    return "" if len(runs) == 1 else f" (mean of {len(runs)} seeds)"


def rolling_charts(runs: Runs) -> list[str]:
    """Rolling Sharpe, Sortino, volatility and beta (against the benchmark) over the last
    ``ROLLING_WINDOW`` day returns, one chart each."""
    tables = tables_of(runs)
    runs, window = tables.runs, frames.ROLLING_WINDOW
    arms = list(runs[0].equity.columns)
    risk, sharpe = tables.risk, tables.sharpe.copy()
    sharpe.index = sharpe.index + 1  # return i ends on day i + 1, as in rolling_risk
    x, xlabel = _x(runs, risk.index, of_returns=True)
    shown = {
        "Sharpe": sharpe.reindex(risk.index),
        "Sortino": risk["rolling_sortino"],
        "volatility %": risk["rolling_volatility_pct"],
        "beta": risk["rolling_beta"],
    }
    return [
        svg.line_chart(
            x,
            _lines(table, arms),
            title=f"Rolling {window}-day {name}{_seeds(runs)}",
            ylabel=name,
            xlabel=xlabel,
            zero=name in ("Sharpe", "Sortino"),
        )
        for name, table in shown.items()
    ]


def cumulative_charts(runs: Runs) -> list[str]:
    """Cumulative return on a log scale, and the same with each arm's day returns scaled to
    the benchmark's volatility (when the run has a benchmark)."""
    tables = tables_of(runs)
    runs, table = tables.runs, tables.cumulative
    arms = list(runs[0].equity.columns)
    x, xlabel = _x(runs, table.index, of_returns=True)
    titles = {
        "cumulative_return_pct": "Cumulative return, log scale",
        "volatility_matched_pct": "Volatility-matched, log scale",
    }
    charts = []
    for kind in dict.fromkeys(table.columns.get_level_values(0)):
        growth = 1.0 + table[kind] / 100.0
        charts.append(
            svg.line_chart(
                x,
                _lines(growth, arms),
                title=titles[kind] + _seeds(runs),
                ylabel="cumulative return",
                xlabel=xlabel,
                log=True,
                zero=True,
                fmt=lambda g: f"{(g - 1.0) * 100:+.0f}%",
            )
        )
    return charts


def activity_charts(runs: Runs) -> list[str]:
    """Gross exposure over equity, names held and the day's turnover at every day's close."""
    tables = tables_of(runs)
    runs, table = tables.runs, tables.activity
    arms = list(runs[0].equity.columns)
    x, xlabel = _x(runs, table.index, of_returns=False)
    shown = {"gross_exposure": "gross exposure", "positions": "names held",
             "day_turnover": "turnover"}  # fmt: skip
    return [
        svg.line_chart(
            x,
            _lines(table[measure], arms),
            title=f"{label.capitalize()}{_seeds(runs)}",
            ylabel=label,
            xlabel=xlabel,
        )
        for measure, label in shown.items()
    ]


def underwater_chart(runs: Runs) -> list[str]:
    """Each arm's fall from its running peak at every step close, shaded from zero (the
    underwater plot); with several runs (seeds) the mean over them."""
    from workbench.report.plots import day_axis

    tables = tables_of(runs)
    runs, table = tables.runs, tables.drawdown
    x, xlabel = day_axis(runs[0])
    x = x[: len(table)]
    arms = list(runs[0].equity.columns)
    chart = svg.line_chart(
        x, _lines(table, arms), title=f"Underwater: drawdown from the running peak{_seeds(runs)}",
        ylabel="drawdown %", xlabel=xlabel, fill=True, size=(900, 260),
        fmt=lambda v: f"{v:g}%",
    )  # fmt: skip
    return [chart]


def all_charts(runs: Runs) -> dict[str, list[str]]:
    """The report's SVG chart groups by name: the underwater plot, cumulative returns,
    rolling risk (when the run has two windows of day returns) and activity."""
    from workbench.report.plots import ROLLING_DAYS, daily_returns

    tables = tables_of(runs)
    groups = {
        "underwater": underwater_chart(tables),
        "cumulative_returns": cumulative_charts(tables),
    }
    if len(daily_returns(tables.runs[0])) >= 2 * ROLLING_DAYS:
        groups["rolling_risk"] = rolling_charts(tables)
    groups["activity"] = activity_charts(tables)
    return groups


def charts_html(charts: list[str], arms: list[str]) -> str:
    """A group of charts side by side (wrapping), with one legend of the arms above."""
    return svg.legend(arms) + f'<div class="charts">{"".join(charts)}</div>'


__all__ = ["activity_charts", "all_charts", "charts_html", "cumulative_charts", "rolling_charts"]
