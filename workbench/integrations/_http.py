"""HTTP plumbing for OpenAI-compatible endpoints: retries with backoff, a rate limit, counts.

``RetryingTransport`` wraps an ``httpx`` transport. Every request first waits
for its turn under the endpoint's ``RateLimit``, then for a slot under its
``AdaptiveConcurrency`` when it has one (a 429 cuts the slots, clean answers grow
them back; see ``_concurrency``); a 429, a 5xx or a connection
error is retried up to ``retries`` times, waiting ``backoff_s * 2**attempt``
seconds or the server's ``Retry-After`` (in seconds), never more than
``MAX_RETRY_AFTER_S``. A ``Retry-After`` that is not a finite number >= 0 (``nan``,
``inf``, ``-5``, an HTTP date) is taken as absent. A timeout is not retried: the
call's own timeout has run out. A connection error left after the last retry goes
through ``unreachable`` (the endpoint's hook, which may turn it into a stop), and
every response reaches ``answered``. Each retry is counted twice: on the endpoint
(``retried``) and in the ``counting_retries()`` block the call runs in, which
is how an adapter records the retries of one exchange next to its tokens.

The openai client inside OpenAI Agents and PydanticAI is built with
``max_retries=0`` on top of this transport, so every retry is one the workbench
counted.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import Callable
from typing import Any

import httpx

from workbench._checks import count, number
from workbench.integrations._concurrency import AdaptiveConcurrency
from workbench.integrations._retries import RateLimit, note_retry

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER_S = 30.0


class RetryingTransport(httpx.AsyncBaseTransport):
    """Retries, backoff and the rate limit around one inner transport."""

    def __init__(
        self,
        inner: httpx.AsyncBaseTransport,
        *,
        retries: int,
        backoff_s: float,
        limit: RateLimit,
        counter: list[str],
        concurrency: AdaptiveConcurrency | None = None,
        unreachable: Callable[[Exception], Exception] = lambda exc: exc,
        answered: Callable[[], None] = lambda: None,
    ) -> None:
        self.inner, self.retries = inner, count("retries", retries)
        self.backoff_s = number("backoff_s", backoff_s)
        self.limit, self.counter = limit, counter
        self.concurrency = concurrency
        self.unreachable, self.answered = unreachable, answered

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        attempt = 0
        while True:
            await self.limit.wait()
            async with self._slot():
                reason, wait = await self._try(request, attempt)
            if reason is None:
                assert isinstance(wait, httpx.Response)
                self._tell_concurrency(wait.status_code, clean=attempt == 0)
                return wait
            self._tell_concurrency(429 if reason == "HTTP 429" else None, clean=False)
            attempt += 1
            self._count(f"{reason} (attempt {attempt})")
            await asyncio.sleep(float(wait))

    def _tell_concurrency(self, status: int | None, *, clean: bool) -> None:
        """A 429 (retried or the last answer) cuts the slots; a first-try answer grows them."""
        if self.concurrency is None:
            return
        if status == 429:
            self.concurrency.rate_limited()
        elif clean:
            self.concurrency.answered_clean()

    def _slot(self) -> contextlib.AbstractAsyncContextManager[None]:
        """One of the endpoint's in-flight slots until the answer's headers arrive (the
        backoff before a retry waits outside it)."""
        if self.concurrency is None:
            return contextlib.nullcontext()
        return self.concurrency.slot()

    async def _try(self, request: httpx.Request, attempt: int) -> tuple[str | None, Any]:
        """(None, response) to return it, or (reason, seconds) to retry after a pause."""
        last = attempt >= self.retries
        try:
            response = await self.inner.handle_async_request(request)
        except httpx.TimeoutException:
            raise
        except httpx.TransportError as exc:
            if last:
                stop = self.unreachable(exc)
                if stop is exc:
                    raise
                raise stop from exc
            return f"{type(exc).__name__}", self._pause(attempt, None)
        self.answered()
        if response.status_code not in RETRY_STATUS or last:
            return None, response
        await response.aread()
        await response.aclose()
        return f"HTTP {response.status_code}", self._pause(attempt, response)

    def _pause(self, attempt: int, response: httpx.Response | None) -> float:
        after = retry_after(response.headers.get("retry-after") if response is not None else None)
        wait = after if after is not None else self.backoff_s * 2.0 ** min(attempt, 64)
        return min(wait, MAX_RETRY_AFTER_S)

    def _count(self, reason: str) -> None:
        self.counter.append(reason)
        note_retry(reason)

    async def aclose(self) -> None:
        await self.inner.aclose()


def retry_after(header: str | None) -> float | None:
    """The seconds a ``Retry-After`` header asks for; None when absent or not a finite
    number >= 0 (NaN would pass any cap written as a comparison)."""
    try:
        seconds = float(header) if header is not None else math.nan
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


__all__ = ["MAX_RETRY_AFTER_S", "RETRY_STATUS", "RetryingTransport", "retry_after"]
