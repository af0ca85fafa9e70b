"""The scorecard: one row per arm, assembled from the metrics beside it.

``build_scorecard`` is the one place a scorecard row is made: the metrics of
``workbench.evaluation.metrics`` on each arm's equity curve, its order counts,
and what the run tallied for it
(``ArmTally``: traded notional, bust, failures, model use). Column order and
meaning: ``SCORECARD_COLUMNS`` and the glossary.
"""

from __future__ import annotations

from collections.abc import Sequence
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


def build_scorecard(
    equity: pd.DataFrame,
    orders: pd.DataFrame,
    tallies: Sequence[ArmTally],
    steps_per_day: int,
) -> pd.DataFrame:
    """One row per arm (the equity frame's columns, in order), ``SCORECARD_COLUMNS``."""
    arms = list(equity.columns)
    rows = [
        _row(
            equity[arm].to_numpy(dtype=float),
            orders[orders["arm"] == arm],
            tally,
            steps_per_day,
        )
        for arm, tally in zip(arms, tallies, strict=True)
    ]
    card = pd.DataFrame(rows, index=pd.Index(arms, name="arm"), columns=list(SCORECARD_COLUMNS))
    bust = [tally.bust_step for tally in tallies]
    card["bust_step"] = pd.Series(bust, index=card.index, dtype=object)
    return card


def _row(
    curve: np.ndarray,
    orders: pd.DataFrame,
    tally: ArmTally,
    steps_per_day: int,
) -> dict[str, Any]:
    return {
        "return_pct": metrics.total_return_pct(curve),
        "pnl": metrics.pnl(curve),
        "sharpe": metrics.sharpe(until_bust(curve, tally.bust_step, steps_per_day), steps_per_day),
        "max_drawdown_pct": metrics.max_drawdown_pct(curve),
        "turnover": metrics.turnover(tally.traded_notional, curve),
        "trades": int(orders["status"].isin(["filled", "partial"]).sum()),
        "clips": int(orders["clipped"].sum()),
        "refusals": int((orders["status"] == "refused").sum()),
        "bust": tally.bust_step is not None,
        "bust_step": tally.bust_step,
        "errors": tally.errors,
        "last_error": tally.last_error,
        "decisions": tally.decisions,
        "model_calls": tally.model_calls,
        "tokens": tally.tokens,
        "latency_s": tally.latency_s,
    }


def until_bust(curve: np.ndarray, bust_step: int | None, steps_per_day: int) -> np.ndarray:
    """A bust arm's equity up to the close of the day it went bust: after that it holds
    no account, and a return on zero equity is undefined."""
    if bust_step is None:
        return curve
    return curve[: (bust_step // steps_per_day + 1) * steps_per_day]
