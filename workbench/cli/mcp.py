"""``workbench mcp``: serve the deterministic tools to an MCP client over stdio."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mcp", help="serve the workbench's deterministic tools over MCP (stdio)"
    )
    parser.add_argument(
        "--store",
        type=Path,
        default=None,
        help="run store folder (default: $WORKBENCH_RUN_STORE or ~/.workbench/runs)",
    )
    parser.add_argument(
        "--audit-log", type=Path, default=None, help="audit log (default: STORE/mcp_audit.jsonl)"
    )
    parser.add_argument(
        "--recordings",
        type=Path,
        default=None,
        help="recordings folder (default: $WORKBENCH_RECORDINGS or the checkout's recordings/)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="run the start-up checks, list the tools and exit (run once before registering)",
    )
    parser.set_defaults(handler=_mcp)


def _mcp(args: argparse.Namespace) -> int:
    from workbench.mcp.server import prepare
    from workbench.services.store import default_store

    server = prepare(args.store or default_store(), args.audit_log, args.recordings)
    if args.check:
        from workbench.mcp.surface import EXPOSED_TOOLS

        toolbox = server.workbench_toolbox
        print(f"workbench mcp ready: {len(EXPOSED_TOOLS)} tools")
        print(f"run store:  {toolbox.store.root}")
        print(f"audit log:  {toolbox.audit.path}")
        print(f"recordings: {toolbox.recordings or 'none (set --recordings)'}")
        print("tools: " + ", ".join(sorted(EXPOSED_TOOLS)))
        return 0
    print("workbench mcp: serving on stdio (Ctrl-D or close the pipe to stop)", file=sys.stderr)
    server.run("stdio")
    return 0
