"""What attribution adds to a run, as a ratio to the rest of the same run.

    python bench/attribution.py

Every evaluation splits each arm's P&L by source (``results.attribution``) before
it returns. This times, best of several, the CPU of a whole run of 5 baselines x
40 names x 10 days (second call in-process, attribution included) and the CPU of
the attribution alone on that run's own orders and equity (the split, its frame
and the scorecard's two sources, as the run does them), and prints the
attribution's share of the rest of the run (target <= 0.10). The two are timed in
turn, best of 15 each, so a machine shared with other work slows both alike. The same for a
historical run, where the split is the trailing regression estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from _timing import best_of_interleaved

from workbench.agents import decision_interval
from workbench.engine.historical import Historical
from workbench.evaluation import World, evaluate
from workbench.evaluation.attribution_frame import split_pnl

BASELINE_ARMS = ["cash", "buy_and_hold", "equal_weight", "momentum", "mean_reversion"]
BARS = Path(__file__).resolve().parents[1] / "notebooks" / "data" / "example_bars.csv"
TARGET = 0.10
REPEATS = 15


def measure(label: str, world: World, run: Callable[[], object]) -> bool:
    results = run()
    steps = world.steps_per_day
    every = {arm: decision_interval(e, steps) for arm, e in results.meta["every"].items()}
    path = world.path
    rows = list(results.orders.itertuples(index=False, name=None))  # as the run holds them

    def split() -> object:  # what the run does: the split, its frame, the scorecard's shares
        parts = split_pnl(
            path, rows, results.equity, capital=results.meta["capital"], intervals=every
        )
        return parts.frame(), parts.by_arm("market"), parts.by_arm("selection")

    whole, alone = best_of_interleaved(run, split, REPEATS)
    ratio = alone / (whole - alone)
    verdict = "ok" if ratio <= TARGET else "OVER"
    print(
        f"{label}\n  run {whole * 1e3:7.1f} ms CPU (attribution included)   "
        f"attribution alone {alone * 1e3:6.2f} ms   "
        f"attribution / rest of the run = {ratio:.3f}  (target <= {TARGET}: {verdict})"
    )
    return ratio <= TARGET


def main() -> None:
    simulated = World(seed=7, universe=40, days=10)
    measure(
        "5 baselines x 40 names x 10 days (simulator, exact split)",
        simulated,
        lambda: evaluate(BASELINE_ARMS, seed=7, universe=40, days=10),
    )
    bars = Historical.load(BARS, secret="b" * 32)
    historical = World(data=bars)
    measure(
        f"5 baselines x {bars.universe.size} names x {historical.days} days "
        "(historical bars, regression estimate)",
        historical,
        lambda: evaluate(BASELINE_ARMS, data=bars),
    )


if __name__ == "__main__":
    main()
