"""One agent process: started isolated, spoken to one JSON line at a time, restarted after a crash.

Blocking pipe I/O runs in worker threads, so a child is not bound to any event
loop (the same arm serves ``evaluate``, ``await aevaluate`` and
``asyncio.run``), and ``stop()`` works from plain synchronous code. A timed-out
answer kills the child: the thread waiting on its stdout then sees end of file
and returns, so nothing is left running.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import shutil
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, FrameworkError
from workbench.integrations._protocol import PROTOCOL

MAX_LINE_BYTES = 1_000_000  # an answer longer than this is refused, not read without end
STDERR_LINES = 200  # the tail of the child's stderr kept for error messages and the log
BASE_ENVIRONMENT = {"LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1", "PYTHONDONTWRITEBYTECODE": "1"}


class ChildExited(FrameworkError):
    """The agent process ended (crashed or closed its stdout) before answering."""


def child_environment(env: Mapping[str, str] | None, forward: Sequence[str]) -> dict[str, str]:
    """Only what the caller passes: a base, ``env``, and the named variables of this process."""
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
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self.stderr_path = Path(stderr_path) if stderr_path is not None else None
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._lock = threading.RLock()
        self._drainer: threading.Thread | None = None
        self._scratch: tempfile.TemporaryDirectory[str] | None = None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    async def ask(self, message: dict[str, Any], timeout: float) -> str:
        """Send one message, return the answer line; a timeout kills the child."""
        line = json.dumps(message, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            return await asyncio.wait_for(asyncio.to_thread(self._roundtrip, line), timeout)
        except TimeoutError:
            self.stop()
            raise FrameworkError(
                f"{self.label} gave no answer within {timeout}s and was stopped; "
                "raise timeout= or check the agent"
            ) from None

    def start(self, hello: dict[str, Any], timeout: float) -> None:
        """Start the process and check it speaks the protocol (blocks up to ``timeout``)."""
        self.stop()
        self._spawn()
        line = json.dumps(hello) + "\n"
        answer: list[str] = []
        failure: list[BaseException] = []

        def greet() -> None:
            try:
                answer.append(self._roundtrip(line))
            except Exception as exc:
                failure.append(exc)

        greeter = threading.Thread(target=greet, daemon=True)
        greeter.start()
        greeter.join(timeout)
        if greeter.is_alive() or failure:
            self.stop()
            why = f"failed: {failure[0]}" if failure else f"gave no answer within {timeout}s"
            raise ConfigError(f"{self.label} did not start: its hello {why}")
        self._check_hello(answer[0])

    def _check_hello(self, answer: str) -> None:
        try:
            reply = json.loads(answer)
        except ValueError:
            reply = None
        if not (isinstance(reply, dict) and reply.get("protocol") == PROTOCOL):
            self.stop()
            raise ConfigError(
                f"{self.label} does not speak {PROTOCOL}: to the hello message it answered "
                f'{answer[:200]!r}; it must reply {{"type": "hello", "protocol": '
                f'"{PROTOCOL}"}} (see docs/process-agents.md)'
            )

    def _spawn(self) -> None:
        cwd = self.cwd
        if cwd is None:
            self._scratch = tempfile.TemporaryDirectory(prefix="workbench-agent-")
            cwd = self._scratch.name
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=self.env,
            cwd=cwd,
            start_new_session=True,  # a kernel interrupt is not delivered to the agent
        )
        self.starts += 1
        self._drainer = threading.Thread(
            target=self._drain_stderr, args=(self.process,), daemon=True
        )
        self._drainer.start()

    def _roundtrip(self, line: str) -> str:
        with self._lock:
            process = self.process
            if process is None or process.stdin is None or process.stdout is None:
                raise ChildExited(f"{self.label} is not running")
            try:
                process.stdin.write(line.encode())
                process.stdin.flush()
            except (BrokenPipeError, OSError):
                raise self._exited(process) from None
            answer = process.stdout.readline(MAX_LINE_BYTES + 1)
        if not answer:
            raise self._exited(process)
        if len(answer) > MAX_LINE_BYTES:
            self.stop()
            raise FrameworkError(f"{self.label} answered more than {MAX_LINE_BYTES} bytes")
        return answer.decode("utf-8", errors="replace").rstrip("\n")

    def _exited(self, process: subprocess.Popen[bytes]) -> ChildExited:
        try:
            code = process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        tail = " | ".join(list(self.stderr_tail)[-3:]) or "nothing on stderr"
        return ChildExited(f"{self.label} exited (code {code}) before answering; stderr: {tail}")

    def _drain_stderr(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stderr is not None
        log = self.stderr_path.open("a", encoding="utf-8") if self.stderr_path else None
        try:
            for raw in process.stderr:
                text = raw.decode("utf-8", errors="replace").rstrip("\n")
                self.stderr_tail.append(text)
                if log is not None:
                    log.write(text + "\n")
                    log.flush()
        finally:
            if log is not None:
                log.close()

    def stop(self) -> None:
        """End the process (politely, then by force); safe to call from any thread."""
        process, self.process = self.process, None
        if process is not None:
            _end(process)
            with self._lock:  # the reader has seen end of file: its pipe can close
                _close(process.stdout)
            if self._drainer is not None:
                self._drainer.join(timeout=2)
            _close(process.stderr)
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None


def _end(process: subprocess.Popen[bytes]) -> None:
    _close(process.stdin)  # a well-behaved agent exits at end of input
    try:
        process.wait(timeout=1)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _close(pipe: Any) -> None:
    try:
        if pipe is not None:
            pipe.close()
    except OSError:
        pass
