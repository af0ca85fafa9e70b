"""Where framework calls run: one owning loop per process, and daemon threads for sync code.

Framework clients (an ``httpx`` pool inside an OpenAI client, a LangGraph
runner) bind themselves to the event loop they are first used on. An arm is
reused by ``evaluate`` (the bridge loop), ``await aevaluate`` (a notebook's
loop) and ``asyncio.run(aevaluate(...))`` (a fresh loop each time), so every
framework call is made on ONE owning loop, the process-wide bridge loop, and
the caller awaits it from wherever it runs. Cancelling the caller (a timeout)
cancels the call on the owning loop.

Blocking sync code runs on a daemon thread rather than the loop's default
executor: a call that never returns (a silent server) is abandoned at its
timeout and never keeps the interpreter from exiting.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from workbench import bridge

T = TypeVar("T")


async def on_owning_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Await ``coro`` on the process's owning loop (the bridge loop), from any loop."""
    owner = bridge._bridge_loop()
    if asyncio.get_running_loop() is owner or bridge._bridge_blocked.get():
        return await coro  # already there, or the owner is blocked by a caller up the stack
    done: concurrent.futures.Future[T] = concurrent.futures.Future()
    ctx = contextvars.copy_context()

    def start() -> None:
        if done.cancelled():
            coro.close()
            return
        task = owner.create_task(coro, context=ctx)
        task.add_done_callback(lambda finished: _copy_outcome(finished, done))
        done.add_done_callback(lambda f: f.cancelled() and owner.call_soon_threadsafe(task.cancel))

    owner.call_soon_threadsafe(start)
    return await asyncio.wrap_future(done)


def _copy_outcome(task: asyncio.Task[T], done: concurrent.futures.Future[T]) -> None:
    if done.done():
        return
    if task.cancelled():
        done.cancel()
    elif task.exception() is not None:
        done.set_exception(task.exception())
    else:
        done.set_result(task.result())


async def in_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)`` on a daemon thread, with the caller's contextvars; awaited here."""
    loop = asyncio.get_running_loop()
    outcome: asyncio.Future[T] = loop.create_future()
    ctx = contextvars.copy_context()

    def work() -> None:
        try:
            result = ctx.run(fn, *args)
        except BaseException as exc:  # handed to the waiting coroutine
            _deliver(loop, outcome, None, exc)
        else:
            _deliver(loop, outcome, result, None)

    name = f"workbench-sync-{getattr(fn, '__name__', 'call')}"
    threading.Thread(target=work, name=name, daemon=True).start()
    return await outcome


def _deliver(
    loop: asyncio.AbstractEventLoop, outcome: asyncio.Future[Any], result: Any, error: Any
) -> None:
    def settle() -> None:
        if outcome.done():  # the caller gave up (a timeout) before the call returned
            return
        if error is not None:
            outcome.set_exception(error)
        else:
            outcome.set_result(result)

    with contextlib.suppress(RuntimeError):  # the loop closed while the call was running
        loop.call_soon_threadsafe(settle)


__all__ = ["in_daemon_thread", "on_owning_loop"]
