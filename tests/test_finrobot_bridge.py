"""The FinRobot bridge's own logic, which runs without FinRobot (its import is lazy)."""

from __future__ import annotations

from types import SimpleNamespace

from workbench.testing import finrobot_bridge as bridge


def test_the_first_object_with_actions_is_the_decision() -> None:
    text = 'Market: {"BNH": 1} so {"actions": [], "rationale": "hold"} done'
    assert bridge.decision_in(text) == {"actions": [], "rationale": "hold"}


def test_a_reply_without_a_decision_is_kept_whole() -> None:
    text = 'I think {"last": 28.1, "recent": [28.0]} looks fine'
    assert bridge.decision_in(text) == text


def test_tokens_are_counted_per_call_from_running_totals() -> None:
    usage = bridge.Usage()

    def result(prompt: int, completion: int) -> SimpleNamespace:
        totals = {"m": {"prompt_tokens": prompt, "completion_tokens": completion}}
        return SimpleNamespace(cost={"usage_including_cached_inference": totals})

    assert usage.of(result(11, 5)) == {"input_tokens": 11, "output_tokens": 5, "model_calls": 1}
    assert usage.of(result(30, 9)) == {"input_tokens": 19, "output_tokens": 4, "model_calls": 1}


def test_the_prompt_keeps_five_closes_and_the_book() -> None:
    quote = {"last": 3.0, "history": [1.0, 2.0, 2.5, 2.6, 2.8, 2.9, 3.0], "max_order": 9}
    payload = {"symbols": {"AAA": quote}, "portfolio": {"cash": 10.0, "positions": {}}}
    text = bridge.summary(payload)
    assert '"recent": [2.5, 2.6, 2.8, 2.9, 3.0]' in text and '"cash": 10.0' in text
