"""``workbench presets list|show|diff``."""

from __future__ import annotations

import argparse
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("presets", help="list, show and diff market presets")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    verbs.add_parser("list", help="the shipped presets").set_defaults(handler=_list)
    show = verbs.add_parser("show", help="every dial of one preset")
    show.add_argument("name", nargs="?", default=None)
    show.set_defaults(handler=_show)
    diff = verbs.add_parser("diff", help="the dials that differ between two presets")
    diff.add_argument("a")
    diff.add_argument("b")
    diff.set_defaults(handler=_diff)


def _list(args: argparse.Namespace) -> int:
    from workbench.services import list_presets

    for row in list_presets()["presets"]:
        if row["default"]:
            print(f"{row['name']}  (default)")
        elif row["superseded_by"]:
            print(f"{row['name']:14} superseded by {row['superseded_by']} ({row['why']})")
        else:
            print(row["name"])
    return 0


def _show(args: argparse.Namespace) -> int:
    from workbench.services import describe_preset

    print(json.dumps(describe_preset(args.name), indent=2))
    return 0


def _diff(args: argparse.Namespace) -> int:
    from workbench.services import diff_presets

    changes = diff_presets(args.a, args.b)
    if changes["same"]:
        print(f"{args.a} and {args.b} have the same dials")
    for row in changes["changes"]:
        print(f"{row['dial']:28s} {row['a']!s:>12} -> {row['b']!s}")
    return 0
