"""The ``workbench`` command: a thin shell over the library, one module per command group.

Each module in ``COMMANDS`` has ``register(subparsers)`` adding its subcommands,
each bound to a handler ``(args) -> int``. Modules import heavy things inside the
handlers so that ``workbench --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from workbench.errors import WorkbenchError

COMMANDS: tuple[str, ...] = (
    "workbench.cli.presets",
    "workbench.cli.evaluate",
    "workbench.cli.audit",
    "workbench.cli.demo",
    "workbench.cli.notebook",
    "workbench.cli.recordings",
    "workbench.cli.mcp",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench", description="Evaluate LLM trading agents on a simulated market."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.version:
        from workbench._version import __version__

        print(__version__)
        return 0
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return int(args.handler(args) or 0)
    except WorkbenchError as exc:
        from workbench.redaction import redact

        print(f"workbench: error: {redact(str(exc))}", file=sys.stderr)
        return 2
