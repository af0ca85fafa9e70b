"""Bridge scenarios that must run in a fresh process (run by tests/test_bridge.py).

    python tests/bridge/scenarios.py NAME

core       every everyday situation, asserted; run under -X dev, and under uvloop
uvloop     core, with the uvloop policy installed first
fork       the bridge keeps working in a forked child
interrupt  waits in run_sync until SIGINT arrives, then reports what happened
interrupt_nested  the same, with the wait two calls deep
same_loop  a resource bound to the caller's running loop, with and without the opt-in
at_exit    a task left on the bridge is cancelled, its finally run, when the process exits
Each prints one JSON line on success; any failed assertion exits non-zero.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import signal
import sys
import threading
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from workbench import bridge
from workbench.bridge import run_sync
from workbench.errors import ConfigError

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


async def add(a: int, b: int) -> int:
    await asyncio.sleep(0)
    return a + b


async def loop_type() -> str:
    return type(asyncio.get_running_loop()).__module__


def sync_add(a: int, b: int) -> int:
    return run_sync(add(a, b))


async def nested_outer() -> int:
    return run_sync(nested_middle()) + 1


async def nested_middle() -> int:
    return sync_add(40, 1)


async def boom() -> None:
    raise LookupError("inside", 7)


def core() -> dict[str, object]:
    assert [run_sync(add(i, 1)) for i in range(3)] == [1, 2, 3]
    assert asyncio.run(add(2, 2)) == 4
    assert run_sync(add(3, 3)) == 6

    async def main() -> int:
        return sync_add(5, 5)

    assert asyncio.run(main()) == 10
    assert run_sync(nested_outer()) == 42
    request_id.set("r-1")

    async def read_var() -> str:
        return request_id.get()

    assert run_sync(read_var()) == "r-1"
    try:
        run_sync(boom())
    except LookupError as exc:
        assert exc.args == ("inside", 7)
    queue: asyncio.Queue[int] = run_sync(_make_queue())
    run_sync(queue.put(1))
    threading.Thread(target=lambda: run_sync(queue.put(2))).start()
    assert run_sync(queue.get()) == 1
    assert run_sync(queue.get(), timeout=5) == 2
    results: list[int] = []
    threads = [
        threading.Thread(target=lambda i=i: results.append(sync_add(i, 0))) for i in range(16)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(16))
    try:
        run_sync(asyncio.sleep(5), timeout=0.05)
    except TimeoutError:
        pass
    else:
        raise AssertionError("no TimeoutError")
    try:
        run_sync(_exit())
    except SystemExit as exc:
        assert exc.code == 3
    assert run_sync(add(1, 1), timeout=float("inf")) == 2
    return {"loop": run_sync(loop_type()), "debug": run_sync(_debug_flag())}


async def _exit() -> None:
    raise SystemExit(3)


async def _make_queue() -> asyncio.Queue[int]:
    return asyncio.Queue()


async def _debug_flag() -> bool:
    return asyncio.get_running_loop().get_debug()


def uvloop_core() -> dict[str, object]:
    import uvloop

    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    return core()


def fork() -> dict[str, object]:
    assert run_sync(add(1, 1)) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork in a threaded process
        pid = os.fork()
    if pid == 0:
        try:
            code = 0 if run_sync(add(20, 1), timeout=5) == 21 else 3
        except BaseException:
            code = 4
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    return {"child_exit": os.waitstatus_to_exitcode(status), "parent": run_sync(add(2, 2))}


def interrupt(nested: bool = False) -> dict[str, object]:
    cleaned: list[str] = []

    async def wait_forever() -> None:
        try:
            print("waiting", flush=True)
            await asyncio.Event().wait()  # only a cancel ends it
        finally:
            cleaned.append("inner")

    async def outer() -> None:
        try:
            run_sync(wait_forever())  # nested: the bridge thread blocks here
        finally:
            cleaned.append("outer")

    try:
        run_sync(outer() if nested else wait_forever())
    except KeyboardInterrupt:
        caught = True
    else:
        caught = False
    return {"caught": caught, "cleaned": cleaned, "next": run_sync(add(1, 2), timeout=120)}


def same_loop() -> dict[str, object]:
    async def main() -> dict[str, object]:
        bound = asyncio.Event()
        waiter = asyncio.create_task(bound.wait())  # binds the event to this loop
        await asyncio.sleep(0)
        try:
            run_sync(bound.wait(), timeout=5)
        except RuntimeError as exc:
            without = str(exc)
        queue: asyncio.Queue[str] = asyncio.Queue()

        async def produce() -> None:
            await asyncio.sleep(0.01)
            await queue.put("from the caller's loop")

        producer = asyncio.create_task(produce())
        got = run_sync(queue.get(), timeout=5, same_loop=True)
        timed_out = False
        try:
            run_sync(asyncio.sleep(5), timeout=0.05, same_loop=True)
        except TimeoutError:
            timed_out = True
        bound.set()
        await waiter
        await producer
        return {"without": without, "with": got, "timed_out": timed_out}

    async def switched() -> str:
        queue: asyncio.Queue[str] = asyncio.Queue()
        asyncio.get_running_loop().call_later(0.01, queue.put_nowait, "from the caller's loop")
        bridge.use_same_loop()
        try:
            return run_sync(queue.get(), timeout=5)
        finally:
            bridge.use_same_loop(False)

    result = asyncio.run(main())
    result["switch"] = asyncio.run(switched())
    result["uvloop_refused"] = _uvloop_refused()
    return result


def _uvloop_refused() -> str:
    import uvloop

    async def main() -> str:
        try:
            run_sync(add(1, 1), same_loop=True)
        except ConfigError as exc:
            return str(exc)
        return "accepted"

    return uvloop.run(main())


def at_exit() -> dict[str, object]:
    async def linger() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            print("background task cleaned up at exit", flush=True)

    async def start_background() -> None:
        _background.append(asyncio.create_task(linger()))

    run_sync(start_background())
    return {"started": len(_background)}


_background: list[asyncio.Task[None]] = []

SCENARIOS = {
    "core": core,
    "uvloop": uvloop_core,
    "fork": fork,
    "interrupt": interrupt,
    "interrupt_nested": lambda: interrupt(nested=True),
    "same_loop": same_loop,
    "at_exit": at_exit,
}

if __name__ == "__main__":
    # A shell that starts a suite in the background leaves SIGINT ignored for every child;
    # take the handler an interactive start gives, so Ctrl-C is what the scenario sees.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    print(json.dumps(SCENARIOS[sys.argv[1]]()), flush=True)
