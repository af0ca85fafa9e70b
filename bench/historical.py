"""A long historical run, as ratios to the target and to the simulator measured in this run.

    python bench/historical.py

The workload: 2,679 traded days x 6 names x every baseline (``BASELINES``, eight
arms) on synthetic daily bars (``workbench.engine.sample_bars``, 2,699 dates),
loaded, checked and masked by ``Historical.load``. Reported, as the best of three
in CPU seconds (all threads of the process):

- the whole historical run (load + evaluate) against the 2 s target;
- the same arms on a simulated market of the same shape (6 names, 2,679 days,
  one step and one tick a day), so the ratio says what historical bars cost
  over the simulator itself: near 1 means the bars run at the simulator's speed;
- a check that caching the fingerprint changed nothing: a short run's results
  digest with a world that re-hashes the bars at every decision request (the
  old behaviour) equals the digest with the cached one.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd

from workbench.agents import PresetStamp
from workbench.baselines import BASELINES
from workbench.bridge import run_sync
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation import World, evaluate
from workbench.evaluation.runner import run_world

TARGET_S = 2.0
DAYS, NAMES, HISTORY = 2_679, 6, 20
SECRET = "bench-secret-0123456789"
ARMS = list(BASELINES)


def cpu(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


class RehashingWorld(World):
    """The old behaviour: the bars re-hashed for the fingerprint on every decision request."""

    @property  # type: ignore[override]
    def fingerprint(self) -> str:
        assert self.data is not None
        self.data.__dict__.pop("digest", None)  # forget the cached hash
        return self.data.fingerprint(self.preset)

    @property  # type: ignore[override]
    def stamp(self) -> PresetStamp:
        return PresetStamp(name=self.fingerprint, vector=self.preset.vector)


def digests_agree(bars: pd.DataFrame) -> bool:
    short = bars[bars["date"] < sorted(bars["date"].unique())[120]]
    cached = evaluate(ARMS, data=Historical.load(short, secret=SECRET))
    rehashing = run_sync(
        run_world(RehashingWorld(data=Historical.load(short, secret=SECRET)), ARMS)
    )
    return cached.digest() == rehashing.digest()


def main() -> None:
    bars = sample_bars(days=DAYS + HISTORY, names=NAMES, seed=1)
    results = {}

    def historical() -> None:
        results["run"] = evaluate(ARMS, data=Historical.load(bars, secret=SECRET))

    def simulated() -> None:
        evaluate(ARMS, seed=1, universe=NAMES, days=DAYS, steps_per_day=1, ticks_per_step=1)

    ours, simulator = cpu(historical), cpu(simulated)
    run = results["run"]
    assert run.equity.shape == (DAYS, len(ARMS)), run.equity.shape
    print(f"historical {DAYS:,} days x {NAMES} names x {len(ARMS)} arms (load + run)")
    print(
        f"  {ours:.2f} s CPU   target {TARGET_S:.0f} s: {ours / TARGET_S:.2f} of target   "
        f"simulator, same shape: {simulator:.2f} s   historical/simulator {ours / simulator:.2f}"
    )
    print(f"  results digest {run.digest()[:16]}…   unchanged by caching: {digests_agree(bars)}")


if __name__ == "__main__":
    main()
