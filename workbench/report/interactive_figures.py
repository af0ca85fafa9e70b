"""The report's other pictures as plotly specs: the daily return distribution, total
return across seeds, one name's orders, where the P&L came from, and the news on one name.

Like the charts over time (``interactive``) each is a plain ``{"data", "layout"}`` dict
plotly.js draws, cheap to build and the same JSON in any process; every arm (or P&L
source) is a legend entry that hides or shows it everywhere in the figure. Hover names
the point's day in the one day numbering (``trading day N, step s of S`` between the
closes of an intraday run) or its date on historical bars, and the value.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation.tearsheet_frames import close_offset, step_x
from workbench.report._canvas import _title
from workbench.report._data import ResultsLike, as_runs, attribution_of, daily_returns, price_path
from workbench.report._spec import (
    SIDE_LEGEND,
    Spec,
    arm_colour,
    base_layout,
    day_labels,
    json_numbers,
    named,
    panel_axes,
    panel_ref,
    panel_title,
    with_step_labels,
)
from workbench.report.information import information_of, news_spec
from workbench.report.plots import (
    NEWS_FIGURE,
    SOURCES,
    attribution_by_arm,
    busiest_symbol,
)
from workbench.report.plots import returns_by_seed as returns_table

Runs = Sequence[ResultsLike] | ResultsLike


def _steps(results: Any) -> int:
    return int(results.meta.get("steps_per_day") or 1)


def _placed(results: Any, x: np.ndarray) -> tuple[list[Any], list[str], str]:
    """Points at x in the one day numbering: their x (the bars' dates on a historical run
    with one step a day), what hover calls them, and the axis label."""
    dates = results.meta.get("dates")
    whole = len(x) and not close_offset(results) and int(np.max(x)) < len(dates or ())
    if dates and whole:
        shown = [str(dates[int(d)]) for d in x]
        return shown, shown, "date"
    return json_numbers(x), day_labels(x, _steps(results)), "trading day"


def distribution_spec(runs: Runs) -> Spec:
    """Per arm, how many days returned how much, pooled over every run (seed); arms that
    never moved are named in the title (a spike at zero would flatten the others)."""
    runs = as_runs(runs)
    pooled = pd.concat([daily_returns(run) * 100 for run in runs], ignore_index=True)
    values = {str(arm): pooled[arm].dropna().to_numpy() for arm in pooled.columns}
    flat = [arm for arm, data in values.items() if not np.any(data)]
    moving = [data for arm, data in values.items() if arm not in flat]
    edges = _bins(np.concatenate(moving)) if moving else np.zeros(0)
    data = [
        _histogram(returns, edges, arm, i)
        for i, (arm, returns) in enumerate(values.items())
        if arm not in flat and edges.size
    ]
    title = _title(runs, "Daily returns")
    if flat:
        title += f"<br><sub>not drawn, never moved: {', '.join(flat)}</sub>"
    layout = base_layout(title, "daily return %", [])
    layout["xaxis"]["unifiedhovertitle"] = {"text": "daily return about %{x:.2f}%"}
    layout.update(barmode="overlay", bargap=0, yaxis={"title": {"text": "days"}})
    return {"data": data, "layout": layout}


def _bins(moving: np.ndarray) -> np.ndarray:
    return np.histogram_bin_edges(moving, bins=min(40, max(5, moving.size // 5)))


def _histogram(returns: np.ndarray, edges: np.ndarray, arm: str, i: int) -> Spec:
    counts, _ = np.histogram(returns, bins=edges)
    return {
        "type": "bar", "x": json_numbers((edges[:-1] + edges[1:]) / 2), "y": counts.tolist(),
        "width": float(edges[1] - edges[0]), **named(arm), "legendgroup": arm,
        "marker": {"color": arm_colour(i, 0.35), "line": {"color": arm_colour(i), "width": 1}},
        "customdata": ["day" if count == 1 else "days" for count in counts.tolist()],
        "hovertemplate": "%{meta}: %{y} %{customdata}<extra></extra>",
    }  # fmt: skip


def seeds_spec(runs: Runs) -> Spec:
    """Per arm, total return across seeds: a box, and every seed as a point naming it."""
    table = returns_table(runs)
    seeds = [f"seed {seed}" for seed in table.index]
    data = [
        {"type": "box", "y": json_numbers(table[arm]), **named(arm), "text": seeds,
         "boxpoints": "all", "hoveron": "points", "jitter": 0.3, "pointpos": 0,
         "legendgroup": str(arm),
         "marker": {"color": arm_colour(i)},
         "hovertemplate": "%{meta}, %{text}: %{y:.2f}%<extra></extra>"}
        for i, arm in enumerate(table.columns)
    ]  # fmt: skip
    layout = base_layout(f"Return across {len(table)} seed(s)", "arm", [])
    layout.update(hovermode="closest", yaxis={"title": {"text": "return %"}, "ticksuffix": "%"})
    layout["xaxis"] = {"type": "category"}
    return {"data": data, "layout": layout}


def orders_spec(runs: Runs, symbol: str | None = None) -> Spec:
    """The first run's close of one symbol (the busiest unless given) with every arm's
    fills on it where they executed (▲ buy, ▼ sell); hover names the fill."""
    results = as_runs(runs)[0]
    symbol = symbol or busiest_symbol(results) or (results.meta.get("symbols") or [None])[0]
    prices = price_path(results, symbol) if symbol else None
    data: list[Spec] = []
    xlabel = "date" if results.meta.get("dates") and not close_offset(results) else "trading day"
    x: list[Any] = []
    if prices is not None:
        x, labels, xlabel = _placed(results, step_x(results, np.arange(prices.size)))
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": x,
                "y": json_numbers(prices),
                "name": f"{symbol} close",
                "text": labels,
                "line": {"color": "black", "width": 1},
                "hovertemplate": "%{text}: close %{y:.2f}<extra></extra>",
            }
        )
    data += _fills(results, symbol)
    layout = base_layout(_title(results, f"Orders on {symbol}"), xlabel, x)
    layout.update(hovermode="closest", yaxis={"title": {"text": "price"}, "gridcolor": "#e4e4e4"})
    layout["legend"] = dict(SIDE_LEGEND)
    return {"data": data, "layout": layout}


def _fills(results: Any, symbol: str | None) -> list[Spec]:
    orders = results.orders
    if orders.empty or symbol is None:
        return []
    mine = orders[(orders["symbol"] == symbol) & (orders["quantity"].astype(float) > 0)]
    roster, steps, traces = list(results.scorecard.index), _steps(results), []
    for arm, rows in mine.groupby("arm", sort=False):
        # an order decided at step k is executed against the next step's bar
        executed = rows["day"].astype(int) * steps + rows["step"].astype(int) + 1
        x, labels, _ = _placed(results, step_x(results, executed.to_numpy()))
        i = roster.index(arm) if arm in roster else 0
        for side, marker in (("buy", "triangle-up"), ("sell", "triangle-down")):
            pick = np.flatnonzero((rows["side"] == side).to_numpy())
            if pick.size:
                traces.append(
                    _fill_trace(
                        rows.iloc[pick],
                        [x[k] for k in pick],
                        [labels[k] for k in pick],
                        f"{arm} {side}",
                        i,
                        marker,
                    )
                )
    return traces


def _fill_trace(rows: pd.DataFrame, x: list[Any], labels: list[str], name: str, i: int,
                marker: str) -> Spec:  # fmt: skip
    quantities = rows["quantity"].astype(float).round().astype(int).tolist()
    return {
        "type": "scatter", "mode": "markers", "x": x, "y": json_numbers(rows["price"]),
        **named(name), "legendgroup": name.rsplit(" ", 1)[0],
        "customdata": [list(pair) for pair in zip(labels, quantities, strict=True)],
        "marker": {"symbol": marker, "size": 9, "color": arm_colour(i), "opacity": 0.85},
        "hovertemplate": "%{meta} %{customdata[1]:,} at %{y:.2f}<br>%{customdata[0]}"
                         "<extra></extra>",
    }  # fmt: skip


def attribution_spec(runs: Runs) -> Spec:
    """One panel per arm: its P&L to date split into its sources, stacked away from zero
    (gains up, losses down) day by day, with the P&L itself as a line; with several runs
    (seeds) the mean over them. Arms that never made or lost anything are named, not drawn."""
    runs = as_runs(runs)
    table, by_arm, flat, drawn = attribution_by_arm(runs)
    x, _, xlabel = _placed(runs[0], table.index.to_numpy() + close_offset(runs[0]))
    rows = max(1, math.ceil(len(drawn) / 2))
    height, steps = 140 + 260 * rows, _steps(runs[0])
    layout = base_layout(_attribution_title(runs, flat), xlabel, x, height=height, steps=steps)
    layout.update(barmode="relative", bargap=0)
    layout["legend"]["title"] = {"text": "source (click to hide)"}
    data: list[Spec] = []
    notes: list[Spec] = []
    shown: set[str] = set()
    for n, arm in enumerate(drawn, start=1):
        layout.update(panel_axes(n, rows, layout["xaxis"], {}))
        notes.append(panel_title(n, rows, str(arm)))
        data += _sources(x, by_arm[arm], n, shown)
    layout["annotations"] = notes
    spec = {"data": data, "layout": layout}
    return with_step_labels(spec, x, data[0]["y"], steps) if data else spec


def _attribution_title(runs: list[Any], flat: list[str]) -> str:
    frame = attribution_of(runs[0])
    estimated = not frame.empty and bool(frame["estimated"].any())
    title = "Where the P&L came from" + (" (regression estimate)" if estimated else "")
    if len(runs) > 1:
        title += f", mean of {len(runs)} seeds"
    title = _title(runs, title)
    return title + (f"<br><sub>not drawn, never moved: {', '.join(flat)}</sub>" if flat else "")


def _sources(x: list[Any], sources: pd.DataFrame, panel: int, shown: set[str]) -> list[Spec]:
    """One arm's panel: a bar per source and day (stacked), and the P&L as a line; each
    source's legend entry (shown once) toggles it in every panel."""
    traces = []
    for k, source in enumerate(SOURCES):
        values = sources[source].to_numpy()
        if np.any(values):
            traces.append(
                {
                    "type": "bar",
                    "x": x,
                    "y": json_numbers(values),
                    "name": source,
                    "legendgroup": source,
                    "legendrank": k,
                    "showlegend": source not in shown,
                    "marker": {"color": arm_colour(k), "line": {"width": 0}},
                    "hovertemplate": f"{source}: %{{y:,.0f}}<extra></extra>",
                    **panel_ref(panel),
                }
            )
            shown.add(source)
    traces.append(
        {
            "type": "scatter",
            "mode": "lines",
            "x": x,
            "y": json_numbers(sources["pnl"]),
            "name": "P&L",
            "legendgroup": "P&L",
            "legendrank": len(SOURCES),
            "showlegend": "P&L" not in shown,
            "line": {"color": "black", "width": 1.4},
            "hovertemplate": "P&L: %{y:,.0f}<extra></extra>",
            **panel_ref(panel),
        }
    )
    shown.add("P&L")
    return traces


def news_chart(runs: Runs, symbol: str | None = None) -> Spec:
    """The first run's news on one name (``information.news_spec``)."""
    results = as_runs(runs)[0]
    items = information_of(results)
    if items.empty:
        raise ConfigError("this run's market published no news; pick another chart")
    return news_spec(results, items, symbol)


def picture_specs(runs: Runs, symbol: str | None = None) -> dict[str, Spec]:
    """The report's pictures besides the charts over time, by section: the return
    distribution, the first run's orders, where the P&L came from (when the run can be
    attributed), the news on one name (when its market published any) and total return
    across seeds (with several)."""
    runs = as_runs(runs)
    specs = {"return_distribution": distribution_spec(runs), "orders": orders_spec(runs, symbol)}
    if not attribution_of(runs[0]).empty:
        specs["attribution"] = attribution_spec(runs)
    items = information_of(runs[0])
    if not items.empty:
        specs[NEWS_FIGURE] = news_spec(runs[0], items, symbol)
    if len(runs) > 1:
        specs["returns_by_seed"] = seeds_spec(runs)
    return specs


__all__ = [
    "attribution_spec",
    "distribution_spec",
    "news_chart",
    "orders_spec",
    "picture_specs",
    "seeds_spec",
]
