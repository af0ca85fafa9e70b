"""The report's section on the model cutoff: every metric before and after it, and the gap.

Shown when a run on historical bars recorded a ``model_cutoff`` for any arm
(``workbench.evaluation.cutoff``); of several seeds, the first is shown (on bars
the seeds share one path, so the split is the same); a run on a counterfactual
variant has no section, since its rows are no dates. Metrics run down the rows,
each arm's before, after and gap across.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from workbench.evaluation.cutoff import cutoff_split
from workbench.report._format import html_table

TITLE = "Before and after the model cutoff"


def cutoff_report_section(runs: Sequence[Any]) -> tuple[str, str] | None:
    """(title, HTML) of the split, or None when no run recorded a cutoff on dated bars."""
    first = runs[0]
    cutoffs = first.meta.get("model_cutoff")
    variant = (first.meta.get("data") or {}).get("variant") or {}
    if not cutoffs or not first.meta.get("dates") or variant.get("kind", "real") != "real":
        return None  # no calendar to split at (a variant's rows are no dates)
    table = cutoff_split(first).T.round(4)
    table.columns = [" ".join(map(str, pair)) for pair in table.columns]
    dates = ", ".join(f"{html.escape(arm)}: {html.escape(day)}" for arm, day in cutoffs.items())
    intro = (
        f"<p>Training cutoff per arm ({dates}). A result that is memory of the years a model "
        "has read falls after its cutoff: gap = after - before.</p>"
    )
    return TITLE, intro + f'<div class="table">{html_table(table, "cutoff")}</div>'
