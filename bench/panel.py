"""A panel run against the same evaluate in a cell, with a CPU hog beside them.

    python bench/panel.py [--days 300] [--repeats 2]

Five baseline arms on 20 names for ``--days`` days x 6 steps, seed 7. The
baseline is ``evaluate(...)`` as a cell runs it; the panel side is
``ExperimentPanel.start()`` on an event loop with the chart, progress and
status redrawing as they do in a notebook, timed from Run until the last step
is scored (the report the panel writes afterwards is timed and printed
separately). A process spinning on one core runs beside both sides for the
whole benchmark, as a loaded machine would. Each side runs ``--repeats`` times,
interleaved; the best of each is compared. Target: panel / evaluate <= 1.2.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import tempfile
import time

from workbench.evaluation import evaluate
from workbench.widgets import panel

ARMS = ("buy_and_hold", "momentum", "mean_reversion", "equal_weight", "random")
NAMES, STEPS, SEED = 20, 6, 7
TARGET = 1.2


def _spin() -> None:
    while True:
        pass


def plain(days: int) -> float:
    started = time.perf_counter()
    evaluate(list(ARMS), seed=SEED, universe=NAMES, days=days, steps_per_day=STEPS)
    return time.perf_counter() - started


def in_panel(days: int, out: str) -> tuple[float, float, int, float]:
    """(seconds of the run, seconds writing the report, redraws, seconds drawing)."""

    async def go() -> tuple[float, float, int, float]:
        built = panel(seeds=str(SEED), days=days, steps_per_day=STEPS, universe=NAMES, out_dir=out)
        built.arms.value = ARMS
        started = time.perf_counter()
        await built.start()
        total = time.perf_counter() - started
        assert built.session is not None and built.redraws is not None
        redraws = built.redraws
        return built.session.seconds, total - built.session.seconds, redraws.count, redraws.spent

    return asyncio.run(go())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    hog = multiprocessing.Process(target=_spin, daemon=True)
    hog.start()
    try:
        plain(5)  # warm imports and caches for both sides
        cells, panels = [], []
        with tempfile.TemporaryDirectory(prefix="bench-panel-") as out:
            for _ in range(args.repeats):
                cells.append(plain(args.days))
                panels.append(in_panel(args.days, out))
    finally:
        hog.terminate()
        hog.join()
    cell = min(cells)
    run, report, redraws, drawing = min(panels)
    print(f"{len(ARMS)} arms x {NAMES} names x {args.days} days x {STEPS} steps, a CPU hog beside")
    print(f"evaluate in a cell:  {cell:6.2f} s")
    each = drawing / max(redraws, 1) * 1000
    print(f"panel run:           {run:6.2f} s  ({redraws} redraws, {drawing:.2f} s drawing, "
          f"{each:.0f} ms each)")  # fmt: skip
    print(f"(the panel then wrote its report in {report:.1f} s, not counted)")
    ratio = run / cell
    verdict = "ok" if ratio <= TARGET else "MISSED"
    print(f"panel / evaluate = {ratio:.2f}  (target <= {TARGET}: {verdict})")


if __name__ == "__main__":
    main()
