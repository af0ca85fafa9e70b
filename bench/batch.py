"""A batch of 6 notebook runs with several kernels at once, against the same 6 one after another.

    python bench/batch.py [--workers 3] [--notebook notebooks/evaluate.ipynb]

Both sides use the same runner (papermill's Python API in this process); the
one-after-another side is ``workers=1``. Each run is ``evaluate.ipynb`` with its
default parameters on its own seed (1..6). One warm-up run first fills the
file cache for both sides. Target: batch <= 0.6 x one after another.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from workbench.notebooks.grid import plan_jobs
from workbench.notebooks.runner import run_batch, run_notebook

ROOT = Path(__file__).resolve().parents[1]
TARGET = 0.6
RUNS = 6


def timed_batch(notebook: Path, out: Path, workers: int) -> float:
    jobs = plan_jobs([notebook], out, grid={"seed": list(range(1, RUNS + 1))})
    started = time.perf_counter()
    result = run_batch(jobs, workers=workers, progress=False)
    seconds = time.perf_counter() - started
    if result.failures:
        raise SystemExit("a run failed:\n" + result.summary())
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--notebook", type=Path, default=ROOT / "notebooks" / "evaluate.ipynb")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as scratch:
        root = Path(scratch)
        warm = run_notebook(args.notebook, root / "warm-up")
        if not warm.ok:
            raise SystemExit(warm.describe())
        serial = timed_batch(args.notebook, root / "serial", workers=1)
        batch = timed_batch(args.notebook, root / "batch", workers=args.workers)
    ratio = batch / serial
    print(f"{RUNS} runs of {args.notebook.name}, one after another: {serial:6.1f} s")
    print(f"{RUNS} runs of {args.notebook.name}, {args.workers} kernels at once: {batch:6.1f} s")
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"batch / one after another = {ratio:.2f}  (target <= {TARGET}: {verdict})")


if __name__ == "__main__":
    main()
