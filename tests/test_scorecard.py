"""The scorecard is assembled in one function beside the metrics (build_scorecard)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.evaluation import metrics
from workbench.evaluation.columns import SCORECARD_COLUMNS, pnl_share_pct, until_bust
from workbench.evaluation.results import ORDER_COLUMNS
from workbench.evaluation.scorecard import ArmTally, build_scorecard, order_counts

STEPS_PER_DAY = 2


def _orders(rows: list[dict]) -> list[tuple]:
    """Order rows as a run builds them (``ORDER_COLUMNS`` order)."""
    base = dict.fromkeys(ORDER_COLUMNS)
    base.update(clipped=False, quantity=0.0, fee=0.0, status="filled")
    return [tuple({**base, **row}[name] for name in ORDER_COLUMNS) for row in rows]


def _tally(**changes) -> ArmTally:
    fields = dict(
        traded_notional=500.0, bust_step=None, errors=0, last_error="", decisions=3,
        model_calls=0, tokens=0, latency_s=0.25,
    )  # fmt: skip
    return ArmTally(**{**fields, **changes})


def test_each_row_is_the_metrics_of_its_curve_and_the_counts_of_its_orders() -> None:
    equity = pd.DataFrame({"a": [1000.0, 1010.0, 990.0, 1030.0], "b": [1000.0, 400.0, 0.0, 0.0]})
    orders = _orders(
        [
            {"arm": "a", "status": "filled"},
            {"arm": "a", "status": "partial", "clipped": True},
            {"arm": "a", "status": "refused"},
            {"arm": "b", "status": "filled"},
        ]
    )
    tallies = [_tally(errors=1, last_error="DecisionError: x", tokens=42), _tally(bust_step=2)]
    sources = {
        "market": {"a": np.array([0.0, 6.0, 0.0, 3.0]), "b": np.array([0.0, -900.0, 0.0, 0.0])},
        "selection": {"a": np.array([0.0, 3.0, -20.0, 38.0]), "b": np.array([0.0, -100, 0, 0])},
    }
    card = build_scorecard(equity, orders, tallies, STEPS_PER_DAY, sources)
    assert list(card.index) == ["a", "b"] and list(card.columns) == list(SCORECARD_COLUMNS)
    a, b = card.loc["a"], card.loc["b"]
    curve = equity["a"].to_numpy()
    assert a["return_pct"] == metrics.total_return_pct(curve) and a["pnl"] == 30.0
    assert a["sharpe"] == metrics.sharpe(curve, STEPS_PER_DAY)
    assert a["turnover"] == metrics.turnover(500.0, curve)
    assert (a["trades"], a["clips"], a["refusals"]) == (2, 1, 1)
    assert (a["errors"], a["last_error"], a["tokens"], a["latency_s"]) == (
        1, "DecisionError: x", 42, 0.25,
    )  # fmt: skip
    assert (a["pnl_market_pct"], a["pnl_selection_pct"]) == pytest.approx((30.0, 70.0))
    assert (b["pnl_market_pct"], b["pnl_selection_pct"]) == pytest.approx((90.0, 10.0))
    assert b["bust"] and b["bust_step"] == 2 and b["pnl"] == -1000.0 and b["trades"] == 1
    bust_curve = equity["b"].to_numpy()
    assert b["sharpe"] == metrics.sharpe(until_bust(bust_curve, 2, STEPS_PER_DAY), STEPS_PER_DAY)
    assert not a["bust"] and a["bust_step"] is None


def test_a_bust_curve_is_read_to_the_close_of_its_bust_day() -> None:
    curve = np.arange(8.0)
    assert until_bust(curve, None, 3) is curve
    assert until_bust(curve, 4, 3).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_a_share_of_no_pnl_is_undefined() -> None:
    assert math.isnan(pnl_share_pct(np.array([1.0, -1.0]), 0.0))
    assert pnl_share_pct(np.array([1.0, 2.0]), -3.0) == -100.0


def test_a_runs_own_rows_are_counted_by_arm() -> None:
    rows = _orders(
        [
            {"arm": "a", "status": "filled", "clipped": True},
            {"arm": "b", "status": "refused"},
            {"arm": "a", "status": "partial"},
            {"arm": "a", "status": "refused", "clipped": True},
            {"arm": "b", "status": "unfilled"},
        ]
    )
    assert order_counts(rows) == {
        "a": {"trades": 2, "clips": 2, "refusals": 1},
        "b": {"trades": 0, "clips": 0, "refusals": 1},
    }
    assert order_counts([]) == {}
