"""What the MCP server exposes, what it withholds and why, and what it may never expose.

Plain data with no SDK import, so tests and docs read it without the ``mcp`` extra.

- ``EXPOSED_TOOLS``: every tool the server registers, each calling the service of
  the same name in ``workbench.services.SERVICES``.
- ``DEFERRED_PARAMS``: for each tool, the service parameters it does not take,
  with the reason. A test enumerates every service signature and fails when a
  parameter is neither exposed nor listed here.
- ``FORBIDDEN_TOOLS``: the hard wall. Nothing that spends model money (a live
  model call, recording a new run) or modifies or deletes a recording may be
  registered; a test asserts the two sets are disjoint and the server refuses
  to start otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from workbench._checks import did_you_mean

_STORE = (
    "bound once when the server starts (--store): an agent cannot choose where files are "
    "written or read, which keeps every path inside the run store"
)
_RECORDINGS = (
    "bound once when the server starts (--recordings): recordings are read from that folder "
    "only, so an agent cannot point a replay at an arbitrary file"
)

EXPOSED_TOOLS: frozenset[str] = frozenset(
    {
        "list_presets",
        "describe_preset",
        "diff_presets",
        "list_agents",
        "metrics_glossary",
        "run_evaluation",
        "compare_runs",
        "replay_recording",
        "render_report",
        "list_runs",
        "get_run",
        "compare_stored_runs",
    }
)

# Tools that add a run (or a report) to the run store; every other tool only reads.
WRITES_RUN_STORE: frozenset[str] = frozenset(
    {"run_evaluation", "compare_runs", "replay_recording", "render_report"}
)

FORBIDDEN_TOOLS: frozenset[str] = frozenset(
    {
        # spends model money
        "evaluate_live",
        "run_live",
        "call_model",
        "record",
        "record_recording",
        "run_committee_live",
        "resume_recording",
        # rewrites or removes recorded evidence
        "delete_recording",
        "rewrite_recording",
        "accept_new_columns",
        "accept_redefined",
        "update_recording",
        "save_recording",
        "rerecord",
        "delete_run",
        "edit_run",
    }
)

DEFERRED_PARAMS: dict[str, dict[str, str]] = {
    "list_agents": {"recordings": _RECORDINGS},
    "replay_recording": {"store": _STORE, "recordings": _RECORDINGS},
    "run_evaluation": {"store": _STORE},
    "compare_runs": {"store": _STORE},
    "render_report": {"store": _STORE},
    "list_runs": {"store": _STORE},
    "get_run": {"store": _STORE},
    "compare_stored_runs": {"store": _STORE},
}


def refusal(tool: str, unknown: Iterable[str], accepted: Iterable[str]) -> str:
    """The message for arguments a tool does not take: which kind of mistake, and the fix."""
    accepted = sorted(accepted)
    withheld: Mapping[str, str] = DEFERRED_PARAMS.get(tool, {})
    names = sorted(unknown)
    lines = [f"{tool} does not accept: {', '.join(names)}."]
    for name in names:
        if name in withheld:
            lines.append(f"  {name}: withheld from this tool on purpose: {withheld[name]}.")
            continue
        lines.append(f"  {name}: not a parameter of this tool.{did_you_mean(name, accepted)}")
    lines.append(f"Parameters of {tool}: {', '.join(accepted) or 'none'}.")
    lines.append(
        "Refused rather than ignored: an argument dropped in silence would leave you "
        "believing it had been applied."
    )
    return "\n".join(lines)
