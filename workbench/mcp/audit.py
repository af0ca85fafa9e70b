"""The append-only audit log: JSON lines, enough to make every call again.

A call that reaches its service writes two lines sharing a ``call`` id: one with
outcome ``started`` before any work (so a call the client cut off, or a server
that was killed, still leaves a line) and one at the end (``ok`` or ``error``).
A call refused before it starts writes one line (``refused``, ``invalid``).

Each line holds the time, the tool, the arguments after validation (exactly what
reached the service, defaults filled in), the values the server bound itself
(the run store and recordings folder), the run id when the call made or read a
run, the package version, the outcome and a summary of the result: its digest,
plus the results digest of a run. Secrets are redacted from every line
(``workbench.redaction``). ``reproduce(entry)`` calls the same service with the
same arguments; its summary equals the logged one when the call is reproduced.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.redaction import redact_data
from workbench.services.store import canonical_json, package_version

AUDIT_LOG = "mcp_audit.jsonl"
# Keys that depend on where or when a call ran, not on what it computed ("deprecated": the
# notes on how the call was spelled, logged on their own line key).
VOLATILE_KEYS = frozenset(
    {"store_root", "reused", "evaluations_in_store", "created_utc", "deprecated"}
)


class AuditLog:
    """Appends one line per call; opened for append only, never rewritten or truncated."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path).expanduser().resolve()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8"):
                pass
        except OSError as exc:
            raise ConfigError(
                f"cannot append to the audit log {self.path}: {exc.strerror}; "
                "pass a writable path with --audit-log"
            ) from None

    def write(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        outcome: str,
        result: Mapping[str, Any] | None = None,
        error: str | None = None,
        bound: Mapping[str, str] | None = None,
        call: str | None = None,
    ) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "call": call or new_call_id(),
            "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "tool": tool,
            "arguments": dict(arguments),
            "bound": dict(bound or {}),
            "run_id": (result or {}).get("run_id"),
            "version": package_version(),
            "outcome": outcome,
            "summary": summarise(result) if result is not None else None,
        }
        if error is not None:
            entry["error"] = error
        if result is not None and result.get("deprecated"):
            entry["deprecated"] = list(result["deprecated"])
        entry = redact_data(_jsonable(entry))
        line = json.dumps(entry, sort_keys=True, allow_nan=False) + "\n"
        with self._lock, self.path.open("a", encoding="utf-8") as out:
            out.write(line)
            out.flush()
            os.fsync(out.fileno())
        return entry

    def start(
        self, tool: str, arguments: Mapping[str, Any], *, bound: Mapping[str, str] | None = None
    ) -> str:
        """Write the ``started`` line of a call before any work; return its call id."""
        call = new_call_id()
        self.write(tool, arguments, outcome="started", bound=bound, call=call)
        return call

    def entries(self) -> list[dict[str, Any]]:
        lines = self.path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]


def new_call_id() -> str:
    """Pairs a call's ``started`` line with its end line."""
    return uuid.uuid4().hex[:16]


def summarise(result: Mapping[str, Any]) -> dict[str, Any]:
    """What a reproduction must match: the digest of the result without volatile keys."""
    stable = canonical_json(_without_volatile(dict(result)))
    summary = {"digest": hashlib.sha256(stable.encode()).hexdigest()}
    for key in ("run_id", "results_digest", "kind"):
        if key in result:
            summary[key] = result[key]
    return summary


def reproduce(entry: Mapping[str, Any], **bound: str | os.PathLike[str]) -> dict[str, Any]:
    """Call the logged service again with the logged arguments; return the new summary.

    The server-bound values (``store``, ``recordings``) are the logged ones unless
    given here, e.g. ``reproduce(entry, store=fresh_dir)`` to rebuild a run elsewhere.
    """
    from workbench.services import SERVICES

    tool = entry["tool"]
    if tool not in SERVICES:
        raise ConfigError(f"the audit entry names {tool!r}, which is not a service")
    if entry.get("outcome") == "started":
        raise ConfigError("the audit entry is the start of a call; reproduce its end line")
    if entry.get("outcome") != "ok":
        raise ConfigError(f"the audit entry is a {entry.get('outcome')!r} call; nothing ran")
    where = {**entry.get("bound", {}), **{k: str(v) for k, v in bound.items()}}
    return summarise(SERVICES[tool](**where, **entry["arguments"]))


def _without_volatile(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_volatile(v) for k, v in value.items() if k not in VOLATILE_KEYS}
    if isinstance(value, list):
        return [_without_volatile(v) for v in value]
    return value


def _jsonable(value: Any) -> Any:
    return json.loads(canonical_json(value))
