"""``workbench record`` and ``workbench replay``: thin shells over workbench.recordings."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    from workbench.cli.evaluate import add_market_arguments

    make = subparsers.add_parser("record", help="run arms live and write a recording folder")
    make.add_argument("path", type=Path, help="the recording folder to write")
    make.add_argument(
        "--arms",
        required=True,
        help="comma-separated arms: baseline names or module:factory "
        "(e.g. workbench.testing.scripted:trend_agent,momentum)",
    )
    make.add_argument("--overwrite", action="store_true", help="replace an existing recording")
    add_market_arguments(make)
    make.set_defaults(handler=_record)

    again = subparsers.add_parser("replay", help="re-execute recordings offline and compare")
    again.add_argument("path", type=Path, help="a recording folder, or a folder of recordings")
    again.add_argument(
        "--check", action="store_true", help="exit with an error if any result differs"
    )
    again.add_argument(
        "--accept-new-columns",
        action="store_true",
        help="rewrite a recording's expected results and digest when the replay changed no "
        "recorded value and only added columns or tables; refuse (and list) anything else",
    )
    again.set_defaults(handler=_replay)


def _record(args: argparse.Namespace) -> int:
    from workbench.recordings import record
    from workbench.report.tables import format_scorecard

    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    results = record(
        args.path,
        arms,
        seed=args.seed,
        universe=40 if args.names is None else args.names,
        days=10 if args.days is None else args.days,
        steps_per_day=6 if args.steps_per_day is None else args.steps_per_day,
        ticks_per_step=65 if args.ticks_per_step is None else args.ticks_per_step,
        preset=args.preset,
        overwrite=args.overwrite,
    )
    print(format_scorecard(results))
    print(f"\nrecorded {args.path}/ (digest {results.digest()[:12]}…)")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from workbench.errors import RecordingError
    from workbench.recordings import find_recordings, replay
    from workbench.report.tables import format_scorecard

    folders = find_recordings(args.path)
    if not folders:
        raise RecordingError(f"no recording (manifest.json) under {args.path}")
    if args.accept_new_columns:
        return _accept_new_columns(folders)
    failed = 0
    for folder in folders:
        report = replay(folder, check=False)
        print(f"\n== {folder}")
        print(format_scorecard(report.results))
        print(report.summary())
        failed += not report.matched
    if args.check and failed:
        print(f"\n{failed} of {len(folders)} recordings differ", flush=True)
        return 1
    return 0


def _accept_new_columns(folders: list[Path]) -> int:
    from workbench.errors import WorkbenchError
    from workbench.recordings.migrate import accept_new_columns

    refused = 0
    for folder in folders:  # one broken recording does not stop the others' migration
        try:
            migration = accept_new_columns(folder)
        except WorkbenchError as exc:  # e.g. a framework not installed, a replay miss
            print(f"{folder}: refused: {type(exc).__name__}: {exc}", flush=True)
            refused += 1
            continue
        print(migration.summary(), flush=True)
        refused += migration.status == "refused"
    if refused:
        print(f"\n{refused} of {len(folders)} recordings refused: record them again", flush=True)
        return 1
    return 0
