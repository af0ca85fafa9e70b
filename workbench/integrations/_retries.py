"""Retry counts per exchange and the per-endpoint rate limit (no HTTP library needed).

``counting_retries()`` opens a block; every retry the HTTP layer makes inside it
(in tasks it starts and threads it hands its context to, too) is appended to the
list it yields, so an adapter records the retries of one exchange with its usage.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Callable, Iterator

from workbench._checks import positive

_retries: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar(
    "workbench_retries", default=None
)


@contextlib.contextmanager
def counting_retries() -> Iterator[list[str]]:
    """Collect the reason of every retry made inside the block (tasks and threads included)."""
    seen: list[str] = []
    token = _retries.set(seen)
    try:
        yield seen
    finally:
        _retries.reset(token)


class RateLimit:
    """At most ``per_second`` requests a second, shared by every loop and thread."""

    def __init__(
        self, per_second: float | None, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        rate = positive("max_requests_per_s", per_second, unit="requests a second", optional=True)
        self.interval = 0.0 if rate is None else 1.0 / rate
        self._next = 0.0
        self._clock = clock
        self._lock = threading.Lock()

    async def wait(self) -> None:
        if not self.interval:
            return
        with self._lock:
            now = self._clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


def note_retry(reason: str) -> None:
    """Count one retry in the innermost ``counting_retries`` block, if any."""
    seen = _retries.get()
    if seen is not None:
        seen.append(reason)


__all__ = ["RateLimit", "counting_retries", "note_retry"]
