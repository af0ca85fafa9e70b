"""How many requests an endpoint has in flight: a limit that adapts to 429 answers.

``AdaptiveConcurrency(start, cap, cut, debounce_s)`` follows the scheme of
inspect_ai's adaptive connections: requests wait for one of ``limit`` slots,
``limit`` beginning at ``start``.

- A 429 answer cuts the limit to ``floor(limit * cut)`` (never below 1), then
  nothing cuts it again for ``debounce_s`` seconds: one burst of 429s is one
  episode, and the requests already in flight when it began answer 429 too.
- A request answered at once (no retry) is a clean one. Outside the debounce
  window, every ``limit`` clean requests in a row grow the limit: doubled until
  the first 429 (slow start), then by one (additive increase), never past ``cap``.
  A 429 starts the count again; a request that succeeded after retries counts
  neither way.

``cut=1`` never shrinks, so ``AdaptiveConcurrency(n, n, cut=1)`` is a fixed limit
of ``n``. Every change is kept in ``changes`` as ``(old, new, reason)``.

One instance serves an endpoint on every event loop and thread: slots are counted
under a lock, and a freed slot is handed to the longest waiter on its own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any

from workbench._checks import count, number
from workbench.errors import ConfigError


class AdaptiveConcurrency:
    """The in-flight limit of one endpoint; see the module doc."""

    def __init__(
        self,
        start: int = 4,
        cap: int = 32,
        *,
        cut: float = 0.5,
        debounce_s: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.start = count("concurrency start", start, minimum=1)
        self.cap = count("concurrency cap", cap, minimum=1)
        if self.cap < self.start:
            raise ConfigError(f"concurrency cap ({cap}) must be >= start ({start})")
        self.cut = number("concurrency cut", cut)
        if not 0 < self.cut <= 1:
            raise ConfigError(f"concurrency cut must be in (0, 1] (1 never shrinks), got {cut!r}")
        self.debounce_s = number("concurrency debounce_s", debounce_s)
        self.limit, self.in_flight = self.start, 0
        self.changes: list[tuple[int, int, str]] = []
        self._clock, self._lock = clock, threading.Lock()
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()
        self._clean, self._cut_seen, self._quiet_until = 0, False, -math.inf

    def __repr__(self) -> str:
        return (
            f"AdaptiveConcurrency(limit={self.limit}, start={self.start}, cap={self.cap}, "
            f"cut={self.cut}, debounce_s={self.debounce_s})"
        )

    # --- slots ------------------------------------------------------------------------
    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one of the ``limit`` slots while the block runs."""
        await self._acquire()
        try:
            yield
        finally:
            self._release()

    async def _acquire(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self.in_flight < self.limit and not self._waiters:
                self.in_flight += 1
                return
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter  # the slot is counted for us when it is handed over
        except asyncio.CancelledError:
            with self._lock:
                queued = (loop, waiter) in self._waiters
                if queued:
                    self._waiters.remove((loop, waiter))
            if not queued and waiter.done() and not waiter.cancelled():
                self._release()  # handed over, then cancelled: give it back
            raise

    def _release(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self._hand_over()

    def _hand_over(self) -> None:
        """Under the lock: free slots to the longest waiters, each on its own loop."""
        while self._waiters and self.in_flight < self.limit:
            loop, waiter = self._waiters.popleft()
            self.in_flight += 1
            loop.call_soon_threadsafe(self._grant, waiter)

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.cancelled():  # its request gave up before the slot arrived
            self._release()
        else:
            waiter.set_result(None)

    # --- what the answers say ---------------------------------------------------------
    def rate_limited(self) -> None:
        """A 429 answer: cut the limit, unless one was cut within ``debounce_s``."""
        with self._lock:
            self._clean, self._cut_seen = 0, True
            now = self._clock()
            if now < self._quiet_until:
                return
            self._quiet_until = now + self.debounce_s
            self._set(max(1, math.floor(self.limit * self.cut)), "429")

    def answered_clean(self) -> None:
        """A request answered without a retry: after ``limit`` in a row, grow the limit."""
        with self._lock:
            if self._clock() < self._quiet_until:
                return  # in flight before the cut: it says nothing of the new limit
            self._clean += 1
            if self._clean < self.limit:
                return
            self._clean = 0
            grown = self.limit + 1 if self._cut_seen else self.limit * 2
            self._set(min(self.cap, grown), "additive" if self._cut_seen else "slow start")
            self._hand_over()

    def _set(self, new: int, reason: str) -> None:
        if new != self.limit:
            self.changes.append((self.limit, new, reason))
            self.limit = new


def concurrency_of(value: Any) -> AdaptiveConcurrency | None:
    """An endpoint's ``concurrency=``: None (no limit), a whole number (a fixed limit),
    ``"adaptive"`` (the defaults) or an ``AdaptiveConcurrency``."""
    if value is None or isinstance(value, AdaptiveConcurrency):
        return value
    if value == "adaptive":
        return AdaptiveConcurrency()
    if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
        return AdaptiveConcurrency(value, value, cut=1.0)
    raise ConfigError(
        "concurrency must be None (no limit), a whole number >= 1 (a fixed limit), 'adaptive' "
        f"or an AdaptiveConcurrency(start, cap, cut=, debounce_s=); got {value!r}"
    )


__all__ = ["AdaptiveConcurrency", "concurrency_of"]
