"""When the panel redraws, and a watch on the event loop for agents that block it.

``Redraws`` ticks every ``interval`` (progress and status: a few cheap widget
updates) and redraws the chart only when it has earned it. The next chart is
drawn only after the previous one has finished, and only once the process has
spent ``(1 - BUDGET) / BUDGET`` times the last draw's CPU time on other work
(the run): a draw of 20 ms waits one tick; one of 300 ms waits until the run has
used 2.7 s of CPU. So the chart never takes more than ``BUDGET`` of the CPU the
run gets, however slow or busy the machine is. CPU time, not wall time: on a
machine shared with other work the run gets a fraction of a core, and a budget
in wall seconds would let the chart take most of it. A run that is mostly
waiting (a live model answering) uses little CPU, and there a draw takes
nothing from it, so the chart is also redrawn when the process was idle more
than half the time since the last draw. A draw is bounded in cost by the chart
(see ``_chart``), so a long run does not slow its own redraws down.

``LoopWatch`` is slow-callback detection without asyncio's debug mode: a
sleeper that should wake every ``PERIOD`` seconds measures how late it woke.
Lateness beyond ``SLOW`` means something held the loop, almost always an
``async def`` agent calling blocking code (``time.sleep``, a synchronous HTTP
client) which freezes the kernel and every other arm while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

BUDGET = 0.1  # most of the run's CPU time the chart may take


class Redraws:
    """``tick()`` every interval and ``draw()`` (returning the CPU seconds it used) when
    earned, until ``done`` is set, then both once more; see the module doc."""

    def __init__(
        self, tick: Callable[[], None], draw: Callable[[], Awaitable[float]], interval: float
    ) -> None:
        self.tick, self.draw, self.interval = tick, draw, max(interval, 0.05)
        self.count, self.spent, self.wait, self.longest = 0, 0.0, 0.0, 0.0

    async def run(self, done: asyncio.Event) -> None:
        earned = True
        while True:
            finished = done.is_set()
            self.tick()
            if earned or finished:
                await self._draw()
            if finished:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), self.interval)
            earned = self._earned()

    async def _draw(self) -> None:
        cost = await self.draw()
        self.count, self.spent = self.count + 1, self.spent + cost
        self.longest = max(self.longest, cost)
        self.need = cost * (1 - BUDGET) / BUDGET
        self.cpu_mark, self.wall_mark = time.process_time(), time.perf_counter()

    def _earned(self) -> bool:
        cpu = time.process_time() - self.cpu_mark
        wall = time.perf_counter() - self.wall_mark
        self.wait = wall
        idle = cpu < 0.5 * wall and wall >= self.need
        return cpu >= self.need or idle


class LoopWatch:
    """Records the longest time the event loop was held by one callback (see module doc)."""

    PERIOD = 0.1
    SLOW = 0.5

    def __init__(self) -> None:
        self.worst = 0.0
        self.blocked = 0  # times the loop was held longer than SLOW

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            asked = loop.time()
            try:
                await asyncio.sleep(self.PERIOD)
            finally:  # also when cancelled: the run may end right after the block
                self._measure(loop.time() - asked - self.PERIOD)

    def _measure(self, late: float) -> None:
        if late > self.SLOW:
            self.blocked += 1
            self.worst = max(self.worst, late)

    def warning(self) -> str:
        if not self.blocked:
            return ""
        return (
            f"an agent blocked the event loop {self.blocked} time(s), up to {self.worst:.1f}s: "
            "blocking code (time.sleep, a synchronous HTTP client) inside an async def freezes "
            "the kernel and every other arm; use await asyncio.sleep / asyncio.to_thread, or a "
            "plain def (run in a thread)"
        )
