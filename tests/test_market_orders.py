"""Decisions of market orders built without pydantic are the ones validation builds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.baselines import BASELINES
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import DecisionError
from workbench.evaluation import evaluate
from workbench.schema import Decision


def state(model: Any) -> tuple[Any, ...]:
    """Everything a pydantic model holds: its type, values, fields set, extras, privates."""
    return (
        type(model),
        model.__dict__,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


def validated(decision: Decision) -> Decision:
    """The decision pydantic's validators make of the market orders in ``decision``, given as
    the baselines gave them before (symbol, side and quantity), marked as ``of`` marks it."""
    assert {a.order_type for a in decision.actions} <= {"market"}
    orders = [a.model_dump(include={"symbol", "side", "quantity"}) for a in decision.actions]
    return Decision.of(orders, decision.rationale)


def assert_built_as_validated(built: Decision, reference: Decision) -> None:
    assert state(built) == state(reference)
    assert [state(a) for a in built.actions] == [state(a) for a in reference.actions]
    assert built.is_validated()
    assert built.model_dump_json() == reference.model_dump_json()


def outcome(build: Any) -> Decision | str:
    try:
        return build()
    except DecisionError as exc:
        return f"DecisionError: {exc}"


symbols = st.one_of(st.sampled_from(["AAA", "", "\ud800", "é"]), st.text(max_size=4), st.integers())
sides = st.one_of(st.sampled_from(["buy", "sell", "hold", "BUY"]), st.booleans())
quantities = st.one_of(
    st.floats(),
    st.integers(-3, 10**20),
    st.sampled_from([0.0, -0.0, 1e300, 2.5, True]),
)
orders = st.lists(st.tuples(symbols, sides, quantities), max_size=4)
rationales = st.one_of(st.text(max_size=5), st.sampled_from(["random", "\udfff"]), st.none())


@given(orders, rationales)
def test_market_orders_build_what_validation_builds_or_fail_as_it_fails(
    orders: list[tuple[Any, Any, Any]], rationale: Any
) -> None:
    fast = outcome(lambda: Decision.of_market_orders(orders, rationale))
    actions = [{"symbol": s, "side": side, "quantity": q} for s, side, q in orders]
    slow = outcome(lambda: Decision.of(actions, rationale))
    if isinstance(slow, str):
        assert fast == slow
    else:
        assert isinstance(fast, Decision)
        assert_built_as_validated(fast, slow)


def test_a_market_order_of_plain_values_is_built_without_validation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*args: object, **kwargs: object) -> Decision:
        raise AssertionError("validated")

    decision = Decision.of_market_orders([("AAA", "buy", 3.0)], "why")
    monkeypatch.setattr(Decision, "model_validate", refuse)
    again = Decision.of_market_orders([("AAA", "buy", 3.0)], "why")
    assert_built_as_validated(again, decision)


def decisions_of_every_baseline(**market: Any) -> list[Decision]:
    arms = [kind() for kind in BASELINES.values()]
    seen: list[Decision] = []
    for arm in arms:
        decide = arm.decide

        def kept(payload: dict[str, Any], decide: Any = decide) -> Decision:
            seen.append(decide(payload))
            return seen[-1]

        arm.decide = kept  # type: ignore[method-assign]
    evaluate(arms, **market)
    return seen


@pytest.mark.parametrize(
    "market",
    [
        {"seed": 3, "universe": 12, "days": 12, "steps_per_day": 2},
        {"data": Historical.load(sample_bars(days=60, names=5, seed=2), secret="s" * 20)},
    ],
    ids=["simulated", "historical"],
)
def test_every_baseline_decision_over_a_run_is_what_validation_accepts(
    market: dict[str, Any],
) -> None:
    decisions = decisions_of_every_baseline(**market)
    assert sum(len(d.actions) for d in decisions) > 50
    for decision in decisions:
        assert_built_as_validated(decision, validated(decision))


@pytest.mark.parametrize("names", [1, 2, 6, 40, 119])
def test_the_random_trader_skips_only_draws_that_draw_nothing(names: int) -> None:
    """A decision that picks no name skips ``choice`` and ``integers`` of size 0: the
    generator is left where those two calls leave it, so the next decisions repeat."""
    drawn, skipped = np.random.default_rng(names), np.random.default_rng(names)
    drawn.choice(names, size=0, replace=False)
    drawn.integers(0, 2, size=0)
    assert drawn.bit_generator.state == skipped.bit_generator.state
    assert (
        drawn.integers(0, 1 << 30, size=4).tolist() == skipped.integers(0, 1 << 30, size=4).tolist()
    )
