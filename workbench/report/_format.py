"""One way to print a number in every table: panel, notebooks and the HTML report.

Rules by column name: ``*_pct`` columns are percentages with two decimals
(returns signed), money has thousands separators and no decimals, counts are
whole numbers with separators, p-values three decimals, every other float two
decimals (three significant figures when it is small). Text columns are wrapped
rather than widening the table, so a table fits its cell and prints whole.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

Formatter = Callable[[Any], str]

_SIGNED = ("return_pct", "mean_diff", "pnl", "ci_low", "ci_high", "alpha", "news_pnl")
_MONEY = ("pnl", "capital", "equity", "news_pnl")
_PVALUES = ("p_value", "p_holm")
_COUNTS = (
    "trades", "clips", "refusals", "errors", "decisions", "model_calls", "tokens", "quantity",
    "requested", "clipped_to", "seeds", "failed_decisions", "day", "step", "injected_followed",
    "injected_placebo", "days_to_trough", "days_under_water",
)  # fmt: skip
TABLE_CSS = """
table.readable { border-collapse: collapse; font-size: 0.85rem; width: auto; max-width: 100%;
  table-layout: auto; }
table.readable th, table.readable td { border: 1px solid #d0d0d0; padding: 0.2rem 0.45rem;
  text-align: right; white-space: nowrap; }
table.readable th { background: #f3f3f3; white-space: normal; }
table.readable td.text, table.readable th.text { text-align: left; white-space: normal;
  overflow-wrap: anywhere; min-width: 6em; max-width: 28em; }
table.readable tbody th { text-align: left; white-space: normal; overflow-wrap: anywhere;
  max-width: 16em; }
table.readable td[title] { cursor: help; text-decoration: underline dotted #999; }
"""
# text longer than this is cut in a table cell, the whole of it on hover
MAX_CELL_TEXT = 160
DIGEST_SHOWN = 12
_DIGEST = re.compile(r"[0-9a-f]{32,}")


def number(column: str, value: Any) -> str:
    """``value`` of ``column`` as a reader wants it; blank for a missing value."""
    if hasattr(value, "item") and not isinstance(value, str):
        value = value.item()  # a numpy scalar
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if not isinstance(value, int | float):
        return str(value)
    sign = "+" if column in _SIGNED else ""
    if value == 0 or _rounds_to_zero(column, float(value)):
        value = 0.0 if isinstance(value, float) else 0  # never "-0.00"
    if column.endswith("_pct"):
        return f"{value:{sign},.2f}%"
    if column in _MONEY or isinstance(value, int):
        return f"{value:{sign},.0f}"
    if column in _COUNTS:  # a mean over seeds keeps one decimal
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.1f}"
    if column in _PVALUES:
        return f"{value:.3f}"
    if value != 0 and abs(value) < 0.01:
        return f"{value:{sign}.3g}"
    return f"{value:{sign},.2f}"


def _rounds_to_zero(column: str, value: float) -> bool:
    """Whether ``value`` prints as zero in ``column``'s format: money has no decimals,
    p-values three, percentages two; other small values print three significant figures,
    so only an exact zero does."""
    if column in _MONEY:
        return abs(value) < 0.5
    if column in _PVALUES:
        return abs(value) < 0.0005
    return column.endswith("_pct") and abs(value) < 0.005


def formatters(frame: pd.DataFrame) -> dict[Any, Formatter]:
    """A formatter per column, for ``DataFrame.to_html(formatters=...)`` or ``Styler.format``."""
    return {column: _formatter(str(column)) for column in frame.columns}


def _formatter(column: str) -> Formatter:
    def format_one(value: Any) -> str:
        return number(column, value)

    return format_one


def text_columns(frame: pd.DataFrame) -> list[str]:
    """Columns of text (wrapped in a table rather than widening it); a column of numbers
    with gaps (``None``) is numbers, not text."""
    return [header(c) for c in frame.columns if not _all_numbers(frame[c])]


def header(column: Any) -> str:
    """A column's name as a header: the levels of a column of several joined by spaces
    (``("mine", "before")`` as ``mine before``)."""
    return " ".join(map(str, column)) if isinstance(column, tuple) else str(column)


def _all_numbers(column: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(column) or column.dtype == bool:
        return True
    if column.dtype != object:
        return False
    present = column.dropna()
    return bool(len(present)) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in present
    )


def html_table(
    frame: pd.DataFrame,
    css: str = "",
    *,
    index: bool = True,
    titles: Mapping[str, str] | None = None,
) -> str:
    """The frame as an HTML table: numbers formatted, text columns wrapped, and each
    header in ``titles`` carrying its definition as a hover title."""
    wrapped = set(text_columns(frame))
    heads = [html.escape(str(n or "")) for n in (frame.index.names if index else [])]
    head = "".join(f"<th>{h}</th>" for h in heads)
    for column in frame.columns:
        name = header(column)
        title = (titles or {}).get(name)
        hover = f' title="{html.escape(title)}"' if title else ""
        cls = ' class="text"' if name in wrapped else ""
        head += f"<th{cls}{hover}>{breakable(name)}</th>"
    columns = [header(c) for c in frame.columns]
    rows = [
        _row(columns, label, values, wrapped, index)
        for label, values in zip(frame.index, frame.itertuples(index=False), strict=True)
    ]
    return (
        f'<table class="readable {css}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def _row(columns: list[str], label: Any, values: Any, wrapped: set[str], index: bool) -> str:
    """One row; ``values`` come from ``itertuples`` so every column keeps its own dtype."""
    labels = label if isinstance(label, tuple) else (label,)
    cells = "".join(f"<th>{breakable(str(v))}</th>" for v in labels) if index else ""
    for column, value in zip(columns, values, strict=True):
        cls = ' class="text"' if column in wrapped else ""
        text = number(column, value)
        shown = shortened(text)
        hover = f' title="{html.escape(text)}"' if shown != text else ""
        cells += f"<td{cls}{hover}>{html.escape(shown)}</td>"
    return f"<tr>{cells}</tr>"


def breakable(name: str) -> str:
    """A name (a column or an arm), escaped, that may wrap after each underscore or hyphen
    (``<wbr>``), so a header is never wider than its widest word."""
    return html.escape(name).replace("_", "_<wbr>").replace("-", "-<wbr>")


def shortened(text: str) -> str:
    """A digest as its first 12 characters and an ellipsis; text past ``MAX_CELL_TEXT``
    characters cut at a word boundary with an ellipsis; anything else as it is."""
    if _DIGEST.fullmatch(text):
        return text[:DIGEST_SHOWN] + "…"
    if len(text) <= MAX_CELL_TEXT:
        return text
    cut = text[:MAX_CELL_TEXT].rsplit(" ", 1)[0]
    return (cut if len(cut) > MAX_CELL_TEXT // 2 else text[:MAX_CELL_TEXT]) + "…"


def readable(frame: pd.DataFrame) -> Any:
    """A pandas Styler for notebooks: the report's number formats, headers that wrap at
    underscores, text columns wrapped at word boundaries, digests and long text shortened
    with the whole value on hover (a tooltip). Every cell, label and tooltip is
    HTML-escaped: a model's text shows as text and never runs in the notebook."""
    text_cells: list[Any] = text_columns(frame)
    styler = frame.style.format(_notebook_formatters(frame, text_cells))  # type: ignore[arg-type]
    styler = styler.format_index(_breakable_plain, axis=1)
    styler = styler.format_index(_breakable_plain, axis=0)
    styler = styler.set_table_styles(_NOTEBOOK_STYLES)  # type: ignore[arg-type]
    if text_cells:
        styler = styler.set_properties(
            subset=text_cells, **{"white-space": "normal", "overflow-wrap": "break-word",
                                  "min-width": "10em", "max-width": "28em", "text-align": "left"}
        )  # fmt: skip
        full = frame[text_cells].map(lambda v: number("", v))
        cut = full.map(shortened)
        if (full != cut).to_numpy().any():
            hover = full.where(full != cut, "").map(html.escape)
            styler = styler.set_tooltips(hover, as_title_attribute=True)
    return styler


def _breakable_plain(name: Any) -> str:
    """A name, HTML-escaped, that may wrap after each underscore or hyphen (a zero-width
    space)."""
    return html.escape(str(name)).replace("_", "_\u200b").replace("-", "-\u200b")


_NOTEBOOK_STYLES = [
    {"selector": "th.col_heading", "props": "white-space: normal; max-width: 9em;"},
    {"selector": "td", "props": "white-space: nowrap; font-variant-numeric: tabular-nums;"},
    {"selector": "", "props": "font-size: 0.85rem; border-collapse: collapse;"},
]


def _notebook_formatters(frame: pd.DataFrame, text_cells: list[Any]) -> dict[Any, Formatter]:
    """``formatters``, HTML-escaped, with text columns shortened (their whole text is the
    tooltip)."""
    chosen = {column: _escaped(_formatter(str(column))) for column in frame.columns}
    for column in text_cells:
        chosen[column] = lambda value: html.escape(shortened(number("", value)))
    return chosen


def _escaped(formatter: Formatter) -> Formatter:
    def escape_one(value: Any) -> str:
        return html.escape(formatter(value))

    return escape_one
