"""The ``workbench`` command: a thin shell over the library, one module per command group.

Each module in ``COMMANDS`` has ``register(subparsers)`` adding its subcommands,
each bound to a handler ``(args) -> int``. Modules import heavy things inside the
handlers so that ``workbench --help`` stays fast.

Every failure ends as one line on stderr, never a traceback: a ``WorkbenchError``
and bad input from outside (a file that cannot be read or written, a value the
data cannot take, a module that does not import) exit 2; anything else is a bug,
said to be one, and exits 1. ``--traceback`` shows the traceback instead.
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
    "workbench.cli.runs",
    "workbench.cli.diff",
    "workbench.cli.mcp",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="workbench", description="Evaluate LLM trading agents on a simulated market."
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "--traceback", action="store_true", help="on an error, show the whole traceback"
    )
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
    except KeyboardInterrupt:
        print("workbench: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if args.traceback:
            raise
        return _report(exc)


def _report(exc: Exception) -> int:
    """One line on stderr for ``exc``; the exit code (see the module doc)."""
    from workbench.redaction import redact

    if isinstance(exc, WorkbenchError):  # written by us: its lines are meant
        print(f"workbench: error: {redact(str(exc))}", file=sys.stderr)
        return 2
    if isinstance(exc, OSError):
        text, code = _os_error(exc), 2
    elif isinstance(exc, ValueError | ImportError):
        text, code = f"{type(exc).__name__}: {exc}", 2
    else:
        text = f"{type(exc).__name__}: {exc} (a bug: run again with --traceback and report it)"
        code = 1
    print(f"workbench: error: {redact(' '.join(text.split()))}", file=sys.stderr)
    return code


def _os_error(exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return reason
    other = f" -> {exc.filename2}" if exc.filename2 is not None else ""
    return f"{reason}: {exc.filename}{other}"


__all__ = ["build_parser", "main"]
