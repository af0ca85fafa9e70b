"""Suite-wide guards: no real credentials, no network beyond this machine.

- Environment variables that look like credentials are removed before any test
  runs (and so from every subprocess a test starts), so no test can spend money
  or leak a key by accident.
- Every socket connection a test opens in this process must go to loopback or a
  Unix socket; anything else fails at once with a message. A test that really
  needs the outside world is marked ``@pytest.mark.network`` (none is today).
- The mask key historical runs derive their secret from is one file for the whole
  session, outside the checkout (``WORKBENCH_MASK_FILE``), so no test writes a key
  into the project and every subprocess a test starts masks as the test does.
- The costliest test files are run first, so that under parallel workers (``make
  test`` runs ``pytest -n 2 --dist loadfile``) the longest files start at once and
  no worker is left running one of them alone at the end: the files measured in
  ``MEASURED_SECONDS``, costliest first, then those holding browser or slow tests.
- jsonschema (imported with nbformat and papermill) imports ``rfc3987_syntax`` to check
  the ``iri`` formats, which builds about thirty Earley parsers, over a CPU-second alone
  and about 4 in a pytest worker, though no schema a test validates uses them
  (tests/test_suite_isolation.py). The suite's own processes, and those it starts
  (kernels, servers, the demo: ``tests/kept_out`` leads their ``PYTHONPATH``), import a
  stand-in that imports the real package at the first IRI checked, so the checks are
  the real ones and unpaid for until used.
- What workbench caches for every later process (the packed plotly.js) goes to one folder
  per worker for the session (``WORKBENCH_CACHE_DIR``), never the home folder's cache.
- Property tests run ``HYPOTHESIS_EXAMPLES`` examples each; ``WORKBENCH_THOROUGH=1``
  selects the thorough profile, several times as many (docs/contributing.md).
"""

from __future__ import annotations

import asyncio
import importlib.util
import ipaddress
import os
import re
import socket
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

KEPT_OUT = str(Path(__file__).with_name("kept_out"))


def _stand_in(name: str) -> None:
    """``kept_out``'s module of that name imported as it, here; the processes started find
    it first on their ``PYTHONPATH``."""
    spec = importlib.util.spec_from_file_location(name, Path(KEPT_OUT, f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError:  # the real package is not installed: neither is it
        return
    sys.modules.setdefault(name, module)


_stand_in("rfc3987_syntax")
_PATHS = [path for path in os.environ.get("PYTHONPATH", "").split(os.pathsep) if path]
os.environ["PYTHONPATH"] = os.pathsep.join([KEPT_OUT, *(p for p in _PATHS if p != KEPT_OUT)])

SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL)", re.IGNORECASE)


HYPOTHESIS_EXAMPLES = 150
THOROUGH_EXAMPLES = 2000
settings.register_profile("suite", max_examples=HYPOTHESIS_EXAMPLES, deadline=None)
settings.register_profile("thorough", max_examples=THOROUGH_EXAMPLES, deadline=None)
settings.load_profile("thorough" if os.environ.get("WORKBENCH_THOROUGH") == "1" else "suite")


def credential_names(environ: Mapping[str, str]) -> list[str]:
    return [name for name in environ if SECRET_NAME.search(name)]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "network: may connect beyond loopback")
    for name in credential_names(os.environ):
        del os.environ[name]


# Seconds each of the costliest files spent in its worker during a full `make test` on the
# two-core machine (its tests' times summed from `--junitxml`; kernels and subprocesses run
# meanwhile on the other core). Re-measure when a file's module fixtures change; a file
# that is missing here is ranked by its marks.
MEASURED_SECONDS = {
    "test_widgets_browser.py": 74,
    "test_notebooks.py": 51,
    "test_notebooks_data.py": 21,
    "test_widgets.py": 18,
    "test_text_scan.py": 13,
    "test_docs_examples.py": 12,
    "test_voila_browser.py": 12,
    "test_bridge.py": 11,
    "test_adapters_jupyter.py": 9,
    "test_answer_triage.py": 9,
    "test_mcp_server.py": 8,
    "test_compare_notebook.py": 8,
    "test_hostile_recordings.py": 8,
    "test_endpoints.py": 7,
    "test_kernel_start.py": 7,
}


def _cost_rank(item: pytest.Item) -> int:
    """0 for a browser test, 1 for another slow one, 2 for the rest."""
    if item.get_closest_marker("browser"):
        return 0
    return 1 if item.get_closest_marker("slow") else 2


def _file_of(item: pytest.Item) -> str:
    return item.nodeid.split("::")[0]


def _measured(file: str) -> int:
    return MEASURED_SECONDS.get(file.rpartition("/")[2], 0)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whole files, costliest first (measured, then by their costliest test), otherwise in
    the order found."""
    rank: dict[str, int] = {}
    for item in items:
        rank[_file_of(item)] = min(_cost_rank(item), rank.get(_file_of(item), 2))
    items.sort(key=lambda item: (-_measured(_file_of(item)), rank[_file_of(item)]))


def _loopback(address: Any) -> bool:
    if isinstance(address, str | bytes):  # a Unix socket path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: resolving it would already be a network call


@pytest.fixture(autouse=True)
def _loopback_only(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if request.node.get_closest_marker("network"):
        yield
        return
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def guard(address: Any) -> None:
        if not _loopback(address):
            raise OSError(
                f"tests may only connect to loopback, not {address!r}; "
                "mark the test @pytest.mark.network if it truly needs the network"
            )

    def connect(self: socket.socket, address: Any) -> None:
        guard(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        guard(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    yield


def _main_thread_loop() -> asyncio.AbstractEventLoop | None:
    """The loop set on this thread, without creating one (the policy's own record)."""
    local = getattr(asyncio.get_event_loop_policy(), "_local", None)
    return getattr(local, "_loop", None)


@pytest.fixture(autouse=True)
def _no_event_loop_left_behind() -> Iterator[None]:
    """A kernel client (nbclient, papermill, through jupyter_core) sets an event loop on
    the thread it runs in and leaves it open; closed after the test that made it (as
    ``workbench.notebooks.runner`` does on its workers), it is never reported, unclosed,
    against whichever later test the garbage collector happens to run in."""
    before = _main_thread_loop()
    yield
    left = _main_thread_loop()
    if left is not None and left is not before and not left.is_running():
        asyncio.set_event_loop(None)
        left.close()


# What ``nest_asyncio.apply`` replaces process-wide (``run_sync(same_loop=True)`` calls it):
# the module functions and classes, the policy's ``get_event_loop`` and the loop class's
# run methods. Its ``asyncio.run`` never closes the loop it makes on a thread.
_NEST_MODULE_NAMES = {
    asyncio: ("Task", "Future", "get_event_loop", "run"),
    asyncio.tasks: ("Task", "_CTask"),
    asyncio.futures: ("Future", "_CFuture"),
    asyncio.events: ("get_event_loop", "_get_event_loop"),
}
_NEST_CLASS_NAMES = (
    "get_event_loop", "run_forever", "run_until_complete", "_run_once", "_check_running",
    "_check_runnung", "_num_runs_pending", "_is_proactorloop", "_nest_patched",
)  # fmt: skip
_STOCK_ASYNCIO = {
    (module, name): getattr(module, name)
    for module, names in _NEST_MODULE_NAMES.items()
    for name in names
    if hasattr(module, name)
}
_STOCK_CLASSES = {
    cls: {name: vars(cls)[name] for name in _NEST_CLASS_NAMES if name in vars(cls)}
    for cls in (type(asyncio.get_event_loop_policy()), asyncio.SelectorEventLoop)
}


def _undo_nest_asyncio() -> None:
    for (module, name), value in _STOCK_ASYNCIO.items():
        setattr(module, name, value)
    del asyncio._nest_patched  # type: ignore[attr-defined]
    for cls, stock in _STOCK_CLASSES.items():
        for name in _NEST_CLASS_NAMES:
            if name in stock:
                setattr(cls, name, stock[name])
            elif name in vars(cls):
                delattr(cls, name)


@pytest.fixture(autouse=True)
def _stock_asyncio_after_each_test() -> Iterator[None]:
    """A test that applied nest-asyncio leaves asyncio as it found it: patched, a later
    test's ``asyncio.run`` on a thread would leave its loop open, and the garbage collector
    would report it against whichever test it happens to run in."""
    yield
    if hasattr(asyncio, "_nest_patched"):
        _undo_nest_asyncio()


@pytest.fixture(autouse=True, scope="session")
def _mask_key_outside_the_checkout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    from workbench.engine.masking import KEY_FILE_VARIABLE

    before = os.environ.get(KEY_FILE_VARIABLE)
    os.environ[KEY_FILE_VARIABLE] = str(tmp_path_factory.mktemp("mask") / "mask-key")
    yield
    if before is None:
        os.environ.pop(KEY_FILE_VARIABLE, None)
    else:
        os.environ[KEY_FILE_VARIABLE] = before


@pytest.fixture(autouse=True, scope="session")
def _cache_outside_the_home_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What workbench caches (the packed plotly.js) kept in one folder per worker for the
    session, which the kernels and processes its tests start share."""
    before = os.environ.get("WORKBENCH_CACHE_DIR")
    os.environ["WORKBENCH_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if before is None:
        os.environ.pop("WORKBENCH_CACHE_DIR", None)
    else:
        os.environ["WORKBENCH_CACHE_DIR"] = before


@pytest.fixture
def static_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reports drawn as without plotly installed: PNG figures and inline SVG charts."""
    from workbench.report import _plotly_page

    monkeypatch.setattr(_plotly_page, "plotly_js", lambda: None)
