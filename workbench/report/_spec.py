"""The parts every plotly spec of the report is built from: JSON-safe numbers, the x of a
day or date axis and what hover names there, colours, one arm's line, the layout, and a
grid of panels that zoom together.

A spec is the plain ``{"data": [...], "layout": {...}}`` dict plotly.js draws. Values are
rounded to 4 decimals (a chart's pixels cannot show more), so a spec is the same JSON in
any process.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np
import pandas as pd

from workbench.report.svg import COLOURS

Spec = dict[str, Any]
# beside the plot, for legends of more than the arms (each arm's buys and sells, the news)
SIDE_LEGEND = {"orientation": "v", "x": 1.02, "y": 1.0, "title": {"text": "click to hide"}}
_FONT = {"family": "system-ui, sans-serif", "size": 11}


def json_numbers(values: Any) -> list[float | None]:
    """JSON-safe values: 4 decimals (every chart here shows percents, ratios, days or
    equity near 100, where a pixel is far coarser), gaps (NaN) as null."""
    rounded = np.round(np.asarray(values, dtype=float), 4)
    finite = np.isfinite(rounded)
    if finite.all():
        return rounded.tolist()
    return [v if ok else None for v, ok in zip(rounded.tolist(), finite.tolist(), strict=True)]


def axis_x(x: Any) -> list[Any]:
    """Dates as ISO days, or ISO times on intraday bars (plotly draws a date axis), else
    trading days as numbers."""
    if isinstance(x, pd.DatetimeIndex):
        return list(x.strftime(date_format(x)))
    return json_numbers(x)


def date_format(dates: pd.DatetimeIndex) -> str:
    """The day, and the time when any bar is not at midnight (intraday bars)."""
    timed = bool(len(dates)) and bool((dates != dates.normalize()).any())
    return "%Y-%m-%d %H:%M" if timed else "%Y-%m-%d"


def step_close_x(rows: Any, steps: int) -> np.ndarray:
    """x of the close of each 0-based step row in the one day numbering: the row itself
    with one step a day, ``(row + 1) / steps`` with more (day d's last step at d + 1)."""
    return (np.asarray(rows, dtype=float) + 1) / steps - (1 if steps == 1 else 0)


def day_labels(x: Any, steps: int) -> list[str]:
    """What hover names each point of a trading-day axis, in the one day numbering: with
    one step a day day d's close is x = d; with S steps a day it is x = d + 1 (``trading
    day d``) and x = d + s/S, 0 < s < S, is ``trading day d, step s of S``; x = 0 is then
    the start."""
    days = np.asarray(x, dtype=float)
    whole = np.floor(days + 1e-9)
    step = np.rint((days - whole) * steps).astype(int)
    closes = whole - (step == 0) * (1 if steps > 1 else 0)
    return [
        _day_label(int(d), s, steps) for d, s in zip(closes.tolist(), step.tolist(), strict=True)
    ]


def _day_label(day: int, step: int, steps: int) -> str:
    if day < 0:
        return "start"
    return f"trading day {day}" + (f", step {step} of {steps}" if step else "")


def hover_title(x: list[Any], xlabel: str, steps: int = 1) -> str:
    """The unified hover box's title: the date (and time) on dated axes, the whole day on
    the axis of a run of one step a day (x = d is day d's close), and blank where a step
    label trace (``with_step_labels``) names it (x = d + 1 is day d's close)."""
    if xlabel == "date":
        timed = any(len(str(value)) > 10 for value in x)
        return "%{x|%Y-%m-%d %H:%M}" if timed else "%{x|%Y-%m-%d}"
    whole = all(value is None or float(value).is_integer() for value in x)
    return "trading day %{x:d}" if whole and steps == 1 else " "


def with_step_labels(spec: Spec, x: list[Any], y: list[Any], steps: int) -> Spec:
    """Name each point's day and step atop the unified hover box of an intraday chart
    (plotly's hover title can only format x): an invisible trace, drawn first, whose hover
    line is the label. Charts on whole days or dates are returned as they are."""
    if spec["layout"]["xaxis"]["unifiedhovertitle"]["text"] != " ":
        return spec
    labels = {"type": "scatter", "mode": "lines", "x": x, "y": y, "name": "when",
              "text": day_labels(x, steps), "hovertemplate": "<b>%{text}</b><extra></extra>",
              "showlegend": False, "line": {"width": 0, "color": "rgba(0,0,0,0)"}}  # fmt: skip
    return {**spec, "data": [labels, *spec["data"]]}


def arm_colour(i: int, alpha: float | None = None) -> str:
    hex_colour = COLOURS[i % len(COLOURS)]
    if alpha is None:
        return hex_colour
    red, green, blue = (int(hex_colour[k : k + 2], 16) for k in (1, 3, 5))
    return f"rgba({red},{green},{blue},{alpha})"


def plotly_text(text: Any) -> str:
    """User text (an arm's name) for plotly, which reads ``<`` as markup: escaped."""
    return html.escape(str(text), quote=False)


def named(name: Any) -> Spec:
    """A trace's legend name and ``meta``, both escaped: hover templates print the name
    as ``%{meta}`` so a name like ``%{y}`` is never read as a template."""
    shown = plotly_text(name)
    return {"name": shown, "meta": shown}


def arm_line(x: list[Any], y: Any, arm: str, i: int, panel: int, fmt: str) -> Spec:
    """One arm's line in panel ``panel`` (1-based); its legend entry only in the first."""
    return {
        "type": "scatter", "mode": "lines", "x": x, "y": json_numbers(y), **named(arm),
        "legendgroup": arm, "showlegend": panel == 1,
        "line": {"color": arm_colour(i), "width": 1.6},
        "hovertemplate": f"%{{meta}}: %{{y:{fmt}}}<extra></extra>", **panel_ref(panel),
    }  # fmt: skip


def panel_ref(panel: int) -> dict[str, str]:
    suffix = "" if panel == 1 else str(panel)
    return {"xaxis": f"x{suffix}", "yaxis": f"y{suffix}"}


def base_layout(title: str, xlabel: str, x: list[Any], height: int = 360, steps: int = 1) -> Spec:
    return {
        "title": {"text": title, "font": {"size": 13}}, "height": height, "font": _FONT,
        "margin": {"l": 60, "r": 20, "t": 60, "b": 90}, "hovermode": "x unified",
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom",
                   "title": {"text": "arm (click to hide)"}},
        "template": {"layout": {"plot_bgcolor": "white", "paper_bgcolor": "white"}},
        "xaxis": x_axis(xlabel, x, steps),
    }  # fmt: skip


def x_axis(xlabel: str, x: list[Any], steps: int = 1) -> Spec:
    return {
        "title": {"text": xlabel}, "type": "date" if xlabel == "date" else "linear",
        "unifiedhovertitle": {"text": hover_title(x, xlabel, steps)}, "gridcolor": "#e4e4e4",
        "zeroline": False,
        "showspikes": True, "spikemode": "across", "spikethickness": 1,
    }  # fmt: skip


def grid_cell(n: int, rows: int) -> tuple[list[float], list[float]]:
    """(x domain, y domain) of panel ``n`` (1-based) in a grid of two columns."""
    column, row = (n - 1) % 2, (n - 1) // 2
    x = [0.0, 0.46] if column == 0 else [0.54, 1.0]
    height, gap = 1.0 / rows, 0.16 / rows
    top = 1.0 - row * height
    return x, [top - height + gap, top - gap / 2]


def panel_axes(n: int, rows: int, x_axis: Spec, extra: dict[str, Any]) -> Spec:
    x_domain, y_domain = grid_cell(n, rows)
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


def panel_title(n: int, rows: int, name: str) -> Spec:
    x_domain, y_domain = grid_cell(n, rows)
    return {"text": f"<b>{plotly_text(name)}</b>", "showarrow": False, "xref": "paper",
            "yref": "paper", "x": sum(x_domain) / 2, "y": y_domain[1], "yanchor": "bottom",
            "font": {"size": 11}}  # fmt: skip
