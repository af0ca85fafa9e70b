"""Replay speed: CPU seconds to replay a 20-name x 20-day recording, as a ratio to the target.

    python bench/replay.py

The recording is made here, live, with the two scripted callable arms (the sync
``trend`` and the async ``contrarian``) asked at every decision point (120 each)
beside two baselines, then replayed with ``workbench.recordings.replay`` (digest
checked). Reported: the best of three replays in CPU seconds (all threads of
the process), its ratio to the raised 0.15 s target (and to the first wave's
0.3 s), the first replay alone (every seal checked: a text loaded again is parsed
but its seals, checked once, are not checked again), and the replay split into its
parts, each timed alone: the setup (manifest, transcripts loaded, arms rebuilt), the
run (``evaluate`` of the rebuilt arms) and the results digest (the comparison with
the recording is the rest; parts timed alone need not add up). Beside them the
market's simulation alone (the same path the replay simulates) and the floor measured
in this run, a plain ``evaluate`` of the same market with the two baselines only: the
run less the floor is what the two replayed arms cost (their keys, answers,
validation, execution).
tradefloor 0.10.2 takes about 3.4 s for the same shape on this machine.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.evaluation import World, evaluate
from workbench.recordings import manifest, record, replay
from workbench.recordings.service import replay_setup
from workbench.testing.scripted import contrarian_agent, trend_agent

TARGET_S = 0.15
FIRST_WAVE_S = 0.3
TRADEFLOOR_S = 3.4
MARKET = {"seed": 3, "universe": 20, "days": 20}
BASELINES = ["momentum", "buy_and_hold"]


def cpu(fn: Callable[[], object], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def run_alone(folder: Path, repeat: int = 3) -> float:
    """CPU seconds of the replay's run alone: its arms rebuilt (untimed) before each."""
    recorded = manifest.load_manifest(folder)
    best = float("inf")
    for _ in range(repeat):
        arms, keywords = replay_setup(folder, recorded)
        started = time.process_time()
        evaluate(arms, **keywords)
        best = min(best, time.process_time() - started)
    return best


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "bench-20x20"
        arms = [trend_agent(mode="record", every=1), contrarian_agent(mode="record", every=1)]
        record(folder, [*arms, *BASELINES], **MARKET)
        decisions = sum(len(a.recorder or ()) for a in arms)
        first = cpu(lambda: replay(folder, check=True), repeat=1)  # every seal checked
        replayed = cpu(lambda: replay(folder, check=True))  # the same bytes: seals known
        recorded = manifest.load_manifest(folder)
        setup = cpu(lambda: replay_setup(folder, recorded))
        run = run_alone(folder)
        results = replay(folder, check=True).results
        digest = cpu(results.digest)
    floor = cpu(lambda: evaluate(BASELINES, **MARKET))
    market = cpu(lambda: World(**MARKET).path)  # a fresh World simulates its path again
    print(f"replay of a 20-name x 20-day recording ({decisions} recorded exchanges, 4 arms)")
    print(
        f"  CPU {replayed:.3f} s   ratio to the {TARGET_S} s target: {replayed / TARGET_S:.2f}"
        f"   (first wave's {FIRST_WAVE_S} s: {replayed / FIRST_WAVE_S:.2f})"
    )
    print(
        f"  first replay in this process (every transcript's seals checked): {first:.3f} s, "
        f"ratio to the target: {first / TARGET_S:.2f}"
    )
    print(
        f"  its parts, each timed alone (best of three; they need not add up): setup "
        f"(transcripts loaded, arms rebuilt) {setup:.3f} s, run {run:.3f} s, digest {digest:.3f} s"
    )
    print(f"  the run less the floor (the two replayed arms' cost): {run - floor:.3f} s")
    speedup = TRADEFLOOR_S / replayed
    print(f"  tradefloor ~{TRADEFLOOR_S} s for the same shape: {speedup:.1f}x faster")
    print(f"  floor (same market, baselines only, no transcripts): {floor:.3f} s")
    print(f"  the market's simulation alone (in the replay and the floor alike): {market:.3f} s")
    print("PASS" if replayed <= TARGET_S else "FAIL: replay is slower than the target")


if __name__ == "__main__":
    main()
