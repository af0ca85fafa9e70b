"""A live run of 5 arms whose model answers after 200 ms: wall time vs the slowest arm.

    python bench/live.py

Each arm is an async function that sleeps 200 ms (the model's latency) and then
answers; arms are asked every step of 2 days x 6 steps (11 decisions each). The
baseline measured in this run is the slowest arm's own total latency: asked one
after another the run would cost the sum of all five; asked concurrently it
should cost about the slowest one. Target: wall <= 1.2 x the slowest arm.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from workbench.evaluation import evaluate
from workbench.integrations import callable_agent

LATENCY_S = 0.2
TARGET = 1.2


def model_with_latency(seconds: float):
    async def answer(payload: dict[str, Any]) -> dict[str, Any]:
        await asyncio.sleep(seconds)
        return {"actions": [], "rationale": "hold"}

    return answer


def main() -> None:
    arms = [
        callable_agent(model_with_latency(LATENCY_S * (1 + i / 20)), name=f"llm{i}", every=1)
        for i in range(5)
    ]
    started = time.perf_counter()
    results = evaluate(arms, seed=1, universe=40, days=2)
    wall = time.perf_counter() - started
    latency = results.scorecard["latency_s"]
    slowest, total = float(latency.max()), float(latency.sum())
    decisions = int(results.scorecard["decisions"].iloc[0])
    print(f"5 arms x {decisions} decisions, model latency 200-240 ms")
    print(
        f"  wall {wall:.2f} s   slowest arm {slowest:.2f} s   "
        f"all arms one after another {total:.2f} s"
    )
    print(f"  wall / slowest arm = {wall / slowest:.2f}   (target <= {TARGET})")


if __name__ == "__main__":
    main()
