"""What a decision diff costs, as a ratio to one evaluation of the same runs.

    python bench/diff.py

Two stored evaluation runs on one path (buy_and_hold with momentum, buy_and_hold with
mean_reversion; 40 names x 60 days, one decision a day) part at nearly every decision,
the worst case: the diff replays both runs taped and plays back one hybrid per parting
plus one, all in one evaluation. This times, best of several and in turn so that load
on a shared machine slows both alike, the CPU of one evaluation of run A and the CPU
of the whole diff, and prints the ratio with the number of partings. There is no
target: the figure says what a diff costs (about three evaluations plus the hybrids).
"""

from __future__ import annotations

import tempfile

from _timing import best_of_interleaved

from workbench.evaluation import evaluate
from workbench.services import decision_diff, run_evaluation

MARKET = {"seed": 7, "universe": 40, "days": 60}
REPEATS = 5


def main() -> None:
    with tempfile.TemporaryDirectory() as store:
        a = run_evaluation(store, ["buy_and_hold", "momentum"], **MARKET)["run_id"]
        b = run_evaluation(store, ["buy_and_hold", "mean_reversion"], **MARKET)["run_id"]
        diff = decision_diff(a, b, store=store)

        def one_evaluation() -> object:
            world = {"universe": MARKET["universe"], "days": MARKET["days"], "seed": MARKET["seed"]}
            return evaluate(["buy_and_hold", "momentum"], **world)

        evaluation, whole = best_of_interleaved(
            one_evaluation, lambda: decision_diff(a, b, store=store), REPEATS
        )
    print(
        f"diff of two 40-name x 60-day runs, {len(diff.divergences)} partings "
        f"(residual {diff.residual}, reproduced {diff.reproduced})\n"
        f"  one evaluation {evaluation:6.2f} s CPU   diff {whole:6.2f} s CPU   "
        f"ratio {whole / evaluation:5.2f}"
    )


if __name__ == "__main__":
    main()
