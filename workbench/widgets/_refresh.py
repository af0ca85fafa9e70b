"""When the panel redraws, and a watch on the event loop for agents that block it.

``Redraws`` ticks every ``interval`` (progress and status: a few cheap widget
updates) and redraws the chart only when it has earned it: the next chart is
drawn only after the previous one has finished, and only once ``(1 - BUDGET) /
BUDGET`` times the last draw's wall time has passed. So the chart never takes
more than ``BUDGET`` of the run's time, however slow or busy the machine is: a
draw of 20 ms waits one tick; one of 400 ms (a loaded machine) waits 3.6 s.
Wall time, not CPU time: matplotlib holds the interpreter lock while it
renders, so the run waits for the whole draw, including any time the drawing
thread spends waiting for a core on a busy machine. A draw is bounded in cost
by the chart (see ``_chart``), so a long run does not slow its own redraws down.

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

BUDGET = 0.1  # most of the run's time the chart may take


class Redraws:
    """``tick()`` every interval and ``draw()`` when earned, until ``done`` is set, then
    both once more; see the module doc."""

    def __init__(
        self, tick: Callable[[], None], draw: Callable[[], Awaitable[bool]], interval: float
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
        started = time.perf_counter()
        drawn = await self.draw()  # False: nothing to draw yet
        self.drawn_at = time.perf_counter()
        cost = self.drawn_at - started if drawn else 0.0
        self.count, self.spent = self.count + drawn, self.spent + cost
        self.longest = max(self.longest, cost)
        self.need = cost * (1 - BUDGET) / BUDGET

    def _earned(self) -> bool:
        self.wait = time.perf_counter() - self.drawn_at
        return self.wait >= self.need


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
