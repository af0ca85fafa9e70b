"""The report's charts over time as plotly figures: hover, zoom and legend toggles; and
``plot``, any chart of the report (``CHARTS``, the others from ``interactive_figures``)
as a plotly Figure for a notebook.

Each function returns a figure *spec*, the plain ``{"data": [...], "layout": {...}}``
dict plotly.js draws: building it costs no plotly import and no validation, so the
report stays quick, and ``figure(spec)`` turns it into a ``plotly.graph_objects.Figure``
for a notebook. Every arm is one legend group: clicking its legend entry hides or
shows it in every panel of the figure. With several runs (seeds) the equity chart
draws, per arm, the mean over seeds as a line and the seeds' range as a band under
it (never one line per seed), and hovering the mean names the range too; the other
charts draw the mean. Hover shows the arm, the day (the date on historical bars) and
the value; every panel of a figure zooms together along x.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from workbench.evaluation import tearsheet_frames as frames
from workbench.report._data import ResultsLike, as_runs, daily_returns, day_axis
from workbench.report._spec import (
    Spec,
    arm_colour,
    arm_line,
    axis_x,
    base_layout,
    json_numbers,
    panel_axes,
    panel_title,
    plotly_text,
    with_step_labels,
)
from workbench.report.charts_over_time import Runs, _x, tables_of
from workbench.report.interactive_figures import (
    attribution_spec,
    distribution_spec,
    news_chart,
    orders_spec,
    seeds_spec,
)


def _seeds(runs: list[Any]) -> str:
    return "" if len(runs) == 1 else f" (mean of {len(runs)} seeds)"


def equity_spec(runs: Sequence[ResultsLike] | ResultsLike) -> Spec:
    """Each arm's equity rebased to 100; with several seeds the mean and the range."""
    runs = as_runs(runs)
    longest = max(runs, key=lambda run: len(run.equity))
    x_values, xlabel = day_axis(longest)
    x = axis_x(x_values)
    data: list[Spec] = []
    for i, arm in enumerate(runs[0].equity.columns):
        stack = _rebased_stack(runs, str(arm), len(x))
        data += _band(x, stack, str(arm), i) if len(runs) > 1 else []
        data.append(_mean_line(x, stack, str(arm), i))
    title = "Equity (start = 100)" + ("" if len(runs) == 1 else f": mean and range of "
                                      f"{len(runs)} seeds")  # fmt: skip
    layout = base_layout(title, xlabel, x, height=420, steps=_steps(runs))
    layout["yaxis"] = {"title": {"text": "equity (start = 100)"}, "gridcolor": "#e4e4e4"}
    return with_step_labels({"data": data, "layout": layout}, x, data[-1]["y"], _steps(runs))


def _steps(runs: list[Any]) -> int:
    return int(runs[0].meta.get("steps_per_day") or 1)


def _rebased_stack(runs: list[Any], arm: str, length: int) -> np.ndarray:
    """seeds x steps of ``arm``'s equity rebased to 100, NaN past a seed's last step."""
    stack = np.full((len(runs), length), np.nan)
    for row, run in enumerate(runs):
        curve = run.equity[arm].to_numpy(dtype=float)[:length]
        stack[row, : curve.size] = curve / (curve[0] or 1.0) * 100.0
    return stack


def _band(x: list[Any], stack: np.ndarray, arm: str, i: int) -> list[Spec]:
    """The seeds' min-max range as a shaded band (two traces: floor, then ceiling)."""
    edge = {"type": "scatter", "mode": "lines", "x": x, "legendgroup": arm, "showlegend": False,
            "hoverinfo": "skip", "line": {"width": 0, "color": arm_colour(i)}}  # fmt: skip
    name = plotly_text(arm)
    floor = {**edge, "y": json_numbers(np.nanmin(stack, axis=0)), "name": f"{name} lowest seed"}
    ceiling = {**edge, "y": json_numbers(np.nanmax(stack, axis=0)), "name": f"{name} highest seed",
               "fill": "tonexty", "fillcolor": arm_colour(i, 0.15)}  # fmt: skip
    return [floor, ceiling]


def _mean_line(x: list[Any], stack: np.ndarray, arm: str, i: int) -> Spec:
    line = arm_line(x, np.nanmean(stack, axis=0), arm, i, 1, ".2f")
    if len(stack) > 1:
        low, high = np.nanmin(stack, axis=0), np.nanmax(stack, axis=0)
        pairs = zip(json_numbers(low), json_numbers(high), strict=True)
        line["customdata"] = [list(pair) for pair in pairs]
        line["hovertemplate"] = (
            "%{meta}: %{y:.2f} (seeds %{customdata[0]:.2f} to %{customdata[1]:.2f})<extra></extra>"
        )
    return line


def underwater_spec(runs: Runs) -> Spec:
    """Each arm's fall from its running peak, shaded from zero (mean over seeds)."""
    tables = tables_of(runs)
    runs, table = tables.runs, tables.drawdown
    x_values, xlabel = day_axis(runs[0])
    x = axis_x(x_values[: len(table)])
    data = []
    for i, arm in enumerate(runs[0].equity.columns):
        line = arm_line(x, table[arm], str(arm), i, 1, ".2f")
        line.update(fill="tozeroy", fillcolor=arm_colour(i, 0.12))
        line["hovertemplate"] = "%{meta}: %{y:.2f}%<extra></extra>"
        data.append(line)
    title = f"Underwater: drawdown from the running peak{_seeds(runs)}"
    layout = base_layout(title, xlabel, x, steps=_steps(runs))
    layout["yaxis"] = {"title": {"text": "drawdown %"}, "ticksuffix": "%", "gridcolor": "#e4e4e4"}
    return with_step_labels({"data": data, "layout": layout}, x, data[-1]["y"], _steps(runs))


def _panels(
    runs: list[Any], x_values: Any, xlabel: str, panels: dict[str, Any], title: str, **extra: Any
) -> Spec:
    """One figure of side-by-side panels (title -> table of arms), two per row, sharing
    the x zoom and the arms' legend; ``extra`` goes to every y axis."""
    x, arms = axis_x(x_values), [str(arm) for arm in runs[0].equity.columns]
    rows = math.ceil(len(panels) / 2)
    height, steps = 120 + 260 * rows, _steps(runs)
    layout = base_layout(title + _seeds(runs), xlabel, x, height=height, steps=steps)
    data, notes = [], []
    for n, (name, table) in enumerate(panels.items(), start=1):
        layout.update(panel_axes(n, rows, layout["xaxis"], extra))
        notes.append(panel_title(n, rows, name))
        for i, arm in enumerate(arms):
            if arm in table.columns:
                data.append(arm_line(x, table[arm], arm, i, n, extra.get("fmt", ".3g")))
    layout["annotations"] = notes
    return with_step_labels({"data": data, "layout": layout}, x, data[0]["y"], steps)


def rolling_spec(runs: Runs) -> Spec:
    """Rolling Sharpe, Sortino, volatility and beta over ``ROLLING_WINDOW`` day returns."""
    tables = tables_of(runs)
    runs, window = tables.runs, frames.ROLLING_WINDOW
    risk, sharpe = tables.risk, tables.sharpe.copy()
    sharpe.index = sharpe.index + 1  # return i ends on day i + 1, as in rolling_risk
    x, xlabel = _x(runs, risk.index, of_returns=True)
    panels = {
        "Sharpe": sharpe.reindex(risk.index), "Sortino": risk["rolling_sortino"],
        "volatility %": risk["rolling_volatility_pct"], "beta": risk["rolling_beta"],
    }  # fmt: skip
    return _panels(runs, x, xlabel, panels, f"Rolling {window}-day risk")


def cumulative_spec(runs: Runs) -> Spec:
    """Cumulative return (growth of 1) on a log scale, and volatility-matched to the
    benchmark when the run has one."""
    tables = tables_of(runs)
    runs, table = tables.runs, tables.cumulative
    x, xlabel = _x(runs, table.index, of_returns=True)
    names = {"cumulative_return_pct": "cumulative return",
             "volatility_matched_pct": "volatility-matched"}  # fmt: skip
    kinds = dict.fromkeys(table.columns.get_level_values(0))
    panels = {names[kind]: 1.0 + table[kind] / 100.0 for kind in kinds}
    return _panels(runs, x, xlabel, panels, "Growth of 1, log scale", type="log", fmt=".4f")


def activity_spec(runs: Runs) -> Spec:
    """Gross exposure over equity, names held and the day's turnover at every close."""
    tables = tables_of(runs)
    runs, table = tables.runs, tables.activity
    x, xlabel = _x(runs, table.index, of_returns=False)
    shown = {"gross_exposure": "gross exposure", "positions": "names held",
             "day_turnover": "turnover"}  # fmt: skip
    panels = {label: table[measure] for measure, label in shown.items()}
    return _panels(runs, x, xlabel, panels, "Exposure, positions and turnover")


def all_specs(runs: Runs) -> dict[str, Spec]:
    """The report's interactive charts by section: equity, underwater, cumulative returns,
    rolling risk (when the run has two windows of day returns) and activity."""
    from workbench.report.plots import ROLLING_DAYS

    tables = tables_of(runs)
    specs = {"equity": equity_spec(tables.runs), "underwater": underwater_spec(tables),
             "cumulative_returns": cumulative_spec(tables)}  # fmt: skip
    if len(daily_returns(tables.runs[0])) >= 2 * ROLLING_DAYS:
        specs["rolling_risk"] = rolling_spec(tables)
    specs["activity"] = activity_spec(tables)
    return specs


CHARTS = {
    "equity": equity_spec, "underwater": underwater_spec, "cumulative": cumulative_spec,
    "rolling": rolling_spec, "activity": activity_spec, "distribution": distribution_spec,
    "returns_by_seed": seeds_spec, "orders": orders_spec, "attribution": attribution_spec,
    "news": news_chart,
}  # fmt: skip


def plot(runs: Sequence[ResultsLike] | ResultsLike, chart: str = "equity") -> Any:
    """One interactive chart of a run or its seeds as a ``plotly`` Figure (shown in
    JupyterLab, Voilà or ``.write_html``): ``chart`` is one of ``CHARTS``."""
    if chart not in CHARTS:
        from workbench.errors import ConfigError

        raise ConfigError(f"no chart {chart!r}; pick one of {', '.join(CHARTS)}")
    return figure(CHARTS[chart](runs))


def figure(spec: Spec) -> Any:
    """A ``plotly.graph_objects.Figure`` of a spec."""
    try:
        import plotly.graph_objects as go
    except ImportError as missing:
        from workbench.errors import MissingDependency

        raise MissingDependency("plotly", "jupyter", "an interactive chart") from missing
    return go.Figure(spec)


__all__ = ["CHARTS", "all_specs", "equity_spec", "figure", "plot", "rolling_spec"]
