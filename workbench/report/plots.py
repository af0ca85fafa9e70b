"""Matplotlib figures from ``Results``: equity, drawdowns, returns across seeds, orders on price,
and where the P&L came from.

Figures are built with ``matplotlib.figure.Figure`` directly, never pyplot, so
drawing touches no global state: safe in a kernel with any backend, in threads,
and in batch runs. ``png_bytes`` renders a figure to PNG with no timestamp, so
the same results give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation.tearsheet_frames import close_offset, step_x
from workbench.report._canvas import _figure, _legend, _title, set_margins
from workbench.report._data import (
    ResultsLike,
    as_results,
    as_runs,
    attribution_of,
    daily_returns,
    dated,
    day_axis,
    price_path,
)

_DPI = 100
NEWS_FIGURE = "news"  # drawn inside the report's information section, not among the plots


def equity_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    """Each arm's equity rebased to 100, on a day (or date) axis; with several runs (seeds)
    their mean (bold) over their range (shaded), not one tangled line per seed."""
    runs = as_runs(runs)
    curves = [run.equity.reset_index(drop=True) for run in runs]
    rebased = [frame / frame.iloc[0] * 100 for frame in curves]
    figure = _figure()
    axis = figure.add_subplot()
    xlabel = _seed_band(axis, runs, rebased)
    axis.set(xlabel=xlabel, ylabel="equity (start = 100)", title=_title(runs, "Equity"))
    return figure


def drawdown_table(results: ResultsLike) -> pd.DataFrame:
    """Per arm and step, the fall from the running peak of equity, in percent (<= 0)."""
    equity = as_results(results).equity.reset_index(drop=True)
    return (equity / equity.cummax() - 1.0) * 100.0


def drawdown_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    """The fall from the running peak, per arm, on a day axis, filled down from zero (the
    underwater plot); with several seeds their mean over their range."""
    runs = as_runs(runs)
    figure = _figure(9.0, 3.6)
    axis = figure.add_subplot()
    xlabel = _seed_band(axis, runs, [drawdown_table(run) for run in runs], underwater=True)
    axis.set(xlabel=xlabel, ylabel="drawdown %", title=_title(runs, "Underwater (drawdown)"))
    return figure


def _seed_band(
    axis: Any, runs: list[Any], frames: list[pd.DataFrame], *, underwater: bool = False
) -> str:
    """Draw ``frames`` (one per run, columns = arms); returns the x-axis label. ``underwater``
    fills from zero down to each arm's (mean) curve."""
    longest = max(range(len(runs)), key=lambda i: len(frames[i]))
    x, xlabel = day_axis(runs[longest])
    for colour, arm in enumerate(frames[0].columns):
        style = {"color": f"C{colour % 10}"}
        stack = np.full((len(frames), len(x)), np.nan)
        for i, frame in enumerate(frames):
            stack[i, : len(frame)] = frame[arm].to_numpy()[: len(x)]
        if underwater:
            axis.fill_between(x, np.nanmean(stack, 0), 0.0, alpha=0.18, lw=0, **style)
        if len(frames) == 1:
            axis.plot(x, stack[0], lw=1.4, label=arm, **style)
            continue
        axis.fill_between(x, np.nanmin(stack, 0), np.nanmax(stack, 0), alpha=0.12, **style)
        axis.plot(x, np.nanmean(stack, 0), lw=1.8, label=f"{arm} (mean)", **style)
    axis.grid(alpha=0.3)
    _legend(axis)
    return xlabel


def return_distribution_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    """Per arm, the histogram of daily returns, pooled over every run (seed)."""
    runs = as_runs(runs)
    pooled = pd.concat([daily_returns(run) * 100 for run in runs], ignore_index=True)
    figure = _figure(9.0, 3.6)
    axis = figure.add_subplot()
    values = {arm: pooled[arm].dropna().to_numpy() for arm in pooled.columns}
    flat = [arm for arm, data in values.items() if not np.any(data)]
    moving = np.concatenate([d for a, d in values.items() if a not in flat] or [np.zeros(0)])
    if moving.size:
        bins = np.histogram_bin_edges(moving, bins=min(40, max(5, moving.size // 5)))
        for colour, (arm, data) in enumerate(values.items()):
            if arm not in flat:
                axis.hist(data, bins=bins, histtype="step", lw=1.4, label=arm, color=f"C{colour}")
    axis.axvline(0.0, color="grey", lw=0.8)
    title = _title(runs, "Daily returns")
    if flat:  # a spike at zero would flatten every other histogram
        title += f"\n(not drawn, never moved: {', '.join(flat)})"
        set_margins(figure, top=0.65)
    axis.set(xlabel="daily return %", ylabel="days", title=title)
    axis.grid(alpha=0.3)
    _legend(axis)
    return figure


ROLLING_DAYS = 20


def rolling_sharpe_table(results: ResultsLike, window: int = ROLLING_DAYS) -> pd.DataFrame:
    """Sharpe over the last ``window`` days at every day, annualised as the scorecard's:
    mean / std (ddof=1) of daily returns x sqrt(252), zero risk-free rate."""
    returns = daily_returns(as_results(results))
    rolling = returns.rolling(window, min_periods=window)
    std = rolling.std(ddof=1)
    return (rolling.mean() / std.where(std > 0) * np.sqrt(252)).dropna(how="all")


def rolling_sharpe_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    runs = as_runs(runs)
    tables = [rolling_sharpe_table(run) for run in runs]
    figure = _figure(9.0, 3.4)
    axis = figure.add_subplot()
    first = tables[0].index
    x = dated(runs[0], first)
    for colour, arm in enumerate(tables[0].columns):
        mean = pd.concat([t[arm] for t in tables], axis=1).mean(axis=1)
        label = arm if len(runs) == 1 else f"{arm} (mean of {len(runs)} seeds)"
        axis.plot(x, mean.reindex(first), lw=1.3, label=label, color=f"C{colour % 10}")
    axis.axhline(0.0, color="grey", lw=0.8)
    title = f"Rolling {ROLLING_DAYS}-day Sharpe"
    xlabel = "date" if isinstance(x, pd.DatetimeIndex) else "trading day"
    axis.set(xlabel=xlabel, ylabel="Sharpe (annualised)", title=_title(runs, title))
    axis.grid(alpha=0.3)
    _legend(axis)
    return figure


def returns_by_seed(runs: Sequence[ResultsLike] | ResultsLike) -> pd.DataFrame:
    """Total return % with one row per run (seed) and one column per arm."""
    rows = {}
    for i, run in enumerate(as_runs(runs)):
        label = run.meta.get("seed", i)
        rows[label if label not in rows else f"{label}#{i}"] = run.scorecard["return_pct"]
    table = pd.DataFrame(rows).T
    table.index.name = "seed"
    return table


def returns_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    """Per arm, the distribution of total return across seeds (box plus every seed as a dot)."""
    table = returns_by_seed(runs)
    figure = _figure(9.0, 3.8, right=0.3, bottom=0.85)
    axis = figure.add_subplot()
    arms = list(table.columns)
    axis.boxplot([table[a].to_numpy() for a in arms], tick_labels=arms, widths=0.5)
    offsets = np.linspace(-0.12, 0.12, len(table)) if len(table) > 1 else np.zeros(1)
    for i, arm in enumerate(arms, start=1):
        axis.scatter(i + offsets, table[arm], s=14, alpha=0.7, zorder=3)
    axis.axhline(0.0, color="grey", lw=0.8)
    axis.set(ylabel="return %", title=f"Return across {len(table)} seed(s)")
    axis.grid(alpha=0.3, axis="y")
    axis.tick_params(axis="x", labelrotation=20)
    return figure


def busiest_symbol(results: ResultsLike) -> str | None:
    """The symbol with the most filled shares across arms (ties: alphabetical)."""
    orders = as_results(results).orders
    if orders.empty or "quantity" not in orders:
        return None
    filled = orders[orders["quantity"].astype(float) > 0]
    if filled.empty:
        return None
    volume = filled.groupby("symbol")["quantity"].sum()
    return str(volume[volume == volume.max()].sort_index().index[0])


def orders_figure(results: ResultsLike, symbol: str | None = None) -> Any:
    """One symbol's price with every arm's fills on it (▲ buy, ▼ sell)."""
    results = as_results(results)
    symbol = symbol or busiest_symbol(results) or (results.meta.get("symbols") or [None])[0]
    figure = _figure(9.0, 3.8)
    axis = figure.add_subplot()
    prices = price_path(results, symbol) if symbol else None
    steps = int(results.meta.get("steps_per_day") or 1)
    if prices is not None:
        x = _on_dates(results, step_x(results, np.arange(prices.size)))
        axis.plot(x, prices, color="black", lw=1.0, label=f"{symbol} close", zorder=1)
    _draw_fills(axis, results, symbol, steps)
    title = _title(results, f"Orders on {symbol}")
    axis.set(xlabel=_day_label(results), ylabel="price", title=title)
    axis.grid(alpha=0.3)
    _legend(axis)
    return figure


def _draw_fills(axis: Any, results: Any, symbol: str | None, steps: int) -> None:
    orders = results.orders
    if orders.empty or symbol is None:
        return
    mine = orders[(orders["symbol"] == symbol) & (orders["quantity"].astype(float) > 0)]
    roster = list(results.scorecard.index)
    for arm, rows in mine.groupby("arm", sort=False):
        colour = f"C{roster.index(arm) % 10}" if arm in roster else None
        # an order decided at step k is executed against the next step's bar
        executed = rows["day"].astype(int) * steps + rows["step"].astype(int) + 1
        x = _on_dates(results, step_x(results, executed.to_numpy()))
        for side, marker in (("buy", "^"), ("sell", "v")):
            pick = (rows["side"] == side).to_numpy()
            if pick.any():
                axis.scatter(
                    x[pick],
                    rows["price"][pick],
                    marker=marker,
                    s=30,
                    alpha=0.8,
                    color=colour,
                    label=f"{arm} {side}",
                    zorder=2,
                )


SOURCES = ("market", "sector", "selection", "timing", "costs", "bust_floor")


def attribution_table(results: ResultsLike) -> pd.DataFrame:
    """Per arm and day, each source's P&L summed from the start to that day's close
    (columns: arm x source, plus pnl); empty when the run cannot be attributed."""
    frame = attribution_of(as_results(results))
    if frame.empty:
        return pd.DataFrame()
    daily = frame.groupby(["arm", "day"], sort=True, observed=True)[[*SOURCES, "pnl"]].sum()
    return pd.DataFrame(daily.groupby(level="arm", observed=True).cumsum().unstack("arm"))


def attribution_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    """One panel per arm: its P&L to date split into its sources, stacked away from zero
    (gains up, losses down) day by day, with the P&L itself as a line; with several runs
    (seeds) the mean over them. Arms that never made or lost anything are named, not drawn."""
    runs = as_runs(runs)
    table, by_arm, flat, drawn = attribution_by_arm(runs)
    rows = max(1, (len(drawn) + 1) // 2)
    figure = _figure(9.0, 1.4 + 2.4 * rows, right=0.3, top=0.75, bottom=0.95, hspace=0.5)
    for n, arm in enumerate(drawn):
        axis = figure.add_subplot(rows, 2, n + 1)
        _stacked_sources(axis, by_arm[arm], runs[0])
        axis.set_title(arm, fontsize=9)
    title = "Where the P&L came from" + (" (regression estimate)" if _estimated(runs[0]) else "")
    if len(runs) > 1:
        title += f", mean of {len(runs)} seeds"
    title = _title(runs, title)
    if flat:
        title += f"\n(not drawn, never moved: {', '.join(flat)})"
    figure.suptitle(title, fontsize=10)
    _sources_legend(figure, [source for source in SOURCES if table[source].to_numpy().any()])
    return figure


def attribution_by_arm(
    runs: Sequence[ResultsLike],
) -> tuple[pd.DataFrame, dict[str, pd.DataFrame], list[str], list[str]]:
    """The attribution table (the mean over ``runs``), each arm's sources, the arms that
    never made or lost anything (named, not drawn) and the arms drawn."""
    tables = [attribution_table(run) for run in runs]
    table = pd.concat(tables).groupby(level=0).mean() if len(tables) > 1 else tables[0]
    by_arm = {arm: _of_arm(table, arm) for arm in table.columns.get_level_values("arm")}
    flat = [arm for arm, sources in by_arm.items() if not sources.to_numpy().any()]
    return table, by_arm, flat, [arm for arm in by_arm if arm not in flat]


def _of_arm(table: pd.DataFrame, arm: str) -> pd.DataFrame:
    """One arm's columns (source -> values) of an ``attribution_table``."""
    return pd.DataFrame(table.xs(arm, axis=1, level="arm"))


def _sources_legend(figure: Any, shown: list[str]) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Any] = [
        Patch(color=f"C{i}", label=source) for i, source in enumerate(SOURCES) if source in shown
    ]
    handles.append(Line2D([], [], color="black", marker=".", label="P&L"))
    figure.legend(
        handles=handles, loc="lower center", ncols=len(handles), fontsize=8,
        frameon=False,
    )  # fmt: skip


def _on_dates(results: Any, x: np.ndarray) -> Any:
    """Whole-day x as the bars' dates on a historical run (one step a day), else x."""
    dates = results.meta.get("dates")
    if not dates or close_offset(results) or len(x) == 0 or int(np.max(x)) >= len(dates):
        return x
    return pd.DatetimeIndex(pd.to_datetime([dates[int(d)] for d in x]))


def _day_label(results: Any) -> str:
    return "date" if results.meta.get("dates") else "trading day"


def _stacked_sources(axis: Any, sources: pd.DataFrame, results: Any) -> None:
    # the P&L to the close of day d, at that close's x
    days = _on_dates(results, sources.index.to_numpy() + close_offset(results))
    up, down = np.zeros(len(days)), np.zeros(len(days))
    for colour, source in enumerate(SOURCES):
        values = sources[source].to_numpy()
        if not np.any(values):
            continue
        bottom = np.where(values >= 0, up, down)
        # one stepped band per source: as quick for 2,000 days as for 10
        axis.fill_between(
            days, bottom, bottom + values, step="mid", color=f"C{colour}", lw=0, label=source
        )
        up, down = up + np.maximum(values, 0), down + np.minimum(values, 0)
    marker = "." if len(days) <= 60 else None
    axis.plot(days, sources["pnl"].to_numpy(), color="black", lw=1.2, marker=marker, label="P&L")
    axis.axhline(0.0, color="grey", lw=0.8)
    axis.set_xlabel(_day_label(results), fontsize=8)
    axis.tick_params(labelsize=7)
    axis.grid(alpha=0.3, axis="y")


def _estimated(results: Any) -> bool:
    frame = attribution_of(results)
    return bool(not frame.empty and frame["estimated"].any())


def png_bytes(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return buffer.getvalue()


def save_figure(figure: Any, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png_bytes(figure))
    return path


def save_equity_plot(results: ResultsLike, path: str | Path) -> Path:
    return save_figure(equity_figure(results), path)


def all_figures(
    runs: Sequence[ResultsLike] | ResultsLike, symbol: str | None = None
) -> dict[str, Any]:
    """The report's figures by file stem: equity of every run, the return distribution (the
    underwater plot, rolling risk, cumulative returns and activity are SVG charts, see
    ``charts_over_time``), the first run's orders, where
    the P&L came from when the run can be attributed, the first run's news beside one price
    when its market published any (``report.information``), and the spread of total return
    across seeds when there is more than one."""
    from workbench.report.information import information_of, news_figure

    runs = as_runs(runs)
    figures = {
        "equity": equity_figure(runs),
        "return_distribution": return_distribution_figure(runs),
    }
    figures["orders"] = orders_figure(runs[0], symbol)
    if not attribution_of(runs[0]).empty:
        figures["attribution"] = attribution_figure(runs)
    items = information_of(runs[0])
    if not items.empty:
        figures[NEWS_FIGURE] = news_figure(runs[0], items, symbol)
    if len(runs) > 1:
        figures["returns_by_seed"] = returns_figure(runs)
    return figures
