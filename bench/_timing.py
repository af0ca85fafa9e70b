"""Timing shared by the bench scripts: two functions timed in turn, best CPU of each."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_of_interleaved(
    first: Callable[[], object], second: Callable[[], object], repeats: int
) -> tuple[float, float]:
    """The least CPU each of two functions took, timed in turn so load drifts hit both."""
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for i, fn in enumerate((first, second)):
            started = time.process_time()
            fn()
            best[i] = min(best[i], time.process_time() - started)
    return best[0], best[1]
