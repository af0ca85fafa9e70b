"""``workbench demo``: the baselines on the default preset, written to out/demo/."""

from __future__ import annotations

import argparse
from pathlib import Path

DEMO_ARMS = ("cash", "buy_and_hold", "equal_weight", "momentum", "mean_reversion", "random")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("demo", help="run the baselines and write out/demo/")
    parser.add_argument("--out", type=Path, default=Path("out/demo"))
    parser.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    from workbench.evaluation import evaluate
    from workbench.report.plots import save_equity_plot
    from workbench.report.tables import format_scorecard

    results = evaluate(list(DEMO_ARMS), seed=7, universe=40, days=10)
    print(format_scorecard(results))
    results.save(args.out)
    save_equity_plot(results, args.out / "equity.png")
    print(
        f"\nwrote {args.out}/ (scorecard.csv, scorecard.json, equity.parquet, "
        "orders.parquet, results.json, timing.json, equity.png)"
    )
    return 0
