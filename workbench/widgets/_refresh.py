"""When the panel redraws, and a watch on the event loop for agents that block it.

``Redraws`` draws, waits, draws again: the next draw is scheduled only after the
previous one has finished, and the wait grows with what the last draw cost, so
drawing never takes more than ``BUDGET`` of the run's time however slow the
machine is (a draw of 20 ms waits ``interval``; one of 300 ms waits 2.7 s). The
cost is the CPU time the draw's thread used, not its wall time: on a machine
shared with other work a draw waits for a core without taking anything from
the run. A draw is bounded in cost by the chart (see ``_chart``), so a long
run does not slow its own redraws down.

``LoopWatch`` is slow-callback detection without asyncio's debug mode: a
sleeper that should wake every ``PERIOD`` seconds measures how late it woke.
Lateness beyond ``SLOW`` means something held the loop, almost always an
``async def`` agent calling blocking code (``time.sleep``, a synchronous HTTP
client) which freezes the kernel and every other arm while it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

BUDGET = 0.1  # most of the run's wall time spent drawing


class Redraws:
    """Calls ``draw`` (which returns the CPU seconds it used) until ``done`` is set, then
    once more; see the module doc."""

    def __init__(self, draw: Callable[[], Awaitable[float]], interval: float) -> None:
        self.draw, self.interval = draw, interval
        self.count, self.spent, self.wait = 0, 0.0, interval

    async def run(self, done: asyncio.Event) -> None:
        while True:
            finished = done.is_set()
            cost = await self.draw()
            self.count, self.spent = self.count + 1, self.spent + cost
            if finished:
                return
            self.wait = max(self.interval, cost * (1 - BUDGET) / BUDGET)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), self.wait)


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
