"""run_sync: call async code from sync code, anywhere.

One long-lived event loop runs on a daemon thread per process (recreated after
``fork``). ``run_sync`` hands the coroutine to that loop, with a copy of the
caller's contextvars, and blocks the calling thread until it finishes. Because
the caller's own loop (a Jupyter kernel's, or an ``asyncio.run`` further up the
stack) is never re-entered, nothing is patched and any loop policy (uvloop
included) works. Loop-bound clients created by one call are reused by the next,
from any thread.

* Nested calls (a coroutine on a bridge loop calling sync code that calls
  ``run_sync``) run on a short-lived helper loop, because the bridge loop is busy
  running the caller and would deadlock.
* ``timeout=`` raises the builtin ``TimeoutError``; a ``KeyboardInterrupt`` while
  waiting (Ctrl-C, a kernel interrupt) cancels the coroutine, lets its ``finally``
  run for up to ``CANCEL_GRACE`` seconds, then reaches the caller.
* ``same_loop=True`` (or ``use_same_loop()``) is the opt-in for the one case a
  thread bridge cannot serve, a client bound to the caller's running loop: it
  patches that loop with nest-asyncio. See docs/bridge.md for its costs.
"""

from __future__ import annotations

import _thread
import asyncio
import atexit
import contextlib
import contextvars
import inspect
import os
import threading
import types
from collections.abc import Awaitable, Coroutine
from typing import Any, TypeVar

from workbench.errors import ConfigError, MissingDependency

__all__ = ["CANCEL_GRACE", "run_sync", "use_same_loop"]

T = TypeVar("T")

CANCEL_GRACE = 1.0
"""Seconds a cancelled coroutine gets to finish its cleanup before the caller moves on."""


class _ThreadMark(threading.local):
    ours = False  # True on threads that run a bridge (or helper) loop


_here = _ThreadMark()
# True inside coroutines started by a nested call: the bridge loop is blocked by
# one of their ancestors, so their own calls (even from asyncio.to_thread) must not use it.
_bridge_blocked: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "workbench_bridge_blocked", default=False
)
_same_loop_default = False


class _LoopThread:
    """An event loop running forever on its own daemon thread."""

    def __init__(self, name: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        _here.ours = True
        try:
            while True:
                try:
                    self.loop.run_forever()
                    break
                except (KeyboardInterrupt, SystemExit):  # raised by a coroutine, which
                    continue  # hands it to its caller: the loop lives on
        finally:
            _close_loop(self.loop)

    def stop(self, wait: float = CANCEL_GRACE + 1.0) -> None:
        if not self.loop.is_closed():
            self.loop.call_soon_threadsafe(self.loop.stop)
        if threading.current_thread() is not self.thread:
            self.thread.join(wait)


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left, finish async generators and the executor, close the loop."""
    try:
        tasks = asyncio.all_tasks(loop)
        for task in tasks:
            task.cancel()
        if tasks:
            loop.run_until_complete(asyncio.wait(tasks, timeout=CANCEL_GRACE))
        loop.run_until_complete(loop.shutdown_asyncgens())
        # RuntimeError: at interpreter exit, newer Pythons refuse the executor's helper thread
        with contextlib.suppress(RuntimeError):
            loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


_bridge: _LoopThread | None = None
_bridge_lock = threading.Lock()
_abandoned: list[_LoopThread] = []  # parent's bridge in a forked child: kept, never touched


def _bridge_loop() -> asyncio.AbstractEventLoop:
    bridge = _bridge
    if bridge is None or bridge.loop.is_closed():
        bridge = _start_bridge()
    return bridge.loop


def _start_bridge() -> _LoopThread:
    global _bridge
    with _bridge_lock:
        if _bridge is None or _bridge.loop.is_closed():
            _bridge = _LoopThread("workbench-bridge")
        return _bridge


def _shutdown_bridge() -> None:
    global _bridge
    bridge, _bridge = _bridge, None
    if bridge is not None:
        bridge.stop()


def _forget_bridge_after_fork() -> None:
    global _bridge, _bridge_lock
    if _bridge is not None:
        _abandoned.append(_bridge)
    _bridge = None
    _bridge_lock = threading.Lock()
    _here.ours = False


os.register_at_fork(after_in_child=_forget_bridge_after_fork)
atexit.register(_shutdown_bridge)


class _Call:
    """One coroutine handed to a loop, and the way back to the waiting thread."""

    __slots__ = ("child", "coro", "ctx", "done", "error", "loop", "result", "stopping", "task")

    def __init__(
        self,
        coro: Coroutine[Any, Any, Any],
        ctx: contextvars.Context,
        loop: asyncio.AbstractEventLoop,
    ) -> None:
        self.coro = coro
        self.ctx = ctx
        self.loop = loop
        self.done = _thread.allocate_lock()
        self.done.acquire()
        self.task: asyncio.Task[Any] | None = None
        self.child: _Call | None = None  # a nested call this one's coroutine is blocked on
        self.stopping = False
        self.result: Any = None
        self.error: BaseException | None = None

    def start(self) -> None:  # on the loop, inside self.ctx
        _current_call.set(self)
        self.task = self.loop.create_task(self.coro, context=self.ctx)
        self.task.add_done_callback(self.finish, context=self.ctx)
        if self.stopping:
            self.task.cancel()

    def finish(self, task: asyncio.Task[Any]) -> None:
        try:
            if task.cancelled():
                task.result()  # raises the CancelledError, which the caller receives
            self.error = task.exception()
            if self.error is None:
                self.result = task.result()
        except BaseException as exc:
            self.error = exc
        finally:
            _current_call.set(None)  # runs inside self.ctx: no call <-> context cycle
            self.done.release()

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()


# The call whose coroutine is running; a nested call links itself to it so that
# cancelling the outer call also reaches the inner one (its loop is not blocked).
_current_call: contextvars.ContextVar[_Call | None] = contextvars.ContextVar(
    "workbench_bridge_call", default=None
)


def _submit(call: _Call, timeout: float | None) -> Any:
    try:  # an interrupt landing while the call is handed over cancels it too
        call.loop.call_soon_threadsafe(call.start, context=call.ctx)
        wait = -1 if timeout is None or timeout >= threading.TIMEOUT_MAX else timeout
        finished = call.done.acquire(True, wait)
    except BaseException:  # KeyboardInterrupt while waiting: cancel, let cleanup run, re-raise
        _cancel(call)
        raise
    if not finished:
        _cancel(call)
        name = getattr(call.coro, "__qualname__", repr(call.coro))
        raise TimeoutError(f"run_sync: {name} did not finish within {timeout} s and was cancelled")
    error, result = call.error, call.result
    del call  # the traceback keeps this frame: leave no path from it back to the error
    if error is not None:
        try:
            raise error
        finally:
            del error
    return result


def _cancel(call: _Call) -> None:
    """Cancel the call and every nested call below it, then give them time to clean up."""
    node: _Call | None = call
    while node is not None:
        _request_cancel(node)
        node = node.child
    call.done.acquire(True, CANCEL_GRACE)


def _request_cancel(call: _Call) -> None:
    call.stopping = True  # seen by start() if the cancel overtakes it
    with contextlib.suppress(RuntimeError):  # a closed loop has nothing left to cancel
        call.loop.call_soon_threadsafe(call.cancel)


def _run_nested(coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
    """The caller blocks a bridge loop: run on a fresh helper loop that is closed after."""
    parent = _current_call.get()
    ctx = contextvars.copy_context()
    ctx.run(_bridge_blocked.set, True)
    helper = _LoopThread("workbench-bridge-nested")
    call = _Call(coro, ctx, helper.loop)
    if parent is not None:
        parent.child = call
        call.stopping = parent.stopping  # cancelled before it could link: start cancelled
    try:
        result: T = _submit(call, timeout)
        return result
    finally:
        if parent is not None:
            parent.child = None
        del call
        helper.stop()


def run_sync(
    awaitable: Awaitable[T], *, timeout: float | None = None, same_loop: bool | None = None
) -> T:
    """Run ``awaitable`` to completion and return its result (or raise its exception).

    Works from plain scripts, threads, sync code inside a running event loop and
    Jupyter cells. ``timeout`` (seconds) cancels the coroutine and raises the
    builtin ``TimeoutError``. ``same_loop=True`` runs on the caller's own running
    loop through nest-asyncio instead of the bridge thread (see ``use_same_loop``).
    """
    coro = _as_coroutine(awaitable, timeout)
    if same_loop or (same_loop is None and _same_loop_default):
        running = asyncio._get_running_loop()
        if running is not None:
            return _run_on_running_loop(running, coro, timeout)
    if _here.ours or _bridge_blocked.get():
        return _run_nested(coro, timeout)
    loop = _bridge_loop()
    result: T = _submit(_Call(coro, contextvars.copy_context(), loop), timeout)
    return result


def _as_coroutine(awaitable: Awaitable[T], timeout: float | None) -> Coroutine[Any, Any, T]:
    if timeout is not None and not (isinstance(timeout, int | float) and timeout >= 0):
        if inspect.iscoroutine(awaitable):
            awaitable.close()
        raise ConfigError(f"run_sync: timeout must be None or seconds >= 0, not {timeout!r}")
    if type(awaitable) is types.CoroutineType:
        return awaitable
    if inspect.isawaitable(awaitable):
        return _await(awaitable)
    hint = " (call it: pass fn(...), not fn)" if callable(awaitable) else ""
    raise ConfigError(
        f"run_sync needs an awaitable such as a coroutine, got {type(awaitable).__name__}{hint}"
    )


async def _await(awaitable: Awaitable[T]) -> T:
    return await awaitable


def use_same_loop(enabled: bool = True) -> None:
    """Make ``same_loop=True`` the default for every ``run_sync`` call in this process.

    Costs (docs/bridge.md): nest-asyncio patches asyncio process-wide, refuses
    uvloop, and lets the caller's loop (a kernel's) run other tasks re-entrantly
    while the call waits.
    """
    global _same_loop_default
    _same_loop_default = bool(enabled)


def _run_on_running_loop(
    loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, T], timeout: float | None
) -> T:
    try:
        import nest_asyncio
    except ImportError as exc:  # pragma: no cover - nest-asyncio is a core dependency
        coro.close()
        raise MissingDependency("nest-asyncio", "all", "run_sync(same_loop=True)") from exc
    try:
        nest_asyncio.apply(loop)
    except ValueError as exc:
        coro.close()
        kind = f"{type(loop).__module__}.{type(loop).__name__}"
        raise ConfigError(
            f"run_sync(same_loop=True) cannot patch a {kind} loop "
            "(nest-asyncio supports only the standard asyncio loop); "
            "drop same_loop or the uvloop policy"
        ) from exc
    task = loop.create_task(coro if timeout is None else asyncio.wait_for(coro, timeout))
    try:
        return loop.run_until_complete(task)
    except BaseException:
        if not task.done():
            task.cancel()
            loop.run_until_complete(asyncio.wait([task], timeout=CANCEL_GRACE))
        raise
