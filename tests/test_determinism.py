"""Same seed, preset and universe give the same bytes in separate processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ARGS = [
    "evaluate",
    "--arms",
    "buy_and_hold,momentum,mean_reversion,random",
    "--preset",
    "turbulent-v1",
    "--seed",
    "11",
    "--universe",
    "25",
    "--days",
    "4",
]


def run_cli(out: Path, hash_seed: str, blas_kernel: str | None = None) -> None:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    if blas_kernel:  # OpenBLAS picks its kernel by CPU; force another one
        env["OPENBLAS_CORETYPE"] = blas_kernel
    command = [
        sys.executable,
        "-m",
        "workbench",
        *ARGS,
        "--json",
        str(out / "card.json"),
        "--out",
        str(out),
    ]
    subprocess.run(command, check=True, env=env, capture_output=True, timeout=120)


@pytest.mark.slow
def test_two_processes_on_different_blas_kernels_write_identical_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    run_cli(first, "1")
    run_cli(second, "2", blas_kernel="Prescott")
    for name in (
        "card.json",
        "scorecard.json",
        "results.json",
        "equity.parquet",
        "orders.parquet",
        "scorecard.csv",
    ):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    assert (first / "card.json").read_text().endswith("}\n]\n")
