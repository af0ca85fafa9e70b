"""The stdio MCP server: a thin adapter from the ``mcp`` SDK to ``Toolbox``.

Two things are added to the SDK's dispatch, in one place (``_WorkbenchServer.call_tool``):

- arguments a tool does not declare are refused with the reason (the SDK would
  validate the declared ones and silently drop the rest);
- failures are mapped once: a workbench error becomes a tool error carrying its
  own message (the fix it names), anything else a tool error saying it is a bug;
  every message is redacted (``workbench.redaction``) before it leaves.

``build_server`` checks the hard wall before it registers anything, and
``serve`` does every check that can fail (extra installed, store writable, audit
log appendable) before the handshake, so a server that cannot work says why on
stderr and exits non-zero instead of closing the pipe on a client.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, MissingDependency, WorkbenchError
from workbench.mcp.audit import AUDIT_LOG, AuditLog
from workbench.mcp.surface import EXPOSED_TOOLS, FORBIDDEN_TOOLS, WRITES_RUN_STORE, refusal
from workbench.mcp.tools import Toolbox, describe
from workbench.redaction import redact
from workbench.services.store import RunStore, package_version

INSTRUCTIONS = (
    "Deterministic tools of the workbench: presets, baseline and recorded arms, evaluations "
    "on a simulated market, cross-seed comparisons, reports and past runs. No tool calls a "
    "model or changes a recording. Large outputs are files; their paths are relative to the "
    "store_root every result carries. Rankings carry their caveats as data: read them."
)


def _sdk() -> Any:
    try:
        from mcp.server import mcpserver
    except ImportError as exc:
        raise MissingDependency("mcp", "mcp", "The workbench MCP server") from exc
    return mcpserver


def check_wall(tools: set[str] | frozenset[str]) -> None:
    """Refuse a tool surface that reaches past the hard wall or differs from EXPOSED_TOOLS."""
    crossing = sorted(set(tools) & FORBIDDEN_TOOLS)
    if crossing or EXPOSED_TOOLS & FORBIDDEN_TOOLS:
        raise ConfigError(f"refusing to serve forbidden tools: {crossing or 'EXPOSED_TOOLS'}")
    if set(tools) != EXPOSED_TOOLS:
        raise ConfigError(
            f"registered tools {sorted(tools)} differ from EXPOSED_TOOLS {sorted(EXPOSED_TOOLS)}"
        )


def build_server(toolbox: Toolbox) -> Any:
    """An ``MCPServer`` with one tool per exposed service, bound to ``toolbox``."""
    mcpserver = _sdk()
    from mcp_types import ToolAnnotations

    server = _server_class(mcpserver)(
        "workbench", instructions=INSTRUCTIONS, version=package_version(), log_level="WARNING"
    )
    server.workbench_toolbox = toolbox
    methods = {name: getattr(toolbox, name) for name in sorted(EXPOSED_TOOLS)}
    check_wall(set(methods))
    for name, method in methods.items():
        writes = name in WRITES_RUN_STORE
        server.add_tool(
            method,
            name=name,
            description=describe(name, method),
            annotations=ToolAnnotations(
                read_only_hint=not writes,
                destructive_hint=False,
                idempotent_hint=True,
                open_world_hint=False,
            ),
            structured_output=True,
        )
    return server


def _server_class(mcpserver: Any) -> type:
    tool_error = mcpserver.exceptions.ToolError
    unexpected = mcpserver.exceptions.UnexpectedToolError

    class _WorkbenchServer(mcpserver.MCPServer):
        workbench_toolbox: Toolbox

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            tool = self._tool_manager.get_tool(name)
            declared = _declared(tool.parameters) if tool is not None else None
            if declared is not None and set(arguments) - declared:
                message = redact(refusal(name, set(arguments) - declared, declared))
                self._audit(name, arguments, "refused", message)
                raise tool_error(message)
            try:
                return await super().call_tool(name, arguments, context)
            except unexpected as exc:
                raise tool_error(redact(_failure(name, exc))) from exc.__cause__
            except tool_error as exc:
                if tool is None or not _is_validation(exc):
                    raise tool_error(redact(str(exc))) from exc
                message = redact(_invalid(name, exc.__cause__))
                self._audit(name, arguments, "invalid", message)
                raise tool_error(message) from exc

        def _audit(self, tool: str, arguments: dict[str, Any], outcome: str, error: str) -> None:
            self.workbench_toolbox.audit.write(tool, arguments, outcome=outcome, error=error)

    return _WorkbenchServer


def _failure(tool: str, exc: BaseException) -> str:
    """What a failed call tells the client: a workbench error's own message, else a bug."""
    cause = exc.__cause__
    if isinstance(cause, WorkbenchError):
        return f"{tool}: {cause}"
    if isinstance(cause, MemoryError):
        return (
            f"{tool} ran out of memory before it finished; nothing was stored. Ask for "
            "fewer names, days, steps or ticks (the service limits are in the tool description)"
        )
    what = f"{type(cause).__name__}: {cause}" if cause else str(exc)
    return f"{tool} failed unexpectedly ({what}); a workbench bug"


def _declared(schema: dict[str, Any]) -> set[str] | None:
    """The argument names a schema declares, or None when in doubt (then nothing is refused)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or schema.get("additionalProperties") not in (None, False):
        return None
    return set(properties)


def _invalid(tool: str, error: Any) -> str:
    """A pydantic validation error as one line per argument: name, problem, value given."""
    lines = [f"{tool}: invalid arguments (nothing was run)."]
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        given = f" (got {item['input']!r})" if item.get("type") != "missing" else ""
        lines.append(f"  {where}: {item['msg']}{given}")
    return "\n".join(lines)


def _is_validation(exc: BaseException) -> bool:
    from pydantic import ValidationError

    return isinstance(exc.__cause__, ValidationError)


def prepare(
    store: str | os.PathLike[str],
    audit_log: str | os.PathLike[str] | None = None,
    recordings: str | os.PathLike[str] | None = None,
) -> Any:
    """Every check that can fail, before any byte goes to the client: returns the server."""
    from workbench.services.recorded import default_recordings

    _sdk()
    runs = RunStore.open(store)
    audit = AuditLog(audit_log if audit_log is not None else runs.root / AUDIT_LOG)
    folder = Path(recordings) if recordings is not None else default_recordings()
    if folder is not None and not folder.is_dir():
        raise ConfigError(f"recordings folder {folder} does not exist; pass --recordings DIR")
    return build_server(Toolbox(runs, audit, recordings=folder))
