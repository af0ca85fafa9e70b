"""Stage-one validation: structure. Every malformed decision is a DecisionError."""

from __future__ import annotations

import copy
import json
import math
import pickle
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import schema
from workbench.errors import DecisionError
from workbench.schema import (
    DECISION_SCHEMA_VERSION,
    OBSERVATION_SCHEMA_VERSION,
    ORDER_TYPES,
    SIDES,
    Action,
    Decision,
    decision_json_schema,
    parse_decision,
    refuse_deep,
)


def action(**overrides: object) -> dict[str, object]:
    return {"symbol": "AAA", "side": "buy", "quantity": 10, **overrides}


def test_constants_match_the_contract() -> None:
    assert SIDES == ("buy", "sell")
    assert ORDER_TYPES == ("market", "limit")
    assert DECISION_SCHEMA_VERSION == "2"
    assert OBSERVATION_SCHEMA_VERSION == "2"  # 1 still served on a market with no news


def test_a_good_decision_parses_from_dict_json_and_model() -> None:
    raw = {"actions": [action(), action(side="sell", order_type="limit", limit_price=9.5)]}
    decision = parse_decision(raw)
    assert parse_decision(json.dumps(raw)) == decision
    assert parse_decision(decision) == decision
    assert decision.actions[1].limit_price == 9.5


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"actions": [action(side="hold")]}, "side"),
        ({"actions": [action(quantity=-1)]}, "quantity"),
        ({"actions": [action(quantity=math.nan)]}, "finite"),
        ({"actions": [action(quantity=math.inf)]}, "finite"),
        ({"actions": [action(quantity=2.5)]}, "whole number"),
        ({"actions": [action(quantity="5")]}, "quantity"),
        ({"actions": [action(order_type="limit")]}, "limit_price"),
        ({"actions": [action(limit_price=3.0)]}, "market order takes no limit_price"),
        ({"actions": [action(order_type="stop")]}, "order_type"),
        ({"actions": [action(colour="red")]}, "colour"),
        ({"actions": [], "confidence": 0.9}, "confidence"),
        ({"rationale": "no actions"}, "actions"),
        ("not json", "not valid JSON"),
        (["a", "list"], "must be an object"),
        (None, "must be an object"),
    ],
)
def test_malformed_decisions_name_the_fault(raw: object, fragment: str) -> None:
    with pytest.raises(DecisionError, match=fragment):
        parse_decision(raw)


def test_the_bound_schema_forbids_extras_and_enumerates_sides() -> None:
    schema = decision_json_schema()
    action_schema = schema["$defs"]["Action"]
    assert action_schema["additionalProperties"] is False
    assert action_schema["properties"]["side"]["enum"] == list(SIDES)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
action_like = st.fixed_dictionaries(
    {},
    optional={
        "symbol": json_values | st.sampled_from(["AAA", ""]),
        "side": json_values | st.sampled_from(["buy", "sell"]),
        "quantity": json_values,
        "order_type": json_values | st.sampled_from(["market", "limit"]),
        "limit_price": json_values,
        "extra": json_values,
    },
)


# never fewer examples than before the suite's profile (the thorough one gives more)
@settings(max_examples=max(400, settings.default.max_examples))
@given(st.fixed_dictionaries({"actions": st.lists(action_like, max_size=3)}) | json_values)
@pytest.mark.slow
def test_fuzzed_input_either_parses_cleanly_or_raises_decision_error(raw: object) -> None:
    try:
        decision = parse_decision(raw)
    except DecisionError:
        return
    assert isinstance(decision, Decision)
    for parsed in decision.actions:
        assert parsed.side in SIDES and parsed.order_type in ORDER_TYPES
        assert math.isfinite(parsed.quantity) and parsed.quantity >= 0
        assert parsed.quantity.is_integer()
        assert (parsed.limit_price is None) == (parsed.order_type == "market")


valid_action = st.builds(
    lambda symbol, side, quantity, limit: {
        "symbol": symbol,
        "side": side,
        "quantity": quantity,
        **({"order_type": "limit", "limit_price": limit} if limit else {}),
    },
    st.sampled_from(["AAA", "BBB"]),
    st.sampled_from(SIDES),
    st.integers(0, 10**6),
    st.none() | st.floats(0.01, 1e4),
)
mutations = st.sampled_from(
    [
        ("side", "short"),
        ("quantity", -1),
        ("quantity", 0.5),
        ("quantity", math.nan),
        ("quantity", "7"),
        ("order_type", "stop"),
        ("limit_price", 0.0),
        ("symbol", ""),
        ("venue", "dark"),
    ]
)


@settings(max_examples=max(300, settings.default.max_examples))
@given(st.lists(valid_action, min_size=1, max_size=4), st.data())
@pytest.mark.slow
def test_valid_actions_parse_and_one_bad_field_is_always_caught(
    actions: list, data: st.DataObject
) -> None:
    decision = parse_decision({"actions": actions})
    assert [a.quantity for a in decision.actions] == [float(a["quantity"]) for a in actions]
    index = data.draw(st.integers(0, len(actions) - 1))
    field, value = data.draw(mutations)
    broken = [dict(a) for a in actions]
    broken[index][field] = value
    with pytest.raises(DecisionError, match=f"actions.{index}"):
        parse_decision({"actions": broken})


def test_the_schema_a_model_sees_asks_for_whole_shares_as_an_integer() -> None:
    from workbench.schema import decision_json_schema

    quantity = decision_json_schema()["$defs"]["Action"]["properties"]["quantity"]
    assert quantity["type"] == "integer" and quantity["minimum"] == 0
    assert parse_decision({"actions": [action(quantity=10.0)]}).actions[0].quantity == 10


def _counting_validations(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    original = Decision.model_validate.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Decision], obj: object, **kwargs: object) -> Decision:
        seen.append(obj)
        return original(cls, obj, **kwargs)

    monkeypatch.setattr(Decision, "model_validate", classmethod(counted))
    return seen


def test_a_parsed_decision_is_taken_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = parse_decision({"actions": [action()], "rationale": "r"})
    built = Decision(actions=[Action(symbol="AAA", side="sell", quantity=3.0)])
    validations = _counting_validations(monkeypatch)
    assert parse_decision(parsed) is parsed
    assert validations == []
    again = parse_decision(built)  # built by hand: validated, once
    assert again == built and len(validations) == 1
    assert parse_decision(again) is again and len(validations) == 1


def test_a_decision_built_without_validation_is_validated() -> None:
    bad = Action.model_construct(symbol="AAA", side="buy", quantity=-5.0)
    with pytest.raises(DecisionError, match="greater than or equal to 0"):
        parse_decision(Decision.model_construct(actions=[bad], rationale=""))
    checked = parse_decision({"actions": [action()]})
    with pytest.raises(DecisionError, match="greater than or equal to 0"):
        parse_decision(checked.model_copy(update={"actions": [bad]}))
    with pytest.raises(DecisionError, match="greater than or equal to 0"):
        parse_decision(Decision(actions=[bad]))  # pydantic takes an Action instance as it is
    with pytest.raises(DecisionError, match="greater than or equal to 0"):
        parse_decision({"actions": [bad]})


def test_the_validation_mark_travels_with_the_decision_and_is_no_part_of_its_value() -> None:
    checked = parse_decision({"actions": [action()], "rationale": "r"})
    for copied in (
        checked.model_copy(),
        copy.deepcopy(checked),
        pickle.loads(pickle.dumps(checked)),
    ):
        assert copied.is_validated() and parse_decision(copied) is copied
    by_pydantic = Decision.model_validate(checked.model_dump())  # not through parse_decision
    assert not by_pydantic.is_validated() and by_pydantic == checked
    assert by_pydantic.model_dump() == checked.model_dump() and repr(by_pydantic) == repr(checked)
    assert "_validated_as" not in checked.model_dump_json()


def test_a_validated_decision_whose_actions_changed_is_validated_again() -> None:
    checked = parse_decision({"actions": [action()]})
    checked.actions.append(Action.model_construct(symbol="", side="buy", quantity=1.0))
    with pytest.raises(DecisionError, match=r"actions\.1\.symbol"):
        parse_decision(checked)


def test_a_decision_built_with_an_unpaired_surrogate_is_refused_as_before() -> None:
    with pytest.raises(DecisionError, match="rationale holds an unpaired surrogate at character 4"):
        parse_decision(Decision(actions=[], rationale="bad \udc80"))


def _walk_one_by_one(value: object, depth: int, items: int) -> str:
    """refuse_deep's walk, one value at a time: the refusal it must give, or ''."""
    stack, seen = [(value, 1)], 0
    while stack:
        item, level = stack.pop()
        seen += 1
        if seen > items:
            return "items"
        if isinstance(item, dict | list | tuple):
            if level > depth:
                return f"depth {level}"
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return ""


def _random_tree(rng: random.Random, deepest: int, level: int = 1) -> object:
    if level > deepest or rng.random() < 0.25:
        return rng.choice([1, "x", None, 2.5])
    children = [_random_tree(rng, deepest, level + 1) for _ in range(rng.randrange(0, 7))]
    return dict(enumerate(children)) if rng.random() < 0.4 else children


def test_the_depth_and_size_refusals_follow_a_walk_one_value_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(7)
    monkeypatch.setattr(schema, "MAX_ANSWER_DEPTH", 4)
    monkeypatch.setattr(schema, "MAX_ANSWER_ITEMS", 30)
    outcomes = set()
    for _ in range(1_500):
        tree = _random_tree(rng, deepest=rng.randrange(1, 8))
        want = _walk_one_by_one(tree, 4, 30)
        try:
            refuse_deep(tree)
            got = ""
        except DecisionError as exc:
            got = "items" if "values" in str(exc) else f"depth {str(exc).split()[4]}"
        assert got == want, tree
        outcomes.add(want.split()[0] if want else want)
    assert outcomes == {"", "items", "depth"}


def _text_depth_char_by_char(text: str) -> int:
    """The deepest bracket nesting outside JSON strings, one character at a time."""
    level = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            level += 1
            deepest = max(deepest, level)
        elif char in "]}":
            level -= 1
    return deepest


def _random_text(rng: random.Random) -> str:
    """Brackets (balanced or not), plain characters and string literals holding brackets,
    quotes and backslashes."""
    tokens = ["[", "{", "]", "}", "1", ",", ":", " "]
    parts = []
    for _ in range(rng.randrange(0, 60)):
        if rng.random() < 0.15:
            parts.append(json.dumps("".join(rng.choice('[]{}"\\a') for _ in range(5))))
        else:
            parts.append(rng.choice(tokens[:4] * 3 + tokens[4:]))
    return "".join(parts)


def test_text_is_refused_at_the_depth_a_walk_one_character_at_a_time_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(11)
    monkeypatch.setattr(schema, "MAX_ANSWER_DEPTH", 4)
    refused = 0
    for _ in range(3_000):
        text = _random_text(rng)
        deepest = _text_depth_char_by_char(text)
        try:
            parse_decision(text)
            got = 0
        except DecisionError as exc:
            found = re.search(r"nested (\d+) levels deep", str(exc))
            got = int(found.group(1)) if found else 0
        assert got == (deepest if deepest > 4 else 0), text
        refused += got > 0
    assert refused > 500


def test_a_decision_of_plain_data_is_validated_once_and_taken_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built = Decision.of([action(quantity=5.0)], rationale="rebalance")
    assert built == parse_decision({"actions": [action(quantity=5.0)], "rationale": "rebalance"})
    validations = _counting_validations(monkeypatch)
    assert parse_decision(built) is built and validations == []
    with pytest.raises(DecisionError, match=r"actions\.0\.quantity"):
        Decision.of([action(quantity=2.5)])
    bad = Action.model_construct(symbol="AAA", side="buy", quantity=-5.0)
    with pytest.raises(DecisionError, match="greater than or equal to 0"):
        Decision.of([bad])  # type: ignore[list-item]
