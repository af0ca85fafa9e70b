"""How much work and memory one service request may ask for, estimated before any work.

A request is sized from its arguments alone (no market is built):

- **name-ticks**: names x (days + warm-up days) x steps per day x ticks per step. The
  market simulates ``World.warmup_days`` days of history before day 0, as many as
  HISTORY_STEPS needs: 20 warm-up days at one step a day, 4 at the default 6.
- **arm work**, in name-steps: every arm looks at every name at every trading step;
  a committee step costs like ``COMMITTEE_STEP_NAME_STEPS`` name-steps of a baseline.
- **memory**: the step bars of every name (kept for the run), one day of ticks (alive
  while that day is simulated) and what each arm writes per name-step (orders and
  their JSON), plus a fixed allowance for the process.

The per-unit figures below are measured by ``bench/service_limits.py``, which runs
requests of several shapes in fresh processes and prints measured / estimated
(below 1 means the estimate holds). The library itself has none of these limits:
``workbench.evaluate`` runs whatever it is given.

A multi-seed request (``compare_runs``) is sized per seed and in total: the seeds
run one after another, so memory is one seed's, and work adds up.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from workbench.errors import ConfigError
from workbench.schema import HISTORY_STEPS

# measured (bench/service_limits.py): bytes per unit, rounded up
MARKET_BYTES_PER_NAME_STEP = 64  # seven float64 step bars per name
DAY_BYTES_PER_NAME_TICK = 72  # one day's tick arrays (shocks, cumulative sums, prices)
ARM_BYTES_PER_NAME_STEP = 480  # a trading arm's orders, in frames and in results.json
PROCESS_BYTES = 64 * 2**20
# one committee decision step costs about this many name-steps of a baseline arm
COMMITTEE_STEP_NAME_STEPS = 500

# per request: tens of seconds of CPU on one core at most, and memory this machine has
MAX_NAME_TICKS = 200_000_000
MAX_ARM_NAME_STEPS = 2_000_000
MAX_MEMORY_BYTES = 2 * 2**30
# a multi-seed request in total
MAX_TOTAL_NAME_TICKS = 1_000_000_000
MAX_TOTAL_ARM_NAME_STEPS = 10_000_000

_FIX = "use fewer names, days, steps or ticks (or fewer arms), or call workbench.evaluate directly"


@dataclass(frozen=True)
class Estimate:
    """The size of one evaluation request."""

    universe: int
    days: int
    warmup_days: int
    steps_per_day: int
    ticks_per_step: int
    arm_name_steps: int

    @property
    def name_ticks(self) -> int:
        days = self.days + self.warmup_days
        return self.universe * days * self.steps_per_day * self.ticks_per_step

    @property
    def memory_bytes(self) -> int:
        steps = (self.days + self.warmup_days) * self.steps_per_day
        market = MARKET_BYTES_PER_NAME_STEP * self.universe * steps
        day = DAY_BYTES_PER_NAME_TICK * self.universe * self.steps_per_day * self.ticks_per_step
        return PROCESS_BYTES + market + day + ARM_BYTES_PER_NAME_STEP * self.arm_name_steps

    def describe(self) -> str:
        return (
            f"{self.universe} names x ({self.days} days + {self.warmup_days} warm-up days) x "
            f"{self.steps_per_day} steps x {self.ticks_per_step} ticks"
        )


def estimate(
    arms: Sequence[str], universe: int, days: int, steps_per_day: int, ticks_per_step: int
) -> Estimate:
    """The size of a request (whole-number arguments already checked)."""
    warmup = math.ceil(HISTORY_STEPS / steps_per_day)
    steps = days * steps_per_day
    committees = sum(1 for arm in arms if arm.startswith("committee:"))
    work = (len(arms) - committees) * universe * steps
    work += committees * max(universe, COMMITTEE_STEP_NAME_STEPS) * steps
    return Estimate(universe, days, warmup, steps_per_day, ticks_per_step, work)


def refuse_oversized(size: Estimate, *, seeds: int = 1) -> None:
    """A ConfigError with the numbers when one run, or ``seeds`` runs in total, is too big."""
    _cap("name-ticks", size.name_ticks, MAX_NAME_TICKS, size.describe())
    _cap("arm name-steps", size.arm_name_steps, MAX_ARM_NAME_STEPS, _arm_work(size))
    _cap_memory(size)
    if seeds > 1:
        total = f"{seeds} seeds in total"
        _cap("name-ticks", seeds * size.name_ticks, MAX_TOTAL_NAME_TICKS, total)
        _cap("arm name-steps", seeds * size.arm_name_steps, MAX_TOTAL_ARM_NAME_STEPS, total)


def _arm_work(size: Estimate) -> str:
    return (
        f"every arm x {size.universe} names x {size.days * size.steps_per_day} trading steps; a "
        f"committee step counts as {COMMITTEE_STEP_NAME_STEPS} name-steps"
    )


def _cap(what: str, amount: int, limit: int, how: str) -> None:
    if amount > limit:
        raise ConfigError(
            f"this request would take {amount:,} {what} ({how}), above the service limit of "
            f"{limit:,}; nothing was run. {_FIX}"
        )


def _cap_memory(size: Estimate) -> None:
    if size.memory_bytes > MAX_MEMORY_BYTES:
        raise ConfigError(
            f"this request would need about {size.memory_bytes / 2**20:,.0f} MiB of memory "
            f"({size.describe()}; {size.arm_name_steps:,} arm name-steps), above the service "
            f"limit of {MAX_MEMORY_BYTES / 2**20:,.0f} MiB; nothing was run. {_FIX}"
        )
