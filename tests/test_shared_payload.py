"""A shared payload's replay key and private copies, built from its parts: the key always
``digest``'s own, each copy as deep as a pickled one."""

from __future__ import annotations

import copy
import math
import pickle
from typing import Any

import pytest

from workbench._jsonio import digest
from workbench.errors import ConfigError
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter
from workbench.integrations._shared_payload import deep_copy, payload_copy, payload_key
from workbench.testing.scripted import trend_follower


def _payloads_seen(**market: Any) -> list[dict[str, Any]]:
    """The payloads two recording arms were asked with, shared parts and all."""
    seen: list[dict[str, Any]] = []

    def spy(payload: dict[str, Any]) -> str:
        seen.append(payload)
        return trend_follower(payload)

    arms = [
        CallableAgentAdapter(spy, name="a", every="step", mode="record"),
        CallableAgentAdapter(spy, name="b", every="step", mode="record"),
    ]
    evaluate(arms, **market)
    for arm in arms:
        assert arm.recorder is not None
        for exchange in arm.recorder:
            assert exchange.key == digest(exchange.input)
    return seen


def test_the_key_of_every_payload_of_a_run_is_its_digest() -> None:
    seen = _payloads_seen(seed=3, universe=8, days=3)
    assert len(seen) == 2 * 3 * 6 - 2  # both arms at every step but the last
    for payload in seen:
        assert payload_key(payload) == digest(payload)
        assert payload_key(copy.deepcopy(payload)) == digest(payload)  # no part known yet


def test_a_part_changed_in_a_new_object_changes_the_key() -> None:
    payload = _payloads_seen(seed=3, universe=4, days=1)[0]
    before = payload_key(payload)
    moved = {**payload, "symbols": copy.deepcopy(payload["symbols"])}
    first = next(iter(moved["symbols"]))
    moved["symbols"][first]["last"] += 0.01
    assert payload_key(moved) == digest(moved) != before
    assert payload_key(payload) == before


@pytest.mark.parametrize(
    "payload",
    [
        {},
        {"b": 1e-5, "a": [1, None, 1e-7, 2e16]},  # floats json writes otherwise than orjson
        {"x": {"y": 2**70}},  # an integer orjson cannot write whole
        {1: "a", 2: "b"},  # keys json writes as strings
        {"é": 1, "e": [2], "z": "\u2028", "": {}},
        [{"a": 1}, {"b": 2}],  # not a mapping: digested whole
    ],
)
def test_the_key_of_odd_payloads_is_their_digest(payload: Any) -> None:
    assert payload_key(payload) == digest(payload)


@pytest.mark.parametrize("bad", [math.nan, math.inf, [1.0, -math.inf], {"p": math.nan}])
def test_a_payload_holding_nan_or_infinity_is_refused_as_digest_refuses_it(bad: Any) -> None:
    shared = {"symbols": {"A": {"last": 1.0}}}
    payload_key(shared)  # its parts known, the bad one is still looked at
    with pytest.raises(ConfigError, match="NaN and infinity"):
        payload_key({**shared, "macro": bad})


def test_a_copy_is_the_payload_key_for_key_and_changing_it_changes_nothing_else() -> None:
    payload = _payloads_seen(seed=3, universe=4, days=1)[0]
    payload["extra"] = ({"inside": [1.0]}, "text")  # a tuple is copied whole too
    kept = copy.deepcopy(payload)
    first, second = payload_copy(payload), payload_copy(payload)
    assert first == payload and list(first) == list(payload)
    symbol = next(iter(first["symbols"]))
    first["symbols"][symbol]["history"].append(1.0)
    first["portfolio"]["positions"]["X"] = 1.0
    first["extra"][0]["inside"].clear()
    first["macro"].clear()
    assert payload == kept and second == kept
    assert payload_copy(payload) == kept


def test_a_copy_of_plain_parts_shares_only_immutable_values() -> None:
    payload = _payloads_seen(seed=3, universe=4, days=1)[0]
    copied = payload_copy(payload)

    def containers(value: Any) -> list[Any]:
        inside = value.values() if isinstance(value, dict) else value
        found = [value]
        for item in inside if isinstance(value, dict | list) else ():
            found += containers(item)
        return found

    mine = {id(c) for c in containers(payload) if isinstance(c, dict | list)}
    assert copied == payload
    assert not mine & {id(c) for c in containers(copied) if isinstance(c, dict | list)}


@pytest.mark.parametrize(
    "part",
    [
        {"a": ({"inside": [1.0]}, "text")},  # a tuple: copied by pickle, a tuple still
        {1: [1.0], 2: {"b": [2.0]}},  # keys that are not strings
        [{"a": [1.0]}, {1, 2}],  # a set inside a list
        {"deep": [[[[[1.0]]]]], "n": math.pi},
    ],
)
def test_a_part_copies_as_pickle_copies_it(part: Any) -> None:
    kept = copy.deepcopy(part)
    copied = payload_copy({"part": part})["part"]
    assert copied == kept and type(copied) is type(part)
    assert copied is not part
    assert pickle.loads(pickle.dumps(part)) == copied
    copied_again = payload_copy({"part": part})["part"]
    assert copied_again is not copied and copied_again == kept


def test_a_deep_copy_of_a_value_changed_since_is_of_its_new_value() -> None:
    answer: dict[str, Any] = {"picks": [{"symbol": "A", "side": "buy"}], "conviction": 0.5}
    odd = {"when": ({"a": [1]},)}  # not plain: through pickle, never kept
    first, first_odd = deep_copy(answer), deep_copy(odd)
    answer["picks"].append({"symbol": "B", "side": "sell"})
    odd["when"][0]["a"].append(2)
    assert deep_copy(answer) == answer != first
    assert deep_copy(odd) == odd != first_odd
    assert first_odd == {"when": ({"a": [1]},)}
