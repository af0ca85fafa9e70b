"""The report's section on the model cutoff: every metric before and after it, and the gap.

Shown when a run on historical bars recorded a ``model_cutoff`` for any arm
(``workbench.evaluation.cutoff``); over several seeds, each figure is the mean
over the runs on the real path (``cutoff_over_seeds``); a run on a counterfactual
variant is left out, since its rows are no dates, and with none left there is no
section. Metrics run down the rows, each arm's before, after and gap across.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import pandas as pd

from workbench.evaluation.cutoff import cutoff_over_seeds, splittable
from workbench.report._format import html_table

TITLE = "Before and after the model cutoff"


def cutoff_report_section(
    runs: Sequence[Any], comparison: pd.DataFrame | None = None
) -> tuple[str, str] | None:
    """(title, HTML) of the split, or None when no run recorded a cutoff on dated bars;
    relative metrics are against ``comparison``'s benchmark when there is one."""
    dated = [run for run in runs if splittable(run.meta)]
    if not dated:
        return None  # no calendar to split at (a variant's rows are no dates)
    split = cutoff_over_seeds(dated, benchmark=_compared_with(comparison))
    table = split.drop(columns="seeds").T.round(4)
    table.columns = [" ".join(map(str, pair)) for pair in table.columns]
    cutoffs = dated[0].meta["model_cutoff"]
    dates = ", ".join(f"{html.escape(arm)}: {html.escape(day)}" for arm, day in cutoffs.items())
    seeds = f" Each figure is the mean over {len(dated)} seeds." if len(dated) > 1 else ""
    intro = (
        f"<p>Training cutoff per arm ({dates}). A result that is memory of the years a model "
        f"has read falls after its cutoff: gap = after - before.{seeds}</p>"
    )
    return TITLE, intro + f'<div class="table">{html_table(table, "cutoff")}</div>'


def _compared_with(comparison: pd.DataFrame | None) -> str | None:
    if comparison is None or "benchmark" not in comparison.columns or comparison.empty:
        return None
    return str(comparison["benchmark"].iloc[0])
