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
    from workbench.engine.presets import DEFAULT_PRESET, list_presets

    for name in list_presets():
        print(f"{name}{'  (default)' if name == DEFAULT_PRESET else ''}")
    return 0


def _show(args: argparse.Namespace) -> int:
    from workbench.engine.presets import preset

    chosen = preset(args.name)
    print(json.dumps({"preset": chosen.fingerprint, "dials": chosen.vector}, indent=2))
    return 0


def _diff(args: argparse.Namespace) -> int:
    from workbench.engine.presets import diff

    changes = diff(args.a, args.b)
    if not changes:
        print(f"{args.a} and {args.b} have the same dials")
    for dial, (left, right) in changes.items():
        print(f"{dial:28s} {left!s:>12} -> {right!s}")
    return 0
