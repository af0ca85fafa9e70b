"""The per-unit memory figures behind the service limits, measured against what they assume.

    python bench/service_limits.py

Each figure is the slope between two requests that differ in one dimension only, each
run through ``services.run_evaluation`` in a fresh process (peak RSS after the request
minus peak RSS after a warm-up request):

- market bytes per name-step: the same arm, twice the days at one step a day;
- day bytes per name-tick: the same market, twice the ticks of its one day;
- arm bytes per name-step: a trading arm (momentum, deciding every step) added.

Printed as measured / assumed (``workbench.services.limits``); below 1 means the
estimate the services refuse requests by is on the safe side. The CPU seconds of
each request are printed next to it, against the work the limits count.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from workbench.services import limits

_CHILD = """
import json, resource, sys, tempfile, time
from workbench.services import run_evaluation
request = json.loads(sys.argv[1])
store = tempfile.mkdtemp()
run_evaluation(store, ["cash", "momentum"], universe=5, days=2)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
started = time.process_time()
run_evaluation(store, **request)
cpu = time.process_time() - started
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"bytes": (after - before) * 1024, "cpu": cpu}))
"""


def measure(**request: Any) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, json.dumps(request)],
        check=True,
        capture_output=True,
        text=True,
    )
    out: dict[str, float] = json.loads(done.stdout)
    size = limits.estimate(
        request["arms"], request["universe"], request["days"], request["steps_per_day"], 1
    )
    print(
        f"  {request}: {out['bytes'] / 2**20:7.1f} MiB, {out['cpu']:5.1f} s CPU "
        f"({size.arm_name_steps:,} arm name-steps)"
    )
    return out


def slope(small: dict[str, float], large: dict[str, float], units: float) -> float:
    return (large["bytes"] - small["bytes"]) / units


def report(name: str, measured: float, assumed: int) -> None:
    print(
        f"{name}: measured {measured:6.1f} B, assumed {assumed} B, ratio {measured / assumed:.2f}"
    )


def main() -> None:
    flat = {"steps_per_day": 1, "ticks_per_step": 1}
    print("market: 1,000 names x 1,000 / 2,000 days, one step a day")
    a = measure(arms=["cash"], universe=1000, days=1000, **flat)
    b = measure(arms=["cash"], universe=1000, days=2000, **flat)
    report(
        "market bytes per name-step", slope(a, b, 1000 * 1000), limits.MARKET_BYTES_PER_NAME_STEP
    )

    print("one day: 1,000 names x 10 steps x 100 / 200 ticks")
    c = measure(arms=["cash"], universe=1000, days=1, steps_per_day=10, ticks_per_step=100)
    d = measure(arms=["cash"], universe=1000, days=1, steps_per_day=10, ticks_per_step=200)
    report("day bytes per name-tick", slope(c, d, 1000 * 10 * 100), limits.DAY_BYTES_PER_NAME_TICK)

    print("a trading arm: momentum added, 500 names x 1,000 days, one step a day")
    e = measure(arms=["cash"], universe=500, days=1000, **flat)
    f = measure(arms=["cash", "momentum"], universe=500, days=1000, **flat)
    report("arm bytes per name-step", slope(e, f, 500 * 1000), limits.ARM_BYTES_PER_NAME_STEP)
    print(f"  arm CPU: {(f['cpu'] - e['cpu']) / (500 * 1000) * 1e6:.1f} us per name-step")


if __name__ == "__main__":
    main()
