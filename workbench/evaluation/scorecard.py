"""The scorecard: one row per arm, assembled from the metrics beside it.

``build_scorecard`` is the one place a scorecard row is made: the metrics of
``workbench.evaluation.metrics`` on each arm's equity curve, its order counts,
the shares of its P&L from the market and from selection
(``workbench.evaluation.attribution``), and what the run tallied for it
(``ArmTally``: traded notional, bust, failures, model use). Column order and
meaning: ``SCORECARD_COLUMNS`` and the glossary.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation import metrics
from workbench.evaluation.results import SCORECARD_COLUMNS


@dataclass(frozen=True)
class ArmTally:
    """What a run counted for one arm beside its equity curve and orders."""

    traded_notional: float
    bust_step: int | None
    errors: int
    last_error: str
    decisions: int
    model_calls: int
    tokens: int
    latency_s: float
    cost_usd: float = 0.0  # NaN when a call was made at no known price


def build_scorecard(
    equity: pd.DataFrame,
    orders: pd.DataFrame,
    tallies: Sequence[ArmTally],
    steps_per_day: int,
    sources: Mapping[str, Mapping[str, np.ndarray]],
) -> pd.DataFrame:
    """One row per arm (the equity frame's columns, in order), ``SCORECARD_COLUMNS``.

    ``sources`` holds the attribution's "market" and "selection" per step, by arm
    (``Attribution.by_arm``)."""
    arms = list(equity.columns)
    shares = {source: sources[source] for source in ("market", "selection")}
    counts = order_counts(orders)
    rows = [
        _row(
            equity[arm].to_numpy(dtype=float),
            counts.get(arm, _NO_ORDERS),
            tally,
            steps_per_day,
            {source: by_arm.get(arm, np.zeros(0)) for source, by_arm in shares.items()},
        )
        for arm, tally in zip(arms, tallies, strict=True)
    ]
    card = pd.DataFrame(rows, index=pd.Index(arms, name="arm"), columns=list(SCORECARD_COLUMNS))
    bust = [tally.bust_step for tally in tallies]
    card["bust_step"] = pd.Series(bust, index=card.index, dtype=object)
    return card


def _row(
    curve: np.ndarray,
    orders: dict[str, int],
    tally: ArmTally,
    steps_per_day: int,
    sources: dict[str, np.ndarray],
) -> dict[str, Any]:
    pnl = metrics.pnl(curve)
    return {
        "return_pct": metrics.total_return_pct(curve),
        "pnl": pnl,
        "pnl_market_pct": pnl_share_pct(sources["market"], pnl),
        "pnl_selection_pct": pnl_share_pct(sources["selection"], pnl),
        "sharpe": metrics.sharpe(until_bust(curve, tally.bust_step, steps_per_day), steps_per_day),
        "max_drawdown_pct": metrics.max_drawdown_pct(curve),
        "turnover": metrics.turnover(tally.traded_notional, curve),
        **orders,
        "bust": tally.bust_step is not None,
        "bust_step": tally.bust_step,
        "errors": tally.errors,
        "last_error": tally.last_error,
        "decisions": tally.decisions,
        "model_calls": tally.model_calls,
        "tokens": tally.tokens,
        "cost_usd": tally.cost_usd,
        "latency_s": tally.latency_s,
    }


_NO_ORDERS = {"trades": 0, "clips": 0, "refusals": 0}


def order_counts(orders: pd.DataFrame) -> dict[str, dict[str, int]]:
    """Each arm's trades (filled or partial orders), clips and refusals, in one pass."""
    counts: dict[str, dict[str, int]] = {}
    columns = (orders[name].tolist() for name in ("arm", "status", "clipped"))
    for arm, status, clipped in zip(*columns, strict=True):
        tally = counts.setdefault(arm, dict(_NO_ORDERS))
        tally["trades"] += status in ("filled", "partial")
        tally["clips"] += bool(clipped)
        tally["refusals"] += status == "refused"
    return counts


def pnl_share_pct(part: np.ndarray, pnl: float) -> float:
    """A component's total (``part``, one value per step) as a percentage of the P&L;
    NaN when the P&L is zero (nothing to share out)."""
    if pnl == 0.0:
        return math.nan
    return math.fsum(part.tolist()) / pnl * 100.0


def until_bust(curve: np.ndarray, bust_step: int | None, steps_per_day: int) -> np.ndarray:
    """A bust arm's equity up to the close of the day it went bust: after that it holds
    no account, and a return on zero equity is undefined."""
    if bust_step is None:
        return curve
    return curve[: (bust_step // steps_per_day + 1) * steps_per_day]
