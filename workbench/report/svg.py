"""Small line charts as inline SVG: a few lines over days or dates, axes, ticks and a legend.

The report's panels over time (rolling risk, cumulative returns, activity) are many
small charts of a few lines each. Written as SVG text they cost microseconds where a
matplotlib axes costs a tenth of a second, stay sharp at any zoom and in print, and
keep the report one file. Tick positions come from matplotlib's ``MaxNLocator`` (the
numbers only, nothing is drawn). Each line is also a ``<title>``, so hovering it names
its arm.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
)  # fmt: skip  # matplotlib's tab10, so arms keep the colours of the PNG plots
WIDTH, HEIGHT = 440, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 10, 24, 34


def nice_ticks(low: float, high: float, count: int = 5) -> np.ndarray:
    """Round tick values spanning [low, high] (matplotlib's MaxNLocator)."""
    from matplotlib.ticker import MaxNLocator

    if not high > low:
        low, high = low - 1.0, high + 1.0
    ticks = np.asarray(MaxNLocator(count).tick_values(low, high), dtype=float)
    return ticks[(ticks >= low - 1e-12 * abs(low)) & (ticks <= high + 1e-12 * abs(high))]


def _span(values: list[np.ndarray]) -> tuple[float, float]:
    finite = np.concatenate([v[np.isfinite(v)] for v in values] or [np.zeros(0)])
    if finite.size == 0:
        return 0.0, 1.0
    low, high = float(finite.min()), float(finite.max())
    pad = (high - low) * 0.04 or max(abs(high) * 0.04, 0.01)
    return low - pad, high + pad


def _x_numbers(x: Any) -> tuple[np.ndarray, Callable[[float], str]]:
    """x as numbers to scale, and how to label a tick: dates as YYYY-MM-DD, days as ints."""
    if isinstance(x, pd.DatetimeIndex):
        stamps = x.as_unit("ns").asi8.astype(float)
        return stamps, lambda v: pd.Timestamp(int(v)).strftime("%Y-%m-%d")
    return np.asarray(x, dtype=float), lambda v: f"{v:g}"


def _path(xs: np.ndarray, ys: np.ndarray) -> str:
    """An SVG path through the finite points; a gap (NaN) starts a new piece."""
    if np.isfinite(ys).all():  # the common case: one piece
        points = [f"{x:.1f},{y:.1f}" for x, y in zip(xs.tolist(), ys.tolist(), strict=True)]
        return "M" + " L".join(points) if points else ""
    parts, pen = [], "M"
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        if not math.isfinite(y):
            pen = "M"
            continue
        parts.append(f"{pen}{x:.1f},{y:.1f}")
        pen = "L"
    return " ".join(parts)


def line_chart(
    x: Any,
    lines: Mapping[str, np.ndarray],
    *,
    title: str,
    ylabel: str,
    xlabel: str,
    fmt: Callable[[float], str] = lambda v: f"{v:g}",
    zero: bool = False,
    log: bool = False,
    fill: bool = False,
    size: tuple[int, int] = (WIDTH, HEIGHT),
) -> str:
    """An SVG chart of ``lines`` (label -> y values, one per x) with ``fmt`` labelling the y
    ticks; ``zero`` draws the y = 0 line (y = 1 on a log scale); ``log`` draws positive y
    on a log scale with ticks at round values; ``fill`` shades from zero to each line (an
    underwater plot). ``size`` is (width, height) in pixels. Colours follow the order of
    ``lines``."""
    xs, x_label = _x_numbers(x)
    values = [np.asarray(v, dtype=float) for v in lines.values()]
    if log:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = [np.where(v > 0, np.log(np.where(v > 0, v, 1.0)), np.nan) for v in values]
    y_low, y_high = _span(values)
    x_low, x_high = (float(xs.min()), float(xs.max())) if xs.size else (0.0, 1.0)
    x_high = x_high if x_high > x_low else x_low + 1.0
    if fill:
        y_low, y_high = min(y_low, 0.0), max(y_high, 0.0)
    box = _Box(*size)
    inner_w, inner_h = box.width - LEFT - RIGHT, box.height - TOP - BOTTOM

    def sx(v: Any) -> Any:
        return LEFT + (np.asarray(v) - x_low) / (x_high - x_low) * inner_w

    def sy(v: Any) -> Any:
        return TOP + (y_high - np.asarray(v)) / (y_high - y_low) * inner_h

    parts = [_frame(box, title, ylabel, xlabel)]
    if log:  # round values of y itself, placed at their logarithm
        ticks = nice_ticks(float(np.exp(y_low)), float(np.exp(y_high)))
        ticks = ticks[ticks > 0]
        parts += _y_ticks(box, np.log(ticks), sy, lambda v: fmt(float(np.exp(v))))
    else:
        parts += _y_ticks(box, nice_ticks(y_low, y_high), sy, fmt)
    parts += _x_ticks(box, nice_ticks(x_low, x_high, 6), sx, x_label)
    if zero and y_low < 0 < y_high:
        parts.append(f'<line class="zero" x1="{LEFT}" x2="{box.width - RIGHT}" '
                     f'y1="{sy(0.0):.1f}" y2="{sy(0.0):.1f}"/>')  # fmt: skip
    for i, (label, ys) in enumerate(zip(lines, values, strict=True)):
        colour, name = COLOURS[i % len(COLOURS)], html.escape(label)
        if fill:
            parts.append(_area(sx(xs), sy(ys), float(sy(0.0)), colour, name))
        parts.append(
            f'<path d="{_path(sx(xs), sy(ys))}" stroke="{colour}"><title>{name}</title></path>'
        )
    return (
        f'<svg class="chart" viewBox="0 0 {box.width} {box.height}" width="{box.width}" '
        f'height="{box.height}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'aria-label="{html.escape(title)}"><style>{_STYLE}</style>{"".join(parts)}</svg>'
    )


class _Box(NamedTuple):
    width: int
    height: int


def _area(xs: np.ndarray, ys: np.ndarray, base: float, colour: str, name: str) -> str:
    """The region between the line and y = 0 (gaps drawn at zero), lightly shaded."""
    ys = np.where(np.isfinite(ys), ys, base)
    if xs.size == 0:
        return ""
    points = " ".join(f"{x:.1f},{y:.1f}" for x, y in zip(xs.tolist(), ys.tolist(), strict=True))
    return (
        f'<path class="area" d="M{xs[0]:.1f},{base:.1f} L{points} L{xs[-1]:.1f},{base:.1f} Z" '
        f'style="fill: {colour}"><title>{name}</title></path>'
    )


def _frame(box: _Box, title: str, ylabel: str, xlabel: str) -> str:
    mid_y, mid_x = TOP + (box.height - TOP - BOTTOM) / 2, LEFT + (box.width - LEFT - RIGHT) / 2
    return (
        f'<rect class="plot" x="{LEFT}" y="{TOP}" width="{box.width - LEFT - RIGHT}" '
        f'height="{box.height - TOP - BOTTOM}"/>'
        f'<text class="title" x="{mid_x:.0f}" y="15">{html.escape(title)}</text>'
        f'<text class="label" x="{mid_x:.0f}" y="{box.height - 3}">{html.escape(xlabel)}</text>'
        f'<text class="label" transform="translate(11 {mid_y:.0f}) rotate(-90)">'
        f"{html.escape(ylabel)}</text>"
    )


def _y_ticks(box: _Box, ticks: np.ndarray, sy: Callable[[Any], Any], fmt: Callable[[float], str]):
    out = []
    for tick in ticks.tolist():
        y = float(sy(tick))
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{box.width - RIGHT}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="ytick" x="{LEFT - 4}" y="{y + 3:.1f}">{html.escape(fmt(tick))}</text>'
        )
    return out


def _x_ticks(box: _Box, ticks: np.ndarray, sx: Callable[[Any], Any], label: Callable[[float], str]):
    out = []
    for tick in ticks.tolist():
        x = float(sx(tick))
        out.append(
            f'<line class="grid" x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{box.height - BOTTOM}"/>'
            f'<text class="xtick" x="{x:.1f}" y="{box.height - BOTTOM + 12}">'
            f"{html.escape(label(tick))}</text>"
        )
    return out


def legend(labels: list[str]) -> str:
    """The arms' colours as one line of HTML, shared by a group of charts."""
    items = "".join(
        f'<span><i style="background:{COLOURS[i % len(COLOURS)]}"></i>{html.escape(label)}</span>'
        for i, label in enumerate(labels)
    )
    return f'<div class="chart-legend">{items}</div>'


# inside every chart, so a chart saved on its own (an .svg file) looks as it does in the report
_RULES = (
    "text{font-family:system-ui,sans-serif;font-size:10px;fill:#333}",
    ".plot{fill:none;stroke:#999;stroke-width:0.8}", ".grid{stroke:#e4e4e4;stroke-width:0.7}",
    ".zero{stroke:#888;stroke-width:0.8}", "path{fill:none;stroke-width:1.3}",
    "path:hover{stroke-width:2.6}", "path.area{stroke:none;fill-opacity:0.15}",
    ".title{font-size:11.5px;text-anchor:middle;font-weight:600}",
    ".label{text-anchor:middle;fill:#555}", ".ytick{text-anchor:end}",
    ".xtick{text-anchor:middle}",
)  # fmt: skip
_STYLE = "".join(f"svg.chart {rule}" for rule in _RULES)  # scoped: the report is HTML too
CSS = """
.charts { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; }
svg.chart { max-width: 100%; height: auto; }
.chart-legend { font-size: 0.8rem; margin: 0.2rem 0 0.4rem; }
.chart-legend span { margin-right: 1rem; white-space: nowrap; }
.chart-legend i { display: inline-block; width: 1.2em; height: 0.25em; margin-right: 0.3em;
  vertical-align: middle; }
"""

__all__ = ["COLOURS", "CSS", "legend", "line_chart", "nice_ticks"]
