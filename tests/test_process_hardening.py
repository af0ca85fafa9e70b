"""Process agents that misbehave on purpose: children of their own, stale lines, cut answers.

Every agent here writes the pid of each process it starts into a file, and
every call it would pay for into a ledger; the ``reaper`` fixture kills what a
failed test left running (by pid, and the arms' own process groups), so no test
leaves a child behind whatever happens. Timeouts are generous and every bound
is an upper one, so the tests hold on a loaded machine.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import textwrap
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench import evaluate
from workbench.errors import ConfigError, FrameworkError
from workbench.integrations._child import ChildExited
from workbench.integrations.process import ProcessAgentAdapter, process_agent

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.name != "posix", reason="POSIX groups")]

DAYS = {"seed": 3, "universe": 5, "days": 3}
AGENT = """
import json, os, sys
ledger, pids = os.environ["LEDGER"], os.environ["PIDS"]
with open(pids, "a") as out:
    out.write(f"{os.getpid()}\\n")
PROTOCOL = os.environ.get("SPEAKS", "workbench-agent/2")
BEFORE_HELLO
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": PROTOCOL}), flush=True)
        continue
    day = message["payload"]["day"]
    with open(ledger, "a") as out:  # the model call this decision pays for
        out.write(f"{day}\\n")
    answer = {"type": "decision", "id": message.get("id"), "usage": {"model_calls": 1},
              "decision": {"actions": [], "rationale": f"day {day}"}}
    BODY
    print(json.dumps(answer), flush=True)
"""


def alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent to reap it counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return True


class Reaper:
    """Agents for one test: their scripts, pid file and ledger, and the cleanup."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.arms = folder, list[ProcessAgentAdapter]()
        self.pid_file, self.ledger = folder / "pids", folder / "ledger"

    def script(self, body: str = "", before_hello: str = "", name: str = "agent") -> Path:
        code = AGENT.replace("BODY", textwrap.indent(textwrap.dedent(body), "    ").strip())
        code = code.replace("BEFORE_HELLO", textwrap.dedent(before_hello).strip())
        path = self.folder / f"{name}.py"
        path.write_text(code)
        return path

    def env(self, **extra: str) -> dict[str, str]:
        return {"LEDGER": str(self.ledger), "PIDS": str(self.pid_file), **extra}

    def arm(
        self, command: list[str], env: dict[str, str] | None = None, **kwargs: Any
    ) -> ProcessAgentAdapter:
        made = process_agent(command, env=self.env(**(env or {})), **kwargs)
        self.arms.append(made)
        return made

    def pids(self) -> list[int]:
        text = self.pid_file.read_text() if self.pid_file.exists() else ""
        return [int(pid) for pid in text.split()]

    def paid(self) -> int:
        return len(self.ledger.read_text().split()) if self.ledger.exists() else 0

    def reap(self) -> None:
        for made in self.arms:
            made.child.stop()
        for pid in self.pids():
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


@pytest.fixture
def reaper(tmp_path: Path) -> Iterator[Reaper]:
    keeper = Reaper(tmp_path)
    try:
        yield keeper
    finally:
        keeper.reap()


def wait_until_ended(pids: list[int], seconds: float = 30.0) -> list[int]:
    """The pids still running after up to ``seconds`` (a loaded machine reaps slowly)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(alive(pid) for pid in pids):
        time.sleep(0.1)
    return [pid for pid in pids if alive(pid)]


def shell(script: Path, before: str = "") -> list[str]:
    """``sh -c "cd <folder>; [before] python agent.py"``: the agent is a grandchild."""
    return ["sh", "-c", f"cd {script.parent} || exit 9; {before}{sys.executable} {script.name}"]


# --- item 1: a child of the agent's own never hangs a run ------------------------------
@pytest.mark.timeout(180)
def test_a_sleeping_grandchild_is_cut_off_at_the_timeout_and_ended_with_its_group(
    reaper: Reaper,
) -> None:
    sleeps_once = """
    if day == 0:
        import time; time.sleep(600)
    """
    arm = reaper.arm(shell(reaper.script(sleeps_once)), name="nested", timeout=2, mode="record")
    started = time.monotonic()
    results = evaluate([arm], **DAYS)
    assert time.monotonic() - started < 90  # today: never returns
    assert "gave no answer within 2s" in results.errors["message"].iloc[0]
    assert list(results.errors["kind"]) == ["FrameworkError"]
    assert len(reaper.pids()) == 2  # started, timed out, started again
    assert wait_until_ended(reaper.pids()) == []  # nothing runs after the run
    # every call the agent paid for is counted once: 3 paid, 3 made, 3 recorded
    made = int(results.scorecard.loc["nested", "model_calls"])
    assert arm.recorder is not None
    assert (reaper.paid(), made, len(arm.recorder)) == (3, 3, 3)


@pytest.mark.timeout(180)
def test_a_grandchild_that_never_says_hello_is_refused_within_start_timeout(
    reaper: Reaper,
) -> None:
    arm = reaper.arm(
        shell(reaper.script(before_hello="import time; time.sleep(600)")), start_timeout=2
    )
    started = time.monotonic()
    with pytest.raises(ConfigError, match=r"did not start.*within 2s.*start_timeout="):
        evaluate([arm], **DAYS)
    assert time.monotonic() - started < 90
    assert wait_until_ended(reaper.pids()) == []
    assert reaper.paid() == 0


@pytest.mark.timeout(180)
def test_what_the_agent_started_in_the_background_ends_with_the_run(reaper: Reaper) -> None:
    keeper = "sleep 600 & echo $! >> $PIDS; "  # holds the agent's stdout and stderr open
    arm = reaper.arm(shell(reaper.script(), before=keeper), name="background")
    started = time.monotonic()
    results = evaluate([arm], **DAYS)
    assert time.monotonic() - started < 90
    assert results.scorecard.loc["background", "errors"] == 0
    assert len(reaper.pids()) == 2  # the agent and its sleeping helper
    assert wait_until_ended(reaper.pids()) == []  # today: the helper sleeps on


# --- item 8: a stale line never answers a later decision -------------------------------
def test_a_stale_answer_is_skipped_and_each_decision_keeps_its_own(reaper: Reaper) -> None:
    says_twice = """
    if day == 0:  # the same answer again: it will be waiting when decision 2 is asked
        print(json.dumps(answer), flush=True)
    """
    arm = reaper.arm([sys.executable, str(reaper.script(says_twice))], name="twice", mode="record")
    results = evaluate([arm], **DAYS)
    rationales = [entry["response"]["rationale"] for entry in arm.decision_log]
    assert rationales == ["day 0", "day 1", "day 2"]  # today: day 0, day 0, day 1
    assert results.scorecard.loc["twice", "errors"] == 0
    assert len(arm.child.stale) == 1 and '"day 0"' in arm.child.stale[0]
    # paid against made: the repeated line's usage is not charged a second time
    made = int(results.scorecard.loc["twice", "model_calls"])
    assert (reaper.paid(), made) == (3, 3)


def test_a_line_without_the_id_answers_nothing_and_restarts_the_program(
    reaper: Reaper,
) -> None:
    forgets = """
    if day == 1:
        answer.pop("id")
    """
    script = reaper.script(forgets)
    arm = reaper.arm([sys.executable, str(script)], name="forgetful", mode="record")
    results = evaluate([arm], **DAYS)
    (error,) = results.errors.to_dict("records")
    assert error["kind"] == "DecisionError" and error["day"] == 1
    assert 'does not carry its id ("id": 2)' in error["message"]
    assert arm.recorder is not None
    kept = [exchange.response for exchange in arm.recorder][1]
    assert kept.startswith('{"type": "decision"') and '"id"' not in kept  # kept as said
    assert arm.restarts == 1 and results.scorecard.loc["forgetful", "decisions"] == 3


def test_an_agent_on_version_1_is_refused_with_the_change_to_make(reaper: Reaper) -> None:
    arm = reaper.arm([sys.executable, str(reaper.script())], env={"SPEAKS": "workbench-agent/1"})
    with pytest.raises(ConfigError) as refused:
        evaluate([arm], **DAYS)
    message = str(refused.value)
    assert "speaks workbench-agent/1" in message and "workbench-agent/2" in message
    assert '"id" of each decide message' in message and "From version 1 to 2" in message
    assert reaper.paid() == 0  # refused before the market opened


# --- item 9: an answer cut off by the agent's exit is the transport's fault ------------
def test_an_answer_cut_short_by_an_exit_is_a_framework_error_with_the_exit_code(
    reaper: Reaper,
) -> None:
    dies_mid_answer = """
    if day == 1:
        sys.stdout.write(json.dumps(answer)[:30]); sys.stdout.flush(); os._exit(7)
    """
    arm = reaper.arm([sys.executable, str(reaper.script(dies_mid_answer))], name="cut")
    results = evaluate([arm], **DAYS)
    (error,) = results.errors.to_dict("records")
    assert error["kind"] == "ChildExited"  # a FrameworkError; today: DecisionError, no code
    assert issubclass(ChildExited, FrameworkError)
    assert "exited (code 7) in the middle of an answer (30 bytes" in error["message"]
    assert results.scorecard.loc["cut", "decisions"] == 3 and arm.restarts == 1


# --- item 10: stderr is read in bounded memory -----------------------------------------
def test_a_100_mb_stderr_line_keeps_memory_bounded_and_its_tail(reaper: Reaper) -> None:
    floods = """
    if day == 0:
        chunk = b"x" * 1_000_000
        for _ in range(100):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"END-OF-FLOOD"); sys.stderr.flush()
    """
    arm = reaper.arm([sys.executable, str(reaper.script(floods))], name="flood")
    tracemalloc.start()
    try:
        results = evaluate([arm], seed=3, universe=5, days=2)
        arm.child.stop()  # the stderr pump has read to the end
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert results.scorecard.loc["flood", "errors"] == 0
    assert peak < 30_000_000, f"peak {peak:,} bytes"  # today: > 100 MB
    (tail,) = arm.stderr_tail
    assert tail.startswith("[") and "bytes cut]" in tail and tail.endswith("END-OF-FLOOD")
    assert len(tail) < 5_000


def test_stderr_is_copied_whole_to_stderr_path(reaper: Reaper, tmp_path: Path) -> None:
    talks = """
    print(f"thinking about day {day}", file=sys.stderr, flush=True)
    """
    log = tmp_path / "agent.log"
    arm = reaper.arm([sys.executable, str(reaper.script(talks))], name="talks", stderr_path=log)
    evaluate([arm], **DAYS)
    said = [f"thinking about day {day}" for day in range(3)]
    assert log.read_text().splitlines() == said and arm.stderr_tail == said


def test_the_schema_requires_the_id_both_ways() -> None:
    import jsonschema

    from workbench.integrations._protocol import protocol_schema

    validator = jsonschema.Draft202012Validator(protocol_schema())
    decide = {"type": "decide", "protocol": "workbench-agent/2", "payload": {}}
    assert not validator.is_valid(decide) and validator.is_valid({**decide, "id": 1})
    answer = {"type": "decision", "decision": {"actions": []}}
    assert not validator.is_valid(answer) and validator.is_valid({**answer, "id": 1})
    json.dumps(protocol_schema())  # plain JSON


def test_the_finrobot_bridge_speaks_version_2_and_echoes_each_id(reaper: Reaper) -> None:
    from workbench.testing import finrobot_bridge

    bridge = [sys.executable, finrobot_bridge.__file__]
    arm = reaper.arm(bridge, name="finrobot", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    results = evaluate([arm], seed=3, universe=5, days=2)
    # FinRobot is not installed here: every decision is its reported error, each matched
    assert list(results.errors["kind"]) == ["FrameworkError", "FrameworkError"]
    assert results.errors["message"].str.contains("reported an error").all()
    assert arm.restarts == 0 and not arm.child.stale


def test_lines_split_across_chunks_and_a_too_long_line_is_reported_once() -> None:
    import threading

    from workbench.integrations._pipes import Ended, Lines, TooLong

    lines = Lines(limit=5, stopping=threading.Event())
    for chunk in (b"ab", b"c\nxyz", b"w\n", b"toolong", b"er\nok\npart"):
        lines.feed(chunk)
    lines.end()
    deadline = time.monotonic() + 5
    got = [lines.next(deadline) for _ in range(5)]
    assert got == [b"abc", b"xyzw", TooLong(5), b"ok", Ended(b"part")]
    assert lines.next(deadline) == Ended(b"part")  # the end stays the end


def test_the_stderr_tail_keeps_the_end_of_a_long_line_and_whole_short_ones() -> None:
    import collections

    from workbench.integrations._pipes import Tail

    kept: collections.deque[str] = collections.deque(maxlen=2)
    tail = Tail(kept, line_bytes=4)
    for chunk in (b"one\ntw", b"o\n", b"a-very-long-li", b"ne"):
        tail.feed(chunk)
    tail.end()
    assert list(kept) == ["two", "[12 bytes cut] line"]


def test_a_program_that_cannot_be_started_or_logged_is_a_config_error(
    reaper: Reaper, tmp_path: Path
) -> None:
    garbage = tmp_path / "garbage"
    garbage.write_bytes(b"\x7fELF-not-really")
    garbage.chmod(0o755)  # found on the path, but exec fails
    with pytest.raises(ConfigError, match=r"could not be started: .*Exec format error"):
        evaluate([reaper.arm([str(garbage)], name="noexec")], **DAYS)
    script = reaper.script()
    unwritable = tmp_path / "no-such-folder" / "agent.log"
    arm = reaper.arm([sys.executable, str(script)], name="nolog", stderr_path=unwritable)
    with pytest.raises(ConfigError, match=r"stderr_path .*cannot be written"):
        evaluate([arm], **DAYS)
