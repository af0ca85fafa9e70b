"""CPU of the many-arm tests and of PBO, against their 2 s targets.

    python bench/comparisons.py

1. SPA (with the Reality Check's p), StepM and the model confidence set, from
   arch, on 10 arms and a benchmark x 20 seeds x 250 days (T = 5,000 paired
   days) with 1,000 bootstrap draws: ``many_arms.snooping_tests``, as a
   comparison calls it.
2. PBO by CSCV on 50 trials x 1,000 days with 16 blocks (C(16, 8) = 12,870
   splits): ``overfitting.pbo``.

Each is timed best of three (CPU seconds, ``time.process_time``), so a busy
machine slows it less than a single run would show.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pandas as pd

from workbench.evaluation.many_arms import snooping_tests
from workbench.evaluation.overfitting import pbo

TARGET_S = 2.0
REPEATS = 3


def best_cpu(fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def paired_days(arms: int = 10, seeds: int = 20, days: int = 250) -> pd.DataFrame:
    """Day returns of a benchmark and ``arms`` arms on one market, indexed (seed, day)."""
    rng = np.random.default_rng(0)
    rows = seeds * days
    market = rng.normal(0.0003, 0.01, rows)
    frame = pd.DataFrame(
        {f"arm{j}": market + rng.normal(0.0, 0.004, rows) for j in range(arms)}
        | {"benchmark": market + rng.normal(0.0, 0.004, rows)}
    )
    frame.index = pd.MultiIndex.from_product([range(seeds), range(days)], names=["seed", "day"])
    return frame


def report(label: str, seconds: float) -> bool:
    verdict = "ok" if seconds <= TARGET_S else "OVER"
    print(f"{label}\n  {seconds:6.2f} s CPU   target <= {TARGET_S:.1f} s   {verdict}")
    return seconds <= TARGET_S


def main() -> int:
    returns = paired_days()
    snooping = best_cpu(lambda: snooping_tests(returns, "benchmark", reps=1000, seed=1))
    trials = pd.DataFrame(np.random.default_rng(1).normal(0.0, 0.01, (1000, 50)))
    overfitting = best_cpu(lambda: pbo(trials, blocks=16))
    ok = report("SPA + Reality Check + StepM + MCS, 10 arms x 20 seeds x 250 days, 1,000 draws",
                snooping)  # fmt: skip
    ok &= report("PBO (CSCV), 50 trials x 1,000 days, 16 blocks", overfitting)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
