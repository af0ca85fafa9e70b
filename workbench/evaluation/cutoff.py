"""Every metric before and after an arm's training cutoff: how much of a result is memory.

A model that has read the years it trades can "predict" them from memory. On
historical bars each traded date is known (``results.meta["dates"]``), so an arm
with a ``model_cutoff`` (``evaluate(..., model_cutoff={"arm": "2023-10-01"})``)
has its equity curve cut at the last date on or before the cutoff. ``before`` is
the tearsheet (``workbench.evaluation.tearsheet``) of the curve up to that
date's close, ``after`` the tearsheet of the curve from that close on (its first
return is the first day after the cutoff), and ``gap`` is after minus before: a
result that is memory falls after the cutoff. A part with no return in it has
NaN metrics; a part with one return has only what one return measures
(``ONE_RETURN``: its return, drawdown, hit rate, best and worst day, exposure), the
Sharpe, volatility, annual figures and relative metrics NaN, and ``cutoff_notes``
says so. The benchmark arm (``buy_and_hold`` when in the run) is cut at the
same date, so relative metrics compare like with like. A run on a counterfactual
variant is refused: its rows are shuffled or turned around, so no date splits it.

``results.tearsheet(split="cutoff")`` is the whole-run tearsheet with a ``period``
level: ``all`` for every arm, then ``before``, ``after`` and ``gap`` for each arm
with a cutoff (``split_tearsheet``). Over several seeds (``compare``),
``cutoff_over_seeds`` is each arm's split averaged over the runs on the real path.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation.options import model_cutoffs
from workbench.evaluation.tearsheet import DEFAULT_BENCHMARK, TEARSHEET_COLUMNS, tearsheet

if TYPE_CHECKING:  # results.py imports this module for Results.tearsheet(split=)
    from workbench.evaluation.results import Results

PERIODS = ("before", "after", "gap")
WHOLE = "all"  # the period of the whole run in ``split_tearsheet``
METRICS = tuple(c for c in TEARSHEET_COLUMNS if c != "benchmark")  # numbers only
# what one return measures; a Sharpe, a volatility, an annual figure or a beta needs more
ONE_RETURN = (
    *("return_pct", "max_drawdown_pct", "hit_rate_pct", "best_day_pct", "worst_day_pct"),
    "avg_gross_exposure",
)


def cutoff_split(
    results: Results, *, cutoffs: Mapping[str, str] | None = None, benchmark: str | None = None
) -> pd.DataFrame:
    """One row per (arm, period) for every arm with a cutoff, METRICS wide; ``cutoffs``
    defaults to the run's ``meta["model_cutoff"]``."""
    meta, equity = results.meta, results.equity
    cutoffs = model_cutoffs(meta.get("model_cutoff") or {} if cutoffs is None else cutoffs)
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
    if against is not None and against not in equity.columns:
        raise ConfigError(
            f"benchmark {against!r} is no arm of these results; pick one of "
            f"{', '.join(map(str, equity.columns))} (or leave benchmark out)"
        )
    parts = [_arm(results, arm, dates, cutoff, against) for arm, cutoff in cutoffs.items()]
    if not parts:
        return pd.DataFrame(columns=list(METRICS))
    return pd.concat(parts)


def cutoff_notes(results: Results, cutoffs: Mapping[str, str] | None = None) -> list[str]:
    """A line for each arm whose cutoff leaves a part with no return (an empty part: NaN
    metrics) or with one (too short to measure: ``ONE_RETURN``); ``cutoffs`` defaults to
    the run's."""
    dates = results.meta.get("dates") or []
    dates = dates[: len(results.equity)]
    given = results.meta.get("model_cutoff") or {} if cutoffs is None else cutoffs
    if not dates:
        return []
    notes = []
    for arm, cutoff in model_cutoffs(given).items():
        closes = bisect.bisect_right(dates, cutoff)  # as _arm cuts the curve
        notes += [f"{arm}'s cutoff {cutoff} {note}" for note in _short_parts(dates, closes)]
    return notes


def _short_parts(dates: list[str], closes: int) -> list[str]:
    """What is wrong with the parts of a curve over ``dates`` cut after ``closes`` closes."""
    before = max(closes - 1, 0)  # returns in each part, as _arm cuts them
    after = len(dates) - max(closes, 1)
    found = []
    if closes == 0:
        found.append(f"falls before the run's first date {dates[0]}: no 'before' part")
    elif before == 0 and len(dates) > 1:
        found.append(f"falls before the run's first return, to {dates[1]}: no 'before' part")
    elif before == 1:
        found.append(f"leaves one return before it, to {dates[1]}: {_TOO_SHORT % 'before'}")
    if closes >= len(dates):
        found.append(f"falls on or after the run's last date {dates[-1]}: no 'after' part")
    elif after == 1:
        found.append(f"leaves one return after it, to {dates[-1]}: {_TOO_SHORT % 'after'}")
    return found


_TOO_SHORT = (
    "the '%s' part is too short to measure: its Sharpe, volatility, annual figures and beta are NaN"
)


def replayed_cutoffs(arms: Sequence[Any], given: Mapping[str, str] | None) -> dict[str, str]:
    """``given`` with each replaying arm's recorded cutoff added (its transcript's ``run``
    header), so ``evaluate`` with replay-mode adapters has the cutoff in its meta as
    ``recordings.replay`` has; a cutoff given for an arm stays, and its adapter refuses it
    if it is not the recorded one."""
    found = {}
    for arm in arms:
        if getattr(arm, "mode", None) != "replay":
            continue
        meta = getattr(getattr(arm, "transcript", None), "meta", None) or {}
        cutoff = (meta.get("run") or {}).get("model_cutoff")
        if cutoff is not None:
            found[arm.name] = str(cutoff)
    return {**found, **(given or {})}


def splittable(meta: Mapping[str, Any]) -> bool:
    """The run recorded a cutoff on dated bars of the real path: a split can be made."""
    variant = (meta.get("data") or {}).get("variant") or {}
    real = variant.get("kind", "real") == "real"
    return bool(meta.get("model_cutoff")) and bool(meta.get("dates")) and real


def split_tearsheet(results: Results, whole: pd.DataFrame) -> pd.DataFrame:
    """``whole`` (the run's tearsheet, one row per arm) with a ``period`` level: ``all`` for
    every arm, then ``before``, ``after`` and ``gap`` for each arm with a cutoff."""
    if not results.meta.get("model_cutoff"):
        raise ConfigError(
            "this run recorded no model_cutoff, so there is nothing to split at: run with "
            "model_cutoff={'arm': 'YYYY-MM-DD'} on historical bars, or leave split= out"
        )
    against = whole["benchmark"].dropna()
    benchmark = str(against.iloc[0]) if len(against) else None
    split = cutoff_split(results, benchmark=benchmark)
    split.insert(METRICS.index("avg_gross_exposure") + 1, "benchmark", benchmark)
    parts = []
    for arm, row in whole.iterrows():
        alone = pd.DataFrame([row], index=pd.Index([WHOLE], name="period"))
        parts.append(pd.concat({arm: alone}, names=["arm"]))
        if arm in split.index.get_level_values("arm"):
            parts.append(split.loc[[arm]])
    return pd.concat(parts)[list(whole.columns)]


def cutoff_over_seeds(runs: Sequence[Results], *, benchmark: str | None = None) -> pd.DataFrame:
    """Each arm's split (``cutoff_split``) averaged over the runs on the real path (a seed
    on a counterfactual variant has no dates to split at and is left out); ``seeds``
    counts the runs that gave the arm a cutoff, and a metric missing (NaN) in any of them
    is NaN in the mean. Runs that give one arm different cutoffs are refused. Empty when
    no such run recorded a cutoff."""
    dated = [run for run in runs if splittable(run.meta)]
    shared_cutoffs(dated)
    splits = [
        split for split in (cutoff_split(r, benchmark=benchmark) for r in dated) if len(split)
    ]
    if not splits:
        return pd.DataFrame(columns=["seeds", *METRICS])
    rows = pd.concat(splits).groupby(level=["arm", "period"], sort=False)
    mean = rows.mean().where(rows.count().eq(rows.size(), axis=0))
    mean.insert(0, "seeds", rows.size())
    return mean


def shared_cutoffs(runs: Sequence[Results]) -> dict[str, str]:
    """Every arm's cutoff over ``runs``; an arm cut at different dates is refused, since
    the mean of splits at different dates is no split at all."""
    cutoffs: dict[str, str] = {}
    for run in runs:
        for arm, cutoff in model_cutoffs(run.meta.get("model_cutoff") or {}).items():
            if cutoffs.setdefault(arm, cutoff) != cutoff:
                raise ConfigError(
                    f"the runs give {arm!r} two cutoffs, {cutoffs[arm]} and {cutoff}; compare "
                    "runs made with one model_cutoff per arm"
                )
    return cutoffs


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
    """The part's metrics: NaN with no return in it; with one, only ``ONE_RETURN``."""
    if len(curve) < 2:
        return pd.Series(float("nan"), index=list(METRICS))
    sheet = tearsheet(curve, 1, exposure=exposure, benchmark=against if against != arm else None)
    row = sheet.loc[[arm], list(METRICS)].astype(float).iloc[0]
    return row.where(row.index.isin(ONE_RETURN)) if len(curve) == 2 else row


def cutoff_section(results: Results, *, benchmark: str | None = None) -> dict[str, pd.DataFrame]:
    """The split as a report section, metrics down and (arm, period) across:
    ``render_report(..., sections=cutoff_section(results))``."""
    return {"Before and after the model cutoff": cutoff_split(results, benchmark=benchmark).T}
