"""One self-contained HTML tearsheet from results: provenance, metrics, plots, trades, errors.

The same renderer serves notebooks, the CLI and the MCP server: it takes a
``Results``, the dict ``Results.to_dict()`` returns (what crosses a process or
a JSON boundary), or a list of them (one per seed). Nothing is fetched: the
CSS is inline, and every chart is an interactive plotly chart with plotly.js
embedded once (``_plotly_page``), or without plotly inline SVG and ``data:`` URI
images, so the file can be mailed, archived or opened offline, and it prints whole
(tables wrap, nothing is cut).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pandas as pd

from workbench.evaluation.divergence import DecisionDiff
from workbench.redaction import redact
from workbench.report import _plotly_page, _tearsheet_tables, svg, tearsheet
from workbench.report._cutoff import cutoff_report_section
from workbench.report._data import ResultsLike, as_runs, attribution_of, key_metrics, provenance
from workbench.report._format import TABLE_CSS, html_table
from workbench.report.canaries import canary_report_section
from workbench.report.charts_over_time import MeanTables, all_charts, charts_html
from workbench.report.diff import TABLE_CSS as DIFF_CSS
from workbench.report.diff import diff_section
from workbench.report.information import information_of, information_section
from workbench.report.interactive import all_specs
from workbench.report.interactive_figures import picture_specs
from workbench.report.leaks import leak_report_section
from workbench.report.plots import NEWS_FIGURE, all_figures, png_bytes, returns_by_seed

Memos = Mapping[str, Sequence[Mapping[str, Any]]]

_CSS = (
    """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1050px; color: #222;
  padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; } h3 { font-size: 1rem; }
img { max-width: 100%; height: auto; } .table { overflow-x: auto; }
table.provenance { border-collapse: collapse; font-size: 0.85rem; }
table.provenance th { text-align: left; padding: 0.1rem 1rem 0.1rem 0; color: #555;
  font-weight: normal; }
table.provenance td { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
th[title] { text-decoration: underline dotted; cursor: help; }
ol.definitions { font-size: 0.8rem; color: #444; } .pitfall { color: #777; }
.note { color: #555; font-size: 0.85rem; }
.memo pre { white-space: pre-wrap; font-size: 0.8rem; background: #f7f7f7; padding: 0.5rem; }
footer { color: #888; font-size: 0.8rem; margin-top: 2rem; overflow-wrap: anywhere; }
@media print {
  body { max-width: none; margin: 0; font-size: 10pt; }
  .table { overflow: visible; }
  table.readable { table-layout: fixed; width: 100%; }
  table.readable th, table.readable td { white-space: normal; overflow-wrap: anywhere;
    font-size: 7.5pt; padding: 0.1rem 0.2rem; }
  img, table.provenance, .memo { page-break-inside: avoid; }
  h2 { page-break-after: avoid; }
}
"""
    + TABLE_CSS
    + svg.CSS
    + _plotly_page.CSS
    + DIFF_CSS
)


def render_report(
    results_or_dict: ResultsLike | Sequence[ResultsLike],
    path: str | Path,
    *,
    title: str | None = None,
    comparison: pd.DataFrame | None = None,
    symbol: str | None = None,
    notes: str | None = None,
    about: Mapping[str, Any] | None = None,
    memos: Memos | None = None,
    sections: Mapping[str, pd.DataFrame] | None = None,
    diff: DecisionDiff | None = None,
    leaks: pd.DataFrame | None = None,
) -> Path:
    """Write the HTML tearsheet to ``path`` and return it.

    Several runs (seeds) are drawn together (mean and range) and their
    key metrics averaged; ``comparison`` (from ``paired_comparison``) is shown as a
    table; ``about`` adds provenance lines (e.g. ``{"mode": "replay", "recording
    digest": ...}``); ``memos`` (arm -> committee record, see ``memos_of``) adds
    the committee's memos; ``diff`` (a ``DecisionDiff`` of two runs, see
    ``workbench.decision_diff``) adds where their decisions parted and what each
    parting made of the P&L gap; ``leaks`` (``text_leaks(data)`` of a run with news)
    adds the text leak report (``workbench.report.leaks``).
    """
    runs = as_runs(results_or_dict)
    figures = {} if _plotly_page.plotly_js() is not None else all_figures(runs, symbol)
    images = {stem: png_bytes(figure) for stem, figure in figures.items()}
    return write_html(
        runs, path, images, title=title, comparison=comparison, notes=notes, about=about,
        memos=memos, sections=sections, diff=diff, leaks=leaks, symbol=symbol,
    )  # fmt: skip


def write_html(
    runs: list[Any],
    path: str | Path,
    images: dict[str, bytes],
    *,
    title: str | None = None,
    comparison: pd.DataFrame | None = None,
    notes: str | None = None,
    about: Mapping[str, Any] | None = None,
    memos: Memos | None = None,
    sections: Mapping[str, pd.DataFrame] | None = None,
    digest: str | None = None,
    charts: Mapping[str, list[str]] | None = None,
    diff: DecisionDiff | None = None,
    tables: MeanTables | None = None,
    leaks: pd.DataFrame | None = None,
    symbol: str | None = None,
) -> Path:
    """The report from already-rendered PNG ``images`` (stem -> bytes) and SVG ``charts``
    (group -> charts, from ``all_charts``; drawn here when needed): every picture is an
    interactive plotly chart instead when plotly is installed (the charts over time drawn
    from ``tables`` when the caller has them: the same tables as the SVG charts; orders
    and news on ``symbol``), and ``images`` may then be empty;
    ``digest`` is the first run's results digest when the caller has computed it (it is
    the costliest number in the report, so it is computed once)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = digest or runs[0].digest()
    for run in runs:  # runs read back from JSON rebuild their market once, for both
        attribution_of(run), information_of(run)
    drawn, scripts = _drawn(tables or MeanTables(runs), images, charts, symbol)
    extras = _Extras(comparison, notes, about, memos, sections or {}, diff, leaks)
    body = _body(runs, drawn, title, extras, digest)
    path.write_text(_document(_heading(runs, title), body + scripts), encoding="utf-8")
    return path


def _heading(runs: list[Any], title: str | None) -> str:
    return redact(title or f"Evaluation report · {', '.join(map(str, runs[0].scorecard.index))}")


class _Drawn(NamedTuple):
    images: dict[str, bytes]
    charts: Mapping[str, str]  # name -> the chart's HTML


class _Extras(NamedTuple):
    """What the caller adds to the tearsheet (see ``render_report``)."""

    comparison: pd.DataFrame | None
    notes: str | None
    about: Mapping[str, Any] | None
    memos: Memos | None
    sections: Mapping[str, pd.DataFrame]
    diff: DecisionDiff | None
    leaks: pd.DataFrame | None


def _body(runs: list[Any], drawn: _Drawn, title: str | None, extras: _Extras, digest: str) -> str:
    comparison, notes, about, memos, sections, diff, leaks = extras
    parts = [f"<h1>{html.escape(_heading(runs, title))}</h1>"]
    parts.append(tearsheet.header(provenance(runs, about, digest)))
    if notes:
        parts.append(f"<p>{html.escape(redact(notes))}</p>")
    sheets = [key_metrics(run) for run in runs]  # each run's tearsheet, computed once
    parts += _section(*tearsheet.key_metrics_section(runs, sheets))
    spread = _tearsheet_tables.spread_section(runs, sheets)
    if spread is not None:
        parts += _section(*spread)
    parts += _section(*_tearsheet_tables.calendar_section(runs))
    parts += _section(*_tearsheet_tables.drawdowns_section(runs))
    if len(runs) > 1:
        by_seed = html_table(returns_by_seed(runs), "returns-by-seed")
        parts += _section("Return % by seed", f'<div class="table">{by_seed}</div>')
    if comparison is not None:
        table = tearsheet.defined_table(comparison, "comparison")
        parts += _section("Paired comparison", table)
    if diff is not None:
        parts.append(diff_section(diff))
    attribution = tearsheet.attribution_section(runs)
    if attribution is not None:
        parts += _section(*attribution)
    reading = information_section(runs, _news(drawn))
    if reading is not None:
        parts += _section(*reading)
    text_sections = (
        cutoff_report_section(runs, comparison),
        canary_report_section(runs),
        leak_report_section(leaks),
    )
    for section in text_sections:
        parts += _section(*section) if section is not None else []
    for name, extra in sections.items():  # e.g. the contamination audit of historical bars
        parts += _section(name, tearsheet.defined_table(extra, name.lower().replace(" ", "-")))
    parts += _pictures(drawn)
    parts += _section(*tearsheet.trades_section(runs))
    parts += _section(*tearsheet.errors_section(runs))
    if memos:
        parts += _section(*tearsheet.memos_section(memos))
    parts.append(f"<footer>results digest {html.escape(digest)}</footer>")
    return "\n".join(parts)


# the report's pictures in reading order; any other follows them
_PICTURES = ("equity", "underwater", "return_distribution", "cumulative_returns",
             "rolling_risk", "activity", "orders", "attribution", "returns_by_seed")  # fmt: skip
_CHART_TITLES = {
    "underwater": "Underwater (drawdown)",
    "cumulative_returns": "Cumulative returns",
    "rolling_risk": "Rolling risk",
    "activity": "Activity (exposure, positions, turnover)",
}


def _pictures(drawn: _Drawn) -> list[str]:
    """Each chart (interactive or SVG) and PNG figure as a section, in ``_PICTURES`` order."""
    images = {stem: png for stem, png in drawn.images.items() if stem != NEWS_FIGURE}
    charts = {name: chart for name, chart in drawn.charts.items() if name != NEWS_FIGURE}
    order = [*_PICTURES, *(name for name in [*charts, *images] if name not in _PICTURES)]
    parts = []
    for name in dict.fromkeys(order):
        title = _CHART_TITLES.get(name, name.replace("_", " ").capitalize())
        if name in charts:
            parts += _section(title, f'<div class="chart-{name}">{charts[name]}</div>')
        elif name in images:
            parts += _section(title, _image(images[name], name))
    return parts


def _news(drawn: _Drawn) -> str:
    """The news figure drawn inside the information section (or "" when there is none)."""
    if NEWS_FIGURE in drawn.charts:
        return drawn.charts[NEWS_FIGURE]
    news = drawn.images.get(NEWS_FIGURE)
    return "" if news is None else _image(news, NEWS_FIGURE)


def _drawn(
    tables: MeanTables,
    images: dict[str, bytes],
    svgs: Mapping[str, list[str]] | None,
    symbol: str | None,
) -> tuple[_Drawn, str]:
    """The pictures: plotly charts (equity among them) when plotly is installed, else the
    SVG charts beside the PNG figures; and the page's closing scripts (or "")."""
    packed = _plotly_page.plotly_js()
    if packed is None:
        svgs = all_charts(tables) if svgs is None else svgs
        arms = [str(arm) for arm in tables.runs[0].equity.columns]
        charts = {name: charts_html(group, arms) for name, group in svgs.items()}
        return _Drawn(images, charts), ""
    specs = {**all_specs(tables), **picture_specs(tables.runs, symbol)}.items()
    charts = {name: _plotly_page.chart_div(name, spec) for name, spec in specs}
    pictures = {stem: png for stem, png in images.items() if stem not in charts}
    return _Drawn(pictures, charts), _plotly_page.page_scripts(packed)


def _document(heading: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(heading)}</title><style>{_CSS}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def _section(name: str, content: str) -> list[str]:
    anchor = name.split(" (")[0].lower().replace(" ", "-")
    return [f'<h2 id="{html.escape(anchor)}">{html.escape(name)}</h2>', content]


def _image(png: bytes, stem: str) -> str:
    encoded = base64.b64encode(png).decode("ascii")
    return f'<img class="plot-{stem}" alt="{stem}" src="data:image/png;base64,{encoded}">'
