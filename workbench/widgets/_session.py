"""One run started from the panel: arms on one or more seeds, on the kernel's own loop.

``RunSession.go()`` is a coroutine the panel schedules as a task on the running
loop (the kernel's), so other cells keep executing while it runs. After every
step it reports progress through ``on_progress``; cancelling the task stops the
run at the next await, and the arms' ``end()`` still runs (the evaluation's
``finally``), so a recording arm saves the transcript it has so far.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from workbench.agents import Agent
from workbench.evaluation import Results, aevaluate

Progress = Callable[["RunSession"], None]


@dataclass
class RunSession:
    """The arms, the market settings and everything seen so far."""

    arms: Callable[[int], Sequence[Agent | str]]  # the roster for a seed
    seeds: Sequence[int]
    market: dict[str, Any]
    on_progress: Progress | None = None
    seed_index: int = 0
    step: int = 0
    total: int = 0
    curves: dict[str, list[float]] = field(default_factory=dict)
    results: list[Results] = field(default_factory=list)
    state: str = "ready"  # ready, running, done, stopped, failed
    error: str = ""
    started: float = 0.0

    @property
    def steps_done(self) -> int:
        return self.seed_index * self.total + self.step

    @property
    def steps_planned(self) -> int:
        return len(self.seeds) * self.total

    async def go(self) -> list[Results]:
        import asyncio

        self.state, self.started = "running", time.perf_counter()
        try:
            for i, seed in enumerate(self.seeds):
                self.seed_index, self.curves = i, {}
                on_step = self._on_step
                arms = list(self.arms(seed))
                self.results.append(
                    await aevaluate(arms, seed=seed, **self.market, on_step=on_step)
                )
        except asyncio.CancelledError:
            self.state = "stopped"
            self._report()
            raise
        except Exception as exc:
            self.state, self.error = "failed", f"{type(exc).__name__}: {exc}"
            self._report()
            raise
        self.state = "done"
        self._report()
        return self.results

    def _on_step(self, k: int, total: int, equity: dict[str, float]) -> None:
        self.step, self.total = k + 1, total
        for arm, value in equity.items():
            self.curves.setdefault(arm, []).append(value)
        self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self)

    def partial_equity(self) -> pd.DataFrame:
        """Equity per arm for the steps run so far on the current seed."""
        return pd.DataFrame(self.curves)

    def scorecard(self) -> pd.DataFrame:
        """Every finished seed's scorecard, one row per (seed, arm)."""
        frames = [r.scorecard.assign(seed=r.meta["seed"]) for r in self.results]
        if not frames:
            return pd.DataFrame()
        return pd.concat(frames).reset_index().set_index(["seed", "arm"])
