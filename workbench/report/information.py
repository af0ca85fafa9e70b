"""The report's information section: what each arm made of the news, and the items themselves.

Drawn only for a market that publishes information (``results.information`` is
not empty): a table of each arm's ``news_pnl``, ``info_capture`` and
``injected_followed`` (the mean over seeds), the items by kind and class
(informative, noise, injected), and a figure of one name's price with the
items that concern it on the same timeline, above every item of the run per
day. A price-only run has none of it, so its report is what it always was.

Results read back from their dict form carry no information frame: it is
rebuilt from the simulated market their meta describes, as attribution is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation.capture import CAPTURE_COLUMNS
from workbench.evaluation.results import Results
from workbench.evaluation.tearsheet_frames import step_x
from workbench.report import tearsheet
from workbench.report._canvas import _figure, _legend, _title
from workbench.report._data import price_path, rebuilt_world
from workbench.report._format import html_table
from workbench.report._spec import SIDE_LEGEND, Spec, base_layout, day_labels, json_numbers

CLASSES = ("informative", "noise", "injected")
_STYLE = {  # class -> (marker, colour)
    "informative, up": ("^", "tab:green"),
    "informative, down": ("v", "tab:red"),
    "noise": ("o", "tab:grey"),
    "injected": ("X", "tab:purple"),
}


def information_of(results: Results) -> pd.DataFrame:
    """``results.information``, rebuilt from the meta's market for results read from a dict;
    empty on a market that publishes nothing (or historical bars, which are not kept)."""
    from workbench.evaluation.capture import information_frame

    if not results.information.empty:
        return results.information
    world = rebuilt_world(results.meta)
    if world is None or world.path.information is None:
        return pd.DataFrame()
    results.information = information_frame(world.path)  # kept: read by several sections
    return results.information


def item_class(frame: pd.DataFrame) -> pd.Series:
    """Each item's class: injected, informative or noise (which moves no price)."""
    labels = np.where(frame["informative"], "informative", "noise")
    labels = np.where(frame["injected"], "injected", labels)
    return pd.Series(labels, index=frame.index, name="class")


def capture_table(runs: Sequence[Results]) -> pd.DataFrame:
    """Per arm, its news P&L, information capture and obeyed instructions (mean over seeds)."""
    tables = [run.scorecard.reindex(columns=list(CAPTURE_COLUMNS)) for run in runs]
    table = pd.concat(tables).groupby(level=0, sort=False).mean()
    table.index.name = "arm"
    return table


def item_counts(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Items by kind (rows) and class (columns), with a total row, over every run."""
    items = pd.concat(list(frames), ignore_index=True)
    counts = pd.crosstab(items["kind"], item_class(items)).reindex(columns=list(CLASSES))
    counts = counts.fillna(0).astype(int)
    counts["total"] = counts.sum(axis=1)
    counts.loc["all kinds"] = counts.sum()
    counts.columns.name = None
    return counts


def most_read_symbol(frame: pd.DataFrame) -> str | None:
    """The symbol the most informative items concern (ties: alphabetical)."""
    informative = frame.loc[frame["informative"], "symbols"]
    named = informative.str.split(",").explode()
    named = named[named.astype(bool)]
    if named.empty:
        return None
    counts = named.value_counts()
    return str(counts[counts == counts.max()].sort_index().index[0])


def news_figure(results: Results, frame: pd.DataFrame, symbol: str | None = None) -> Any:
    """Above, one name's close with the items that concern it where they were released
    (▲ / ▼ an informative item by the sign of its true move, ○ noise, ✕ injected); below,
    every item of the run per day by class."""
    symbol = symbol or most_read_symbol(frame) or (results.meta.get("symbols") or [""])[0]
    steps = int(results.meta.get("steps_per_day") or 1)
    figure = _figure(9.0, 4.6)
    price_axis, count_axis = figure.subplots(2, 1, sharex=True, height_ratios=(2.2, 1.0))
    prices = price_path(results, symbol)
    if prices is not None:
        price_axis.plot(np.arange(prices.size) / steps, prices, color="black", lw=1.0)
        _mark_items(price_axis, frame, symbol, prices, steps)
    price_axis.set(ylabel=f"{symbol} close", title=_title(results, f"News on {symbol}"))
    price_axis.grid(alpha=0.3)
    _legend(price_axis)
    _items_per_day(count_axis, frame)
    return figure


def _mark_items(axis: Any, frame: pd.DataFrame, symbol: str, prices: np.ndarray, steps: int):
    mine = frame[frame["symbols"].str.split(",").apply(lambda names: symbol in names)]
    rows = (mine["day"] * steps + mine["step"]).to_numpy()
    inside = rows < prices.size
    mine, rows = mine[inside], rows[inside]
    kind = _marker_class(mine)
    for label, (marker, colour) in _STYLE.items():
        chosen = kind == label
        if chosen.any():
            axis.scatter(
                rows[chosen] / steps, prices[rows[chosen]], marker=marker, color=colour,
                s=36, zorder=3, label=label,
            )  # fmt: skip


def _items_per_day(axis: Any, frame: pd.DataFrame) -> None:
    days, classes = frame["day"].to_numpy(dtype=int), item_class(frame).to_numpy()
    edges = np.arange(int(days.max()) + 2)  # day d's items fill [d, d + 1)
    bottom = np.zeros(edges.size - 1)
    colours = {"informative": "tab:blue", "noise": "tab:grey", "injected": "tab:purple"}
    for label in CLASSES:
        values = np.bincount(days[classes == label], minlength=bottom.size).astype(float)
        if values.any():  # one stepped patch per class: as cheap for 2,000 days as for 10
            axis.stairs(bottom + values, edges, baseline=bottom, fill=True,
                        color=colours[label], label=label)  # fmt: skip
        bottom = bottom + values
    axis.set(xlabel="trading day", ylabel="items")
    axis.yaxis.get_major_locator().set_params(integer=True)
    axis.grid(alpha=0.3, axis="y")
    _legend(axis)


_SHAPES = {  # class -> (plotly marker, colour)
    "informative, up": ("triangle-up", "#2ca02c"),
    "informative, down": ("triangle-down", "#d62728"),
    "noise": ("circle-open", "#7f7f7f"),
    "injected": ("x", "#9467bd"),
}
_CLASS_COLOURS = {"informative": "#1f77b4", "noise": "#7f7f7f", "injected": "#9467bd"}


def news_spec(results: Results, frame: pd.DataFrame, symbol: str | None = None) -> Spec:
    """The news figure as a plotly spec: above, one name's close with the items that
    concern it where they were released (hover names the item's kind and when); below,
    the run's items per day by class, stacked. Both panels zoom together."""
    symbol = symbol or most_read_symbol(frame) or (results.meta.get("symbols") or [""])[0]
    prices = price_path(results, symbol)
    data: list[Spec] = []
    if prices is not None:
        x = step_x(results, np.arange(prices.size))
        data.append(
            {
                "type": "scatter",
                "mode": "lines",
                "x": json_numbers(x),
                "y": json_numbers(prices),
                "name": f"{symbol} close",
                "text": day_labels(x, _steps(results)),
                "line": {"color": "black", "width": 1},
                "hovertemplate": "%{text}: close %{y:.2f}<extra></extra>",
            }
        )
        data += _item_markers(results, frame, symbol, prices)
    data += _item_bars(results, frame)
    title = _title(results, f"News on {symbol}")
    layout = base_layout(title, "trading day", [], height=460)
    layout.update(hovermode="closest", barmode="stack", bargap=0.1, legend=dict(SIDE_LEGEND))
    layout["xaxis"].update(anchor="y", showticklabels=False, title={"text": ""})
    layout["xaxis2"] = {**layout["xaxis"], "anchor": "y2", "matches": "x", "showticklabels": True,
                        "title": {"text": "trading day"}}  # fmt: skip
    layout["yaxis"] = {"domain": [0.36, 1.0], "title": {"text": f"{symbol} close"}}
    layout["yaxis2"] = {"domain": [0.0, 0.26], "title": {"text": "items"}, "anchor": "x2"}
    return {"data": data, "layout": layout}


def _steps(results: Results) -> int:
    return int(results.meta.get("steps_per_day") or 1)


def _item_markers(
    results: Results, frame: pd.DataFrame, symbol: str, prices: np.ndarray
) -> list[Spec]:
    mine = frame[frame["symbols"].str.split(",").apply(lambda names: symbol in names)]
    rows = (mine["day"] * _steps(results) + mine["step"]).to_numpy()
    inside = rows < prices.size
    mine, rows = mine[inside], rows[inside]
    kind = _marker_class(mine)
    traces = []
    for label, (marker, colour) in _SHAPES.items():
        chosen = kind == label
        if chosen.any():
            x = step_x(results, rows[chosen])
            when = day_labels(x, _steps(results))
            what = [f"{k} · {w}" for k, w in zip(mine["kind"][chosen], when, strict=True)]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "x": json_numbers(x),
                    "y": json_numbers(prices[rows[chosen]]),
                    "name": label,
                    "text": what,
                    "marker": {"symbol": marker, "color": colour, "size": 9},
                    "hovertemplate": f"{label}: %{{text}}<extra></extra>",
                }
            )
    return traces


def _marker_class(items: pd.DataFrame) -> np.ndarray:
    """Each item's marker: injected, noise, or informative up / down by its true move."""
    return np.select(
        [items["injected"], ~items["informative"], (items["move"] + items["jump"]) >= 0],
        ["injected", "noise", "informative, up"],
        "informative, down",
    )


def _item_bars(results: Results, frame: pd.DataFrame) -> list[Spec]:
    """Each class's items per day as bars spanning the day (from the last close to its own)."""
    days, classes = frame["day"].to_numpy(dtype=int), item_class(frame).to_numpy()
    every = np.arange(int(days.max()) + 1)
    closes = step_x(results, (every + 1) * _steps(results) - 1)
    x, labels = json_numbers(closes - 0.5), day_labels(closes, 1)
    traces = []
    for label in CLASSES:
        counts = np.bincount(days[classes == label], minlength=every.size)
        if counts.any():
            traces.append(
                {
                    "type": "bar",
                    "x": x,
                    "y": counts.tolist(),
                    "name": f"{label} items",
                    "customdata": labels,
                    "width": 1.0,
                    "xaxis": "x2",
                    "yaxis": "y2",
                    "marker": {"color": _CLASS_COLOURS[label]},
                    "hovertemplate": f"%{{y}} {label} items by the close of %{{customdata}}"
                    "<extra></extra>",
                }
            )
    return traces


def information_section(runs: Sequence[Results], figure_html: str) -> tuple[str, str] | None:
    """The section's title and HTML, or None for runs whose market published nothing."""
    frames = [information_of(run) for run in runs]
    if all(frame.empty for frame in frames):
        return None
    seeds = "" if len(runs) == 1 else f" (mean over {len(runs)} seeds)"
    counts = item_counts([f for f in frames if not f.empty])
    note = (
        '<p class="note">What each arm earned on the moves the published items caused, and '
        "the share of what an oracle reader (who knows every released item's true move) "
        "earned on the same path with the same capital, costs and limits; the oracle is a "
        "reference, not an arm. Per item: results.information.</p>"
    )
    over = "" if len(runs) == 1 else f" over {len(runs)} seeds"
    items = (
        f"<h3>Items by kind{over}</h3>"
        '<p class="note">Informative items move the fair value of the names they concern '
        "after their release; noise items never do (policy statements restate the macro "
        "path's rate and move nothing of their own); injected items are instructions "
        f'planted in the news.</p><div class="table">{html_table(counts, "item-counts")}</div>'
    )
    table = tearsheet.defined_table(capture_table(runs), "information-capture")
    return f"Information{seeds}", note + table + items + figure_html


__all__ = [
    "CLASSES",
    "capture_table",
    "information_of",
    "information_section",
    "item_class",
    "item_counts",
    "most_read_symbol",
    "news_figure",
    "news_spec",
]
