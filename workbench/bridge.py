"""run_sync: call async code from sync code, anywhere (first cut; hardened in the bridge issue)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None


def _bridge_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _lock:
        if _loop is None or _loop.is_closed():
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="workbench-bridge", daemon=True).start()
        return _loop


def run_sync(awaitable: Awaitable[T], *, timeout: float | None = None) -> T:
    """Run ``awaitable`` to completion on the bridge loop and return its result."""

    async def _wrap() -> Any:
        return await awaitable

    future = asyncio.run_coroutine_threadsafe(_wrap(), _bridge_loop())
    return future.result(timeout)
