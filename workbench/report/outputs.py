"""Everything a notebook run leaves in its output folder, written by one function."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from workbench.report._data import ResultsLike, as_runs
from workbench.report.html import render_report
from workbench.report.plots import all_figures, returns_by_seed, save_figure


def write_outputs(
    results: ResultsLike | Sequence[ResultsLike],
    out_dir: str | Path,
    *,
    title: str | None = None,
    comparison: pd.DataFrame | None = None,
    symbol: str | None = None,
) -> dict[str, Path]:
    """Write scorecard (CSV, JSON, Parquet), equity and orders (Parquet), results.json,
    the plots as PNG and ``report.html`` into ``out_dir``; return the paths by name.

    With several runs (seeds) the first run's files are written as above, and
    ``returns_by_seed.csv`` / ``comparison.csv`` (when given) are added.
    """
    runs = as_runs(results)
    out = Path(out_dir)
    paths = runs[0].save(out)
    paths["scorecard_parquet"] = out / "scorecard.parquet"
    runs[0].scorecard.to_parquet(paths["scorecard_parquet"])
    for stem, figure in all_figures(runs, symbol).items():
        paths[f"{stem}_png"] = save_figure(figure, out / f"{stem}.png")
    if len(runs) > 1:
        paths["returns_by_seed"] = out / "returns_by_seed.csv"
        returns_by_seed(runs).to_csv(paths["returns_by_seed"], lineterminator="\n")
    if comparison is not None:
        paths["comparison"] = out / "comparison.csv"
        comparison.to_csv(paths["comparison"], lineterminator="\n")
    paths["report"] = render_report(
        runs, out / "report.html", title=title, comparison=comparison, symbol=symbol
    )
    return paths
