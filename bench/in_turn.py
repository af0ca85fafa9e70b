"""One workload's CPU seconds on two source trees, taken in turn, as a ratio.

    python bench/in_turn.py BEFORE_TREE WORKLOAD [--rounds N]

BEFORE_TREE is a checkout of the code to compare with (for example
``git archive <commit> | tar -x -C /tmp/before``); the other side is this tree.
Each round runs the workload in a fresh process on BEFORE_TREE, then on this
tree, so a machine that slows part way slows both; the report is each side's
best over the rounds and after / before. Workloads (each its own best of several
calls inside one process):

- ``small``: 5 baselines x 40 names x 10 days (best of twenty);
- ``replay``: a 20-name x 20-day recording with two scripted callable arms asked
  at every step and two baselines, replayed (best of five);
- ``digest``: that run's results digest (best of twenty);
- ``historical``: every baseline on 2,679 days x 6 names of sample bars, loaded
  and run (best of three);
- ``mask``: the news of 2,000 decisions built as a run builds them, each item masked
  the first time it is carried (25,000 items of ``bench/historical_news.py``; best
  of three, a fresh path each, joined before the clock starts);
- ``decisions``: the baselines' own decisions alone, each answering again the
  payloads it saw in a run on 400 days x 6 names of sample bars (best of fifteen);
- ``engine``: 200 names x 24 days of ``standard-v1``'s market alone on both trees, as a
  share of the bare NumPy floor measured beside it (``bench/engine.py``; higher is
  better): the engine's own speed on one market;
- ``engine-default``: the same on each tree's default market (``standard-v2`` before
  ``standard-v4`` became the default, which draws its tick shocks at less cost): what a
  run that names no preset gets; the share of the floor after is the target's.

``small``, ``replay`` and ``digest`` run ``standard-v2`` on both trees, the default
before ``standard-v4`` (which draws its tick shocks at less cost): a like-for-like
comparison of the same market.

The speed targets, for BEFORE_TREE the code before the speed work (commit c7ad53f):
after / before <= 0.6 for ``small``, <= 0.3 for ``replay``, <= 0.5 for
``historical``, and a share of the floor >= 0.5 after for ``engine-default``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
_BEST = """
import time
PRESET = "standard-v2"  # the default before standard-v4: the same market on both trees
def best(fn, repeat):
    fastest = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        fastest = min(fastest, time.process_time() - started)
    return fastest
"""
_RUN_20X20 = """
from workbench.evaluation import evaluate
from workbench.testing.scripted import contrarian_agent, trend_agent
arms = [trend_agent(every=1), contrarian_agent(every=1), "momentum", "buy_and_hold"]
"""
WORKLOADS = {
    "small": """
from workbench.evaluation import evaluate
run = lambda: evaluate(["cash", "buy_and_hold", "equal_weight", "momentum",
                        "mean_reversion"], seed=7, universe=40, days=10, preset=PRESET)
run()
print(best(run, 20))
""",
    "replay": """
import tempfile
from pathlib import Path
from workbench.recordings import record, replay
from workbench.testing.scripted import contrarian_agent, trend_agent
with tempfile.TemporaryDirectory() as tmp:
    folder = Path(tmp) / "r"
    arms = [trend_agent(mode="record", every=1), contrarian_agent(mode="record", every=1)]
    record(folder, [*arms, "momentum", "buy_and_hold"], seed=3, universe=20, days=20,
           preset=PRESET)
    replay(folder, check=True)
    print(best(lambda: replay(folder, check=True), 5))
""",
    "digest": _RUN_20X20
    + """
results = evaluate(arms, seed=3, universe=20, days=20, preset=PRESET)
print(best(results.digest, 20))
""",
    "historical": """
from workbench.baselines import BASELINES
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation import evaluate
bars = sample_bars(days=2_699, names=6, seed=1)
run = lambda: evaluate(list(BASELINES), data=Historical.load(bars, secret="s" * 20))
print(best(run, 3))
""",
    "mask": """
import sys
sys.path.insert(0, "bench")
import historical_news as bench
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation import World
bench.ITEMS = 25_000
bars = sample_bars(days=bench.DAYS + 20, names=bench.NAMES, seed=3)
texted = Historical.load(bars, secret="s" * 20).with_text(news=bench.news(bars),
                                                         names=bench.NAMES_MAP)
feeds = [World(data=texted, days=bench.DAYS).path.text for _ in range(3)]
def run():
    feed = feeds.pop()
    for row in range(20, 20 + bench.DAYS):
        feed.news(row - 1, row)
print(best(run, 3))
""",
    "decisions": """
import copy
from workbench.baselines import BASELINES
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation import evaluate
arms = [kind() for kind in BASELINES.values()]
seen = {}
for arm in arms:
    def kept(payload, decide=arm.decide, name=arm.name):
        seen.setdefault(name, []).append(copy.deepcopy(payload))
        return decide(payload)
    arm.decide = kept
evaluate(arms, data=Historical.load(sample_bars(days=400, names=6, seed=1), secret="s" * 20))
def run():
    for name, payloads in seen.items():
        arm = BASELINES[name]()
        for payload in payloads:
            arm.decide(payload)
print(best(run, 15))
""",
    "engine": """
import sys
sys.path.insert(0, "bench")
import engine
ours, floor = engine.name_ticks(200, chosen="standard-v1")
print(ours / floor)
""",
    "engine-default": """
import sys
sys.path.insert(0, "bench")
import engine
from workbench.engine import DEFAULT_PRESET
ours, floor = engine.name_ticks(200, chosen=DEFAULT_PRESET)
print(ours / floor)
""",
}


# after / before at most this (engine: the share of the floor after, at least this)
TARGETS = {"small": 0.6, "replay": 0.3, "historical": 0.5, "engine-default": 0.5}


def verdict(workload: str, before: float, after: float) -> str:
    """The target line: the ratio the workload must reach, and whether it did."""
    target = TARGETS.get(workload)
    if target is None:
        return "  no target for this workload"
    if workload.startswith("engine"):
        met = after >= target
        return f"  target: share of the floor >= {target} after: {after:.2f} ({_met(met)})"
    ratio = after / before
    return f"  target: after/before <= {target}: {ratio:.2f} ({_met(ratio <= target)})"


def _met(met: bool) -> str:
    return "met" if met else "not met"


def measure(tree: Path, workload: str) -> float:
    code = _BEST + WORKLOADS[workload]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tree, env=env, check=True, capture_output=True,
        text=True,
    )  # fmt: skip
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("workload", choices=sorted(WORKLOADS))
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args()
    pick = max if args.workload.startswith("engine") else min  # a share of the floor
    before, after = [], []
    for _ in range(args.rounds):
        before.append(measure(args.before.resolve(), args.workload))
        after.append(measure(HERE, args.workload))
    b, a = pick(before), pick(after)
    unit = "of the floor" if args.workload.startswith("engine") else "s CPU"
    print(
        f"{args.workload}: before {b:.4f} {unit}   after {a:.4f} {unit}   after/before {a / b:.2f}"
    )
    print(f"  rounds before {[round(x, 4) for x in before]}  after {[round(x, 4) for x in after]}")
    if args.workload == "engine-default":
        print("  (each tree's own default market: a ratio of two markets, not one's speed)")
    print(verdict(args.workload, b, a))


if __name__ == "__main__":
    main()
