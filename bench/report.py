"""What a run's report costs, as a ratio to the evaluation it reports on.

    python bench/report.py [--seeds 5] [--days 252] [--repeats 3]

Four baseline arms on the default simulated market for ``--days`` days, one
evaluation per seed (``run_seeds``), then the whole output folder a notebook or
the panel writes for those runs (``write_outputs``: tables, Parquet, PNG plots,
SVG charts and the one self-contained ``report.html``). Both are timed in CPU
seconds of this process, after a small warm-up run of both (imports and caches).
Evaluation and report are timed in turn ``--repeats`` times and the least of each
is kept, so a machine shared with other work slows both alike. Prints report CPU /
evaluation CPU (target <= 0.4) and the size of ``report.html``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from workbench.evaluation.compare import run_seeds
from workbench.report import write_outputs

ARMS = ["buy_and_hold", "momentum", "mean_reversion", "equal_weight"]
TARGET = 0.4


def timed(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    started = time.process_time()
    value = fn(*args, **kwargs)
    return value, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--days", type=int, default=252)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    seeds = list(range(1, args.seeds + 1))
    evaluations, reports = [], []
    with tempfile.TemporaryDirectory(prefix="bench-report-") as out:
        write_outputs(run_seeds(ARMS, seeds[:2], days=5), Path(out) / "warm")
        for n in range(args.repeats):
            runs, evaluation = timed(run_seeds, ARMS, seeds, days=args.days)
            paths, report = timed(write_outputs, runs, Path(out) / f"report-{n}")
            evaluations.append(evaluation)
            reports.append(report)
        size = paths["report"].stat().st_size
    print(f"{len(ARMS)} arms x {args.seeds} seeds x {args.days} days (default market)")
    print(f"evaluation CPU:  {min(evaluations):6.2f} s  (best of {args.repeats})")
    print(f"report CPU:      {min(reports):6.2f} s  (best of {args.repeats}; "
          f"report.html {size / 1e6:.2f} MB, self-contained)")  # fmt: skip
    ratio = min(reports) / min(evaluations)
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"report / evaluation = {ratio:.2f}  (target <= {TARGET}: {verdict})")


if __name__ == "__main__":
    main()
