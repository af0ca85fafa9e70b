"""``workbench demo``: notebooks/evaluate.ipynb through papermill with its defaults.

Every baseline on the default market (the eight, news readers included), plus every
recording shipped under ``recordings/`` replayed offline (each must match); the scorecard is printed
and the results, plots and ``report.html`` are written to ``--out``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo", help="run notebooks/evaluate.ipynb with its defaults into out/demo/"
    )
    parser.add_argument("--out", type=Path, default=Path("out/demo"))
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name")
    parser.set_defaults(handler=_demo)


def _demo(args: argparse.Namespace) -> int:
    from workbench.cli._outputs import check_folder
    from workbench.notebooks.parameters import repository_root
    from workbench.notebooks.runner import run_notebook
    from workbench.report import as_results, format_scorecard

    check_folder(args.out, "--out")
    notebook = repository_root() / "notebooks" / "evaluate.ipynb"
    print(f"running {_shown(notebook)} with its default parameters (papermill) ...")
    outcome = run_notebook(notebook, args.out, kernel_name=args.kernel)
    if not outcome.ok:
        print(outcome.describe())
        if outcome.job.output_notebook.is_file():  # not when the kernel never started
            print(f"the executed notebook, with the error, is {outcome.job.output_notebook}")
        return 1
    out = outcome.job.out_dir
    results = as_results(json.loads((out / "results.json").read_text(encoding="utf-8")))
    print(format_scorecard(results))
    shipped = out / "shipped_recordings.csv"
    if shipped.is_file():
        print(f"\nshipped recordings replayed and matched: {_shown(shipped)}")
    print(
        f"\nran in {outcome.seconds:.1f}s; executed notebook {_shown(outcome.job.output_notebook)}"
    )
    print(f"report: {_shown(out / 'report.html')}")
    return 0


def _shown(path: Path) -> Path:
    """``path`` relative to the working folder when it lies inside it."""
    try:
        return Path(path).resolve().relative_to(Path.cwd())
    except ValueError:
        return Path(path)
