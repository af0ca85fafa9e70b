"""``workbench audit DATA``: how much of a masked historical run an adversary can undo."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "audit", help="contamination audit: recovery of names and dates from masked payloads"
    )
    parser.add_argument("data", type=Path, help="historical bars (.csv or .parquet)")
    parser.add_argument("--days", type=int, default=60, help="traded days per audited run")
    parser.add_argument("--trials", type=int, default=50, help="masked runs to audit")
    parser.add_argument(
        "--pre-days", type=int, default=120, help="dates before each run the adversaries study"
    )
    parser.add_argument(
        "--variant",
        default=None,
        help="audit counterfactual paths: bootstrap, reversed or flipped (default: the real path)",
    )
    parser.add_argument("--no-mask", action="store_true", help="audit the raw, unmasked bars")
    parser.add_argument("--seed", type=int, default=0, help="seed of the audit's own draws")
    parser.add_argument("--csv", type=Path, help="also write the table as CSV here")
    parser.add_argument(
        "--news",
        type=Path,
        help="also list the words left in this news (masked) that still point at one name",
    )
    parser.add_argument(
        "--company-names", type=Path, help="with --news: a symbol,name file of names to mask"
    )
    parser.add_argument(
        "--mask-secret",
        help="with --news: the mask secret whose aliases the leak report names (the one "
        "workbench evaluate printed for its run); default: derived from the bars and the "
        "project's mask key",
    )
    parser.set_defaults(handler=_audit)


def _audit(args: argparse.Namespace) -> int:
    from workbench.cli._outputs import check_file, keep_run
    from workbench.evaluation.contamination import audit, format_audit

    if args.csv:
        check_file(args.csv, "--csv")
    for flag, value in (
        ("--company-names", args.company_names),
        ("--mask-secret", args.mask_secret),
    ):
        if value is not None and args.news is None:
            raise ConfigError(f"{flag} needs --news (it acts on the leak report of the news)")
    table = audit(
        args.data,
        days=args.days,
        trials=args.trials,
        pre_days=args.pre_days,
        variant=args.variant,
        mask=not args.no_mask,
        seed=args.seed,
    )
    path = f"{args.variant} variant" if args.variant else "real path"
    print(f"{args.trials} runs of {args.days} days, {path}, {'un' * args.no_mask}masked")
    print(format_audit(table))
    if args.news is not None:
        _print_leaks(args)
    if args.csv:
        csv: Path = args.csv
        kept = keep_run(
            lambda folder: _write_csv(table, folder / csv.name),
            f"--csv {csv}",
            lambda: _write_csv(table, csv),
        )
        return 0 if kept else 1
    return 0


def _print_leaks(args: argparse.Namespace) -> None:
    from workbench.evaluation.textleaks import leak_report
    from workbench.services.evaluation import load_bars

    data = load_bars(
        args.data, secret=args.mask_secret, news=args.news, company_names=args.company_names
    )
    leaks = leak_report(data)
    print(f"\ntext leak report: {len(leaks)} words still point at one name")
    if len(leaks):
        print(leaks.to_string(index=False, formatters={"p_value": lambda p: f"{p:.1e}"}))


def _write_csv(table: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(path, lineterminator="\n")
