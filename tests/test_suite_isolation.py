"""The suite's own guards: a test that patches asyncio leaves it as it found it, costly
files are handed out first, and the IRI format checks, whose parsers the suite's processes
build only when first asked, answer as a user's do (tests/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import nbformat
import pytest

from workbench.bridge import run_sync
from workbench.integrations._protocol import protocol_schema

STOCK_RUN = asyncio.run


async def _answer() -> int:
    return 42


def test_same_loop_patches_asyncio_for_this_test() -> None:
    async def main() -> int:
        return run_sync(_answer(), same_loop=True)

    assert asyncio.run(main()) == 42
    assert hasattr(asyncio, "_nest_patched") and asyncio.run is not STOCK_RUN


def test_the_next_test_runs_on_stock_asyncio() -> None:
    assert not hasattr(asyncio, "_nest_patched") and asyncio.run is STOCK_RUN
    assert "run_until_complete" not in vars(asyncio.SelectorEventLoop)
    assert "get_event_loop" not in vars(type(asyncio.get_event_loop_policy()))


class _Item:
    def __init__(self, nodeid: str, marker: str | None = None) -> None:
        self.nodeid, self.marker = nodeid, marker

    def get_closest_marker(self, name: str) -> object:
        return name if name == self.marker else None


def test_whole_files_go_costliest_first_and_otherwise_keep_their_order() -> None:
    from conftest import pytest_collection_modifyitems

    items = [
        _Item("a.py::one"), _Item("a.py::two"),
        _Item("b.py::one"), _Item("b.py::two", "slow"),
        _Item("c.py::one", "browser"), _Item("d.py::one"),
    ]  # fmt: skip
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [item.nodeid for item in items] == [
        "c.py::one",
        "b.py::one",
        "b.py::two",
        "a.py::one",
        "a.py::two",
        "d.py::one",
    ]


def test_measured_files_go_first_costliest_first() -> None:
    from conftest import MEASURED_SECONDS, pytest_collection_modifyitems

    cheap = min(MEASURED_SECONDS, key=MEASURED_SECONDS.__getitem__)
    dear = max(MEASURED_SECONDS, key=MEASURED_SECONDS.__getitem__)
    items = [
        _Item("tests/a.py::one", "browser"),
        _Item(f"tests/{cheap}::one"), _Item(f"tests/{dear}::one"), _Item(f"tests/{cheap}::two"),
    ]  # fmt: skip
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [item.nodeid for item in items] == [
        f"tests/{dear}::one",
        f"tests/{cheap}::one",
        f"tests/{cheap}::two",
        "tests/a.py::one",
    ]


def _formats(schema: Any) -> Iterator[str]:
    if isinstance(schema, dict):
        if isinstance(schema.get("format"), str):
            yield schema["format"]
        for value in schema.values():
            yield from _formats(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _formats(value)


def test_no_validated_schema_uses_the_iri_format_the_suite_goes_without() -> None:
    schemas = [protocol_schema()]
    for path in sorted((Path(nbformat.__file__).parent / "v4").glob("*.schema.json")):
        schemas.append(json.loads(path.read_text(encoding="utf-8")))
    assert len(schemas) > 2
    assert not {f for schema in schemas for f in _formats(schema) if f.startswith("iri")}
    assert "iri" in jsonschema.FormatChecker().checkers  # checked as for a user, if asked
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1 + 1")])
    nbformat.validate(notebook)  # still validated against its schema


def test_the_jupyter_servers_event_schemas_do_not_use_the_iri_format_either() -> None:
    import importlib.util

    import yaml

    server = importlib.util.find_spec("jupyter_server")
    assert server is not None and server.origin is not None
    folder = Path(server.origin).parent / "event_schemas"
    schemas = [yaml.safe_load(path.read_text()) for path in sorted(folder.rglob("*.yaml"))]
    assert len(schemas) >= 3
    assert not {f for schema in schemas for f in _formats(schema) if f.startswith("iri")}


# Checks each an IRI passes or fails, printed with where the module came from, before and
# after them.
IRI_PROBE = """
import sys, jsonschema, nbformat
nbformat.validate(nbformat.v4.new_notebook())
print(sys.modules["rfc3987_syntax"].__file__)
checker = jsonschema.FormatChecker()
for value in ["https://例え.jp/ﾃｽﾄ?q=1#é", "//host/path", "a b", "http://[::1", "rel/ative"]:
    print(checker.conforms(value, "iri"), checker.conforms(value, "iri-reference"))
print(sys.modules["rfc3987_syntax"].__file__)
"""


def _probe(pythonpath: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": pythonpath}
    done = subprocess.run(
        [sys.executable, "-c", IRI_PROBE], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.slow
def test_a_process_the_suite_starts_checks_iris_as_a_users_does() -> None:
    kept_out = _probe(os.environ["PYTHONPATH"])
    users = _probe(os.pathsep.join(p for p in sys.path if "kept_out" not in p))
    assert Path(kept_out[0]).parent.name == "kept_out"  # no parsers built for nbformat
    assert Path(kept_out[-1]).parent.name == Path(users[0]).parent.name == "rfc3987_syntax"
    assert kept_out[1:-1] == users[1:-1]
    assert {"True True", "False False"} <= set(users[1:-1])
