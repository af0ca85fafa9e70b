"""``workbench notebook run|batch``: parameterised notebooks through papermill's Python API.

    workbench notebook run notebooks/evaluate.ipynb -p seed 3 -p days 5 --out out/run1
    workbench notebook batch notebooks/evaluate.ipynb -g seed 1 2 3 -p days 5 --out out/batch
    workbench notebook batch --file batch.yaml --out out/batch --workers 3

A value is read as YAML (``5`` is a number, ``true`` a boolean, ``[1, 2]`` a list),
and kept as text when it is not valid YAML.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("notebook", help="run parameterised notebooks (papermill)")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB", required=True)
    run = verbs.add_parser("run", help="execute one notebook with parameters into --out")
    run.add_argument("notebook", type=Path)
    _common(run)
    run.set_defaults(handler=_run)
    batch = verbs.add_parser("batch", help="run a grid of parameters, several kernels at once")
    batch.add_argument("notebooks", type=Path, nargs="*", help="notebooks (or use --file)")
    batch.add_argument("--file", type=Path, help="YAML batch file (notebook, parameters, grid)")
    batch.add_argument(
        "-g",
        "--grid",
        nargs="+",
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a grid parameter and its values: every combination is run",
    )
    batch.add_argument("--workers", type=int, default=None, help="kernels at once (default 2)")
    batch.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    _common(batch)
    batch.set_defaults(handler=_batch)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--parameter",
        nargs=2,
        action="append",
        default=[],
        metavar=("NAME", "VALUE"),
        help="a notebook parameter (repeatable)",
    )
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per cell")


def parse_value(text: str) -> Any:
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return text
    return text if value is None and text.strip() not in ("null", "~") else value


def _parameters(pairs: list[list[str]]) -> dict[str, Any]:
    return {name: parse_value(value) for name, value in pairs}


def warn_renamed(given: Iterable[str], flag: str = "-p") -> None:
    """A deprecated ``names`` parameter warned on stderr before any kernel starts (as
    ``workbench evaluate --names`` is); given with ``universe`` it is refused."""
    from workbench.errors import ConfigError

    given = set(given)
    if "names" not in given:
        return
    if "universe" in given:
        raise ConfigError(
            f"{flag} universe and {flag} names both given; pass {flag} universe only "
            "(names is its old name)"
        )
    print(
        f"workbench: warning: {flag} names is deprecated: pass {flag} universe; names goes in "
        "the next release",
        file=sys.stderr,
    )


def _grid(entries: list[list[str]]) -> dict[str, list[Any]]:
    from workbench.errors import ConfigError

    grid = {}
    for entry in entries:
        if len(entry) < 2:
            raise ConfigError(f"-g {entry[0]} needs at least one value, e.g. -g seed 1 2 3")
        grid[entry[0]] = [parse_value(v) for v in entry[1:]]
    return grid


def _run(args: argparse.Namespace) -> int:
    from workbench.cli._outputs import check_folder
    from workbench.notebooks.runner import run_notebook

    check_folder(args.out, "--out")
    parameters = _parameters(args.parameter)
    warn_renamed(parameters)
    outcome = run_notebook(
        args.notebook,
        args.out,
        parameters,
        kernel_name=args.kernel,
        timeout=args.timeout,
    )
    print(outcome.describe())
    if outcome.ok:
        report = outcome.job.out_dir / "report.html"
        print(
            f"results in {outcome.job.out_dir}" + (f"; report {report}" if report.exists() else "")
        )
    return 0 if outcome.ok else 1


def _batch(args: argparse.Namespace) -> int:
    from workbench.cli._outputs import check_folder
    from workbench.errors import ConfigError
    from workbench.notebooks.grid import jobs_from_file, plan_jobs
    from workbench.notebooks.runner import run_batch

    check_folder(args.out, "--out")
    workers = args.workers
    if args.file:
        if args.notebooks or args.grid or args.parameter:
            raise ConfigError("give either --file or notebooks with -g/-p, not both")
        jobs, from_file = jobs_from_file(args.file, args.out)
        workers = workers or from_file
    else:
        parameters, grid = _parameters(args.parameter), _grid(args.grid)
        warn_renamed([*parameters, *grid])
        jobs = plan_jobs(args.notebooks, args.out, parameters=parameters, grid=grid)
    result = run_batch(
        jobs,
        workers=workers or 2,
        kernel_name=args.kernel,
        timeout=args.timeout,
        progress=not args.no_progress,
        summary_dir=args.out,
    )
    print(result.summary())
    print(f"scorecards of every run: {args.out / 'scorecards.csv'}")
    return 0 if not result.failures else 1
