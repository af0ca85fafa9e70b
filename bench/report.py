"""What a run's report costs, as a ratio to the evaluation it reports on.

    python bench/report.py [--seeds 5] [--days 252]

Four baseline arms on the default simulated market for ``--days`` days, one
evaluation per seed (``run_seeds``), then the whole output folder a notebook or
the panel writes for those runs (``write_outputs``: tables, Parquet, PNG plots
and the one self-contained ``report.html``). Both are timed in CPU seconds of
this process, in the same run, after a small warm-up run of both (imports and
caches), so a loaded machine slows both alike. Prints report CPU / evaluation
CPU (target <= 0.4) and the size of ``report.html``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from workbench.evaluation.compare import run_seeds
from workbench.report import write_outputs

ARMS = ["buy_and_hold", "momentum", "mean_reversion", "equal_weight"]
TARGET = 0.4


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    started = time.process_time()
    value = fn(*args, **kwargs)
    return value, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--days", type=int, default=252)
    args = parser.parse_args()
    seeds = list(range(1, args.seeds + 1))
    with tempfile.TemporaryDirectory(prefix="bench-report-") as out:
        warm = run_seeds(ARMS, seeds[:2], days=5)
        write_outputs(warm, Path(out) / "warm")
        runs, evaluation = timed(run_seeds, ARMS, seeds, days=args.days)
        paths, report = timed(write_outputs, runs, Path(out) / "report")
        size = paths["report"].stat().st_size
    print(f"{len(ARMS)} arms x {args.seeds} seeds x {args.days} days (default market)")
    print(f"evaluation CPU:  {evaluation:6.2f} s")
    print(f"report CPU:      {report:6.2f} s  (report.html {size / 1e6:.2f} MB, self-contained)")
    ratio = report / evaluation
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"report / evaluation = {ratio:.2f}  (target <= {TARGET}: {verdict})")


if __name__ == "__main__":
    main()
