"""A run's arms are freed as soon as nothing holds them, without the cyclic collector: a
replayed arm holds its transcript, and a cycle through it would keep every parsed
exchange alive until the collector's full pass."""

from __future__ import annotations

import gc
import weakref
from typing import Any

from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent

MARKET: dict[str, Any] = {"seed": 4, "universe": 4, "days": 2}


def buy_one(payload: dict[str, Any]) -> dict[str, Any]:
    symbol = sorted(payload["symbols"])[payload["step"] % 4]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 1.0}], "rationale": "one"}


def _recorded_and_replayed() -> list[weakref.ref[Any]]:
    """A recording and its replay run; weak references to both arms and the transcript."""
    live = callable_agent(buy_one, name="arm", mode="record", every=1)
    evaluate([live, "momentum"], **MARKET)
    again = CallableAgentAdapter(None, name="arm", mode="replay", every=1, transcript=live.recorder)
    evaluate([again, "momentum"], **MARKET)
    assert again.usage.model_calls == live.calls_made > 0  # every answer replayed
    return [weakref.ref(live), weakref.ref(again), weakref.ref(again.transcript)]


def test_a_recorded_and_a_replayed_arm_are_freed_without_the_collector() -> None:
    gc.collect()
    gc.disable()
    try:
        held = _recorded_and_replayed()
        assert [ref() for ref in held] == [None, None, None]
    finally:
        gc.enable()
