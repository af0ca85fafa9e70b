"""Reading runs for paired comparisons: each run is one market path every arm traded.

A run is a ``Results`` or its ``to_dict()`` form. ``per_seed`` gives one metric
per run and arm; ``day_returns`` gives every arm's day returns, one row per paired
day (seed, day), the matrix the data-snooping tests and PBO read. An arm that went
bust earns 0 on the days after its bust, so every arm has a return on every
paired day (the metrics themselves read nothing past a bust).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation import metrics
from workbench.evaluation.results import Results

Run = Results | Mapping[str, Any]


def per_seed(runs: Sequence[Run], metric: str = "return_pct") -> pd.DataFrame:
    """``metric`` with one row per run (labelled by its seed) and one column per arm."""
    rows: dict[Any, pd.Series] = {}
    arms: list[str] | None = None
    markets: set[str] = set()
    for i, run in enumerate(runs):
        card, meta = card_and_meta(run)
        _refuse_repeated_market(meta, markets)
        arms = list(card.index) if arms is None else arms
        if sorted(card.index) != sorted(arms):
            raise ConfigError(
                f"run {meta.get('seed', i)!r} has arms {list(card.index)}, the first run has "
                f"{arms}: a paired comparison needs every arm on every seed; run them together"
            )
        if metric not in card.columns:
            raise ConfigError(
                f"unknown metric {metric!r}; scorecard columns are {list(card.columns)}"
            )
        seed = meta.get("seed", i)
        rows[seed if seed not in rows else f"{seed}#{i}"] = card[metric].astype(float)
    if not rows:
        raise ConfigError("a comparison needs at least one run; pass a list of Results")
    table = pd.DataFrame(rows).T
    table.index.name = "seed"
    return table


MARKET_KEYS = ("seed", "preset", "preset_vector", "symbols", "days", "steps_per_day",
               "ticks_per_step", "data")  # fmt: skip


def _refuse_repeated_market(meta: Mapping[str, Any], seen: set[str]) -> None:
    """Two runs of one seed on one market are one path counted twice, not two paths."""
    if meta.get("seed") is None:
        return
    market = json.dumps({k: meta.get(k) for k in MARKET_KEYS}, sort_keys=True, default=str)
    if market in seen:
        raise ConfigError(
            f"two runs have seed {meta['seed']!r} on the same market: a repeated seed is the "
            "same path again, not another independent one; pass each seed once"
        )
    seen.add(market)


def card_and_meta(run: Run) -> tuple[pd.DataFrame, dict[str, Any]]:
    if isinstance(run, Results):
        return run.scorecard, run.meta
    if isinstance(run, Mapping) and "scorecard" in run:
        return pd.DataFrame(list(run["scorecard"])).set_index("arm"), dict(run.get("meta", {}))
    raise ConfigError(f"each run must be a Results or its to_dict() form, got {type(run).__name__}")


def equity_and_meta(run: Run) -> tuple[Mapping[str, Any], dict]:
    if isinstance(run, Results):
        frame = run.equity
        return {arm: frame[arm].to_numpy(dtype=float) for arm in frame.columns}, run.meta
    if not isinstance(run, Mapping):
        raise ConfigError(
            f"each run must be a Results or its to_dict() form, got {type(run).__name__}"
        )
    curves = {arm: np.asarray(v, dtype=float) for arm, v in dict(run.get("equity", {})).items()}
    return curves, dict(run.get("meta", {}))


def run_day_returns(run: Run, arms: Sequence[str], label: Any) -> dict[str, np.ndarray]:
    """Each arm's day returns on one run; an arm that went bust earns 0 after its last day."""
    equity, meta = equity_and_meta(run)
    steps = int(meta.get("steps_per_day") or 1)
    missing = [arm for arm in arms if arm not in equity]
    if missing:
        raise ConfigError(
            f"run {meta.get('seed', label)!r} has no equity curve for arms {missing}: every arm "
            "must have run on the same paths; pass the Results (or their full to_dict() form) "
            "of runs made together"
        )
    returns = {arm: metrics.daily_returns(equity[arm], steps) for arm in arms}
    days = max((r.size for r in returns.values()), default=0)
    return {arm: np.pad(r, (0, days - r.size)) for arm, r in returns.items()}


def day_returns(runs: Sequence[Run], arms: Sequence[str]) -> pd.DataFrame:
    """Every arm's day returns, one row per paired day (seed, day), one column per arm."""
    frames = []
    for i, run in enumerate(runs):
        seed = equity_and_meta(run)[1].get("seed", i)
        frame = pd.DataFrame(run_day_returns(run, arms, i), columns=list(arms))
        frame.index = pd.MultiIndex.from_product([[seed], range(len(frame))], names=["seed", "day"])
        frames.append(frame)
    if not frames:
        raise ConfigError("a comparison needs at least one run; pass a list of Results")
    return pd.concat(frames)


__all__ = ["Run", "card_and_meta", "day_returns", "equity_and_meta", "per_seed", "run_day_returns"]
