"""Accept what a report is drawn from: a ``Results``, its ``to_dict()`` form, or a list of them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation.results import SCORECARD_COLUMNS, Results

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
    card = card.reindex(columns=list(SCORECARD_COLUMNS))  # latency_s is NaN: not in to_dict()
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


def price_path(meta: Mapping[str, Any], symbol: str) -> np.ndarray | None:
    """The close of ``symbol`` at every trading step, rebuilt from the run's meta.

    The synthetic market is deterministic in (preset, universe, seed, cadence), so
    the path is simulated again rather than stored. ``None`` when the meta does not
    describe a synthetic market this version can rebuild.
    """
    from workbench.evaluation.world import World

    symbols = list(meta.get("symbols") or [])
    if symbol not in symbols or not meta.get("preset_vector"):
        return None
    try:
        world = World(
            seed=int(meta["seed"]),
            universe=symbols,
            days=int(meta["days"]),
            steps_per_day=int(meta["steps_per_day"]),
            ticks_per_step=int(meta["ticks_per_step"]),
            model=dict(meta["preset_vector"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    path, first = world.path, world.path.warmup_steps
    return np.asarray(path.close[first : first + world.trading_steps, symbols.index(symbol)])
