"""What the service core and the MCP adapter cost over the library call they wrap.

    python bench/mcp_overhead.py

The same evaluation (5 baselines x 40 names x 10 days) three ways, process CPU time best
of five; every call gets a new seed so the run store never reuses a run:

- ``evaluate(...)``: the library alone (the floor);
- ``services.run_evaluation``: plus argument checks, artefacts written to the
  run store (results.json, Parquet) and the manifest;
- the ``run_evaluation`` tool through an in-process MCP client: plus JSON-RPC,
  schema validation, the refusal check and the audit line.

Printed as ratios to the floor measured in the same run.
"""

from __future__ import annotations

import itertools
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import anyio
from mcp import Client

from workbench import services
from workbench.evaluation import evaluate
from workbench.mcp.server import prepare

ARMS = ["cash", "buy_and_hold", "equal_weight", "momentum", "mean_reversion"]


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def through_mcp(store: Path, seeds: Iterator[int]) -> float:
    server = prepare(store)

    async def go() -> float:
        async with Client(server) as client:
            best = float("inf")
            for _ in range(5):
                started = time.process_time()
                result = await client.call_tool(
                    "run_evaluation", {"arms": ARMS, "seed": next(seeds)}
                )
                best = min(best, time.process_time() - started)
                assert not result.is_error, result.content
            return best

    return anyio.run(go)


def main() -> None:
    store = Path(tempfile.mkdtemp(prefix="bench-mcp-"))
    seeds = itertools.count(1000)
    evaluate(ARMS, seed=7)  # warm imports and caches
    floor = best_of(lambda: evaluate(ARMS, seed=next(seeds), universe=40, days=10))
    service = best_of(lambda: services.run_evaluation(store, ARMS, seed=next(seeds)))
    tool = through_mcp(store, seeds)
    print("5 baselines x 40 names x 10 days, CPU seconds of this process (best of 5)")
    print(f"  library evaluate          {floor:.3f} s   1.00x")
    print(f"  services.run_evaluation   {service:.3f} s   {service / floor:.2f}x")
    print(f"  MCP tool, in-process      {tool:.3f} s   {tool / floor:.2f}x")


if __name__ == "__main__":
    main()
