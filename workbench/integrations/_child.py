"""One agent process: started in a process group of its own, spoken to one JSON line at a time.

Every request carries an ``id`` and only the answer that echoes it is taken
(``workbench-agent/2``): a line left over from an earlier request is skipped,
so it can never answer a later decision. Pipes are read by ``_pipes`` pumps in
bounded memory, and every wait has a deadline, so neither a silent agent nor a
pipe held open by its own children can hold a run. Stopping the child ends its
whole process group (``sh -c "cd agents && python agent.py"`` included): at a
timeout, at a failed hello and at the end of every run. A program that leaves
its group on purpose (``setsid``, a daemon) is beyond reach; nothing waits for it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench._checks import is_whole
from workbench.errors import ConfigError, DecisionError, FrameworkError
from workbench.integrations._pipes import (
    Ended,
    Lines,
    PipeTimeout,
    Pump,
    Tail,
    TooLong,
    close_pipe,
    unblock,
    write_all,
)
from workbench.integrations._protocol import PROTOCOL, refuse_other_protocol

MAX_LINE_BYTES = 1_000_000  # an answer longer than this is refused, not read without end
STDERR_LINES = 200  # the tail of the child's stderr kept for error messages and the log
STDERR_LINE_BYTES = 4_000  # of a longer stderr line only its last bytes are kept
EXIT_GRACE_S = 1.0  # after its stdin closes, the program may exit by itself this long
BASE_ENVIRONMENT = {"LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}


@dataclass(frozen=True)
class Deadline:
    """When a wait ends, and the option that set it (named in the timeout's message)."""

    at: float
    seconds: float
    option: str

    @classmethod
    def within(cls, seconds: float, option: str) -> Deadline:
        return cls(time.monotonic() + seconds, seconds, option)


class ChildExited(FrameworkError):
    """The agent process ended (crashed or closed its stdout) before answering."""


class OutOfStep(DecisionError):
    """The agent wrote a line that answers no request: it is stopped, ``text`` is kept."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


def child_environment(env: Mapping[str, str] | None, forward: Sequence[str]) -> dict[str, str]:
    """Only what the caller passes: a base, ``env``, and the named variables of this process."""
    for key, value in (env or {}).items():
        if not (isinstance(key, str) and isinstance(value, str)):
            raise ConfigError(
                f"env= takes strings only: {key!r}: {value!r} is a "
                f"{type(value).__name__}; write it as a string, e.g. {str(value)!r}"
            )
    missing = [name for name in forward if name not in os.environ]
    if missing:
        raise ConfigError(
            f"forward= names {', '.join(missing)}, which this process does not have; "
            "set them or drop them from forward="
        )
    path = os.environ.get("PATH", os.defpath)
    return {"PATH": path, **BASE_ENVIRONMENT, **(env or {}), **{n: os.environ[n] for n in forward}}


def resolve_command(command: Sequence[str] | str) -> list[str]:
    argv = [command] if isinstance(command, str) else list(command)
    if not argv or not all(isinstance(part, str) and part for part in argv):
        raise ConfigError(f"command must be a non-empty list of strings, got {command!r}")
    program = shutil.which(argv[0])
    if program is None:
        raise ConfigError(f"agent program {argv[0]!r} not found; give a path or put it on PATH")
    # the program runs in a scratch folder: files named relative to this one are made absolute
    files = [os.path.abspath(a) if _relative_file(a) else a for a in argv[1:]]
    return [os.path.abspath(program), *files]


def _relative_file(argument: str) -> bool:
    return not os.path.isabs(argument) and not argument.startswith("-") and os.path.isfile(argument)


class Child:
    """The agent process behind one arm."""

    def __init__(
        self,
        argv: list[str],
        *,
        env: dict[str, str],
        cwd: str | os.PathLike[str] | None,
        label: str,
        stderr_path: str | os.PathLike[str] | None = None,
    ) -> None:
        self.argv, self.env, self.label = argv, env, label
        self.cwd = cwd
        self._stderr_lines: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.stderr_path = Path(stderr_path) if stderr_path is not None else None
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.requests = 0  # the id of the last request sent (ids never repeat for one arm)
        # the last lines skipped because they answered an earlier request
        self.stale: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._lock = threading.RLock()
        self._stdout: Lines | None = None
        self._pumps: list[Pump] = []
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def stderr_tail(self) -> list[str]:
        return list(self._stderr_lines)

    async def ask(self, message: dict[str, Any], timeout: float) -> str:
        """Send one request (with the next id); the line that answers it. A timeout stops
        the child; a line that answers nothing raises ``OutOfStep``."""
        deadline = Deadline.within(timeout, "timeout")
        return await asyncio.to_thread(self._roundtrip, message, deadline)

    def start(self, hello: dict[str, Any], timeout: float) -> None:
        """Start the process and check it speaks the protocol (blocks up to ``timeout``)."""
        self.stop()
        self._spawn()
        deadline = Deadline.within(timeout, "start_timeout")
        try:
            with self._lock:
                self._send(hello, deadline)
                answer = self._line(deadline)
        except FrameworkError as exc:
            self.stop()
            raise ConfigError(f"{self.label} did not start: its hello failed: {exc}") from None
        self._check_hello(answer)

    def _check_hello(self, answer: str) -> None:
        try:
            reply = json.loads(answer)
        except (ValueError, RecursionError):
            reply = None
        spoken = reply.get("protocol") if isinstance(reply, dict) else None
        if spoken == PROTOCOL:
            return
        self.stop()
        refuse_other_protocol(self.label, spoken)
        raise ConfigError(
            f"{self.label} does not speak {PROTOCOL}: to the hello message it answered "
            f'{answer[:200]!r}; it must reply {{"type": "hello", "protocol": '
            f'"{PROTOCOL}"}} (see docs/process-agents.md)'
        )

    def _spawn(self) -> None:
        try:
            err = Tail(self._stderr_lines, STDERR_LINE_BYTES, self.stderr_path)
        except OSError as exc:
            where = str(self.stderr_path)
            raise ConfigError(f"stderr_path {where!r} cannot be written: {exc}") from None
        cwd = self.cwd
        if cwd is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="workbench-agent-")
            cwd = self._scratch.name
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=self.env,
                cwd=cwd,
                start_new_session=True,  # its own group: a kernel interrupt does not reach it,
            )  # and stopping it ends every process it started
        except OSError as exc:
            err.end()
            self.stop()  # removes the scratch folder
            raise ConfigError(f"{self.label} could not be started: {exc}") from None
        assert process.stdin and process.stdout and process.stderr
        self.process, self.starts = process, self.starts + 1
        unblock(process.stdin)
        stopping = threading.Event()
        self._stdout = out = Lines(MAX_LINE_BYTES, stopping)
        self._pumps = [
            Pump(process.stdout, out.feed, out.end, stopping),
            Pump(process.stderr, err.feed, err.end, stopping),
        ]
        for pump in self._pumps:
            pump.start()

    def _roundtrip(self, message: dict[str, Any], deadline: Deadline) -> str:
        with self._lock:
            self.requests += 1
            wanted = self.requests
            self._send({**message, "id": wanted}, deadline)
            while True:
                line = self._line(deadline)
                answered = _answered(line)
                if answered == wanted:
                    return line
                if answered is not None and answered < wanted:
                    self.stale.append(line[:200])  # an earlier request's: it answers nothing
                    continue
                self.stop()
                raise OutOfStep(
                    f"{self.label} answered request {wanted} with a line that does not carry "
                    f'its id ("id": {wanted}): {line[:200]!r}; every {PROTOCOL} answer echoes '
                    "its request's id. The program was stopped and starts again at the next "
                    "decision",
                    line,
                )

    def _send(self, message: dict[str, Any], deadline: Deadline) -> None:
        process = self.process
        if process is None or process.stdin is None:
            raise ChildExited(f"{self.label} is not running")
        data = (json.dumps(message, ensure_ascii=False, allow_nan=False) + "\n").encode()
        try:
            write_all(process.stdin, data, deadline.at)
        except PipeTimeout:
            raise self._timed_out(deadline) from None
        except (OSError, ValueError):
            raise self._exited(process, b"") from None

    def _line(self, deadline: Deadline) -> str:
        process, lines = self.process, self._stdout
        if process is None or lines is None:
            raise ChildExited(f"{self.label} is not running")
        try:
            item = lines.next(deadline.at)
        except PipeTimeout:
            raise self._timed_out(deadline) from None
        if isinstance(item, Ended):
            raise self._exited(process, item.partial)
        if isinstance(item, TooLong):
            self.stop()
            raise FrameworkError(f"{self.label} answered more than {item.limit} bytes")
        return item.decode("utf-8", errors="replace")

    def _timed_out(self, deadline: Deadline) -> FrameworkError:
        self.stop()
        return FrameworkError(
            f"{self.label} gave no answer within {deadline.seconds}s and was stopped; "
            f"raise {deadline.option}= or check the agent"
        )

    def _exited(self, process: subprocess.Popen[bytes], partial: bytes) -> ChildExited:
        """The child closed its stdout: say how it ended, and what it left unfinished."""
        try:
            code: int | None = process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        self.stop()
        how = f"exited (code {code})" if code is not None else "closed its stdout"
        cut = ""
        if partial:
            text = partial[:200].decode("utf-8", errors="replace")
            cut = f" in the middle of an answer ({len(partial)} bytes, no end of line: {text!r})"
        tail = " | ".join(self.stderr_tail[-3:]) or "nothing on stderr"
        return ChildExited(f"{self.label} {how}{cut} before answering; stderr: {tail}")

    def stop(self) -> None:
        """End the process and every process in its group; safe to call from any thread."""
        process, self.process = self.process, None
        if process is not None:
            _end(process)
            for pump in self._pumps:
                pump.halt()
            close_pipe(process.stdin)
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


def _answered(line: str) -> int | None:
    """The request id an answer line carries, if it is a JSON object with a whole ``id``."""
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        return None
    answered = answer.get("id") if isinstance(answer, dict) else None
    return answered if is_whole(answered) else None


def _end(process: subprocess.Popen[bytes]) -> None:
    """Close stdin (a well-behaved agent exits at end of input), then end the group."""
    close_pipe(process.stdin)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=EXIT_GRACE_S)
    _kill_group(process)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if os.name != "posix":
        with contextlib.suppress(OSError):
            process.kill()
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)  # the group's id is the child's pid
