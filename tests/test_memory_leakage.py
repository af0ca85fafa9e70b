"""Leakage proof: what an arm recalls at step t cannot depend on anything after t.

Every outcome after step t is poisoned (prices, volumes, spreads, depth and the
macro path all changed from the next row on); the lessons recalled at every
decision up to t, and the lessons visible then, must not change. The poison does
bite: later recalls differ, so the test would catch a store that looked ahead.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from workbench.bridge import run_sync
from workbench.committee import Committee
from workbench.evaluation.runner import run_world
from workbench.evaluation.world import World
from workbench.memory import Memory
from workbench.testing.learner import remembering_learner

MARKET = {"seed": 4, "universe": 6, "days": 6}


def _poisoned(world: World, last_step: int) -> World:
    """``world`` with every row after trading step ``last_step`` replaced by other values."""
    honest = world.path
    row = honest.warmup_steps + last_step
    later = slice(row + 1, None)

    def poison(values: np.ndarray, factor: float, rows: slice = later) -> np.ndarray:
        changed = values.copy()
        changed[rows] *= factor
        return changed

    prices = {k: poison(getattr(honest, k), 1.3) for k in ("open", "high", "low", "close")}
    day_rows = slice(row // honest.steps_per_day + 1, None)
    twin = World(**MARKET)
    twin.__dict__["path"] = dataclasses.replace(
        honest,
        **prices,
        volume=poison(honest.volume, 0.5),
        half_spread=poison(honest.half_spread, 2.0),
        depth=poison(honest.depth, 0.5),
        macro={k: poison(v, 1.1, day_rows) for k, v in honest.macro.items()},
    )
    return twin


def _recalls(arm: Any) -> list[tuple[int, Any]]:
    return [(entry["index"], entry.get("recalled")) for entry in arm.decision_log]


def _learner() -> Any:
    return remembering_learner(memory=Memory(horizon=1, k=3))


def _committee() -> Any:
    return Committee(memory=Memory(horizon=1, k=2))


def _visible_lessons(arm: Any, world: World, step: int) -> list[dict[str, Any]]:
    store = arm.memory.store
    at = divmod(step, world.steps_per_day)
    return [lesson.to_json() for lesson in store.visible(at)]


@pytest.mark.parametrize("build", [_learner, _committee], ids=["learner", "committee"])
@pytest.mark.slow
def test_nothing_recalled_at_t_changes_when_every_outcome_after_t_is_poisoned(build) -> None:
    honest_world = World(**MARKET)
    honest = build()
    run_sync(run_world(honest_world, [honest]))
    steps = honest_world.steps_per_day
    bit = False
    for t in range(0, honest_world.trading_steps - 1, steps):
        twin_world = _poisoned(honest_world, t)
        twin = build()
        run_sync(run_world(twin_world, [twin]))
        up_to_t = [r for r in _recalls(honest) if r[0] <= t]
        assert up_to_t == [r for r in _recalls(twin) if r[0] <= t], f"recall changed at t={t}"
        assert _visible_lessons(honest, honest_world, t) == _visible_lessons(twin, twin_world, t)
        bit = bit or _recalls(honest) != _recalls(twin)
    assert bit, "the poison never changed a later recall: the test would prove nothing"


def test_recalled_lessons_are_never_about_a_decision_younger_than_the_horizon() -> None:
    arm = remembering_learner(memory=Memory(horizon=2, k=5))
    run_sync(run_world(World(**MARKET), [arm]))
    recalled = [(e["day"], lesson) for e in arm.decision_log for lesson in e["recalled"]]
    assert recalled, "the arm recalled nothing: nothing was tested"
    assert all(lesson["day"] + 2 <= day for day, lesson in recalled)
    assert (
        not arm.decision_log[1]["recalled"] and arm.decision_log[2]["recalled"]
    )  # day 0's lesson, day 2
