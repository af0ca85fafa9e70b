"""Answers of plain data are built without pydantic into the decisions validation builds."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import schema
from workbench.errors import DecisionError
from workbench.schema import Decision, parse_decision


def state(model: Any) -> tuple[Any, ...]:
    """Everything a pydantic model holds, each value with its type (so -0.0 is not 0.0)."""
    values = [(key, type(value), repr(value)) for key, value in model.__dict__.items()]
    return (
        type(model),
        values,
        model.__pydantic_fields_set__,
        model.__pydantic_extra__,
        model.__pydantic_private__,
    )


def outcome(build: Any) -> tuple[Any, ...] | str:
    """What ``build`` gives: a decision's whole state, its actions' and its dump, or the
    error it raised."""
    try:
        decision = build()
    except DecisionError as exc:
        return f"DecisionError: {exc}"
    assert decision.is_validated()
    return (
        state(decision)[0],
        decision.__pydantic_fields_set__,
        decision.__pydantic_private__,
        decision.rationale,
        [state(action) for action in decision.actions],
        decision.model_dump_json(),
    )


def checked(raw: dict[str, Any]) -> Decision:
    """The decision pydantic's path makes of ``raw``, marked as ``parse_decision`` marks it."""
    return schema._accepted(schema._checked(raw))


# each field's values: plainly valid ones first (so most answers are), then every other kind
symbols = st.one_of(
    st.sampled_from(["AAA", "JNJ"]),
    st.sampled_from(["", "\ud800", "é", "A B"]),
    st.text(max_size=3),
    st.integers(0, 2),
)
sides = st.one_of(st.sampled_from(["buy", "sell"]), st.sampled_from(["hold", "BUY", True, None]))
quantities = st.one_of(
    st.integers(0, 2**54),
    st.integers(0, 10**6).map(float),
    st.floats(),
    st.integers(-3, 2**60),
    st.sampled_from([-0.0, 2.5, 1e300, 2**53, 2**53 + 1, 2**1100, True, False, "3", None]),
)
limit_prices = st.one_of(
    st.floats(min_value=0.01, max_value=1e6),
    st.none(),
    st.floats(),
    st.sampled_from([0, 5, 0.0, -0.0, -1.5, 2**1100, True, "5"]),
)
order_types = st.one_of(st.sampled_from(["market", "limit"]), st.sampled_from(["stop", 1, None]))
optional = {"order_type": order_types, "limit_price": limit_prices}
mostly_whole = st.fixed_dictionaries(
    {"symbol": symbols, "side": sides, "quantity": quantities}, optional=optional
)
any_fields = st.fixed_dictionaries(
    {},
    optional={
        "symbol": symbols,
        "side": sides,
        "quantity": quantities,
        **optional,
        "x": st.just(1),
    },
)


@st.composite
def near_plain(draw: st.DrawFn) -> dict[str, Any]:
    """A plainly valid action (a market order, or a limit order with its price), with at
    most one field changed to any value or left out."""
    action: dict[str, Any] = {
        "symbol": draw(st.sampled_from(["AAA", "JNJ"])),
        "side": draw(st.sampled_from(["buy", "sell"])),
        "quantity": draw(st.one_of(st.integers(0, 2**53), st.integers(0, 10**6).map(float))),
    }
    if draw(st.booleans()):
        action["order_type"] = "limit"
        action["limit_price"] = draw(st.floats(min_value=0.01, max_value=1e6))
    elif draw(st.booleans()):
        action[draw(st.sampled_from(["order_type", "limit_price"]))] = draw(
            st.sampled_from(["market", None])
        )
    if draw(st.booleans()):
        changed = draw(st.sampled_from(list(_FIELDS)))
        if draw(st.booleans()):
            action.pop(changed, None)
        else:
            action[changed] = draw(_FIELDS[changed])
    return action


_FIELDS = {"symbol": symbols, "side": sides, "quantity": quantities, **optional}
actions = st.one_of(near_plain(), mostly_whole, any_fields, st.sampled_from([[], "buy", 3, None]))
rationales = st.one_of(st.text(max_size=4), st.sampled_from(["why", "\udfff", 7, None]))
answers = st.one_of(
    st.fixed_dictionaries(
        {"actions": st.lists(near_plain(), max_size=4)},
        optional={"rationale": st.one_of(st.sampled_from(["why", ""]), rationales)},
    ),
    st.fixed_dictionaries(
        {"actions": st.lists(actions, max_size=4)}, optional={"rationale": rationales}
    ),
    st.fixed_dictionaries(
        {},
        optional={
            "actions": st.one_of(st.lists(actions, max_size=2), st.just({}), st.none()),
            "rationale": rationales,
            "extra": st.just(1),
        },
    ),
)


@settings(max_examples=400)
@given(answers)
def test_a_plain_answer_is_built_as_validation_builds_it_or_refused_as_it_refuses(
    raw: dict[str, Any],
) -> None:
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))


@settings(max_examples=200)
@given(answers)
def test_a_plain_answer_in_json_text_is_what_its_data_gives(raw: dict[str, Any]) -> None:
    try:
        text = json.dumps(raw)
    except (TypeError, ValueError):
        return
    assert outcome(lambda: parse_decision(text)) == outcome(lambda: checked(json.loads(text)))


def plainly_valid() -> list[dict[str, Any]]:
    return [
        {"actions": [], "rationale": "hold"},
        {"actions": [{"symbol": "AAA", "side": "buy", "quantity": 3}]},
        {
            "actions": [
                {"symbol": "AAA", "side": "sell", "quantity": 2.0, "order_type": "market"},
                {"symbol": "B", "side": "buy", "quantity": 0, "limit_price": None},
                {
                    "symbol": "C",
                    "side": "buy",
                    "quantity": -0.0,
                    "order_type": "limit",
                    "limit_price": 98.94,
                },
                {"symbol": "D", "side": "sell", "quantity": 4, "order_type": "limit",
                 "limit_price": 42},
            ],
            "rationale": "trend: 4 orders",
        },
    ]  # fmt: skip


@pytest.mark.parametrize("raw", plainly_valid())
def test_a_plainly_valid_answer_is_built_without_pydantic(
    raw: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    reference = outcome(lambda: checked(raw))

    def refuse(*args: object, **kwargs: object) -> Decision:
        raise AssertionError("validated by pydantic")

    monkeypatch.setattr(Decision, "model_validate", refuse)
    assert outcome(lambda: parse_decision(raw)) == reference
    assert outcome(lambda: parse_decision(json.dumps(raw))) == reference


@pytest.mark.parametrize(
    "raw",
    [
        {"actions": [{"symbol": "AAA", "side": "buy", "quantity": 2**53 + 1}]},
        {"actions": [{"symbol": "AAA", "side": "buy", "quantity": 1.0}] * 10_001},
        {"actions": [{"symbol": "AAA", "side": "buy", "quantity": math.inf}]},
    ],
    ids=["int past 2**53", "more than 10,000 actions", "infinite"],
)
def test_an_answer_past_the_plain_bounds_goes_to_pydantic_and_gets_its_decision(
    raw: dict[str, Any],
) -> None:
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))


class _Twisted(dict):  # type: ignore[type-arg]
    """A dict that answers ``get`` and ``keys`` otherwise than its contents say."""

    def get(self, key: Any, default: Any = None) -> Any:
        return {"actions": [], "rationale": "twisted"}.get(key, default)

    def keys(self) -> Any:
        return {"actions": None}.keys()


def test_a_dict_subclass_is_read_as_pydantic_reads_it() -> None:
    raw = _Twisted(actions=[{"symbol": "AAA", "side": "buy", "quantity": 1.0}], note="x")
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))
    inner = _Twisted(symbol="AAA", side="buy", quantity=1.0)
    listed = {"actions": [inner]}
    assert outcome(lambda: parse_decision(listed)) == outcome(lambda: checked(listed))


@pytest.mark.parametrize(
    "side", [np.array(["buy", "sell"]), np.array(["buy"]), np.str_("buy")], ids=repr
)
def test_a_side_that_is_no_str_is_refused_as_pydantic_refuses_it(side: Any) -> None:
    raw = {"actions": [{"symbol": "AAA", "side": side, "quantity": 1.0}]}
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))
    orders = [("AAA", side, 1.0)]
    fast = outcome(lambda: Decision.of_market_orders(orders))
    slow = outcome(lambda: Decision.of([{"symbol": "AAA", "side": side, "quantity": 1.0}]))
    assert fast == slow


class _LooksLikeSide:
    """A key that hashes and compares as ``"side"`` but is not a str."""

    def __hash__(self) -> int:
        return hash("side")

    def __eq__(self, other: object) -> bool:
        return other == "side"


class _Name(str):
    pass


MARKET_ORDER = {"symbol": "AAA", "side": "buy", "quantity": 3.0}
LIMIT_ORDER = {**MARKET_ORDER, "order_type": "limit", "limit_price": 10.5}
# one field of a plainly valid order changed: each goes the way pydantic goes, to the bit
CHANGED = [
    ("quantity", True), ("quantity", False), ("quantity", 2.5), ("quantity", -1.0),
    ("quantity", math.nan), ("quantity", 2**53), ("quantity", 2**53 + 1), ("quantity", "3"),
    ("symbol", ""), ("symbol", " "), ("symbol", "é"), ("symbol", 7), ("side", "BUY"),
    ("side", None), ("order_type", "stop"), ("order_type", None), ("x", 1),
]  # fmt: skip
LIMITS = [0.0, -0.0, 0, -1.0, math.inf, math.nan, True, 42, 2**53, 2**53 + 1, "5", None]


@pytest.mark.parametrize(("field", "value"), CHANGED, ids=repr)
@pytest.mark.parametrize("order", [MARKET_ORDER, LIMIT_ORDER], ids=["market", "limit"])
def test_an_order_with_one_field_changed_is_decided_as_pydantic_decides_it(
    order: dict[str, Any], field: str, value: Any
) -> None:
    raw = {"actions": [MARKET_ORDER, {**order, field: value}], "rationale": "r"}
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))


@pytest.mark.parametrize("price", LIMITS, ids=repr)
def test_a_limit_price_of_any_kind_is_decided_as_pydantic_decides_it(price: Any) -> None:
    raw = {"actions": [{**LIMIT_ORDER, "limit_price": price}]}
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))


@pytest.mark.parametrize(
    "raw",
    [
        {"actions": [{"symbol": "AAA", _LooksLikeSide(): "buy", "quantity": 1.0}]},
        {"actions": [{"symbol": "AAA", _Name("side"): "buy", "quantity": 1.0}]},
        {_Name("actions"): [MARKET_ORDER]},
        {"actions": [MARKET_ORDER], _Name("rationale"): "r"},
    ],
    ids=["a key equal to side", "a str subclass key", "actions by a subclass", "rationale"],
)
def test_a_key_that_is_not_a_str_itself_goes_to_pydantic(raw: dict[Any, Any]) -> None:
    assert outcome(lambda: parse_decision(raw)) == outcome(lambda: checked(raw))


def test_more_limit_orders_than_an_answer_may_hold_are_refused_as_before() -> None:
    raw = {"actions": [LIMIT_ORDER] * (schema.MAX_ANSWER_ITEMS // 6 + 1)}
    refused = outcome(lambda: checked(raw))
    assert isinstance(refused, str) and "DecisionError" in refused
    assert outcome(lambda: parse_decision(raw)) == refused
