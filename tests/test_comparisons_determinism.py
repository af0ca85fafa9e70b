"""The many-arm tests, PBO, power and the stopping verdicts give the same bytes in separate
processes (another hash seed, another BLAS kernel) as in this one."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("arch")

REPO = Path(__file__).resolve().parents[1]
SCRIPT = """
import json, sys
from workbench.evaluation.compare import compare
from workbench.evaluation.overfitting import blocks_for, pbo
from workbench.evaluation.paired import day_returns

arms = ["buy_and_hold", "momentum", "mean_reversion", "random"]
done = compare(arms, "buy_and_hold", list(range(1, 8)), stop="settled", margin=0.5,
               universe=8, days=6)
days = day_returns(done.runs, arms)
table = done.table.astype(object).where(done.table.notna(), None)
print(json.dumps({
    "table": table.to_dict(orient="index"),
    "snooping": done.table.attrs["snooping"],
    "pbo": pbo(days, blocks=blocks_for(len(days))).summary(),
    "stopping": done.stopping.summary(),
}, sort_keys=True, default=str))
"""


def answer(hash_seed: str, blas_kernel: str | None = None) -> str:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(REPO)}
    if blas_kernel:
        env["OPENBLAS_CORETYPE"] = blas_kernel
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], check=True, env=env, capture_output=True, timeout=300,
        text=True,
    )  # fmt: skip
    return done.stdout


def answer_here() -> str:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(SCRIPT, "<comparisons-script>", "exec"), {"__name__": "comparisons"})
    return printed.getvalue()


@pytest.mark.slow
def test_two_processes_give_identical_comparisons() -> None:
    other_seed = "3" if os.environ.get("PYTHONHASHSEED") == "2" else "2"  # never this one's
    first, second = answer_here(), answer(other_seed, blas_kernel="Prescott")
    assert first == second
    parsed = json.loads(first)
    assert parsed["snooping"]["paired_days"] > 0 and parsed["pbo"]["combinations"] > 0
    assert parsed["stopping"]["seeds_used"] <= 7
