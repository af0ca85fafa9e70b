"""Per-call overhead of run_sync on a trivial coroutine, against baselines from the same run.

    .venv/bin/python bench/bridge.py [--calls N] [--repeats R]

Prints microseconds per call (best of R repeats of N calls) for:
  run_sync                         the bridge, caller on the main thread
  run_coroutine_threadsafe         asyncio's own thread hop to a loop on another thread
  loop.run_until_complete          no thread hop at all (same-thread loop)
and the ratio of run_sync to the 50 µs target (<= 1.00 passes).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.bridge import run_sync

TARGET_US = 50.0


async def trivial() -> int:
    return 1


def per_call_us(calls: dict[str, Callable[[], object]], n: int, repeats: int) -> dict[str, float]:
    """Best of ``repeats`` runs of ``n`` calls each, the contenders interleaved so that
    load from other processes on a shared machine hits them all alike."""
    best = dict.fromkeys(calls, float("inf"))
    for _ in range(repeats):
        for name, call in calls.items():
            start = time.perf_counter()
            for _ in range(n):
                call()
            best[name] = min(best[name], (time.perf_counter() - start) / n)
    return {name: seconds * 1e6 for name, seconds in best.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    other = asyncio.new_event_loop()
    thread = threading.Thread(target=other.run_forever, daemon=True)
    thread.start()
    same = asyncio.new_event_loop()

    run_sync(trivial())  # start the bridge thread outside the timing
    results = per_call_us(
        {
            "run_sync": lambda: run_sync(trivial()),
            "run_coroutine_threadsafe": lambda: asyncio.run_coroutine_threadsafe(
                trivial(), other
            ).result(),
            "loop.run_until_complete": lambda: same.run_until_complete(trivial()),
        },
        args.calls,
        args.repeats,
    )
    other.call_soon_threadsafe(other.stop)
    thread.join()
    other.close()
    same.close()

    bridge = results["run_sync"]
    for name, us in results.items():
        print(f"{name:<26} {us:8.1f} µs/call   run_sync / this = {bridge / us:5.2f}")
    verdict = "PASS" if bridge <= TARGET_US else "OVER"
    print(f"run_sync vs {TARGET_US:.0f} µs target: ratio {bridge / TARGET_US:.2f}  {verdict}")


if __name__ == "__main__":
    main()
