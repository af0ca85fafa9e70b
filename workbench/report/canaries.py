"""The report's section on the canary audit: every planted item an arm quoted before its day.

Shown when a run planted canaries (``Historical.load(..., canaries=K)``, see
``workbench.evaluation.canaries``). The run watched each decision's rationale;
the section lists the sightings it found by seed, arm, channel and path, with
the first one's day, step and token, so a look-ahead is in the report and not
only in ``results.json``. A model-backed arm's transcripts are audited by
``canary_audit`` (and by a replay), not here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from workbench.evaluation.canaries import CANARY_COLUMNS
from workbench.report._format import html_table

TITLE = "Canary audit"
KEYS = ["seed", "arm", "channel", "path"]


def canary_report_section(runs: Sequence[Any]) -> tuple[str, str] | None:
    """(title, HTML) of the canary audit, or None when no run planted canaries."""
    planted = [run for run in runs if run.meta.get("canaries")]
    if not planted:
        return None
    hits = canary_sightings(planted)
    count = len(planted[0].meta["canaries"])
    intro = (
        f"<p>{count} canaries planted, items dated after the decisions they test; each "
        "decision's rationale was read for them (any case, spacing or hyphen; a code alone; "
        "a figure rounded or grouped). An arm that trades on a canary without writing it "
        "anywhere is not seen.</p>"
    )
    if hits.empty:
        return TITLE, intro + "<p>No arm quoted a canary before its day.</p>"
    said = (
        f"<p><strong>{len(hits):,} sighting(s) before their day</strong>: something these "
        "arms read looks ahead (an own tool's as-of date, a memory that recalls too early). "
        "A token with no day is a canary this run did not plant: a tool built on a World of "
        "other days or bars. Every sighting is in results.json "
        "(<code>meta.canary_hits</code>).</p>"
    )
    table = html_table(first_sightings(hits), "canaries", index=False)
    return TITLE, intro + said + f'<div class="table">{table}</div>'


def canary_sightings(runs: Sequence[Any]) -> pd.DataFrame:
    """Every sighting the runs recorded (CANARY_COLUMNS), with each run's seed in front."""
    frames = [
        pd.DataFrame(run.meta.get("canary_hits") or [], columns=list(CANARY_COLUMNS)).assign(
            seed=run.meta.get("seed")
        )
        for run in runs
    ]
    hits = pd.concat(frames, ignore_index=True)
    return hits[["seed", *CANARY_COLUMNS]]


def first_sightings(hits: pd.DataFrame) -> pd.DataFrame:
    """One row per seed, arm, channel and path: how many sightings, and the first one."""
    sightings = hits.groupby(KEYS, sort=False, dropna=False).size().to_numpy()
    first = hits.drop_duplicates(KEYS).reset_index(drop=True).assign(sightings=sightings)
    first = first[[*KEYS, "sightings", "day", "step", "token", "seen_from_day"]]
    first["seen_from_day"] = first["seen_from_day"].map(_day)
    return first.rename(columns={"day": "first day", "token": "first token"})


def _day(value: Any) -> str:
    return "not planted here" if pd.isna(value) else str(int(value))
