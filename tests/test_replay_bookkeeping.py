"""The bookkeeping around a replayed answer: the preset a request carries is checked at
every exchange (the run's own stamp too, whose dials an arm could change), and a decision's
log entry holds the orders, clips and refusals its execution report gives."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from workbench.agents import DecisionRequest, ExecutionReport, PresetStamp
from workbench.engine.execution import OrderRecord
from workbench.errors import ReplayMiss
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent
from workbench.integrations._recorder import add_execution

MARKET: dict[str, Any] = {"seed": 5, "universe": 3, "days": 2}


def holder(payload: dict[str, Any]) -> dict[str, Any]:
    return {"actions": [], "rationale": f"hold on day {payload['day']}"}


def _replayed_arm() -> tuple[CallableAgentAdapter, Any]:
    live = callable_agent(holder, name="holder", mode="record", every=1)
    evaluate([live], **MARKET)
    arm = CallableAgentAdapter(
        None, name="holder", mode="replay", every=1, transcript=live.recorder
    )
    evaluate([arm], **MARKET)  # begins (and checks) the run's own preset
    return arm, next(iter(live.recorder))


def _request(arm: CallableAgentAdapter, exchange: Any, preset: PresetStamp) -> DecisionRequest:
    return DecisionRequest(arm.name, exchange.day, exchange.step, 0, exchange.input, preset)


def test_a_request_from_another_market_is_refused_after_the_run_began() -> None:
    arm, exchange = _replayed_arm()
    ran = arm.run
    assert ran is not None
    same = PresetStamp(ran.preset.name, dict(ran.preset.vector))  # equal, not the run's own
    assert arm.exchange_step.replayed(arm, _request(arm, exchange, same), exchange.key) == (
        exchange.response
    )
    other = PresetStamp("other-market", {})
    with pytest.raises(ReplayMiss, match="other-market"):
        arm.exchange_step.replayed(arm, _request(arm, exchange, other), exchange.key)
    dial = next(iter(ran.preset.vector))
    moved = PresetStamp(ran.preset.name, {**ran.preset.vector, dial: 12345.0})
    with pytest.raises(ReplayMiss, match="different dials"):
        arm.exchange_step.replayed(arm, _request(arm, exchange, moved), exchange.key)


def test_the_runs_own_stamp_changed_after_it_began_is_refused_at_the_next_exchange() -> None:
    arm, exchange = _replayed_arm()
    own = arm.run.preset if arm.run is not None else None
    assert own is not None
    own.vector[next(iter(own.vector))] = 12345.0  # its dials are a plain dict an arm can reach
    with pytest.raises(ReplayMiss, match="different dials"):
        arm.exchange_step.replayed(arm, _request(arm, exchange, own), exchange.key)


def _reference_entry(report: ExecutionReport) -> dict[str, Any]:
    """The entry as ``report.clips`` and ``report.refusals`` give it."""

    def held(row: OrderRecord) -> Any:
        if row.order_type == "limit":
            return {"quantity": row.requested, "limit_price": row.limit_price}
        return row.requested

    return {
        "orders": [
            {
                "symbol": row.symbol,
                "side": row.side,
                "order": held(row),
                "status": row.status,
                "filled": row.quantity,
                "price": row.price,
            }
            for row in report.orders
        ],
        "clips": [
            {"symbol": row.symbol, "requested": row.requested, "to": row.clipped_to}
            for row in report.clips
        ],
        "refused": [
            {"symbol": row.symbol, "side": row.side, "order": held(row), "reason": row.reason}
            for row in report.refusals
        ],
    }


def _rows() -> list[OrderRecord]:
    kinds = itertools.product(
        ("filled", "partial", "unfilled", "refused"), (False, True), ("market", "limit")
    )
    return [
        OrderRecord(
            f"S{n}",
            "buy" if n % 2 else "sell",
            order_type,
            10.5 if order_type == "limit" else None,
            float(n + 1),
            quantity=float(n) / 2,
            price=None if status in ("refused", "unfilled") else 10.0 + n,
            status=status,
            reason="" if status == "filled" else f"reason {n}",
            clipped=clipped,
            clipped_to=float(n) / 2 if clipped else None,
        )
        for n, (status, clipped, order_type) in enumerate(kinds)
    ]


@pytest.mark.parametrize("take", [0, 1, 3, 16])
def test_the_log_entry_holds_the_reports_orders_clips_and_refusals(take: int) -> None:
    rows = _rows()
    for start in range(0, len(rows), max(take, 1)):
        report = ExecutionReport(tuple(rows[start : start + take]))
        entry: dict[str, Any] = {"arm": "a"}
        add_execution(entry, report)
        assert entry == {"arm": "a", **_reference_entry(report)}
        assert list(entry) == ["arm", "orders", "clips", "refused"]
