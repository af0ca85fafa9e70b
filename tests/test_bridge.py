"""run_sync in every situation the bridge promises (docs/bridge.md).

Situations that change process-wide state (loop policy, debug mode, fork, SIGINT,
nest-asyncio) run tests/bridge/scenarios.py in a fresh interpreter; real Jupyter
kernels run tests/bridge/kernel_bridge.ipynb and are marked slow.
"""

from __future__ import annotations

import asyncio
import contextvars
import gc
import http.server
import inspect
import json
import os
import signal
import subprocess
import sys
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

import workbench
from workbench.bridge import run_sync
from workbench.errors import ConfigError
from workbench.testing.stub_endpoint import POLL_S

REPO = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent / "bridge"
SCENARIOS = HERE / "scenarios.py"
NOTEBOOK = HERE / "kernel_bridge.ipynb"

request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="unset")


async def add(a: int, b: int) -> int:
    await asyncio.sleep(0)
    return a + b


def sync_add(a: int, b: int) -> int:
    return run_sync(add(a, b))


def run_scenario(name: str, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *flags, str(SCENARIOS), name],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        check=False,
    )


def scenario_json(name: str, *flags: str, **env: str) -> dict[str, Any]:
    done = run_scenario(name, *flags, **env)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    result: dict[str, Any] = json.loads(done.stdout)
    return result


# --- the public surface ---------------------------------------------------------


def test_exported_from_the_package_with_a_stable_signature() -> None:
    from workbench.integrations import common

    assert workbench.run_sync is run_sync
    assert common.run_sync is run_sync
    params = inspect.signature(run_sync).parameters
    assert list(params)[:2] == ["awaitable", "timeout"]
    assert params["timeout"].kind is inspect.Parameter.KEYWORD_ONLY
    assert params["timeout"].default is None


def test_not_an_awaitable_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"pass fn\(\.\.\.\), not fn"):
        run_sync(add)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="awaitable"):
        run_sync(42)  # type: ignore[arg-type]


@pytest.mark.parametrize("timeout", [-1, "5", float("nan")])
def test_a_bad_timeout_is_refused_and_the_coroutine_closed(timeout: Any) -> None:
    coro = add(1, 1)
    with pytest.raises(ConfigError, match="timeout"):
        run_sync(coro, timeout=timeout)
    assert inspect.getcoroutinestate(coro) == inspect.CORO_CLOSED


def test_any_awaitable_not_only_coroutines() -> None:
    class Ready:
        def __await__(self) -> Generator[None, None, str]:
            yield from asyncio.sleep(0).__await__()
            return "awaited"

    assert run_sync(Ready()) == "awaited"


# --- where it is called from ----------------------------------------------------


def test_plain_calls_repeat_and_survive_asyncio_run_in_the_same_thread() -> None:
    assert [run_sync(add(i, 1)) for i in range(5)] == [1, 2, 3, 4, 5]
    assert asyncio.run(add(2, 2)) == 4
    assert run_sync(add(3, 3)) == 6


def test_sync_code_inside_a_running_loop() -> None:
    async def main() -> tuple[int, bool]:
        caller_loop = asyncio.get_running_loop()
        return sync_add(5, 5), run_sync(on_other_loop(caller_loop))

    async def on_other_loop(caller_loop: asyncio.AbstractEventLoop) -> bool:
        return asyncio.get_running_loop() is not caller_loop

    assert asyncio.run(main()) == (10, True)


def test_nested_two_levels_deep_without_deadlock() -> None:
    depth_seen: list[str] = []

    async def level_one() -> int:
        depth_seen.append(threading.current_thread().name)
        return run_sync(level_two(), timeout=10) + 1

    async def level_two() -> int:
        depth_seen.append(threading.current_thread().name)
        return sync_add(40, 1)

    assert run_sync(level_one(), timeout=10) == 42
    assert depth_seen == ["workbench-bridge", "workbench-bridge-nested"]
    assert run_sync(add(1, 1)) == 2


def test_nested_call_through_to_thread_does_not_wait_on_the_blocked_bridge() -> None:
    async def level_one() -> int:
        return run_sync(level_two(), timeout=10)

    async def level_two() -> int:
        return await asyncio.to_thread(sync_add, 20, 1)

    assert run_sync(level_one(), timeout=10) == 21


def test_contextvars_set_by_the_caller_are_visible_inside_and_do_not_leak_back() -> None:
    async def read_and_change() -> str:
        seen = request_id.get()
        request_id.set("changed inside")
        return seen

    token = request_id.set("caller")
    try:
        assert run_sync(read_and_change()) == "caller"
        assert request_id.get() == "caller"
        assert run_sync(level_read()) == "caller"
    finally:
        request_id.reset(token)


async def level_read() -> str:
    return run_sync(read_var())


async def read_var() -> str:
    return request_id.get()


def test_an_exception_comes_out_as_the_same_object() -> None:
    raised: dict[str, BaseException] = {}

    def deep_inside() -> None:
        error = LookupError("inside", 7)
        raised["error"] = error
        raise error

    async def failing() -> None:
        await asyncio.sleep(0)
        deep_inside()

    with pytest.raises(LookupError) as info:
        run_sync(failing())
    assert info.value is raised["error"]
    assert info.value.args == ("inside", 7)
    frames = [frame.name for frame in traceback.extract_tb(info.value.__traceback__)]
    assert frames[-2:] == ["failing", "deep_inside"]


def test_timeout_raises_builtin_timeout_error_and_cancels_the_coroutine() -> None:
    state = {"finally": False}

    async def slow() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            state["finally"] = True

    with pytest.raises(TimeoutError, match=r"slow did not finish within 0\.05 s"):
        run_sync(slow(), timeout=0.05)
    assert state["finally"]
    assert run_sync(add(1, 1), timeout=5) == 2


def test_a_timeout_reaches_nested_calls_and_the_bridge_stays_usable() -> None:
    cleaned: list[str] = []

    async def outer() -> None:
        try:
            run_sync(inner())
        finally:
            cleaned.append("outer")

    async def inner() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append("inner")

    with pytest.raises(TimeoutError):
        run_sync(outer(), timeout=0.2)
    assert cleaned == ["inner", "outer"]
    assert run_sync(add(1, 1), timeout=5) == 2


@pytest.mark.parametrize("error", [KeyboardInterrupt("from inside"), SystemExit(3)])
def test_a_coroutine_raising_a_base_exception_does_not_kill_the_bridge(
    error: BaseException,
) -> None:
    async def raising() -> None:
        await asyncio.sleep(0)
        raise error

    with pytest.raises(type(error)) as info:
        run_sync(raising())
    assert info.value is error
    assert run_sync(add(2, 2), timeout=5) == 4


@pytest.mark.slow
def test_a_call_leaves_no_reference_cycles_behind() -> None:
    class Payload:
        pass

    async def make() -> Payload:
        return Payload()

    async def fail() -> None:
        raise ValueError("cycle check")

    run_sync(make())
    gc.collect()
    gc.disable()
    try:
        payload = run_sync(make())
        ref = weakref.ref(payload)
        del payload
        assert ref() is None  # freed by refcount alone, not waiting for the collector
        failures = 0
        for _ in range(20):
            try:
                run_sync(fail())
            except ValueError:
                failures += 1
        assert failures == 20
        assert gc.collect() == 0
    finally:
        gc.enable()


# --- loop-bound resources and concurrency ---------------------------------------


class _KeepAliveHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    peers: list[int] = []  # noqa: RUF012 - class-level log of client ports, one per request

    def do_GET(self) -> None:
        self.peers.append(self.client_address[1])
        body = b"ok"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def loopback_server() -> Iterator[tuple[str, list[int]]]:
    class Handler(_KeepAliveHandler):
        peers: list[int] = []  # noqa: RUF012 - a fresh log for this server

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", Handler.peers
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.mark.slow
def test_an_httpx_pool_is_reused_across_calls_and_threads(
    loopback_server: tuple[str, list[int]],
) -> None:
    import httpx

    url, peers = loopback_server

    async def make_client() -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=url)

    client = run_sync(make_client())
    try:
        statuses = [run_sync(client.get("/")).status_code for _ in range(2)]
        from_thread: list[int] = []
        worker = threading.Thread(
            target=lambda: from_thread.append(run_sync(client.get("/")).status_code)
        )
        worker.start()
        worker.join()
    finally:
        run_sync(client.aclose())
    assert statuses + from_thread == [200, 200, 200]
    assert len(peers) == 3 and len(set(peers)) == 1  # one pooled connection served all three


def test_an_asyncio_queue_is_reused_across_calls_and_threads() -> None:
    async def make_queue() -> asyncio.Queue[str]:
        return asyncio.Queue()

    queue = run_sync(make_queue())
    getter = threading.Thread(target=lambda: got.append(run_sync(queue.get(), timeout=10)))
    got: list[str] = []
    getter.start()  # waits on the queue from another thread
    run_sync(queue.put("first"))
    getter.join()
    run_sync(queue.put("second"))
    assert got == ["first"]
    assert run_sync(queue.get()) == "second"


def test_sixteen_threads_at_once_run_concurrently() -> None:
    async def make_barrier() -> asyncio.Barrier:
        return asyncio.Barrier(16)

    barrier = run_sync(make_barrier())

    async def meet(i: int) -> int:
        await barrier.wait()  # only returns once all 16 calls are in flight together
        return i

    results: list[int] = []
    lock = threading.Lock()

    def call(i: int) -> None:
        value = run_sync(meet(i), timeout=20)
        with lock:
            results.append(value)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == list(range(16))


# --- fresh interpreters ---------------------------------------------------------


@pytest.mark.slow
def test_everyday_situations_under_the_uvloop_policy() -> None:
    assert scenario_json("uvloop")["loop"] == "uvloop"


@pytest.mark.slow
def test_asyncio_debug_mode_shows_no_warnings() -> None:
    result = scenario_json("core", "-X", "dev", "-W", "error", PYTHONASYNCIODEBUG="1")
    assert result["debug"] is True


@pytest.mark.slow
def test_at_exit_the_bridge_cancels_what_is_left_and_closes_cleanly() -> None:
    done = run_scenario("at_exit", "-X", "dev", "-W", "error")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert lines == ['{"started": 1}', "background task cleaned up at exit"]


@pytest.mark.slow
def test_the_bridge_is_recreated_in_a_forked_child() -> None:
    assert scenario_json("fork") == {"child_exit": 0, "parent": 4}


# Deadlines for a child on a loaded machine (a full suite beside CPU hogs): long, since
# nothing here sleeps; each waits for an event that a healthy child reaches in a second.
CHILD_READY_S = 300.0
CHILD_DONE_S = 300.0


@pytest.fixture
def spawn() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start children in their own process group; each group is killed at the end, pass or
    fail, so no child is left sleeping beside the tests that follow."""
    children: list[subprocess.Popen[str]] = []

    def start(*argv: str) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            list(argv),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # a group of its own: killpg reaches all of it
        )
        children.append(child)
        return child

    yield start
    for child in children:
        if child.poll() is None:  # alive, so the group is still ours to kill
            os.killpg(child.pid, signal.SIGKILL)
        child.communicate(timeout=CHILD_DONE_S)


def _line_within(stream: Any, seconds: float) -> str:
    """The next line ``stream`` prints, or "" if none comes within ``seconds``."""
    import select

    ready, _, _ = select.select([stream], [], [], seconds)
    return str(stream.readline()) if ready else ""


@pytest.mark.parametrize(
    ("scenario", "cleaned"), [("interrupt", ["inner"]), ("interrupt_nested", ["inner", "outer"])]
)
@pytest.mark.slow
def test_sigint_while_waiting_cancels_the_coroutine_and_the_next_call_works(
    scenario: str, cleaned: list[str], spawn: Callable[..., subprocess.Popen[str]]
) -> None:
    child = spawn(sys.executable, "-X", "dev", "-W", "error", str(SCENARIOS), scenario)
    assert _line_within(child.stdout, CHILD_READY_S).strip() == "waiting"
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=CHILD_DONE_S)  # the wait itself never ends
    assert child.returncode == 0, err
    result = json.loads(out)
    assert result["caught"] and result["next"] == 3
    assert result["cleaned"] == cleaned  # every finally ran, innermost first


def _cancel_tasks_running(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any]) -> None:
    for task in asyncio.all_tasks(loop):
        if getattr(task.get_coro(), "__qualname__", "") == fn.__qualname__:
            task.cancel()


def test_an_interrupt_as_the_call_is_handed_over_still_cancels_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A signal can land between handing the coroutine to the loop and the wait (on a
    loaded machine the coroutine may even have started): it must be cancelled all the same."""
    from workbench import bridge

    loop = bridge._bridge_loop()
    hand_over = loop.call_soon_threadsafe

    started, cleaned = threading.Event(), threading.Event()

    def handed_over_then_interrupted(callback: Any, *args: Any, context: Any = None) -> Any:
        hand_over(callback, *args, context=context)
        monkeypatch.setattr(loop, "call_soon_threadsafe", hand_over)  # once only
        assert started.wait(60)  # as on a busy machine: the coroutine runs before the wait
        raise KeyboardInterrupt

    async def wait_forever() -> None:
        try:
            started.set()
            await asyncio.Event().wait()
        finally:
            cleaned.set()

    monkeypatch.setattr(loop, "call_soon_threadsafe", handed_over_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        run_sync(wait_forever())
    try:
        assert cleaned.wait(60), "the coroutine was left running on the bridge"
    finally:  # on failure, leave nothing waiting behind
        loop.call_soon_threadsafe(_cancel_tasks_running, loop, wait_forever)
    assert run_sync(add(1, 2), timeout=60) == 3


@pytest.mark.slow
def test_same_loop_opt_in_serves_a_resource_bound_to_the_callers_loop() -> None:
    result = scenario_json("same_loop")
    assert "bound to a different event loop" in result["without"]
    assert result["with"] == "from the caller's loop"
    assert result["timed_out"] is True
    assert result["switch"] == "from the caller's loop"
    assert "uvloop" in result["uvloop_refused"]


# --- real Jupyter kernels -------------------------------------------------------


@pytest.fixture
def kernel_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO), prepend=os.pathsep)


def _printed(notebook: Any) -> str:
    return "".join(
        output.get("text", "")
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    )


@pytest.mark.slow
@pytest.mark.usefixtures("kernel_env")
def test_in_a_kernel_cell_with_nbclient() -> None:
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    printed = _printed(notebook)
    assert "BRIDGE-OK nbclient" in printed
    assert "SAME-LOOP released" in printed
    (says,) = [
        cell for cell in notebook.cells if "print-from-bridge" in cell.metadata.get("tags", [])
    ]
    assert _printed(nbformat.v4.new_notebook(cells=[says])) == "printed on the bridge thread\n"


@pytest.mark.slow
@pytest.mark.usefixtures("kernel_env")
def test_in_a_kernel_cell_with_papermill(tmp_path: Path) -> None:
    import nbformat
    import papermill

    output = tmp_path / "out.ipynb"
    papermill.execute_notebook(
        str(NOTEBOOK),
        str(output),
        parameters={"marker": "papermill"},
        kernel_name="python3",
        progress_bar=False,
    )
    assert "BRIDGE-OK papermill" in _printed(nbformat.read(output, as_version=4))


KERNEL_SETUP = """
import asyncio
from workbench.bridge import run_sync

state = {"finally": False}

async def wait_forever():
    try:
        print("waiting", flush=True)
        await asyncio.sleep(120)
    finally:
        state["finally"] = True
"""


def _run_cell(client: Any, code: str, timeout: float = 60) -> tuple[dict[str, Any], str]:
    msg_id = client.execute(code)
    printed: list[str] = []
    while True:
        msg = client.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        if msg["msg_type"] == "stream":
            printed.append(msg["content"]["text"])
        if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
            break
    return _reply(client, msg_id, timeout), "".join(printed)


def _reply(client: Any, msg_id: str, timeout: float = 60) -> dict[str, Any]:
    while True:  # skip stale replies (kernel_info from wait_for_ready)
        msg = client.get_shell_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") == msg_id:
            reply: dict[str, Any] = msg["content"]
            return reply


@pytest.mark.slow
@pytest.mark.usefixtures("kernel_env")
def test_a_real_kernel_interrupt_cancels_the_wait_and_the_next_cell_works() -> None:
    from jupyter_client.manager import KernelManager

    manager = KernelManager(kernel_name="python3")
    manager.start_kernel()
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        reply, _ = _run_cell(client, KERNEL_SETUP)
        assert reply["status"] == "ok", reply
        msg_id = client.execute("run_sync(wait_forever())")
        while True:
            msg = client.get_iopub_msg(timeout=60)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "stream":
                break
        started = time.monotonic()
        manager.interrupt_kernel()
        reply = _reply(client, msg_id)
        elapsed = time.monotonic() - started
        assert reply["status"] == "error" and reply["ename"] == "KeyboardInterrupt", reply
        assert elapsed < 30  # the coroutine would have slept 120 s
        check = "print(state['finally'], run_sync(asyncio.sleep(0, 3)))"
        reply, printed = _run_cell(client, check)
        for _ in range(10):  # ipykernel aborts requests that arrive just after an error
            if reply["status"] != "aborted":
                break
            time.sleep(0.2)
            reply, printed = _run_cell(client, check)
        assert reply["status"] == "ok", reply
        assert printed.strip() == "True 3"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
