"""`workbench mcp` as a client sees it: a subprocess on stdio, driven by the SDK's own client."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client

from workbench.errors import ConfigError
from workbench.mcp import EXPOSED_TOOLS
from workbench.mcp.audit import AUDIT_LOG, AuditLog
from workbench.mcp.tools import Toolbox
from workbench.services.store import RunStore

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = ROOT / "recordings"
pytestmark = pytest.mark.slow


def server_command(store: Path, *extra: str) -> list[str]:
    folders = ["--store", str(store), "--recordings", str(RECORDINGS)]
    return ["-m", "workbench", "mcp", *folders, *extra]


async def session_run(store: Path) -> dict[str, Any]:
    parameters = StdioServerParameters(
        command=sys.executable, args=server_command(store), cwd=str(ROOT)
    )
    seen: dict[str, Any] = {}
    with (store.parent / "server.err").open("w") as errors:
        async with (
            stdio_client(parameters, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            seen["init"] = await session.initialize()
            seen["tools"] = (await session.list_tools()).tools
            market = {"arms": ["cash", "momentum"], "days": 3}
            seen["evaluation"] = await session.call_tool(
                "run_evaluation", {**market, "universe": 10}
            )
            old = {**market, "names": 10}
            seen["old_spelling"] = await session.call_tool("run_evaluation", old)
            seen["both"] = await session.call_tool("run_evaluation", {**old, "universe": 10})
            seen["replay"] = await session.call_tool(
                "replay_recording", {"name": "callable-sync-trend"}
            )
            seen["typo"] = await session.call_tool(
                "compare_runs",
                {"arms": ["cash", "momentum"], "benchmark": "cash", "seeds": [1], "metrc": "pnl"},
            )
            seen["report"] = await session.call_tool(
                "render_report", {"run_id": seen["evaluation"].structured_content["run_id"]}
            )
    return seen


def test_a_client_lists_tools_runs_replays_and_is_refused_a_typo(tmp_path: Path) -> None:
    store = tmp_path / "store"
    seen = anyio.run(session_run, store)
    assert seen["init"].server_info.name == "workbench"
    assert {tool.name for tool in seen["tools"]} == EXPOSED_TOOLS

    evaluation = seen["evaluation"]
    assert not evaluation.is_error
    answer = evaluation.structured_content
    assert [row["arm"] for row in answer["scorecard"]] == ["cash", "momentum"]
    assert (store / answer["artefacts"]["results"]).is_file()
    assert json.loads(evaluation.content[0].text)["run_id"] == answer["run_id"]

    replay = seen["replay"].structured_content
    assert not seen["replay"].is_error and replay["matched"] and replay["differences"] == []
    _check_the_old_spelling(seen, store)

    typo = seen["typo"]
    assert typo.is_error
    assert "metrc: not a parameter of this tool. Did you mean 'metric'?" in typo.content[0].text

    report = seen["report"].structured_content
    assert (store / report["report"]).read_text(encoding="utf-8").lstrip().startswith("<")

    log = [json.loads(line) for line in (store / "mcp_audit.jsonl").read_text().splitlines()]
    ends = [e for e in log if e["outcome"] != "started"]
    assert [e["tool"] for e in ends] == [
        *["run_evaluation"] * 3,
        "replay_recording",
        "compare_runs",
        "render_report",
    ]
    assert [e["outcome"] for e in ends] == ["ok", "ok", "error", "ok", "refused", "ok"]
    started = {e["call"] for e in log if e["outcome"] == "started"}
    assert started == {e["call"] for e in ends if e["outcome"] in ("ok", "error")}


def _check_the_old_spelling(seen: dict[str, Any], store: Path) -> None:
    """names= still runs (the same run, reused) with a deprecation note in the result and
    the audit log; names= beside universe= is refused."""
    old = seen["old_spelling"]
    assert not old.is_error, old.content[0].text
    assert old.structured_content["run_id"] == seen["evaluation"].structured_content["run_id"]
    assert old.structured_content["reused"] is True
    (note,) = old.structured_content["deprecated"]
    assert "names=" in note and "pass universe=" in note
    log = [json.loads(line) for line in (store / "mcp_audit.jsonl").read_text().splitlines()]
    assert [e["deprecated"] for e in log if "deprecated" in e] == [[note]]
    both = seen["both"]
    assert both.is_error
    said = both.content[0].text
    assert "universe and names both given: pass universe only; names is its old name" in said
    assert said.count("run_evaluation") <= 1 and "universe=" not in said


def start(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=ROOT,
        input="",
        capture_output=True,
        text=True,
        timeout=120,
    )


def start_at_once(*commands: list[str]) -> list[tuple[int, str, str]]:
    """Each command's exit code, stdout and stderr, the interpreters started together."""
    started = [
        subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    ended = [child.communicate(timeout=120) for child in started]
    return [(child.returncode, out, err) for child, (out, err) in zip(started, ended, strict=True)]


def test_a_server_that_cannot_start_says_why_and_exits_before_the_handshake(
    tmp_path: Path,
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    reasons = ("is a file", "cannot create run store", "recordings folder")
    commands = (
        server_command(blocker),
        server_command(blocker / "runs"),
        server_command(tmp_path / "ok", "--recordings", str(tmp_path / "none")),
    )
    for reason, (code, out, err) in zip(reasons, start_at_once(*commands), strict=True):
        assert code != 0
        assert reason in err and out == ""


def test_without_the_mcp_extra_the_server_names_the_install_line(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['mcp'] = None; sys.modules['mcp.server'] = None\n"
        "from workbench.cli import main\n"
        f"sys.exit(main(['mcp', '--store', {str(tmp_path / 'store')!r}]))\n"
    )
    done = start("-c", code)
    assert done.returncode != 0 and done.stdout == ""
    assert 'pip install "workbench[mcp]"' in done.stderr


def test_check_runs_the_start_up_checks_and_lists_the_tools(tmp_path: Path) -> None:
    done = start(*server_command(tmp_path / "store", "--check"))
    assert done.returncode == 0, done.stderr
    assert f"{len(EXPOSED_TOOLS)} tools" in done.stdout
    assert all(name in done.stdout for name in EXPOSED_TOOLS)


def test_the_sdk_is_imported_only_when_a_server_is_built() -> None:
    code = (
        "import sys, workbench.mcp, workbench.services, workbench.cli\n"
        "from workbench.cli import build_parser\n"
        "build_parser().parse_args(['mcp', '--check'])\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.')))\n"
    )
    done = start("-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


async def cut_off(store: Path) -> None:
    """Ask for a long evaluation and leave before it answers (the client kills the server)."""
    parameters = StdioServerParameters(
        command=sys.executable, args=server_command(store), cwd=str(ROOT)
    )
    with (store.parent / "server.err").open("w") as errors:
        async with (
            stdio_client(parameters, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            async with anyio.create_task_group() as calls:
                arguments = {"arms": ["cash"], "universe": 1500, "days": 200, "ticks_per_step": 65}
                calls.start_soon(session.call_tool, "run_evaluation", arguments)
                await _until_started(store / AUDIT_LOG)  # the run is under way: leave
                calls.cancel_scope.cancel()


async def _until_started(log: Path) -> None:
    with anyio.fail_after(120):
        while not log.is_file() or '"outcome": "started"' not in log.read_text():
            await anyio.sleep(0.02)


def test_a_call_the_client_cut_off_leaves_its_start_in_the_audit_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mcp.client.stdio

    # the server is busy with the run and never reads its closed input: the client's grace
    # of 2 s before it ends the server would be spent computing what nobody waits for
    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 0.1)
    store = tmp_path / "store"
    anyio.run(cut_off, store)
    log = [json.loads(line) for line in (store / "mcp_audit.jsonl").read_text().splitlines()]
    started = [e for e in log if e["outcome"] == "started"]
    assert [e["tool"] for e in started] == ["run_evaluation"]
    assert started[0]["arguments"]["universe"] == 1500
    ended = [e for e in log if e["call"] == started[0]["call"] and e["outcome"] != "started"]
    assert ended == []  # the server was stopped before the run could finish


def _toolbox(tmp_path: Path, service: Callable[..., dict[str, Any]]) -> Toolbox:
    runs = RunStore.open(tmp_path / "store")
    services = {"run_evaluation": service}
    return Toolbox(runs, AuditLog(runs.root / AUDIT_LOG), services=services)


def test_only_the_workbench_s_own_deprecations_become_notes(tmp_path: Path) -> None:
    def service(**_: Any) -> dict[str, Any]:
        warnings.warn_explicit("old thing is deprecated", DeprecationWarning, "lib.py", 1)
        ours = "x= is deprecated: pass y=; x= goes in the next release"
        warnings.warn(ours, DeprecationWarning, stacklevel=1)
        return {"ran": True}

    with pytest.warns(DeprecationWarning, match="old thing is deprecated"):
        answer = _toolbox(tmp_path, service).run_evaluation(["cash"])
    assert answer["deprecated"] == ["x= is deprecated: pass y=; x= goes in the next release"]


def test_universe_and_names_both_given_are_refused_before_the_service(tmp_path: Path) -> None:
    called: list[dict[str, Any]] = []
    toolbox = _toolbox(tmp_path, lambda **given: called.append(given) or {})
    with pytest.raises(ConfigError, match=r"^universe and names both given: pass universe only"):
        toolbox.run_evaluation(["cash"], universe=3, names=3)
    assert called == []
