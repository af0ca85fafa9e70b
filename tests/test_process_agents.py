"""Agents in their own process (stdio) or behind a URL: run, record, replay, crash, hang, refuse."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import jsonschema
import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.integrations._child import Child
from workbench.integrations._protocol import SCHEMA_FILE, protocol_schema, schema_text
from workbench.integrations.http_agent import HttpAgentAdapter, http_agent
from workbench.integrations.process import ProcessAgentAdapter, process_agent
from workbench.testing.stub_endpoint import POLL_S

pytestmark = pytest.mark.slow  # every test starts programs

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "process-agents"
PYTHON_AGENT = [sys.executable, str(EXAMPLES / "momentum_agent.py")]
WORLD = {"seed": 3, "universe": 5, "days": 3}
AGENT_LOOP = """
import json, os, sys
count = 0
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": "workbench-agent/2"}), flush=True)
        continue
    count += 1
    extra = {}
    BODY
    decision = {"actions": [], "rationale": note}
    answer = {"type": "decision", "id": message["id"], "decision": decision, **extra}
    print(json.dumps(answer), flush=True)
"""


@pytest.fixture(autouse=True)
def _every_child_stopped(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Whatever a test does or fails to do, every program it started ends with its group."""
    started: list[Child] = []
    spawn = Child._spawn

    def spawn_and_keep(child: Child) -> None:
        started.append(child)
        spawn(child)

    monkeypatch.setattr(Child, "_spawn", spawn_and_keep)
    yield
    for child in started:
        child.stop()


def _agent(tmp_path: Path, body: str, name: str = "agent") -> list[str]:
    script = tmp_path / f"{name}.py"
    code = AGENT_LOOP.replace("BODY", textwrap.indent(textwrap.dedent(body), "    ").strip())
    script.write_text(code)
    return [sys.executable, str(script)]


def test_the_python_example_records_and_replays_bit_for_bit(tmp_path: Path) -> None:
    recorder = tmp_path / "momentum.json"
    live = process_agent(PYTHON_AGENT, mode="record", recorder=recorder)
    recorded = evaluate([live, "buy_and_hold"], **WORLD)
    card = recorded.scorecard.loc["momentum_agent"]
    assert (card["decisions"], card["errors"]) == (3, 0) and card["trades"] >= 1
    again = ProcessAgentAdapter(name="momentum_agent", mode="replay", transcript=recorder)
    replayed = evaluate([again, "buy_and_hold"], **WORLD)
    assert replayed.digest() == recorded.digest()
    assert again.child.starts == 0  # a replay never starts the program


@pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js (node) on PATH")
def test_the_node_example_records_replays_and_trades_like_the_python_one(tmp_path: Path) -> None:
    python = evaluate([process_agent(PYTHON_AGENT, name="agent")], **WORLD)
    node_agent = ["node", str(EXAMPLES / "momentum_agent.js")]
    recorder = tmp_path / "node.json"
    node = evaluate([process_agent(node_agent, name="agent", mode="record", recorder=recorder)],
                    **WORLD)  # fmt: skip
    assert node.scorecard.loc["agent", "errors"] == 0
    assert node.digest() == python.digest()
    again = ProcessAgentAdapter(name="agent", mode="replay", transcript=recorder)
    assert evaluate([again], **WORLD).digest() == node.digest()


def test_a_crash_is_a_framework_error_and_the_program_starts_again(tmp_path: Path) -> None:
    body = """
    if count == 2 and not os.path.exists("crashed"):
        open("crashed", "w").close()
        print("about to fall over", file=sys.stderr, flush=True)
        sys.exit(3)
    note = f"answer {count}"
    """
    arm = process_agent(_agent(tmp_path, body), name="crashy", cwd=tmp_path)
    results = evaluate([arm], **WORLD)
    assert results.scorecard.loc["crashy", "errors"] == 1
    assert results.scorecard.loc["crashy", "decisions"] == 3
    (message,) = results.errors["message"]
    assert "exited (code 3)" in message and "about to fall over" in message
    assert arm.restarts == 1


def test_one_arm_serves_runs_on_several_event_loops_each_with_its_restart_budget(
    tmp_path: Path,
) -> None:
    import asyncio

    from workbench import aevaluate

    body = """
    if count == 2:
        sys.exit(3)
    note = "fine"
    """
    arm = process_agent(_agent(tmp_path, body), name="flaky", max_restarts=1)
    runs = [evaluate([arm], **WORLD), evaluate([arm], **WORLD)]
    runs.append(asyncio.run(aevaluate([arm], **WORLD)))
    assert [run.scorecard.loc["flaky", "errors"] for run in runs] == [1, 1, 1]
    assert len({run.digest() for run in runs}) == 1 and not arm.child.running


def test_a_hang_is_cut_off_at_the_timeout_and_the_run_goes_on(tmp_path: Path) -> None:
    body = """
    if not os.path.exists("slept"):
        open("slept", "w").close()
        import time; time.sleep(600)
    note = "fine"
    """
    arm = process_agent(_agent(tmp_path, body), name="sleepy", timeout=1.0, cwd=tmp_path)
    started = time.monotonic()
    results = evaluate([arm], **WORLD)
    assert time.monotonic() - started < 30
    assert "gave no answer within 1.0s" in results.errors["message"].iloc[0]
    assert results.scorecard.loc["sleepy", "errors"] == 1  # restarted, then answered
    assert not arm.child.running  # the run ended the program


def test_a_program_that_does_not_speak_the_protocol_is_refused_by_name(tmp_path: Path) -> None:
    script = tmp_path / "chatty.py"
    script.write_text("import sys\nsys.stdin.readline()\nprint('hello there!', flush=True)\n")
    arm = process_agent([sys.executable, str(script)])
    with pytest.raises(ConfigError, match=r"does not speak workbench-agent/2.*hello there"):
        evaluate([arm], **WORLD)


def test_the_child_sees_only_what_it_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WORKBENCH_TEST_SECRET", "do-not-pass")
    monkeypatch.setenv("WORKBENCH_TEST_NAMED", "pass-me")
    body = """
    note = json.dumps({"env": sorted(os.environ), "files": os.listdir("."),
                       "named": os.environ.get("WORKBENCH_TEST_NAMED")})
    """
    arm = process_agent(
        _agent(tmp_path, body), name="nosy", forward=["WORKBENCH_TEST_NAMED"], mode="record"
    )
    evaluate([arm], **WORLD)
    seen = json.loads(arm.decision_log[0]["response"]["rationale"])
    assert "WORKBENCH_TEST_SECRET" not in seen["env"]
    assert seen["named"] == "pass-me" and seen["files"] == []
    assert set(seen["env"]) <= {
        "PATH",
        "LANG",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "WORKBENCH_TEST_NAMED",
        "LC_CTYPE",
    }


def test_files_named_relative_to_the_caller_are_found_from_the_scratch_folder(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(EXAMPLES.parents[1])
    arm = process_agent(["python3", "docs/process-agents/momentum_agent.py"], name="relative")
    assert arm.argv[1] == str(EXAMPLES / "momentum_agent.py")
    assert evaluate([arm], **WORLD).scorecard.loc["relative", "errors"] == 0


def test_forwarding_a_variable_that_is_not_set_is_refused() -> None:
    with pytest.raises(ConfigError, match="forward= names NOPE_NOT_SET"):
        process_agent(PYTHON_AGENT, forward=["NOPE_NOT_SET"])


def test_reported_usage_reaches_the_scorecard(tmp_path: Path) -> None:
    body = """
    note = "counted"
    extra = {"usage": {"input_tokens": 7, "model_calls": 1}}
    """
    results = evaluate([process_agent(_agent(tmp_path, body), name="counted")], **WORLD)
    assert results.scorecard.loc["counted", ["tokens", "model_calls"]].tolist() == [21, 3]


class _Decider(BaseHTTPRequestHandler):
    silent = False

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if self.silent:  # never answers; the client gives up first
            time.sleep(5)
            return
        symbol = sorted(request["payload"]["symbols"])[0]
        decision = {"actions": [{"symbol": symbol, "side": "buy", "quantity": 5}]}
        body = json.dumps({"type": "decision", "decision": decision}).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Decider)
    thread = threading.Thread(target=httpd.serve_forever, args=(POLL_S,), daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_an_http_agent_records_and_replays(server: ThreadingHTTPServer, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{server.server_address[1]}/decide"
    live = http_agent(url, name="web", mode="record", recorder=tmp_path / "web.json")
    recorded = evaluate([live], **WORLD)
    assert recorded.scorecard.loc["web", "trades"] == 3
    again = HttpAgentAdapter(name="web", mode="replay", transcript=tmp_path / "web.json")
    assert evaluate([again], **WORLD).digest() == recorded.digest()


def test_a_silent_http_agent_times_out_as_a_framework_error(
    server: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_Decider, "silent", True)
    url = f"http://127.0.0.1:{server.server_address[1]}/decide"
    results = evaluate([http_agent(url, name="quiet", timeout=0.5)], seed=3, universe=5, days=1)
    assert "gave no answer within 0.5s" in results.errors["message"].iloc[0]


def test_the_published_schema_is_the_one_the_code_builds() -> None:
    jsonschema.Draft202012Validator.check_schema(protocol_schema())
    assert SCHEMA_FILE.read_text() == schema_text(), (
        "run: python -m workbench.integrations._protocol"
    )
    validator = jsonschema.Draft202012Validator(protocol_schema())
    validator.validate({"type": "hello", "protocol": "workbench-agent/2", "arm": "a"})
    validator.validate({"type": "error", "id": 3, "message": "no model"})
    assert not validator.is_valid({"type": "decision", "decision": {"actions": 5}})
