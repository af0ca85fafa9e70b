"""What a run's report costs, as a ratio to the evaluation it reports on.

    python bench/report.py [--seeds 5] [--days 252] [--repeats 3]

Four baseline arms on the default simulated market for ``--days`` days, one
evaluation per seed (``run_seeds``), then the whole output folder a notebook or
the panel writes for those runs (``write_outputs``: tables, Parquet, the equity PNG,
SVG charts and the one self-contained ``report.html``), for ``--seeds`` seeds and
then for one seed (where the evaluation is smallest). Both are timed in CPU
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


def measure(seeds: int, days: int, repeats: int, out: Path) -> tuple[float, float, int]:
    """Least evaluation CPU, least report CPU (timed in turn) and the report's bytes."""
    evaluations, reports = [], []
    for n in range(repeats):
        runs, evaluation = timed(run_seeds, ARMS, list(range(1, seeds + 1)), days=days)
        paths, report = timed(write_outputs, runs, out / f"report-{seeds}-{n}")
        evaluations.append(evaluation)
        reports.append(report)
    return min(evaluations), min(reports), paths["report"].stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--days", type=int, default=252)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-report-") as out:
        write_outputs(run_seeds(ARMS, [1, 2], days=5), Path(out) / "warm")
        for seeds in dict.fromkeys([args.seeds, 1]):  # the example, then one seed
            evaluation, report, size = measure(seeds, args.days, args.repeats, Path(out))
            _print(seeds, args, evaluation, report, size)


def _print(
    seeds: int, args: argparse.Namespace, evaluation: float, report: float, size: int
) -> None:
    print(f"{len(ARMS)} arms x {seeds} seeds x {args.days} days (default market)")
    print(f"  evaluation CPU:  {evaluation:6.2f} s  (best of {args.repeats})")
    print(f"  report CPU:      {report:6.2f} s  (best of {args.repeats}; "
          f"report.html {size / 1e6:.2f} MB, self-contained)")  # fmt: skip
    ratio = report / evaluation
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"  report / evaluation = {ratio:.2f}  (target <= {TARGET}: {verdict})")


if __name__ == "__main__":
    main()
