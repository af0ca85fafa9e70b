"""The framework adapters live: concurrency under latency, and each framework's own cost.

    python bench/frameworks.py

1. Five framework arms (two OpenAI Agents, PydanticAI, LangGraph in both input
   shapes), each on a scripted model that answers after 200-240 ms, asked at
   every step of 2 days. Baseline measured in this run: the slowest arm's own
   total latency. Target: wall <= 1.2 x the slowest arm (arms are asked
   concurrently, so the run should cost about the slowest one, not the sum).
2. The CPU each framework adds per decision with a zero-latency model, beside a
   plain callable arm measured in the same run (floor: the same market with no
   model-backed arm).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from workbench.evaluation import evaluate
from workbench.integrations import callable_agent
from workbench.testing import trend_policy
from workbench.testing.framework_arms import langgraph_arm, openai_agents_arm, pydantic_ai_arm

LATENCY_S = 0.2
TARGET = 1.2
MARKET: dict[str, Any] = {"seed": 1, "universe": 40, "days": 2}


def concurrency() -> None:
    def delay(i: int) -> float:
        return LATENCY_S * (1 + i / 20)

    arms = [
        openai_agents_arm(name="openai-1", delay=delay(0), every=1),
        openai_agents_arm(name="openai-2", delay=delay(1), every=1),
        pydantic_ai_arm(name="pydantic-ai", delay=delay(2), every=1),
        langgraph_arm(name="lg-messages", delay=delay(3), every=1),
        langgraph_arm(name="lg-state", shape="state", delay=delay(4), every=1),
    ]
    started = time.perf_counter()
    card = evaluate(arms, **MARKET).scorecard
    wall = time.perf_counter() - started
    slowest, total = float(card["latency_s"].max()), float(card["latency_s"].sum())
    print(f"5 framework arms x {int(card['decisions'].iloc[0])} decisions, latency 200-240 ms")
    print(f"  wall {wall:.2f} s   slowest arm {slowest:.2f} s   one after another {total:.2f} s")
    print(f"  wall / slowest arm = {wall / slowest:.2f}   (target <= {TARGET})")


def cpu(make: Callable[[], list[Any]], repeat: int = 3) -> tuple[float, int]:
    """Best CPU seconds of ``repeat`` runs, and the decisions the first arm made."""
    best, decisions = float("inf"), 0
    for _ in range(repeat):
        arms = make()
        started = time.process_time()
        card = evaluate(arms, **MARKET).scorecard
        best = min(best, time.process_time() - started)
        decisions = int(card["decisions"].iloc[0])
    return best, decisions


def overhead() -> None:
    floor, _ = cpu(lambda: ["buy_and_hold"])
    builders: dict[str, Callable[[], Any]] = {
        "callable": lambda: callable_agent(trend_policy, name="arm", every=1),
        "openai-agents": lambda: openai_agents_arm(name="arm", every=1),
        "pydantic-ai": lambda: pydantic_ai_arm(name="arm", every=1),
        "langgraph": lambda: langgraph_arm(name="arm", every=1),
    }
    print(f"CPU per decision above the floor (a {floor * 1e3:.1f} ms run with no model arm)")
    for name, build in builders.items():
        spent, decisions = cpu(lambda build=build: [build(), "buy_and_hold"])
        print(f"  {name:14s} {(spent - floor) / decisions * 1e3:6.2f} ms  ({decisions} decisions)")


if __name__ == "__main__":
    for build in (openai_agents_arm, pydantic_ai_arm, langgraph_arm):  # import cost up front
        build()
    concurrency()
    overhead()
