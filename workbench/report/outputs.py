"""Everything a notebook run leaves in its output folder, written by one function."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.evaluation.results import Results
from workbench.report import _plotly_page
from workbench.report._data import ResultsLike, as_runs
from workbench.report.charts_over_time import MeanTables, all_charts
from workbench.report.html import Memos, write_html
from workbench.report.information import information_of
from workbench.report.leaks import check_leak_table
from workbench.report.plots import all_figures, equity_figure, png_bytes, returns_by_seed


def write_outputs(
    results: ResultsLike | Sequence[ResultsLike],
    out_dir: str | Path,
    *,
    title: str | None = None,
    comparison: pd.DataFrame | None = None,
    symbol: str | None = None,
    about: Mapping[str, Any] | None = None,
    memos: Memos | None = None,
    sections: Mapping[str, pd.DataFrame] | None = None,
    leaks: pd.DataFrame | None = None,
) -> dict[str, Path]:
    """Write scorecard (CSV, JSON, Parquet), equity and orders (Parquet), results.json,
    the equity plot as PNG (every plot without plotly), the charts over time as SVG and
    ``report.html`` into ``out_dir``;
    return the paths by name. On a market that publishes information, the items' ground
    truth goes to ``information.parquet`` too (the first run's, like the other tables).

    With several runs (seeds) the first run's files are written as above, and
    ``returns_by_seed.csv`` / ``comparison.csv`` (when given) are added. ``about``,
    ``memos`` and ``sections`` (titled tables) go to the report (see ``render_report``);
    ``leaks`` (the text leak report) goes to the report and to ``text_leaks.csv``.
    """
    runs = as_runs(results)
    if leaks is not None:
        check_leak_table(leaks)  # before anything is written
    out = Path(out_dir)
    paths = runs[0].save(out)
    paths["scorecard_parquet"] = out / "scorecard.parquet"
    runs[0].scorecard.to_parquet(paths["scorecard_parquet"])
    items = information_of(runs[0])
    if not items.empty:
        paths["information"] = out / "information.parquet"
        items.to_parquet(paths["information"])
    images = {stem: png_bytes(figure) for stem, figure in _figures(runs, symbol).items()}
    for stem, png in images.items():
        paths[f"{stem}_png"] = out / f"{stem}.png"
        paths[f"{stem}_png"].write_bytes(png)
    tables = MeanTables(runs)  # the SVG files and the report's charts draw the same tables
    charts = all_charts(tables)
    for group, drawn in charts.items():
        for n, chart in enumerate(drawn, start=1):
            paths[f"{group}_{n}_svg"] = out / f"{group}_{n}.svg"
            paths[f"{group}_{n}_svg"].write_text(chart + "\n", encoding="utf-8")
    if len(runs) > 1:
        paths["returns_by_seed"] = out / "returns_by_seed.csv"
        returns_by_seed(runs).to_csv(paths["returns_by_seed"], lineterminator="\n")
    if comparison is not None:
        paths["comparison"] = out / "comparison.csv"
        comparison.to_csv(paths["comparison"], lineterminator="\n")
    if leaks is not None:
        paths["text_leaks"] = out / "text_leaks.csv"
        leaks.to_csv(paths["text_leaks"], index=False, lineterminator="\n")
    if len(runs) > 1:
        paths["scorecards_by_seed"] = out / "scorecards_by_seed.csv"
        _by_seed(runs).to_csv(paths["scorecards_by_seed"], index=False, lineterminator="\n")
    paths["report"] = write_html(
        runs, out / "report.html", images, title=title, comparison=comparison, about=about,
        memos=memos, sections=sections, digest=_digest_of(paths["results"]), charts=charts,
        tables=tables, leaks=leaks, symbol=symbol,
    )  # fmt: skip
    return paths


def _figures(runs: list[Results], symbol: str | None) -> dict[str, Any]:
    """The PNG figures: with plotly installed the report draws every picture itself, so
    only the equity chart is kept as an image (a picture any viewer opens); without it,
    every figure the report shows."""
    if _plotly_page.plotly_js() is not None:
        return {"equity": equity_figure(runs)}
    return all_figures(runs, symbol)


def _digest_of(results_json: Path) -> str:
    """``Results.digest()`` of the run just saved, from its results.json (the same bytes)."""
    return hashlib.sha256(results_json.read_bytes()).hexdigest()


def _by_seed(runs: list[Results]) -> pd.DataFrame:
    """Every run's scorecard in one long table with the seed in front."""
    frames = []
    for run in runs:
        card = run.scorecard.reset_index()
        card.insert(0, "seed", run.meta.get("seed"))
        frames.append(card)
    return pd.concat(frames, ignore_index=True)
