"""``workbench evaluate``: run arms on one market and print the scorecard."""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("evaluate", help="run arms on one market, print the scorecard")
    add_market_arguments(parser)
    parser.add_argument(
        "--arms",
        default="cash,buy_and_hold,equal_weight,momentum,mean_reversion,random",
        help="comma-separated baseline names (default: all six baselines)",
    )
    parser.add_argument("--json", type=Path, help="write the scorecard as byte-stable JSON here")
    parser.add_argument("--out", type=Path, help="write scorecard, equity, orders and plot here")
    parser.set_defaults(handler=_evaluate)


def add_market_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", default=None, help="market preset (see `workbench presets`)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--names", type=int, default=40, help="synthetic universe size")
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--steps-per-day", type=int, default=6)
    parser.add_argument("--ticks-per-step", type=int, default=65)


def _evaluate(args: argparse.Namespace) -> int:
    import sys

    from workbench.report.tables import format_scorecard
    from workbench.services import evaluate_arms

    results = evaluate_arms(
        [a.strip() for a in args.arms.split(",") if a.strip()],
        seed=args.seed,
        preset=args.preset,
        names=args.names,
        days=args.days,
        steps_per_day=args.steps_per_day,
        ticks_per_step=args.ticks_per_step,
        progress=sys.stderr.isatty(),  # a bar on a terminal, nothing in pipes and logs
    )
    print(format_scorecard(results))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(results.scorecard_json())
    if args.out:
        from workbench.report.plots import save_equity_plot

        results.save(args.out)
        save_equity_plot(results, args.out / "equity.png")
        print(f"wrote {args.out}/")
    return 0
