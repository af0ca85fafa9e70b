"""The report's charts over time as plotly figures: hover, zoom and legend toggles.

Each function returns a figure *spec*, the plain ``{"data": [...], "layout": {...}}``
dict plotly.js draws: building it costs no plotly import and no validation, so the
report stays quick, and ``figure(spec)`` turns it into a ``plotly.graph_objects.Figure``
for a notebook. Every arm is one legend group: clicking its legend entry hides or
shows it in every panel of the figure. With several runs (seeds) the equity chart
draws, per arm, the mean over seeds as a line and the seeds' range as a band under
it (never one line per seed), and hovering the mean names the range too; the other
charts draw the mean. Hover shows the arm, the day (the date on historical bars) and
the value; every panel of a figure zooms together along x.

Values are rounded to 4 decimals (a chart's pixels cannot show more), so a spec is
the same JSON in any process.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation import tearsheet_frames as frames
from workbench.report._data import ResultsLike, as_runs, daily_returns, day_axis
from workbench.report.charts_over_time import Runs, _x, tables_of
from workbench.report.svg import COLOURS

Spec = dict[str, Any]
_FONT = {"family": "system-ui, sans-serif", "size": 11}


def _numbers(values: Any) -> list[float | None]:
    """JSON-safe values: 4 decimals (every chart here shows percents, ratios, days or
    equity near 100, where a pixel is far coarser), gaps (NaN) as null."""
    rounded = np.round(np.asarray(values, dtype=float), 4)
    finite = np.isfinite(rounded)
    if finite.all():
        return rounded.tolist()
    return [v if ok else None for v, ok in zip(rounded.tolist(), finite.tolist(), strict=True)]


def _xs(x: Any) -> list[Any]:
    """Dates as ISO days (plotly draws a date axis), else trading days as numbers."""
    if isinstance(x, pd.DatetimeIndex):
        return list(x.strftime("%Y-%m-%d"))
    return _numbers(x)


def _colour(i: int, alpha: float | None = None) -> str:
    hex_colour = COLOURS[i % len(COLOURS)]
    if alpha is None:
        return hex_colour
    red, green, blue = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def _line(x: list[Any], y: Any, arm: str, i: int, panel: int, fmt: str) -> Spec:
    """One arm's line in panel ``panel`` (1-based); its legend entry only in the first."""
    return {
        "type": "scatter", "mode": "lines", "x": x, "y": _numbers(y), "name": arm,
        "legendgroup": arm, "showlegend": panel == 1, "line": {"color": _colour(i), "width": 1.6},
        "hovertemplate": f"{arm}: %{{y:{fmt}}}<extra></extra>", **_axes(panel),
    }  # fmt: skip


def _axes(panel: int) -> dict[str, str]:
    suffix = "" if panel == 1 else str(panel)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def _layout(title: str, xlabel: str, height: int = 360) -> Spec:
    dated = xlabel == "date"
    return {
        "title": {"text": title, "font": {"size": 13}}, "height": height, "font": _FONT,
        "margin": {"l": 60, "r": 20, "t": 60, "b": 50}, "hovermode": "x unified",
        "legend": {"orientation": "h", "y": -0.18, "title": {"text": "arm (click to hide)"}},
        "template": {"layout": {"plot_bgcolor": "white", "paper_bgcolor": "white"}},
        "xaxis": _x_axis(xlabel, dated),
    }  # fmt: skip


def _x_axis(xlabel: str, dated: bool) -> Spec:
    hover = "%{x|%Y-%m-%d}" if dated else "trading day %{x:.4~f}"
    return {
        "title": {"text": xlabel}, "type": "date" if dated else "linear",
        "unifiedhovertitle": {"text": hover}, "gridcolor": "#e4e4e4", "zeroline": False,
        "showspikes": True, "spikemode": "across", "spikethickness": 1,
    }  # fmt: skip


def _seeds(runs: list[Any]) -> str:
    return "" if len(runs) == 1 else f" (mean of {len(runs)} seeds)"


def equity_spec(runs: Sequence[ResultsLike] | ResultsLike) -> Spec:
    """Each arm's equity rebased to 100; with several seeds the mean and the range."""
    runs = as_runs(runs)
    longest = max(runs, key=lambda run: len(run.equity))
    x_values, xlabel = day_axis(longest)
    x = _xs(x_values)
    data: list[Spec] = []
    for i, arm in enumerate(runs[0].equity.columns):
        stack = _rebased_stack(runs, str(arm), len(x))
        data += _band(x, stack, str(arm), i) if len(runs) > 1 else []
        data.append(_mean_line(x, stack, str(arm), i))
    title = "Equity (start = 100)" + ("" if len(runs) == 1 else f": mean and range of "
                                      f"{len(runs)} seeds")  # fmt: skip
    layout = _layout(title, xlabel, height=420)
    layout["yaxis"] = {"title": {"text": "equity (start = 100)"}, "gridcolor": "#e4e4e4"}
    return {"data": data, "layout": layout}


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
            "hoverinfo": "skip", "line": {"width": 0, "color": _colour(i)}}  # fmt: skip
    floor = {**edge, "y": _numbers(np.nanmin(stack, axis=0)), "name": f"{arm} lowest seed"}
    ceiling = {**edge, "y": _numbers(np.nanmax(stack, axis=0)), "name": f"{arm} highest seed",
               "fill": "tonexty", "fillcolor": _colour(i, 0.15)}  # fmt: skip
    return [floor, ceiling]


def _mean_line(x: list[Any], stack: np.ndarray, arm: str, i: int) -> Spec:
    line = _line(x, np.nanmean(stack, axis=0), arm, i, 1, ".2f")
    if len(stack) > 1:
        low, high = np.nanmin(stack, axis=0), np.nanmax(stack, axis=0)
        pairs = zip(_numbers(low), _numbers(high), strict=True)
        line["customdata"] = [list(pair) for pair in pairs]
        line["hovertemplate"] = (
            f"{arm}: %{{y:.2f}} (seeds %{{customdata[0]:.2f}} to %{{customdata[1]:.2f}})"
            "<extra></extra>"
        )
    return line


def underwater_spec(runs: Runs) -> Spec:
    """Each arm's fall from its running peak, shaded from zero (mean over seeds)."""
    tables = tables_of(runs)
    runs, table = tables.runs, tables.drawdown
    x_values, xlabel = day_axis(runs[0])
    x = _xs(x_values[: len(table)])
    data = []
    for i, arm in enumerate(runs[0].equity.columns):
        line = _line(x, table[arm], str(arm), i, 1, ".2f")
        line.update(fill="tozeroy", fillcolor=_colour(i, 0.12))
        line["hovertemplate"] = f"{arm}: %{{y:.2f}}%<extra></extra>"
        data.append(line)
    layout = _layout(f"Underwater: drawdown from the running peak{_seeds(runs)}", xlabel)
    layout["yaxis"] = {"title": {"text": "drawdown %"}, "ticksuffix": "%", "gridcolor": "#e4e4e4"}
    return {"data": data, "layout": layout}


def _panels(
    runs: list[Any], x_values: Any, xlabel: str, panels: dict[str, Any], title: str, **extra: Any
) -> Spec:
    """One figure of side-by-side panels (title -> table of arms), two per row, sharing
    the x zoom and the arms' legend; ``extra`` goes to every y axis."""
    x, arms = _xs(x_values), [str(arm) for arm in runs[0].equity.columns]
    rows = math.ceil(len(panels) / 2)
    layout = _layout(title + _seeds(runs), xlabel, height=120 + 260 * rows)
    data, notes = [], []
    for n, (name, table) in enumerate(panels.items(), start=1):
        layout.update(_panel_axes(n, rows, layout["xaxis"], extra))
        notes.append(_panel_title(n, rows, name))
        for i, arm in enumerate(arms):
            if arm in table.columns:
                data.append(_line(x, table[arm], arm, i, n, extra.get("fmt", ".3g")))
    layout["annotations"] = notes
    return {"data": data, "layout": layout}


def _cell(n: int, rows: int) -> tuple[list[float], list[float]]:
    """(x domain, y domain) of panel ``n`` (1-based) in a grid of two columns."""
    column, row = (n - 1) % 2, (n - 1) // 2
    x = [0.0, 0.46] if column == 0 else [0.54, 1.0]
    height, gap = 1.0 / rows, 0.16 / rows
    top = 1.0 - row * height
    return x, [top - height + gap, top - gap / 2]


def _panel_axes(n: int, rows: int, x_axis: Spec, extra: dict[str, Any]) -> Spec:
    x_domain, y_domain = _cell(n, rows)
    suffix = "" if n == 1 else str(n)
    y_axis = {"domain": y_domain, "anchor": f"x{suffix}", "gridcolor": "#e4e4e4",
              **{k: v for k, v in extra.items() if k != "fmt"}}  # fmt: skip
    x_share: Spec = {} if n == 1 else {"matches": "x"}
    if (n - 1) // 2 < rows - 1:  # the x label under the bottom row only
        x_share["title"] = {"text": ""}
    return {
        f"xaxis{suffix}": {**x_axis, "domain": x_domain, "anchor": f"y{suffix}", **x_share},
        f"yaxis{suffix}": y_axis,
    }


def _panel_title(n: int, rows: int, name: str) -> Spec:
    x_domain, y_domain = _cell(n, rows)
    return {"text": f"<b>{name}</b>", "showarrow": False, "xref": "paper", "yref": "paper",
            "x": sum(x_domain) / 2, "y": y_domain[1], "yanchor": "bottom",
            "font": {"size": 11}}  # fmt: skip


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


CHARTS = {"equity": equity_spec, "underwater": underwater_spec, "cumulative": cumulative_spec,
          "rolling": rolling_spec, "activity": activity_spec}  # fmt: skip


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
