"""When the panel redraws, and a watch on the event loop for agents that block it.

``Redraws`` ticks every ``interval`` (progress and status: a few cheap widget
updates) and redraws the chart only when it has earned it: the next chart is
drawn only after the previous one has finished, and only once ``(1 - BUDGET) /
BUDGET`` times the last draw's wall time has passed. So the chart never takes
more than ``BUDGET`` of the run's time, however slow or busy the machine is: a
draw of 20 ms waits one tick; one of 200 ms (a loaded machine) waits 1.1 s.
The wait is capped at ``LONGEST_WAIT``: one draw slowed by a burst of load (a
first draw of seconds while the kernel was busy) must not leave the chart standing
for half a minute; past the cap drawing may take more than ``BUDGET``, until a
quicker draw lowers the wait again. Every draw takes the run as it is when the draw
begins, never a queued state, so the chart is at most one redraw behind the run.
Wall time, not CPU time: a draw (the frame computed on a worker thread, then
the chart's widget updated on the loop) holds the interpreter lock, so the run
waits for the whole draw, including any time spent waiting for a core on a busy
machine. A draw is bounded in cost by the chart (see ``_curves`` and ``_chart``),
so a long run does not slow its own redraws down.

``LoopWatch`` is slow-callback detection without asyncio's debug mode, naming
the agent: a sleeper on the loop that should wake every ``PERIOD`` seconds
measures how late it woke, while a sampler thread looks, whenever the sleeper is
overdue, at what the loop's thread is running: the outermost ``Agent`` method on
its stack is the arm holding the loop (almost always an ``async def`` agent, or
an inline one, calling blocking code such as ``time.sleep`` or a synchronous HTTP
client, which freezes the kernel and every other arm while it runs). A loop held
longer than ``SLOW`` is warned about only with the agent seen holding it: a loop
held by anything else (the market's own steps, a cell, another thread holding the
interpreter lock, a machine so loaded that nothing ran, which the sampler sees by
waking late itself) is not an agent's doing, and no agent is blamed.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from types import FrameType

BUDGET = 0.15  # most of the run's time the chart may take
LONGEST_WAIT = 2.0  # seconds: the chart is never left longer than this after a draw


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
        self.need = min(cost * (1 - BUDGET) / BUDGET, LONGEST_WAIT)

    def _earned(self) -> bool:
        self.wait = time.perf_counter() - self.drawn_at
        return self.wait >= self.need


class LoopWatch:
    """The agents that held the event loop, and for how long (see the module doc)."""

    PERIOD = 0.1
    SLOW = 0.5

    def __init__(self) -> None:
        self.blocks: dict[str, list[float]] = {}  # agent -> how long each block held the loop
        self._beat = time.monotonic()  # when the loop was last seen free
        self._seen: dict[float, str] = {}  # beat -> the agent seen holding the loop after it
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._sampler: threading.Thread | None = None

    def start(self) -> None:
        """Watch from now, on the loop's own thread (before anything runs on it)."""
        self._beat = time.monotonic()
        if self._sampler is None:
            self._sampler = threading.Thread(
                target=self._sample, args=(threading.get_ident(),), daemon=True
            )
            self._sampler.start()

    async def run(self) -> None:
        """The sleeper, until cancelled; ``start`` first if nothing called it yet."""
        if self._sampler is None:
            self.start()
        try:
            while True:
                asked = self._beat
                try:
                    await asyncio.sleep(self.PERIOD)
                finally:  # also when cancelled: the run may end right after the block
                    now = time.monotonic()
                    self._measure(asked, now - asked - self.PERIOD)
                    self._beat = now
        finally:
            self._stop.set()
            if self._sampler is not None:
                self._sampler.join(5 * self.PERIOD)

    def _sample(self, loop_thread: int) -> None:
        """On its own thread: while the sleeper is overdue, note the agent the loop runs.

        A sample taken late is dropped: this thread was starved too (another thread held
        the interpreter lock, or nothing ran), so the loop's thread may merely be waiting
        for the lock inside an agent's code, not holding the loop itself.
        """
        woke = time.monotonic()
        while not self._stop.wait(self.PERIOD / 2):
            asked, woke = woke + self.PERIOD / 2, time.monotonic()
            beat = self._beat
            if woke - asked > self.PERIOD or woke - beat < 2 * self.PERIOD:
                continue
            agent = agent_running(sys._current_frames().get(loop_thread))
            if agent is not None:
                with self._lock:
                    self._seen[beat] = agent

    def _measure(self, asked: float, late: float) -> None:
        with self._lock:
            agent = self._seen.pop(asked, None)
            self._seen = {beat: a for beat, a in self._seen.items() if beat > asked}
        if late > self.SLOW and agent is not None:
            self.blocks.setdefault(agent, []).append(late)

    @property
    def blocked(self) -> int:
        return sum(len(held) for held in self.blocks.values())

    def warning(self) -> str:
        if not self.blocks:
            return ""
        who = " and ".join(
            f"{name!r} ({len(held)} time(s), up to {max(held):.1f}s)"
            for name, held in self.blocks.items()
        )
        return (
            f"{'agents' if len(self.blocks) > 1 else 'agent'} {who} blocked the event loop: "
            "blocking code (time.sleep, a synchronous HTTP client) inside an async def, or in "
            "an inline agent, freezes the kernel and every other arm; use await "
            "asyncio.sleep / asyncio.to_thread, or a plain def (run in a thread)"
        )


def agent_running(frame: FrameType | None) -> str | None:
    """The name of the outermost ``Agent`` whose method is on ``frame``'s stack."""
    from workbench.agents import Agent

    name = None
    while frame is not None:
        owner = frame.f_locals.get("self") if "self" in frame.f_code.co_varnames else None
        if isinstance(owner, Agent):
            name = str(owner.name)
        frame = frame.f_back
    return name
