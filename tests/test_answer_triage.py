"""One triage rule: whatever an agent answers, it is a decision or a DecisionError.

Never a FrameworkError from our own validator, never a crash: not for a bare
number, NaN, ``{"actions": true}``, text nested thousands deep, an answer of
megabytes, or an unpaired surrogate; and not in record mode either, where the
answer must also be written and read back. The fuzzing below sends over ten
thousand generated answers through the real evaluation, live and recorded.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from workbench.errors import DecisionError
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent
from workbench.schema import MAX_ANSWER_CHARS, MAX_ANSWER_DEPTH, Decision, parse_decision

MALFORMED: dict[str, Any] = {
    "actions is true": {"actions": True},
    "actions is a number": {"actions": 5},
    "actions is NaN": {"actions": math.nan},
    "a bare int": 5,
    "a bare float": 1.5,
    "a bare NaN": math.nan,
    "a bare infinity": -math.inf,
    "a list": [1, 2],
    "true": True,
    "nested JSON text": "[" * 5000 + "]" * 5000,
    "nested object text": '{"a":' * 3000 + "1" + "}" * 3000,
    "nested data": json.loads("[" * 500 + "]" * 500),
    "JSON NaN text": '{"actions": [{"symbol": "A", "side": "buy", "quantity": NaN}]}',
    "huge text": '{"actions": [], "rationale": "' + "x" * MAX_ANSWER_CHARS + '"}',
    "many actions": {"actions": [{}] * 200_000},
    "not UTF-8": b"\xff\xfe",
    "a surrogate rationale": {"actions": [], "rationale": "\udc80"},
    "a surrogate symbol": {"actions": [{"symbol": "\ud800", "side": "buy", "quantity": 1}]},
    "a surrogate in text": '{"actions": [], "rationale": "\\ud800"}',
    "actions of numbers": {"actions": [1, 2.5, None]},
}


@pytest.mark.parametrize("raw", list(MALFORMED.values()), ids=list(MALFORMED))
@pytest.mark.slow
def test_every_malformed_answer_is_a_decision_error(raw: Any) -> None:
    with pytest.raises(DecisionError):
        parse_decision(raw)


def test_depth_and_size_limits_say_what_is_allowed() -> None:
    with pytest.raises(DecisionError, match=f"at most {MAX_ANSWER_DEPTH}"):
        parse_decision("[" * 5000 + "]" * 5000)
    with pytest.raises(DecisionError, match="characters long"):
        parse_decision(MALFORMED["huge text"])
    brackets_in_a_string = json.dumps({"actions": [], "rationale": "[" * 5000})
    assert parse_decision(brackets_in_a_string).rationale == "[" * 5000


@pytest.mark.parametrize("raw", list(MALFORMED.values())[:12], ids=list(MALFORMED)[:12])
@pytest.mark.slow
def test_a_malformed_answer_is_an_error_row_live_and_when_recorded(
    raw: Any, tmp_path: Path
) -> None:
    for mode in ("live", "record"):
        arm = callable_agent(lambda p: raw, name="bad", every=6, mode=mode)
        result = evaluate([arm], seed=1, universe=2, days=1)
        assert result.errors["kind"].tolist() == ["DecisionError"], result.errors


# --- fuzzing -----------------------------------------------------------------------------
def _value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(10 if depth < 3 else 6)
    simple = [
        None,
        True,
        rng.randint(-5, 10**7),
        rng.uniform(-1e6, 1e6),
        rng.choice([math.nan, math.inf, -math.inf, -0.0, 1e308]),
        rng.choice(["", "buy", "sell", "limit", "AAA", "\ud800", "\U0001f600", "[{"]),
    ]
    if kind < 6:
        return simple[kind]
    if kind < 8:
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["actions", "rationale", "symbol", "x"]): _value(rng, depth + 1)}


def _action(rng: random.Random, symbols: list[str]) -> dict[str, Any]:
    action: dict[str, Any] = {
        "symbol": rng.choice([*symbols, "ZZZ"]),
        "side": rng.choice(["buy", "sell"]),
        "quantity": float(rng.randint(0, 5000)),
    }
    if rng.random() < 0.3:
        action.update(order_type="limit", limit_price=round(rng.uniform(1, 200), 2))
    if rng.random() < 0.3:  # one field broken
        action[rng.choice(["symbol", "side", "quantity", "order_type", "limit_price", "x"])] = (
            _value(rng)
        )
    return action


def _answer(rng: random.Random, payload: dict[str, Any]) -> Any:
    symbols = sorted(payload["symbols"])
    decision = {
        "actions": [_action(rng, symbols) for _ in range(rng.randrange(4))],
        "rationale": rng.choice(["", "why", "\ud83d", "x" * 50]),
    }
    pick = rng.randrange(8)
    if pick == 0:
        return _value(rng)
    if pick == 1:
        return json.dumps(decision, allow_nan=True)
    if pick == 2:
        return "[" * rng.randrange(1, 3000) + "]" * rng.randrange(3000)
    if pick == 3:
        return {"actions": _value(rng), "rationale": _value(rng)}
    if pick == 4:
        return Decision.model_construct(actions=[], rationale=rng.choice(["ok", "\udfff"]))
    return decision


def _fuzzed_arms(seed: int, count: int, mode: str, tmp_path: Path) -> list[Any]:
    arms = []
    for i in range(count):
        rng = random.Random(seed * 1000 + i)

        async def answer(payload: dict[str, Any], rng: random.Random = rng) -> Any:
            return _answer(rng, payload)

        recorder = tmp_path / f"fuzz{i}.json" if mode == "record" else None
        arms.append(callable_agent(answer, name=f"f{i}", every=1, mode=mode, recorder=recorder))
    return arms


def _check(result: Any) -> int:
    decisions = int(result.scorecard["decisions"].sum())
    assert set(result.errors["kind"]) <= {"DecisionError"}, result.errors["kind"].value_counts()
    assert len(result.errors) < decisions  # valid answers got through and traded
    return decisions


@pytest.mark.slow
def test_fuzzed_answers_are_decisions_or_decision_errors(tmp_path: Path) -> None:
    result = evaluate(_fuzzed_arms(1, 6, "live", tmp_path), seed=2, universe=4, days=20)
    assert _check(result) == 6 * (20 * 6 - 1)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["live", "record"])
def test_ten_thousand_fuzzed_decisions_live_and_recorded(mode: str, tmp_path: Path) -> None:
    arms = _fuzzed_arms(7, 10, mode, tmp_path)
    market: dict[str, Any] = {"seed": 9, "universe": 4, "days": 90}
    result = evaluate(arms, **market)
    assert _check(result) == 10 * (90 * 6 - 1)  # 5,390 per mode, 10,780 in all
    if mode == "record":
        replayed = [
            CallableAgentAdapter(
                None, name=f"f{i}", every=1, mode="replay", transcript=tmp_path / f"fuzz{i}.json"
            )
            for i in range(10)
        ]
        assert evaluate(replayed, **market).digest() == result.digest()
