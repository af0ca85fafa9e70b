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
from workbench.report import tearsheet
from workbench.report._canvas import _figure, _legend, _title
from workbench.report._data import price_path, rebuilt_world
from workbench.report._format import html_table

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
    return information_frame(world.path)


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
    kind = np.select(
        [mine["injected"], ~mine["informative"], (mine["move"] + mine["jump"]) >= 0],
        ["injected", "noise", "informative, up"],
        "informative, down",
    )
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
]
