"""How much of the published information each arm turned into P&L, across seeds.

    python bench/information.py

40 names x 250 days x 5 seeds on ``standard-v2``. Each arm's ``info_capture`` is its
news P&L (attribution's ``selection_news``) over the news P&L of the oracle reader
run on the same path with the same capital, costs and limits (1 by definition for
the oracle itself). The interval is mean +- t(0.975, seeds - 1) x standard error
across seeds. The readers must capture significantly more than buy_and_hold (or the
information is not in the market) — a paired difference by seed, as the arms share
each path — and the oracle must earn more on the items than every baseline.
"""

from __future__ import annotations

import math
import statistics
import time

from workbench.evaluation import evaluate

ARMS = ["headline_sentiment", "earnings_drift", "momentum", "buy_and_hold"]
SEEDS = (1, 2, 3, 4, 5)
_T_975_4 = 2.776  # Student t, 4 degrees of freedom


def interval(values: list[float]) -> tuple[float, float]:
    mean = statistics.fmean(values)
    half = _T_975_4 * statistics.stdev(values) / math.sqrt(len(values))
    return mean, half


def main() -> None:
    started = time.process_time()
    capture: dict[str, list[float]] = {arm: [] for arm in ARMS}
    news_pnl: dict[str, list[float]] = {arm: [] for arm in ["oracle_reader", *ARMS]}
    for seed in SEEDS:
        results = evaluate(ARMS, preset="standard-v2", seed=seed, universe=40, days=250)
        card = results.scorecard
        news_pnl["oracle_reader"].append(results.meta["oracle_news_pnl"])
        for arm in ARMS:
            capture[arm].append(float(card.loc[arm, "info_capture"]))
            news_pnl[arm].append(float(card.loc[arm, "news_pnl"]))
    print("information capture, 40 names x 250 days x 5 seeds, standard-v2 (95% interval)")
    print(f"  {'arm':<20} {'info_capture':>22} {'news P&L (mean)':>18}")
    print(f"  {'oracle_reader':<20} {'1.000 (the reference)':>22} "
          f"{statistics.fmean(news_pnl['oracle_reader']):>18,.0f}")  # fmt: skip
    for arm in ARMS:
        mean, half = interval(capture[arm])
        print(f"  {arm:<20} {mean:>12.3f} +- {half:.3f} {statistics.fmean(news_pnl[arm]):>18,.0f}")
    for reader in ("headline_sentiment", "earnings_drift"):
        paired = [a - b for a, b in zip(capture[reader], capture["buy_and_hold"], strict=True)]
        mean, half = interval(paired)  # the same paths: a paired difference
        verdict = "yes" if mean - half > 0 else "NO"
        print(
            f"  {reader} - buy_and_hold, paired by seed: {mean:+.3f} +- {half:.3f}  "
            f"significantly above: {verdict}"
        )
    oracle = min(news_pnl["oracle_reader"])
    beaten = all(oracle > max(news_pnl[arm]) for arm in ARMS)
    print(f"  oracle earns more on the items than every baseline on every seed: "
          f"{'yes' if beaten else 'NO'}")  # fmt: skip
    print(f"  {time.process_time() - started:.1f} s CPU")


if __name__ == "__main__":
    main()
