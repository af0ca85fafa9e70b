"""``workbench diff A B``: where two runs on one path parted, and the P&L gap split over it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "diff", help="where two recordings (or stored runs) on one path parted, and why it paid"
    )
    parser.add_argument("a", help="a recording folder, or a run id in the run store")
    parser.add_argument("b", help="the same kind as A, on the same market path")
    parser.add_argument("--arm", help="the arm to compare, when the default does not apply")
    parser.add_argument(
        "--arm-b", help="B's arm, when it is another than --arm (two arms of one run: A = B)"
    )
    parser.add_argument(
        "--store",
        type=Path,
        help="run store of run ids (default: $WORKBENCH_RUN_STORE or ~/.workbench/runs)",
    )
    parser.add_argument("--json", action="store_true", help="print the diff as JSON")
    parser.add_argument("--html", type=Path, help="also write the diff as an HTML page here")
    parser.add_argument(
        "--report",
        type=Path,
        help="also write B's full report here, with the diff as its section 'Where the runs "
        "parted'",
    )
    parser.set_defaults(handler=_diff)


def _diff(args: argparse.Namespace) -> int:
    from workbench.cli._outputs import check_file
    from workbench.report.diff import format_diff, write_diff_report
    from workbench.services.diff import decision_diff

    for path, flag in ((args.html, "--html"), (args.report, "--report")):
        if path:
            check_file(path, flag)
    diff = decision_diff(args.a, args.b, arm=args.arm, arm_b=args.arm_b, store=args.store)
    if args.json:
        print(json.dumps(diff.summary(), indent=2, sort_keys=True))
    else:
        print(format_diff(diff))
    if args.html:
        print(f"wrote {write_diff_report(diff, args.html)}")
    if args.report and diff.runs is not None:
        from workbench.report import render_report

        title = f"{diff.b} ({diff.arm_b}) against {diff.a} ({diff.arm_a})"
        print(f"wrote {render_report(diff.runs[1], args.report, title=title, diff=diff)}")
    return 0
