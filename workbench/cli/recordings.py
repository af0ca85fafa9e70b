"""``workbench record`` and ``workbench replay``: thin shells over workbench.recordings."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    from workbench.cli.evaluate import add_market_arguments

    make = subparsers.add_parser("record", help="run arms live and write a recording folder")
    make.add_argument("path", type=Path, help="the recording folder to write")
    make.add_argument(
        "--arms",
        required=True,
        help="comma-separated arms: baseline names, module:factory or module:function of "
        "the payload, imported from the working folder too "
        "(e.g. workbench.testing.scripted:trend_agent,momentum or my_agent:decide)",
    )
    make.add_argument("--overwrite", action="store_true", help="replace an existing recording")
    make.add_argument(
        "--epochs",
        type=int,
        default=1,
        help="run each module:factory arm this many times on the one path, as <arm>.epoch1, "
        "... (each with its transcript); baselines run once",
    )
    add_market_arguments(make, bars=False)  # record trades the simulator only
    make.set_defaults(handler=_record)

    again = subparsers.add_parser("replay", help="re-execute recordings offline and compare")
    again.add_argument("path", type=Path, help="a recording folder, or a folder of recordings")
    again.add_argument(
        "--check", action="store_true", help="exit with an error if any result differs"
    )
    again.add_argument(
        "--trust",
        action="append",
        default=[],
        metavar="MODULE:FACTORY",
        help="trust your own factory (or hook) named by the recording, for this command only "
        "(repeatable); imported from the working folder too",
    )
    again.add_argument(
        "--accept-new-columns",
        action="store_true",
        help="rewrite a recording's expected results and digest when the replay changed no "
        "recorded value and only added columns or tables; refuse (and list) anything else",
    )
    again.add_argument(
        "--accept-redefined",
        action="append",
        default=[],
        metavar="COLUMN",
        help="rewrite a recording's expected results and digest when the replay changed only "
        "the values of these scorecard columns (repeatable or comma-separated), after their "
        "definition changed; refuse (and list) anything else",
    )
    again.set_defaults(handler=_replay)


def _record(args: argparse.Namespace) -> int:
    from workbench.cli._arms import arm_list, recording_arm, working_folder_importable
    from workbench.cli.evaluate import market_preset, universe_flag
    from workbench.recordings import record
    from workbench.report.tables import format_scorecard
    from workbench.services import MARKET_DEFAULTS

    _check_recording_folder(args.path, args.overwrite)
    universe = universe_flag(args)
    with working_folder_importable():
        arms = [recording_arm(item) for item in arm_list(args.arms)]
        results = record(
            args.path,
            arms,
            seed=args.seed,
            universe=MARKET_DEFAULTS.universe if universe is None else universe,
            days=MARKET_DEFAULTS.days if args.days is None else args.days,
            steps_per_day=args.steps_per_day,
            ticks_per_step=args.ticks_per_step,
            preset=market_preset(args),
            overwrite=args.overwrite,
            epochs=args.epochs,
        )
    print(format_scorecard(results))
    print(f"\nrecorded {args.path}/ (digest {results.digest()[:12]}…)")
    print(f"replay it with: workbench replay {args.path} --check{_trust_flags(arms)}")
    return 0


def _check_recording_folder(path: Path, overwrite: bool) -> None:
    """Refuse, before the run, a folder that cannot take the recording."""
    from workbench.cli._outputs import check_folder
    from workbench.errors import ConfigError

    check_folder(path, "the recording folder")
    check_folder(path / "transcripts", "the recording folder")
    if (path / "manifest.json").exists() and not overwrite:
        raise ConfigError(
            f"{path} already holds a recording; pass --overwrite to replace it, "
            "or name a new folder"
        )


def _trust_flags(arms: list[object]) -> str:
    """`` --trust NAME`` for every factory of the user's that the replay will call."""
    from workbench.recordings import trusted_names

    trusted = trusted_names()
    return "".join(
        f" --trust {arm}"
        for arm in arms
        if isinstance(arm, str) and ":" in arm and arm not in trusted
    )


def _replay(args: argparse.Namespace) -> int:
    from workbench.cli._arms import working_folder_importable
    from workbench.errors import RecordingError
    from workbench.recordings import find_recordings

    folders = find_recordings(args.path)
    if not folders:
        raise RecordingError(f"no recording (manifest.json) under {args.path}")
    with working_folder_importable(), _trusted(args.trust):
        if args.accept_new_columns:
            return _migrate(folders, "accept_new_columns")
        if args.accept_redefined:
            from workbench.recordings.migrate import check_scorecard_columns

            named = [c.strip() for text in args.accept_redefined for c in text.split(",")]
            columns = [c for c in named if c]
            check_scorecard_columns(columns)
            return _migrate(folders, "accept_redefined", columns)
        failed = sum(not _replay_one(folder) for folder in folders)
    if args.check and failed:
        print(f"\n{failed} of {len(folders)} recordings differ", flush=True)
        return 1
    return 0


def _replay_one(folder: Path) -> bool:
    from workbench.errors import UntrustedRecording
    from workbench.recordings import replay
    from workbench.report.tables import format_scorecard

    try:
        report = replay(folder, check=False)
    except UntrustedRecording as exc:
        raise UntrustedRecording(
            f"{exc} If the recording is your own, trust that name for this command: "
            f"workbench replay {folder} --check --trust MODULE:ATTRIBUTE"
        ) from None
    print(f"\n== {folder}")
    print(format_scorecard(report.results))
    print(report.summary())
    return report.matched


@contextlib.contextmanager
def _trusted(names: list[str]) -> Iterator[None]:
    """``names`` trusted while the block runs (the user named them on the command line)."""
    from workbench.recordings import distrust, trust, trusted_names

    given = [name.strip() for text in names for name in text.split(",") if name.strip()]
    added = [name for name in given if name not in trusted_names()]
    trust(*added)
    try:
        yield
    finally:
        distrust(*added)


def _migrate(folders: list[Path], how: str, *columns: list[str]) -> int:
    from workbench.errors import WorkbenchError
    from workbench.recordings import migrate

    refused = 0
    for folder in folders:  # one broken recording does not stop the others' migration
        try:
            migration = getattr(migrate, how)(folder, *columns)
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
