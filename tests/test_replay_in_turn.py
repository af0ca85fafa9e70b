"""A replay answered in turn (no coroutine per decision) keeps what the task path keeps:
the same decision-log entries, usage, failures and results, answer by answer."""

from __future__ import annotations

from typing import Any

from workbench.errors import FrameworkError
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent

MARKET: dict[str, Any] = {"seed": 11, "universe": 5, "days": 3}


def moody(payload: dict[str, Any]) -> Any:
    """Buys, answers nonsense or fails, by step: every outcome a replay must give again."""
    turn = (payload["day"] * 6 + payload["step"]) % 3
    if turn == 1:
        return {"actions": [{"symbol": "nowhere", "side": "up", "quantity": -1}]}
    if turn == 2:
        raise FrameworkError("the model is down")
    symbol = sorted(payload["symbols"])[payload["day"] % 5]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 3.0}], "rationale": "go"}


def forget_symbols(raw: Any, payload: dict[str, Any]) -> Any:
    """A postprocess that changes its copy of the payload, as a researcher's may."""
    payload["symbols"].clear()
    return raw


class _AskedByTask(CallableAgentAdapter):
    in_turn = False  # the coroutine path the in-turn one must match


def _replayed(kind: type[CallableAgentAdapter], recorder: Any) -> tuple[Any, ...]:
    arm = kind(
        None, name="moody", mode="replay", every=1, postprocess=forget_symbols, transcript=recorder
    )
    results = evaluate([arm, "momentum"], **MARKET)
    return arm.in_turn, results.digest(), arm.decision_log, arm.usage


def test_an_in_turn_replay_logs_every_outcome_as_the_task_path_does() -> None:
    live = callable_agent(moody, name="moody", mode="record", every=1, postprocess=forget_symbols)
    recorded = evaluate([live, "momentum"], **MARKET)
    in_turn = _replayed(CallableAgentAdapter, live.recorder)
    by_task = _replayed(_AskedByTask, live.recorder)
    assert (in_turn[0], by_task[0]) == (True, False)
    assert in_turn[1] == by_task[1] == recorded.digest()
    assert in_turn[2] == by_task[2]  # entries, errors included, field by field
    errors = [entry["error"] for entry in in_turn[2] if "error" in entry]
    assert any(e.startswith("DecisionError") for e in errors)
    assert any(e.startswith("FrameworkError: the model is down") for e in errors)
    assert in_turn[3].model_calls == by_task[3].model_calls == len(in_turn[2])
    assert in_turn[3].latency_s == by_task[3].latency_s  # the recorded latencies
