"""``workbench evaluate``: run arms on one market and print the scorecard."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("evaluate", help="run arms on one market, print the scorecard")
    add_market_arguments(parser)
    parser.add_argument(
        "--data",
        type=Path,
        help="trade historical bars (.csv or .parquet) instead of the simulator; "
        "--universe, --steps-per-day and --ticks-per-step then cannot be set",
    )
    parser.add_argument(
        "--mask-secret",
        help="the mask secret of an earlier --data run, to repeat it exactly (default: fresh)",
    )
    parser.add_argument(
        "--variant",
        help="with --data: a counterfactual path, e.g. bootstrap:3, reversed or flipped",
    )
    parser.add_argument(
        "--news",
        type=Path,
        help="with --data: your news (.csv/.parquet: published with its time zone, symbols, "
        "headline, body), each item seen only at the first close after it",
    )
    parser.add_argument(
        "--fundamentals",
        type=Path,
        help="with --data: your reports (.csv/.parquet: published with its time zone, symbol, "
        "figure columns)",
    )
    parser.add_argument(
        "--company-names",
        type=Path,
        help="with --news: a symbol,name file of company names to mask in the text",
    )
    parser.add_argument(
        "--embargo", help="with --news/--fundamentals: delay before an item is seen, e.g. 15min"
    )
    parser.add_argument(
        "--canaries",
        type=int,
        help="with --news/--fundamentals: plant N items per channel dated after the decisions "
        "they test; an arm that quotes one too early is listed",
    )
    parser.add_argument(
        "--close-time",
        help="with --news/--fundamentals: the time of day each decision is taken (default 16:00)",
    )
    parser.add_argument(
        "--timezone",
        help="with --news/--fundamentals: the zone of --close-time (default America/New_York)",
    )
    parser.add_argument(
        "--model-cutoff",
        action="append",
        default=[],
        metavar="ARM=DATE",
        help="with --data: an arm's training cutoff, e.g. momentum=2016-09-01 (repeatable, or "
        "comma-separated: momentum=2016-09-01,cash=2017-01-01); "
        "every metric is then shown before and after it",
    )
    parser.add_argument(
        "--arms",
        help="comma-separated baseline names (default: every baseline; the news readers "
        "headline_sentiment and earnings_drift only on a market that publishes news; on "
        "--data with --news, headline_sentiment)",
    )
    parser.add_argument("--json", type=Path, help="write the scorecard as byte-stable JSON here")
    parser.add_argument("--out", type=Path, help="write scorecard, equity, orders and plot here")
    parser.add_argument(
        "--mlflow",
        metavar="URI",
        help='also log the run to this MLflow tracking URI (needs "workbench[mlflow]")',
    )
    parser.set_defaults(handler=_evaluate)


def add_market_arguments(parser: argparse.ArgumentParser, *, bars: bool = True) -> None:
    parser.add_argument("--preset", default=None, help="market preset (see `workbench presets`)")
    parser.add_argument(
        "--dial",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="move one dial of the preset, e.g. injection_rate=0.2 (repeatable; see "
        "`workbench presets show`)",
    )
    parser.add_argument("--seed", type=int, default=7)
    from workbench.services import MARKET_DEFAULTS as defaults

    parser.add_argument(
        "--universe",
        type=int,
        help=f"synthetic universe size (default {defaults.universe})",
    )
    parser.add_argument(
        "--names", type=int, help="deprecated: the old name of --universe; pass --universe"
    )
    parser.add_argument(
        "--days",
        type=int,
        help=f"trading days (default {defaults.days}"
        + ("; with --data every tradable date)" if bars else ")"),
    )
    parser.add_argument(
        "--steps-per-day",
        type=int,
        help=f"decision points per day (default {defaults.steps_per_day})",
    )
    parser.add_argument(
        "--ticks-per-step", type=int, help=f"ticks per step (default {defaults.ticks_per_step})"
    )


def universe_flag(args: argparse.Namespace) -> int | None:
    """``--universe``, or the deprecated ``--names`` with a warning on stderr; both given is
    refused."""
    if args.names is None:
        return args.universe
    if args.universe is not None:
        raise ConfigError(
            "--universe and --names both given; pass --universe only (--names is its old name)"
        )
    print(
        "workbench: warning: --names is deprecated: pass --universe; --names goes in the next "
        "release",
        file=sys.stderr,
    )
    return args.names


def market_preset(args: argparse.Namespace) -> str | dict[str, Any] | None:
    """``--preset`` with every ``--dial`` moved; a malformed dial is refused, naming it. A
    superseded preset is noted on stderr (it runs unchanged)."""
    from workbench.services.presets import with_dials

    _note_superseded(args.preset)

    dials: dict[str, float] = {}
    for given in args.dial:
        name, _, value = given.partition("=")
        dials[name.strip()] = _dial_value(given, name.strip(), value)
    return with_dials(args.preset, dials)


def _note_superseded(name: str | None) -> None:
    """A line on stderr when ``--preset`` names a preset a newer version replaces."""
    from workbench.services.presets import superseded_by

    replaced = superseded_by(name)
    if replaced is not None:
        successor, why = replaced
        print(
            f"workbench: note: {name} is superseded by {successor} ({why}); it still runs "
            f"as it always did, so what was made on it replays; choose {successor} for new "
            "work",
            file=sys.stderr,
        )


def _dial_value(given: str, name: str, value: str) -> float:
    try:
        if name:
            return float(value)
    except ValueError:
        pass
    raise ConfigError(
        f"--dial {given!r} is not NAME=VALUE with a number; write e.g. --dial injection_rate=0.2"
    )


def _evaluate(args: argparse.Namespace) -> int:
    from workbench.cli._outputs import check_file, check_folder, keep_run
    from workbench.report.tables import format_scorecard
    from workbench.services import evaluate_arms
    from workbench.services.presets import default_arms

    preset = market_preset(args)
    arms = args.arms or ",".join(
        default_arms(preset, bars=args.data is not None, news=args.news is not None)
    )
    if args.json:
        check_file(args.json, "--json")
    if args.out:
        check_folder(args.out, "--out")
    data = _historical(args)
    if args.mlflow:
        from workbench.services.tracking import check_tracking_uri

        check_tracking_uri(args.mlflow)  # before the evaluation, not after it
    results = evaluate_arms(
        [a.strip() for a in arms.split(",") if a.strip()],
        seed=args.seed,
        preset=preset,
        universe=universe_flag(args),
        days=args.days,
        steps_per_day=args.steps_per_day,
        ticks_per_step=args.ticks_per_step,
        data=data,
        progress=sys.stderr.isatty(),  # a bar on a terminal, nothing in pipes and logs
        model_cutoff=_cutoffs(args),
    )
    print(format_scorecard(results))
    _print_cutoffs(results)
    _print_canaries(results.meta)
    written = True
    if args.json:
        written = keep_run(
            results.save, f"--json {args.json}", lambda: _write_json(results, args.json)
        )
    if args.out and written:
        written = keep_run(
            results.save, f"--out {args.out}", lambda: _write_folder(results, args.out)
        )
        if written and data is not None and data.text is not None:
            _write_leaks(data, args.out, args.days)
        if written:
            print(f"wrote {args.out}/")
    if args.mlflow:
        from workbench.services.tracking import log_to_mlflow

        print(f"logged to MLflow run {log_to_mlflow(results, tracking_uri=args.mlflow)}")
    return 0 if written else 1


def _write_leaks(data: Any, folder: Path, days: int | None) -> None:
    """The text leak report of the run's news (``text_leaks.csv``), when the text is masked."""
    from workbench.services.evaluation import text_leaks

    if data.text.news is None or not data.mask:
        return
    leaks = text_leaks(data, days=days)
    leaks.to_csv(folder / "text_leaks.csv", index=False)
    print(f"text leak report: {len(leaks)} words still point at one name (text_leaks.csv)")


def _cutoffs(args: argparse.Namespace) -> dict[str, str]:
    from workbench.services.evaluation import MODEL_CUTOFF_NEEDS_DATES, cutoffs_from

    example = "--model-cutoff momentum=2016-09-01 (or momentum=2016-09-01,cash=2017-01-01)"
    cutoffs = cutoffs_from(args.model_cutoff, where="--model-cutoff", example=example)
    if cutoffs and args.data is None:
        raise ConfigError(MODEL_CUTOFF_NEEDS_DATES.replace("model_cutoff", "--model-cutoff"))
    return cutoffs


def _print_cutoffs(results: Any) -> None:
    """Every metric before and after each arm's cutoff (``workbench.evaluation.cutoff``)."""
    if not results.meta.get("model_cutoff"):
        return
    from workbench.services.evaluation import cutoff_table

    split, notes = cutoff_table(results)
    print("before and after the model cutoff:")
    print(split[["return_pct", "sharpe", "max_drawdown_pct"]].round(2).to_string())
    for note in notes:
        print(f"note: {note}")


def _print_canaries(meta: dict[str, Any]) -> None:
    """What the canary audit found in the run (``workbench.evaluation.canaries``)."""
    planted, hits = meta.get("canaries") or [], meta.get("canary_hits") or []
    if not planted:
        return
    print(f"canaries: {len(planted)} planted, {len(hits)} quoted before their day")
    for arm, day, step, channel, path, token, seen in hits[:10]:
        when = "not planted by this run" if seen is None else f"published for day {seen}"
        print(f"  {arm} day {day} step {step}: {channel} canary {token} in its {path} ({when})")


def _write_json(results: Any, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(results.scorecard_json())


def _write_folder(results: Any, folder: Path) -> None:
    from workbench.report.plots import save_equity_plot

    results.save(folder)
    save_equity_plot(results, folder / "equity.png")


_DATA_FLAGS = (
    "mask_secret", "variant", "news", "fundamentals", "company_names", "embargo", "canaries",
    "close_time", "timezone",
)  # fmt: skip


def _historical(args: argparse.Namespace) -> Any:
    """The bars of ``--data`` with their mask; the secret is printed so the run can repeat."""
    if args.data is None:
        for flag in _DATA_FLAGS:
            if getattr(args, flag) is not None:
                raise ConfigError(f"--{flag.replace('_', '-')} needs --data")
        return None
    from workbench.services.evaluation import load_bars

    data = load_bars(
        args.data,
        secret=args.mask_secret,
        variant=args.variant,
        news=args.news,
        fundamentals=args.fundamentals,
        company_names=args.company_names,
        embargo=args.embargo,
        canaries=args.canaries,
        close_time=args.close_time,
        timezone=args.timezone,
    )
    print(
        f"mask secret {data.secret} (keep it from agents; --mask-secret repeats this run)",
        file=sys.stderr,
    )
    return data
