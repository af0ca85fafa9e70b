"""Engine speed and memory, as ratios to the targets and to a floor measured in this run.

    python bench/engine.py

- name-ticks per CPU-second of the market simulation at 10 / 40 / 200 names
  (target >= 20M at 200 names); the floor is the bare NumPy cost of drawing and
  summing the same number of normal shocks, measured here, so the ratio to it
  says how much the model costs over the cheapest possible random walk; beside
  it, the model's least arithmetic as a share of that floor: the ceiling the
  engine could reach with no work but its two shocks per name-tick (the fair
  value's and the mispricing's), each scaled and summed, added, and reduced to
  bars, in preallocated NumPy buffers; then, at 200 names, standard-v1 and -v2 beside
  the default (standard-v4), whose dial ``uniform_tick_shocks`` is 1: its
  tick shocks are uniform (a quarter of the normal's cost; bars the same in law), so
  it can reach the target of 0.5 of the floor that two normal shocks a name-tick
  cannot;
- CPU seconds of 5 baselines x 40 names x 10 days, second call in-process
  (target <= 0.05 s; tradefloor 0.10.2 takes 1.0-1.3 s on this machine);
- peak memory of a 500-name x 252-day run in a fresh process (target <= 1 GiB),
  next to the same process's memory after imports;
- with news on (``standard-v2``) against off (``standard-v1``), in turn in this run:
  name-ticks per CPU-second at 200 names (target >= 0.9x) and the cost of building
  a decision's payload at 40 names, news included (target <= 1.2x).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np

from workbench.engine import DEFAULT_PRESET, Universe, preset, simulate
from workbench.engine.execution import Portfolio
from workbench.evaluation import evaluate, reading
from workbench.evaluation.observation import arm_payload, market_payload

BASELINE_ARMS = ["cash", "buy_and_hold", "equal_weight", "momentum", "mean_reversion"]
TICK_TARGET = 20_000_000
EVAL_TARGET_S = 0.05
MEMORY_TARGET_MB = 1024.0


def cpu(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def name_ticks(
    names: int, days: int = 20, chosen: str | dict = "standard-v1"
) -> tuple[float, float]:
    universe = Universe.synthetic(names)
    ticks = names * (days + 4) * 6 * 65

    def model() -> None:
        simulate(
            preset(chosen), universe, seed=1, days=days, steps_per_day=6, ticks_per_step=65,
            warmup_days=4,
        )  # fmt: skip

    def floor() -> None:
        rng = np.random.default_rng(1)
        for _ in range(days + 4):
            np.cumsum(rng.standard_normal((390, names)), axis=0)

    # best of five: one slow run on a shared machine says nothing about the engine
    return ticks / cpu(model, repeat=5), ticks / cpu(floor, repeat=5)


def least_arithmetic(names: int, days: int = 20) -> tuple[float, float]:
    """Name-ticks per CPU-second of the model's least arithmetic, and of the floor, in turn."""
    ticks = names * (days + 4) * 6 * 65
    fair, mispricing = np.empty((391, names)), np.empty((390, names))
    scale, decay = np.full(names, 0.01), np.linspace(1.0, 0.5, 65)[:, None]

    def least() -> None:
        rng_fair, rng_mispricing = np.random.default_rng(1), np.random.default_rng(2)
        for _ in range(days + 4):
            rng_fair.standard_normal(out=fair)
            rng_mispricing.standard_normal(out=mispricing)
            np.multiply(fair, scale, out=fair)
            np.cumsum(fair, axis=0, out=fair)
            blocks = mispricing.reshape(6, 65, names)
            blocks /= decay  # the AR(1) in closed form: scaled up, summed, scaled down
            np.cumsum(blocks, axis=1, out=blocks)
            blocks *= decay
            np.add(fair[1:], mispricing, out=fair[1:])
            bars = fair[1:].reshape(6, 65, names)
            bars.max(axis=1), bars.min(axis=1)

    def floor() -> None:
        rng = np.random.default_rng(1)
        for _ in range(days + 4):
            np.cumsum(rng.standard_normal((390, names)), axis=0)

    return ticks / cpu(least, repeat=5), ticks / cpu(floor, repeat=5)


def payload_cost(chosen: str, days: int = 60, private: bool = False) -> float:
    """CPU seconds to build every daily decision's payload of one arm at 40 names; with
    ``private`` each is also deep-copied, as for an arm that does not share its payload."""
    path = simulate(
        preset(chosen), Universe.synthetic(40), seed=1, days=days, steps_per_day=6,
        ticks_per_step=65, warmup_days=4,
    )  # fmt: skip
    book = Portfolio(1e6, np.zeros(40), 2.0, 0.5)
    rows = range(path.warmup_steps, path.steps, 6)

    def build() -> None:
        last = None
        for row in rows:
            news = None
            if path.information is not None:
                news = reading.news(path, row - 6 if last is None else last, row)
                last = row
            market = market_payload(path, row)
            arm_payload(
                market, book, path.universe.symbols, equity=1e6, gross=0.0, news=news,
                private=private,
            )  # fmt: skip

    build()  # items rendered once per path, as in a run
    return cpu(build, repeat=5)


def news_ratios() -> tuple[float, float, float]:
    """Ticks per second with news / without at 200 names; a payload's cost with / without,
    built, and built and copied for a private arm."""
    on, _ = name_ticks(200, chosen="standard-v2")
    off, _ = name_ticks(200, chosen="standard-v1")
    built = payload_cost("standard-v2") / payload_cost("standard-v1")
    copied = payload_cost("standard-v2", private=True) / payload_cost("standard-v1", private=True)
    return on / off, built, copied


def peak_memory_mb() -> tuple[float, float]:
    code = (
        "import resource, json; from workbench.evaluation import evaluate;"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss;"
        "evaluate(['cash','buy_and_hold','equal_weight','momentum','mean_reversion'],"
        " seed=1, universe=500, days=252);"
        "after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss;"
        "print(json.dumps([before / 1024, after / 1024]))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    before, after = json.loads(out.stdout)
    return before, after


def main() -> None:
    print("market simulation (name-ticks per CPU-second)")
    for names in (10, 40, 200):
        ours, floor = name_ticks(names)
        print(
            f"  {names:>4} names: {ours / 1e6:6.1f}M   floor {floor / 1e6:6.1f}M   "
            f"ours/floor {ours / floor:.2f}   vs target 20M: {ours / TICK_TARGET:.2f}x"
        )

    def workload() -> None:
        evaluate(BASELINE_ARMS, seed=7, universe=40, days=10)

    least, floor = least_arithmetic(200)
    print(
        f"  the model's least arithmetic at 200 names (two normal shocks per name-tick, no "
        f"other work): {least / floor:.2f} of the floor, the most a preset with normal tick "
        f"shocks could reach"
    )
    for chosen in ("standard-v1", "standard-v2", DEFAULT_PRESET):
        ours, floor = name_ticks(200, chosen=chosen)
        print(
            f"  200 names, {chosen}{' (the default)' if chosen == DEFAULT_PRESET else ''} "
            f"(uniform_tick_shocks {preset(chosen)['uniform_tick_shocks']:g})"
            f": {ours / 1e6:.1f}M   ours/floor {ours / floor:.2f}   "
            f"target 0.5 of the floor: {ours / floor / 0.5:.2f}x"
        )

    workload()
    spent = cpu(workload)
    print(
        f"5 baselines x 40 names x 10 days: {spent:.3f} s CPU   "
        f"target 0.05 s: {spent / EVAL_TARGET_S:.2f} of target   "
        f"tradefloor 1.0-1.3 s: {1.0 / spent:.0f}-{1.3 / spent:.0f}x faster"
    )

    ticks, built, copied = news_ratios()
    print(
        f"news on / off: name-ticks at 200 names {ticks:.2f}x (target >= 0.9x)   "
        f"payload at 40 names built {built:.2f}x (target <= 1.2x), "
        f"built and copied for a private arm {copied:.2f}x (the copy grows with the text)"
    )

    before, after = peak_memory_mb()
    print(
        f"500 names x 252 days, 5 baselines: peak {after:.0f} MiB "
        f"(after imports {before:.0f} MiB)   "
        f"target 1024 MiB: {after / MEMORY_TARGET_MB:.2f} of target"
    )


if __name__ == "__main__":
    main()
