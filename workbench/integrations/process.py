"""Agents in their own process: any program that speaks JSON lines on stdio, or JSON over HTTP.

The protocol (``workbench-agent/2``, docs/process-agents.md, JSON Schema in
``workbench/integrations/process_protocol.schema.json``) is one JSON object per line each way:

- the workbench says ``{"type": "hello", "protocol": "workbench-agent/2", "arm": ...}``
  once after starting the program, which answers ``{"type": "hello", "protocol":
  "workbench-agent/2"}`` (anything else: a ``ConfigError`` naming what came back; an
  agent answering ``workbench-agent/1`` is told the change to make);
- then, per decision, ``{"type": "decide", "protocol": ..., "id": 7, "payload": {...}}``,
  and the agent answers ``{"type": "decision", "id": 7, "decision": {...}, "usage":
  {...}}`` (``usage`` optional: input_tokens, output_tokens, model_calls) or ``{"type":
  "error", "id": 7, "message": "..."}``, recorded as a ``FrameworkError``. A line with
  an earlier request's id is skipped; a line with no id (or another) answers nothing:
  it is kept as the agent's text (a ``DecisionError``) and the program restarted.

Everything else is the adapter base's: live / record / replay / ``prior=``, the
transcript keyed by the payload's digest, validation, budgets. A replay never
starts the program, so a recording replays where the agent cannot run.

Isolation: the child gets the payload and nothing else: an empty scratch
working directory, an environment of PATH, a UTF-8 locale and what ``env=``
passes, plus the variables ``forward=`` names (API keys only when named), and a
session and process group of its own. A crash, or an answer cut off by the
program's exit, is a ``FrameworkError`` for that decision naming the exit code;
the next decision starts the program again, up to ``max_restarts`` times. A hang
ends at ``timeout`` seconds: the program's whole process group is killed and it
restarts at the next decision. Its stderr goes to ``stderr_path`` when given; the
last lines (each cut to its last 4,000 bytes) are in every error message and in
``arm.stderr_tail``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

from workbench._checks import count, is_whole, seconds
from workbench.agents import DecisionRequest, RunInfo
from workbench.errors import ConfigError, DecisionError, FrameworkError
from workbench.integrations._child import Child, OutOfStep, child_environment, resolve_command
from workbench.integrations._protocol import PROTOCOL, USAGE_KEYS
from workbench.integrations.base import (
    AdapterOptions,
    BaseAdapter,
    mode_of,
    replay_options,
)
from workbench.transcript import Transcript

DEFAULT_TIMEOUT = 60.0
DEFAULT_START_TIMEOUT = 30.0


def read_answer(line: str, label: str) -> tuple[Any, dict[str, int]]:
    """The raw decision an answer line carries, and the usage it reports.

    A line that is not a protocol answer is returned as text, so the transcript
    keeps what the agent said and validation files it as a ``DecisionError``.
    """
    try:
        answer = json.loads(line)
    except (ValueError, RecursionError):
        return line, {}
    if not isinstance(answer, dict):
        return line, {}
    if answer.get("type") == "error":
        raise FrameworkError(f"{label} reported an error: {str(answer.get('message'))[:500]}")
    usage = answer.get("usage")
    counted = {k: v for k, v in (usage or {}).items() if k in USAGE_KEYS and _count(v)}
    if isinstance(usage, dict) and len(counted) < len(usage):
        raise DecisionError(
            f"{label} reported usage {usage!r}; it takes only whole numbers >= 0 for "
            f"{', '.join(USAGE_KEYS)}"
        )
    return answer.get("decision", answer), counted


def _count(value: Any) -> bool:
    return is_whole(value) and value >= 0


class ProcessAgentAdapter(BaseAdapter):
    """An arm answered by a program on stdio; see the module doc for the protocol."""

    framework = "process"

    def __init__(
        self,
        command: Sequence[str] | str | None = None,
        *,
        env: Mapping[str, str] | None = None,
        forward: Sequence[str] = (),
        cwd: str | os.PathLike[str] | None = None,
        start_timeout: float = DEFAULT_START_TIMEOUT,
        max_restarts: int = 3,
        stderr_path: str | os.PathLike[str] | None = None,
        **options: Unpack[AdapterOptions],
    ) -> None:
        if command is None and mode_of(options) != "replay":
            raise ConfigError("process_agent needs a command; only a replay runs without one")
        self.argv = resolve_command(command) if command is not None else []
        self.answer_timeout = own_timeout(options)
        self.start_timeout = seconds("start_timeout", start_timeout)
        self.max_restarts = count("max_restarts", max_restarts)
        self._starts_before_run = 0
        super().__init__(**options)
        label = f"agent process {os.path.basename(self.argv[0]) if self.argv else '?'}"
        self.child = Child(
            self.argv,
            env=child_environment(env, forward) if command is not None else {},
            cwd=cwd,
            label=f"{label} of arm {self.name!r}",
            stderr_path=stderr_path,
        )

    def default_name(self) -> str:
        return _default_name(self.argv)

    @property
    def restarts(self) -> int:
        """Starts of the program in this run after the first (each run starts it afresh)."""
        return max(self.child.starts - self._starts_before_run - 1, 0)

    @property
    def stderr_tail(self) -> list[str]:
        return self.child.stderr_tail

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        await self._running()
        message = {"type": "decide", "protocol": PROTOCOL, "payload": sent}
        try:
            line = await self.child.ask(message, self.answer_timeout)
        except OutOfStep as exc:
            self.note_answer(exc.text)  # the transcript keeps what the agent wrote
            raise DecisionError(str(exc)) from None
        raw, usage = read_answer(line, self.child.label)
        self.note_usage(**usage)
        return raw

    async def _running(self) -> None:
        if self.child.running:
            return
        if self.restarts >= self.max_restarts:
            raise FrameworkError(
                f"{self.child.label} stopped {self.restarts + 1} times this run; it is not "
                f"started again (max_restarts={self.max_restarts})"
            )
        await asyncio.to_thread(self._start)

    def _start(self) -> None:
        hello = {"type": "hello", "protocol": PROTOCOL, "arm": self.name}
        self.child.start(hello, self.start_timeout)

    def begin(self, run: RunInfo) -> None:
        """Start the program before the market opens, so one that cannot start or does not
        speak the protocol stops the run with a ``ConfigError`` (a replay starts nothing)."""
        super().begin(run)
        self._starts_before_run = self.child.starts
        if self.mode != "replay":
            self._start()

    def end(self) -> None:
        self.child.stop()
        super().end()

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        """Rebuild for replay from the name, cadence and info only: a recording cannot
        make a replay start a program or call a URL, whatever else its spec holds."""
        return cls(**replay_options(spec, transcript))


class ProcessAgentOptions(AdapterOptions, total=False):
    """``ProcessAgentAdapter``'s own keywords beside the adapter keywords."""

    env: Mapping[str, str] | None
    forward: Sequence[str]
    cwd: str | os.PathLike[str] | None
    start_timeout: float
    max_restarts: int
    stderr_path: str | os.PathLike[str] | None


def process_agent(
    command: Sequence[str] | str, **options: Unpack[ProcessAgentOptions]
) -> ProcessAgentAdapter:
    """``ProcessAgentAdapter(command, **options)``: e.g. ``process_agent(["node", "agent.js"])``."""
    return ProcessAgentAdapter(command, **options)


def _default_name(argv: list[str]) -> str:
    if not argv:
        raise ConfigError("a replay without a command needs name= (the recorded arm's name)")
    script = next((part for part in reversed(argv) if not part.startswith("-")), argv[0])
    return os.path.splitext(os.path.basename(script))[0] or "process"


def own_timeout(options: AdapterOptions) -> float:
    """The adapter's ``timeout``, which it enforces itself (ending the program or the
    socket): the base gets none, so it never cuts in first."""
    timeout = seconds("timeout", options.get("timeout", DEFAULT_TIMEOUT))
    options["timeout"] = None
    return timeout


__all__ = ["ProcessAgentAdapter", "process_agent", "read_answer"]
