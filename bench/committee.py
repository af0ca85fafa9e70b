"""A live run of the reference committee with simulated model latency per role.

    python bench/committee.py

Every role answers with its offline script after a fixed delay standing in for
its model (quick roles 200-300 ms, deep roles 400 ms). Reported per decision:
the wall time, the sum of its role latencies (what the committee would cost
asked one role after another) and the critical path the topology allows (the
slowest analyst, then every debate turn, manager, trader and executor in turn),
which is the baseline the wall time is held to. The committee runs beside two
baselines in one evaluation, as an ordinary arm.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from workbench.committee import CallableModel, Committee, ScriptedModel
from workbench.committee.models import Reply, read_prompt
from workbench.committee.scripted import REFERENCE_SCRIPTS
from workbench.evaluation import evaluate
from workbench.transcript import Transcript

LATENCY_S = {
    "market_analyst": 0.2,
    "macro_analyst": 0.25,
    "fundamentals_analyst": 0.3,
    "research_manager": 0.4,
    "portfolio_manager": 0.4,
}
DEFAULT_S = 0.2
TARGET = 1.1  # wall per decision <= 1.1 x the critical path


def slow_model(name: str) -> CallableModel:
    scripted = ScriptedModel(name, REFERENCE_SCRIPTS)

    async def answer(prompt: str) -> Reply:
        await asyncio.sleep(LATENCY_S.get(read_prompt(prompt)[0], DEFAULT_S))
        return await scripted.complete(prompt)

    return CallableModel(answer, name=name)


def critical_path(committee: Committee) -> float:
    def latency(role: str) -> float:
        return LATENCY_S.get(role, DEFAULT_S)

    total = latency(committee.spec.executor.role)
    for phase in committee.spec.phases:
        roles = [r.role for r in phase.roles]
        if phase.kind == "debate":
            total += phase.rounds * sum(latency(r) for r in roles)
        else:
            total += max(latency(r) for r in roles)
    return total


def main() -> None:
    recorder = Transcript()
    models = {key: slow_model(f"slow-{key}") for key in ("quick", "deep")}
    committee = Committee(models=models, recorder=recorder, every=2)
    started = time.perf_counter()
    results = evaluate([committee, "momentum", "equal_weight"], seed=1, universe=10, days=1)
    wall = time.perf_counter() - started
    card = results.scorecard.loc[committee.name]
    decisions = int(card["decisions"])
    per_decision: dict[tuple[int, int], float] = {}
    for exchange in recorder.exchanges:
        at = (exchange.day, exchange.step)
        per_decision[at] = per_decision.get(at, 0.0) + exchange.usage["latency_s"]
    role_sum = statistics.fmean(per_decision.values())
    wall_per = float(card["latency_s"]) / decisions
    path = critical_path(committee)
    calls = int(card["model_calls"]) // decisions
    print(f"reference committee: {calls} role calls a decision, {decisions} decisions, 10 names")
    print(f"  run wall {wall:.2f} s (three arms)")
    print(f"  wall per decision        {wall_per:.3f} s")
    print(f"  sum of role latencies    {role_sum:.3f} s   wall / sum = {wall_per / role_sum:.2f}")
    print(f"  critical path (topology) {path:.3f} s   wall / path = {wall_per / path:.2f}")
    print(f"  (target: wall / path <= {TARGET}; analysts run concurrently, debates in turn)")


if __name__ == "__main__":
    main()
