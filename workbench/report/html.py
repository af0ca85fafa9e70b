"""One self-contained HTML file from a results object: tables, and plots embedded as PNG.

The same renderer serves notebooks, the CLI and the MCP server: it takes a
``Results``, the dict ``Results.to_dict()`` returns (what crosses a process or
a JSON boundary), or a list of them (one per seed). Nothing is fetched: the
CSS is inline and every image is a ``data:`` URI, so the file can be mailed,
archived or opened offline.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.evaluation.results import VOLATILE_COLUMNS
from workbench.redaction import redact
from workbench.report._data import ResultsLike, as_runs
from workbench.report.plots import all_figures, png_bytes, returns_by_seed
from workbench.report.tables import cadence_text

_CSS = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1000px; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.5rem; text-align: right; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
img { max-width: 100%; } .table { overflow-x: auto; }
.meta { color: #555; } footer { color: #888; font-size: 0.8rem; }
dt { font-weight: 600; margin-top: 0.4rem; } dd { margin: 0 0 0 1rem; font-size: 0.85rem; }
"""
_MAX_ERROR_ROWS = 50


def render_report(
    results_or_dict: ResultsLike | Sequence[ResultsLike],
    path: str | Path,
    *,
    title: str | None = None,
    comparison: pd.DataFrame | None = None,
    symbol: str | None = None,
    notes: str | None = None,
    sections: Mapping[str, pd.DataFrame] | None = None,
) -> Path:
    """Write the HTML report to ``path`` and return it.

    With several runs (seeds) the first is drawn in detail and the report adds the
    return of every arm on every seed and their distribution; ``comparison`` (e.g.
    from ``workbench.evaluation.compare.paired_comparison``) is shown as a table.
    """
    runs = as_runs(results_or_dict)
    images = {stem: png_bytes(figure) for stem, figure in all_figures(runs, symbol).items()}
    return write_html(
        runs, path, images, title=title, comparison=comparison, notes=notes, sections=sections
    )


def write_html(
    runs: list[Any],
    path: str | Path,
    images: dict[str, bytes],
    *,
    title: str | None = None,
    comparison: pd.DataFrame | None = None,
    notes: str | None = None,
    sections: Mapping[str, pd.DataFrame] | None = None,
) -> Path:
    """The report from already-rendered PNG ``images`` (stem -> bytes), in that order."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = _document(runs, images, title, comparison, notes, sections or {})
    path.write_text(text, encoding="utf-8")
    return path


def _document(
    runs: list[Any],
    images: dict[str, bytes],
    title: str | None,
    comparison: pd.DataFrame | None,
    notes: str | None,
    sections: Mapping[str, pd.DataFrame],
) -> str:
    first = runs[0]
    heading = redact(title or f"Evaluation report · {', '.join(map(str, first.scorecard.index))}")
    parts = [f"<h1>{html.escape(heading)}</h1>", f'<p class="meta">{_meta_line(runs)}</p>']
    if notes:
        parts.append(f"<p>{html.escape(redact(notes))}</p>")
    card_title = "Scorecard" if len(runs) == 1 else f"Scorecard (seed {first.meta.get('seed')})"
    shown = _shown_card(first)
    parts += _section(card_title, _table(shown, "scorecard"))
    sheet = first.tearsheet()
    parts += _section("Tearsheet", _table(sheet, "tearsheet"))
    if len(runs) > 1:
        parts += _section("Return % by seed", _table(returns_by_seed(runs), "returns-by-seed"))
    if comparison is not None:
        parts += _section("Paired comparison", _table(comparison, "comparison"))
    for name, table in sections.items():
        parts += _section(name, _table(table, name.lower().replace(" ", "-")))
    for stem, png in images.items():
        parts += _section(stem.replace("_", " ").capitalize(), _image(png, stem))
    columns = [*shown.columns, *sheet.columns]
    if comparison is not None:
        columns += list(comparison.columns)
    parts += _section("Definitions", _definitions(columns))
    if not first.errors.empty:
        shown = first.errors.head(_MAX_ERROR_ROWS)
        parts += _section(f"Errors ({len(first.errors)})", _table(shown, "errors", index=False))
    parts.append(f"<footer>results digest {html.escape(first.digest())}</footer>")
    body = "\n".join(parts)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(heading)}</title><style>{_CSS}</style></head>\n"
        f"<body>\n{body}\n</body></html>\n"
    )


def _meta_line(runs: list[Any]) -> str:
    meta = runs[0].meta
    seeds = ", ".join(str(run.meta.get("seed")) for run in runs)
    return html.escape(
        f"preset {meta.get('preset')} · seed(s) {seeds} · {meta.get('names')} names · "
        f"{meta.get('days')} days × {meta.get('steps_per_day')} steps{cadence_text(meta)}"
    )


def _shown_card(results: Any) -> pd.DataFrame:
    volatile = [c for c in VOLATILE_COLUMNS if c in results.scorecard.columns]
    return results.scorecard.drop(columns=volatile)


def _definitions(columns: Sequence[str]) -> str:
    """The glossary's text for every column shown, each once: the words the MCP tools use."""
    from workbench.services.glossary import definition

    names = [c for c in dict.fromkeys(columns) if _has_definition(c)]
    items = "".join(
        f"<dt>{html.escape(name)}</dt><dd>{html.escape(definition(name))}</dd>" for name in names
    )
    return f'<dl class="definitions">{items}</dl>'


def _has_definition(name: str) -> bool:
    from workbench.services.glossary import COMPARISON, METRICS, TEARSHEET

    return name in METRICS or name in TEARSHEET or name in COMPARISON


def _section(name: str, content: str) -> list[str]:
    return [f"<h2>{html.escape(name)}</h2>", content]


def _table(frame: pd.DataFrame, css: str, *, index: bool = True) -> str:
    table = frame.to_html(classes=css, index=index, float_format=_number, border=0)
    return f'<div class="table">{table}</div>'


def _number(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 10_000 else f"{value:.4g}"


def _image(png: bytes, stem: str) -> str:
    encoded = base64.b64encode(png).decode("ascii")
    return f'<img class="plot-{stem}" alt="{stem}" src="data:image/png;base64,{encoded}">'
