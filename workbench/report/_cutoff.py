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

from workbench.evaluation.cutoff import (
    cutoff_notes,
    cutoff_over_seeds,
    shared_cutoffs,
    splittable,
)
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
    table = split.drop(columns="seeds").T.round(4)  # (arm, period) headers read "arm period"
    intro = (
        f"<p>Training cutoff per arm ({_cutoffs(dated, split)}). A result that is memory of "
        "the years a model has read falls after its cutoff: gap = after - before.</p>"
    )
    notes = sorted({note for run in dated for note in cutoff_notes(run)})
    warnings = "".join(f"<p><strong>{html.escape(note)}.</strong></p>" for note in notes)
    return TITLE, intro + warnings + f'<div class="table">{html_table(table, "cutoff")}</div>'


def _cutoffs(runs: Sequence[Any], split: pd.DataFrame) -> str:
    """Each arm's cutoff, with the number of seeds averaged when more than one."""
    seeds = split["seeds"].groupby(level="arm").first()
    parts = []
    for arm, day in shared_cutoffs(runs).items():
        count = int(seeds.get(arm, 0))
        over = f", mean over {count} seeds" if count > 1 else ""
        parts.append(f"{html.escape(arm)}: {html.escape(day)}{over}")
    return "; ".join(parts)


def _compared_with(comparison: pd.DataFrame | None) -> str | None:
    if comparison is None or "benchmark" not in comparison.columns or comparison.empty:
        return None
    return str(comparison["benchmark"].iloc[0])
