"""Accept what a report is drawn from: a ``Results``, its ``to_dict()`` form, or a list of them."""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench._version import __version__
from workbench.errors import ConfigError
from workbench.evaluation.capture import CAPTURE_COLUMNS
from workbench.evaluation.columns import SCORECARD_COLUMNS
from workbench.evaluation.results import Results, canonical_json

ResultsLike = Results | Mapping[str, Any]


def as_results(value: ResultsLike) -> Results:
    """A ``Results`` object from itself or from the dict ``Results.to_dict()`` returns."""
    if isinstance(value, Results):
        return value
    if isinstance(value, Mapping) and {"meta", "scorecard", "equity"} <= set(value):
        return _from_dict(value)
    raise ConfigError(
        "a report is drawn from a Results object or the dict Results.to_dict() returns; "
        f"got {type(value).__name__}"
    )


def as_runs(value: ResultsLike | Sequence[ResultsLike]) -> list[Results]:
    """One run, or several (e.g. one per seed), as a non-empty list of ``Results``."""
    if not isinstance(value, Sequence) or isinstance(value, str):
        return [as_results(value)]  # a Results, a dict, or something as_results refuses
    runs = [as_results(item) for item in value]
    if not runs:
        raise ConfigError("a report needs at least one Results object, got an empty list")
    return runs


def _from_dict(data: Mapping[str, Any]) -> Results:
    meta = dict(data["meta"])
    card = pd.DataFrame(list(data["scorecard"]))
    card = card.set_index("arm") if "arm" in card.columns else card
    shown = [*SCORECARD_COLUMNS, *(c for c in CAPTURE_COLUMNS if c in card.columns)]
    card = card.reindex(columns=shown)  # latency_s is NaN: not in to_dict()
    steps = int(meta.get("steps_per_day") or 1)
    equity = _step_frame(data["equity"], steps)
    exposure = _step_frame(data.get("exposure", {}), steps)
    orders = pd.DataFrame(list(data.get("orders", [])))
    errors = pd.DataFrame(list(data.get("errors", [])))
    return Results(
        scorecard=card, equity=equity, orders=orders, errors=errors, meta=meta, exposure=exposure
    )


def _step_frame(columns: Mapping[str, Any], steps: int) -> pd.DataFrame:
    frame = pd.DataFrame({arm: np.asarray(v, dtype=float) for arm, v in columns.items()})
    if len(frame) and len(frame) % steps == 0:
        frame.index = pd.MultiIndex.from_product(
            [range(len(frame) // steps), range(steps)], names=["day", "step"]
        )
    return frame


def price_path(results: Results | Mapping[str, Any], symbol: str) -> np.ndarray | None:
    """The close of ``symbol`` at every trading step: the run's own ``closes`` when it kept
    them, else rebuilt from the run's meta (``results`` may be the meta itself).

    The synthetic market is deterministic in (preset, universe, seed, cadence), so
    results read back from a file have their path simulated again. ``None`` when neither
    can be done (historical bars read back from a file are not kept).
    """
    closes = getattr(results, "closes", None)
    if closes is not None and symbol in closes.columns:
        return closes[symbol].to_numpy(dtype=float)
    meta = results.meta if isinstance(results, Results) else results
    symbols = list(meta.get("symbols") or [])
    world = rebuilt_world(meta) if symbol in symbols else None
    if world is None:
        return None
    path, first = world.path, world.path.warmup_steps
    return np.asarray(path.close[first : first + world.trading_steps, symbols.index(symbol)])


def rebuilt_world(meta: Mapping[str, Any]) -> Any:
    """The simulated market a run's meta describes, or None (historical bars are data, not
    something to simulate again). The last few are kept: a report's figures and tables
    read the same market more than once, and simulating it costs more than drawing."""
    if not meta.get("symbols") or not meta.get("preset_vector") or meta.get("dates"):
        return None
    keys = ("seed", "symbols", "days", "steps_per_day", "ticks_per_step", "preset_vector")
    try:
        return _world_of(canonical_json({key: meta[key] for key in keys}))
    except (KeyError, TypeError, ValueError, ConfigError):
        return None


@functools.lru_cache(maxsize=4)
def _world_of(described: str) -> Any:
    from workbench.evaluation.world import World

    meta = json.loads(described)
    world = World(
        seed=int(meta["seed"]),
        universe=list(meta["symbols"]),
        days=int(meta["days"]),
        steps_per_day=int(meta["steps_per_day"]),
        ticks_per_step=int(meta["ticks_per_step"]),
        preset=dict(meta["preset_vector"]),
    )
    world.path  # simulated once, here, for every reader  # noqa: B018
    return world


def attribution_of(results: Results) -> pd.DataFrame:
    """``results.attribution``; for results read back from JSON (which carry none), split
    again on the simulated market their meta rebuilds. Empty when that cannot be done
    (historical bars are not kept)."""
    from workbench.agents import decision_interval
    from workbench.evaluation.attribution_frame import attribute

    if not results.attribution.empty:
        return results.attribution
    meta, world = results.meta, rebuilt_world(results.meta)
    if world is None or "capital" not in meta or results.equity.empty:
        return pd.DataFrame()
    steps = world.steps_per_day
    every = {arm: decision_interval(e, steps) for arm, e in dict(meta.get("every", {})).items()}
    # kept on the results: a report reads it in several sections, and the world is costly
    results.attribution = attribute(
        world.path, results.orders, results.equity, capital=float(meta["capital"]),
        intervals=every,
    )  # fmt: skip
    return results.attribution


# --- what a tearsheet shows ------------------------------------------------------------
KEY_COLUMNS = (
    "return_pct",
    "pnl",
    "sharpe",
    "max_drawdown_pct",
    "turnover",
    "trades",
    "errors",
    "decisions",
    "model_calls",
    "tokens",
    "cost_usd",
)


def key_metrics(results: Results) -> pd.DataFrame:
    """One row per arm: the tearsheet metrics when ``Results`` has them, else the scorecard's.

    ``Results.tearsheet()`` (CAGR, volatility, Sortino, Calmar, hit rate, ...) is used
    as soon as this version of ``Results`` provides it; the scorecard's counts of
    trades, errors and model use are kept beside it.
    """
    card = results.scorecard
    counts = [c for c in KEY_COLUMNS if c in card.columns]
    tearsheet = getattr(results, "tearsheet", None)
    if not callable(tearsheet):
        return card[counts].copy()
    sheet = tearsheet()
    extra = [c for c in counts if c not in sheet.columns]
    return sheet.join(card[extra]) if extra else sheet


def key_metrics_over(
    runs: Sequence[Results], frames: Sequence[pd.DataFrame] | None = None
) -> pd.DataFrame:
    """``key_metrics`` of one run, or the mean over the runs (seeds) of every numeric column;
    ``frames`` are the runs' ``key_metrics`` when the caller has them already."""
    frames = [key_metrics(run) for run in runs] if frames is None else list(frames)
    if len(frames) == 1:
        return frames[0]
    stacked = pd.concat(frames)
    numeric = stacked.select_dtypes("number")
    order = list(dict.fromkeys(stacked.index))
    return numeric.groupby(level=0, sort=False).mean().reindex(order)


def day_axis(results: Results) -> tuple[np.ndarray | pd.DatetimeIndex, str]:
    """The x of every equity row: dates for a historical run, else days in the one day
    numbering of ``tearsheet_frames`` (day d's close at d, or d + 1 with several steps)."""
    meta, rows = results.meta, len(results.equity)
    dates = meta.get("dates")
    if dates and len(dates) >= rows:
        return pd.DatetimeIndex(pd.to_datetime(list(dates)[:rows])), "date"
    from workbench.evaluation.tearsheet_frames import step_x

    return step_x(results, np.arange(rows)), "trading day"


def daily_returns(results: Results) -> pd.DataFrame:
    """Per arm and day, the simple return of equity from the last close (day 0: from the
    starting equity), as ``metrics.daily_returns`` computes it for the Sharpe ratio."""
    from workbench.evaluation import metrics

    steps = int(results.meta.get("steps_per_day") or 1)
    equity = results.equity
    table = pd.DataFrame(
        {arm: metrics.daily_returns(equity[arm].to_numpy(), steps) for arm in equity.columns}
    )
    table.index.name = "day"
    return table


def dated(results: Results, days: pd.Index) -> pd.Index:
    """Day numbers as dates for a historical run (as they are for a simulated one)."""
    dates = results.meta.get("dates")
    if not dates or len(days) == 0 or int(days.max()) >= len(dates):
        return days
    return pd.DatetimeIndex(pd.to_datetime([dates[int(d)] for d in days]))


def provenance(
    runs: Sequence[Results], extra: Mapping[str, Any] | None = None, digest: str | None = None
) -> dict[str, str]:
    """Where the numbers come from: version, market, seeds, cadence, mode and digests
    (``digest``: the first run's results digest, when the caller has it already)."""
    meta = runs[0].meta
    fingerprint = str(meta.get("preset"))
    market = "historical bars" if meta.get("dates") else "simulated market"
    facts = {
        "workbench": __version__,
        "market": market,
        "data fingerprint" if meta.get("dates") else "preset": fingerprint,
        "seeds": ", ".join(str(run.meta.get("seed")) for run in runs),
        "names": str(meta.get("names")),
        "days": _days_text(meta),
        "cadence": _cadence_text(meta),
        "mode": "live",
        "results digest": digest or runs[0].digest(),
    }
    if meta.get("dates"):
        from workbench.engine.bars import calendar_notes

        notes = calendar_notes(list(meta["dates"]))
        facts.update({"calendar": "; ".join(notes)} if notes else {})
    facts.update({str(k): str(v) for k, v in (extra or {}).items()})
    return facts


def _days_text(meta: Mapping[str, Any]) -> str:
    dates = meta.get("dates")
    days = f"{meta.get('days')}"
    return f"{days} ({dates[0]} to {dates[-1]})" if dates else days


def _cadence_text(meta: Mapping[str, Any]) -> str:
    from workbench.report.tables import cadence_text

    decide = cadence_text(meta).removeprefix(" · ")  # e.g. "arms decide once a day"
    if meta.get("dates"):
        market = "1 decision step per day (daily bars)"
    else:
        steps, ticks = meta.get("steps_per_day"), meta.get("ticks_per_step")
        market = f"{steps} decision steps/day, {ticks} ticks/step"
    return f"{market}; {decide}" if decide else market


def trade_list(runs: Sequence[Results]) -> pd.DataFrame:
    """Every filled order of every run, with the seed in front."""
    frames = []
    for run in runs:
        orders = run.orders
        if orders.empty or "quantity" not in orders:
            continue
        filled = orders[orders["quantity"].astype(float) > 0]
        frames.append(filled.assign(seed=run.meta.get("seed")))
    if not frames:
        return pd.DataFrame()
    shown = ["seed", "arm", "day", "step", "symbol", "side", "quantity", "price", "fee", "status"]
    table = pd.concat(frames, ignore_index=True)
    return table[[c for c in shown if c in table.columns]]


def errors_by_arm(runs: Sequence[Results]) -> pd.DataFrame:
    """Per arm and seed: decisions, failures, the share failed and the last error."""
    rows = []
    for run in runs:
        card = run.scorecard
        for arm in card.index:
            row = card.loc[arm]
            decisions = int(row.get("decisions") or 0)
            failed = int(row.get("errors") or 0)
            rows.append(
                {
                    "seed": run.meta.get("seed"),
                    "arm": arm,
                    "decisions": decisions,
                    "errors": failed,
                    "failed_pct": 100.0 * failed / decisions if decisions else 0.0,
                    "last_error": row.get("last_error") or "",
                }
            )
    return pd.DataFrame(rows).set_index(["seed", "arm"])
