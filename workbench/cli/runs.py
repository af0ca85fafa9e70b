"""``workbench runs list|show|compare``: the stored runs, one of them, or two side by side."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

_LIST = ("run_id", "kind", "when", "arms", "market", "seeds", "top_arm", "sharpe", "digest")
_CUT = {"digest": 12, "when": 19}  # a digest's head names it; a time to the second


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("runs", help="list, show and compare the stored runs")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    listing = verbs.add_parser("list", help="every stored run, newest first, filtered")
    for flag, text in (
        ("--arm", "runs that include this arm"),
        ("--preset", "runs on this market (a preset fingerprint or data:<digest>, by prefix)"),
        ("--since", "runs made on or after this UTC date or time (ISO, e.g. 2026-12-01)"),
        ("--until", "runs made on or before this UTC date or time (a date includes its day)"),
        ("--family", "runs of this trial family (the market they ran on; see the list)"),
        ("--kind", "evaluation, comparison, replay or saved (an output folder)"),
    ):
        listing.add_argument(flag, help=text)
    listing.set_defaults(handler=_list)
    show = verbs.add_parser("show", help="one run: its request and every arm's key metrics")
    show.add_argument("run_id")
    show.set_defaults(handler=_show)
    compare = verbs.add_parser("compare", help="two runs side by side, differences marked")
    compare.add_argument("a")
    compare.add_argument("b")
    compare.set_defaults(handler=_compare)
    for verb in (listing, show, compare):
        verb.add_argument(
            "--store",
            type=Path,
            help="run store, or a folder of output folders such as out/panel "
            "(default: $WORKBENCH_RUN_STORE or ~/.workbench/runs)",
        )
        verb.add_argument("--json", action="store_true", help="print JSON instead of a table")


def _list(args: argparse.Namespace) -> int:
    from workbench.services.history import filter_rows, run_rows

    filters = {k: getattr(args, k) for k in ("arm", "preset", "since", "until", "family", "kind")}
    rows = filter_rows(run_rows(_store(args)), **filters)
    if args.json:
        return _print_json(rows)
    print(table([_cells(row) for row in rows], _LIST))
    for row in rows:
        if row["status"] != "ok":
            print(f"unreadable {row['run_id']}: {row['why']}")
    print(f"{sum(row['status'] == 'ok' for row in rows)} run(s)")
    return 0


def _show(args: argparse.Namespace) -> int:
    from workbench.services.history import show_run

    run = show_run(_store(args), args.run_id)
    if args.json:
        return _print_json(run)
    for key in ("run_id", "kind", "when", "version", "market", "family", "seeds", "digest"):
        print(f"{key:10s} {_text(run[key])}")
    print(f"{'request':10s} {json.dumps(run['request'], sort_keys=True)}")
    metrics = [{"arm": arm, **values} for arm, values in run["arm_metrics"].items()]
    columns = ("arm", *(next(iter(run["arm_metrics"].values()), {})))
    print(table([{k: _text(v) for k, v in row.items()} for row in metrics], columns))
    return 0


def _compare(args: argparse.Namespace) -> int:
    from workbench.services.history import compare_stored_runs

    both = compare_stored_runs(_store(args), args.a, args.b)
    if args.json:
        return _print_json(both)
    head = ("", "field", "a", "b")
    rows = [_marked(row) for row in both["provenance"]]
    print(table(rows, head, titles={"a": args.a, "b": args.b}))
    print()
    rows = [{**_marked(row), "arm": row["arm"]} for row in both["metrics"]]
    print(table(rows, ("", "arm", "field", "a", "b"), titles={"a": args.a, "b": args.b}))
    changed = sum(row["differs"] for row in both["provenance"] + both["metrics"])
    print(f"{changed} difference(s), marked *")
    return 0


def table(
    rows: Sequence[dict[str, str]], columns: Sequence[str], titles: dict[str, str] | None = None
) -> str:
    """Rows of text as aligned columns under a header (``titles`` renames a column)."""
    names = [(titles or {}).get(c, c) for c in columns]
    pairs = zip(names, columns, strict=True)
    widths = [max([len(n), *(len(r.get(c, "")) for r in rows)]) for n, c in pairs]
    lines = ["  ".join(n.ljust(w) for n, w in zip(names, widths, strict=True)).rstrip()]
    for row in rows:
        cells = (row.get(c, "").ljust(w) for c, w in zip(columns, widths, strict=True))
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def _marked(row: dict[str, Any]) -> dict[str, str]:
    return {"": "*" if row["differs"] else "", **{k: _text(row[k]) for k in ("field", "a", "b")}}


def _cells(row: dict[str, Any]) -> dict[str, str]:
    cells = {column: _text(row.get(column)) for column in _LIST}
    if row["status"] != "ok":
        cells["kind"] = "UNREADABLE"
    for column, width in _CUT.items():
        cells[column] = cells[column][:width].replace("T", " ")
    cells["arms"] = _short(cells["arms"], 40)
    return cells


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.4g}"
    if isinstance(value, list | tuple):
        return ",".join(_text(v) for v in value)
    return str(value)


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _store(args: argparse.Namespace) -> Path:
    from workbench.services.store import default_store

    return args.store or default_store()


def _print_json(value: Any) -> int:
    print(json.dumps(value, indent=2, sort_keys=True, default=str))
    return 0
