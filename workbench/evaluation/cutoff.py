"""Every metric before and after an arm's training cutoff: how much of a result is memory.

A model that has read the years it trades can "predict" them from memory. On
historical bars each traded date is known (``results.meta["dates"]``), so an arm
with a ``model_cutoff`` (``evaluate(..., model_cutoff={"arm": "2023-10-01"})``)
has its equity curve cut at the last date on or before the cutoff. ``before`` is
the tearsheet (``workbench.evaluation.tearsheet``) of the curve up to that
date's close, ``after`` the tearsheet of the curve from that close on (its first
return is the first day after the cutoff), and ``gap`` is after minus before: a
result that is memory falls after the cutoff. A part with no return in it has
NaN metrics. The benchmark arm (``buy_and_hold`` when in the run) is cut at the
same date, so relative metrics compare like with like. A run on a counterfactual
variant is refused: its rows are shuffled or turned around, so no date splits it.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping

import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation.results import Results
from workbench.evaluation.tearsheet import DEFAULT_BENCHMARK, TEARSHEET_COLUMNS, tearsheet

PERIODS = ("before", "after", "gap")
METRICS = tuple(c for c in TEARSHEET_COLUMNS if c != "benchmark")  # numbers only


def cutoff_split(
    results: Results, *, cutoffs: Mapping[str, str] | None = None, benchmark: str | None = None
) -> pd.DataFrame:
    """One row per (arm, period) for every arm with a cutoff, METRICS wide; ``cutoffs``
    defaults to the run's ``meta["model_cutoff"]``."""
    meta, equity = results.meta, results.equity
    cutoffs = dict(meta.get("model_cutoff") or {}) if cutoffs is None else dict(cutoffs)
    dates = meta.get("dates")
    if not dates:
        raise ConfigError(
            "a split at the model cutoff needs dated bars: run on historical data (data=); "
            "the simulated market has no calendar a model could have read"
        )
    variant = (meta.get("data") or {}).get("variant") or {}
    if variant.get("kind", "real") != "real":
        raise ConfigError(
            f"this run traded the {variant.get('label', variant['kind'])} variant, whose rows "
            "are no longer the calendar's dates, so no date splits it; split the run on the "
            "real path (variant= left out)"
        )
    against = benchmark or (DEFAULT_BENCHMARK if DEFAULT_BENCHMARK in equity.columns else None)
    parts = [_arm(results, arm, dates, cutoff, against) for arm, cutoff in cutoffs.items()]
    if not parts:
        return pd.DataFrame(columns=list(METRICS))
    return pd.concat(parts)


def _arm(
    results: Results, arm: str, dates: list[str], cutoff: str, against: str | None
) -> pd.DataFrame:
    equity = results.equity
    if arm not in equity.columns:
        raise ConfigError(f"model_cutoff names {arm!r}, which is no arm of these results")
    last = bisect.bisect_right(dates[: len(equity)], cutoff)  # closes on or before the cutoff
    columns = [arm] if against in (None, arm) else [arm, against]
    curve, exposure = equity[columns], results.exposure[columns]
    before = _sheet(curve.iloc[:last], exposure.iloc[:last], arm, against)
    start = max(last - 1, 0)  # the after part starts at the last close before the cutoff
    after = _sheet(curve.iloc[start:], exposure.iloc[start:], arm, against)
    gap = after - before
    frame = pd.DataFrame([before, after, gap], index=pd.Index(PERIODS, name="period"))
    return pd.concat({arm: frame}, names=["arm"])


def _sheet(curve: pd.DataFrame, exposure: pd.DataFrame, arm: str, against: str | None) -> pd.Series:
    if len(curve) < 2:
        return pd.Series(float("nan"), index=list(METRICS))
    sheet = tearsheet(curve, 1, exposure=exposure, benchmark=against if against != arm else None)
    row = sheet.loc[[arm], list(METRICS)].astype(float)
    return row.iloc[0]


def cutoff_section(results: Results, *, benchmark: str | None = None) -> dict[str, pd.DataFrame]:
    """The split as a report section, metrics down and (arm, period) across:
    ``render_report(..., sections=cutoff_section(results))``."""
    return {"Before and after the model cutoff": cutoff_split(results, benchmark=benchmark).T}
