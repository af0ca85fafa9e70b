"""One run started from the panel: arms on one or more seeds, on the kernel's own loop.

``RunSession.go()`` is a coroutine the panel schedules as a task on the running
loop (the kernel's), so other cells keep executing while it runs. After every
step ``aevaluate`` calls ``_on_step``, which only stores the equity (the panel
redraws on its own schedule, see ``_refresh``).

Stop is a request: the next step raises ``RunStopped`` from ``on_step``, the
evaluation ends its arms (a recording arm saves its transcript) and hands back
the results of the steps run so far on ``.results``. The session keeps every
finished seed and that partial one, labelled, so nothing already run is lost.
Cancelling the task (the panel's fallback when a step does not finish in time)
keeps the finished seeds and the partial seed's equity curve.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from workbench.agents import Agent
from workbench.errors import WorkbenchError
from workbench.evaluation import Results, World, information_frame, run_world
from workbench.widgets._news import NewsMarks


class RunStopped(WorkbenchError):
    """Stop was pressed; the evaluation ends after the step it is on."""


@dataclass
class SeedRun:
    """One seed's equity as it grows (steps x arms), then its results."""

    seed: int
    arms: list[str] = field(default_factory=list)
    equity: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    steps: int = 0  # steps marked so far
    results: Results | None = None
    complete: bool = False
    news: NewsMarks | None = None  # the items its market published, for the chart's timeline

    def mark(self, k: int, total: int, by_arm: dict[str, float]) -> None:
        if not self.arms:
            self.arms = list(by_arm)
            self.equity = np.full((total, len(self.arms)), np.nan)
        self.equity[k] = list(by_arm.values())
        self.steps = k + 1

    @property
    def label(self) -> str:
        if self.complete:
            return "complete"
        return f"partial: {self.steps:,} of {len(self.equity):,} steps"


@dataclass
class RunSession:
    """The arms, the market settings and everything seen so far."""

    arms: Callable[[int], Sequence[Agent | str]]  # the roster for a seed
    seeds: Sequence[int]
    market: dict[str, Any]
    model_cutoff: dict[str, str] | None = None  # arm -> the last date its model read
    runs: list[SeedRun] = field(default_factory=list)
    state: str = "ready"  # ready, running, stopping, done, stopped, failed
    error: str = ""
    started: float = 0.0
    ended: float = 0.0

    @property
    def current(self) -> SeedRun | None:
        return self.runs[-1] if self.runs else None

    @property
    def total(self) -> int:
        """Steps per seed (known once the first step is marked)."""
        return len(self.runs[0].equity) if self.runs and self.runs[0].arms else 0

    @property
    def steps_done(self) -> int:
        return sum(run.steps for run in self.runs)

    @property
    def steps_planned(self) -> int:
        return len(self.seeds) * self.total

    @property
    def results(self) -> list[Results]:
        """The results of every finished seed (a stopped seed's partial ones are on ``runs``)."""
        return [run.results for run in self.runs if run.complete and run.results is not None]

    @property
    def seconds(self) -> float:
        return (self.ended or time.perf_counter()) - self.started

    def request_stop(self) -> None:
        if self.state == "running":
            self.state = "stopping"

    async def go(self) -> list[Results]:
        self.state, self.started = "running", time.perf_counter()
        try:
            for seed in self.seeds:
                await self._one_seed(seed)
                if self.state == "stopped":
                    break
        except asyncio.CancelledError:
            self._end("stopped")
            raise
        except Exception as exc:
            self.error = f"{type(exc).__name__}: {exc}"
            self._end("failed")
            raise
        self._end("stopped" if self.state == "stopped" else "done")
        return self.results

    async def _one_seed(self, seed: int) -> None:
        run = SeedRun(seed)
        self.runs.append(run)
        roster = list(self.arms(seed))

        def on_step(k: int, total: int, by_arm: dict[str, float]) -> None:
            run.mark(k, total, by_arm)
            if self.state == "stopping":
                raise RunStopped(f"stopped after {k + 1} trading steps of seed {seed}")

        world = World(**{**self.market, "seed": seed})  # the panel's market: World's keywords
        run.news = await asyncio.to_thread(_news_of, world)  # simulates off the loop too
        try:
            cutoff = {"model_cutoff": self.model_cutoff} if self.model_cutoff else {}
            run.results = await run_world(world, roster, on_step=on_step, progress=False, **cutoff)
            run.complete = True
        except WorkbenchError as exc:
            run.results = exc.results
            if not isinstance(exc, RunStopped):
                raise
            self.state = "stopped"

    def _end(self, state: str) -> None:
        self.state, self.ended = state, time.perf_counter()

    # --- tables ----------------------------------------------------------------------
    def partial_equity(self) -> pd.DataFrame:
        """Equity per arm for the steps run so far on the current seed."""
        run = self.current
        if run is None or not run.arms:
            return pd.DataFrame()
        return pd.DataFrame(run.equity[: run.steps], columns=run.arms)

    def scorecard(self) -> pd.DataFrame:
        """Every seed's scorecard, finished or partial, one row per (seed, arm), labelled;
        an arm whose every decision failed is labelled failed, with no Sharpe ratio."""
        frames = [_labelled(r.results.scorecard, r) for r in self.runs if r.results is not None]
        if not frames:
            return pd.DataFrame()
        card = pd.concat(frames).reset_index().set_index(["seed", "arm"])
        return card[["run", *[c for c in card.columns if c != "run"]]]

    def failures(self) -> pd.DataFrame:
        """Every failed decision of every seed run so far, with the seed in front."""
        frames = [
            r.results.errors.assign(seed=r.seed)
            for r in self.runs
            if r.results is not None and not r.results.errors.empty
        ]
        if not frames:
            return pd.DataFrame(columns=["seed", "arm", "day", "step", "kind", "message"])
        frame = pd.concat(frames, ignore_index=True)
        return frame[["seed", *[c for c in frame.columns if c != "seed"]]]

    def canary_sightings(self) -> int:
        """How many times a rationale quoted a canary before its day, over every seed run
        so far (``workbench.evaluation.canaries``)."""
        return sum(
            len(r.results.meta.get("canary_hits") or []) for r in self.runs if r.results is not None
        )


def _news_of(world: World) -> NewsMarks | None:
    """The items ``world`` publishes as chart marks, None on a market without news."""
    frame = information_frame(world.path)
    return NewsMarks.of(frame, world.path.steps_per_day) if len(frame) else None


def _labelled(card: pd.DataFrame, run: SeedRun) -> pd.DataFrame:
    """``card`` with the seed and the run's label; an arm that never decided without an
    error is ``failed: N of N decisions`` (holding cash it scored 0, which means nothing)."""
    card = card.assign(seed=run.seed, run=run.label)
    failed = (card["decisions"] > 0) & (card["errors"] >= card["decisions"])
    counts = card.loc[failed, ["errors", "decisions"]].astype(int)
    for arm, errors, decisions in counts.itertuples():
        card.at[arm, "run"] = f"failed: {errors:,} of {decisions:,} decisions"
        card.at[arm, "sharpe"] = np.nan
    return card
