"""SPA, Reality Check, StepM and the model confidence set: the same numbers as arch itself,
and a planted edge found among ten noise arms."""

from __future__ import annotations

import builtins
import math

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("arch")

from arch.bootstrap import MCS, SPA, RealityCheck, StepM

from workbench.errors import ConfigError, MissingDependency
from workbench.evaluation.compare import paired_comparison, per_seed, run_seeds
from workbench.evaluation.many_arms import snooping_tests
from workbench.evaluation.paired import day_returns


def noisy_family(seed: int, days: int = 500, edge: float = 0.002) -> pd.DataFrame:
    """A benchmark, one arm with a true daily edge and ten arms without, on one market."""
    rng = np.random.default_rng(1000 + seed)
    market = rng.normal(0.0, 0.01, days)
    arms = {"benchmark": market + rng.normal(0.0, 0.005, days)}
    arms["edge"] = market + rng.normal(0.0, 0.005, days) + edge
    for j in range(10):
        arms[f"noise{j}"] = market + rng.normal(0.0, 0.005, days)
    return pd.DataFrame(arms)


@pytest.mark.slow
def test_every_figure_is_arch_called_directly_on_the_same_loss_matrix() -> None:
    returns = noisy_family(3, days=300, edge=0.001)
    ours = snooping_tests(returns, "benchmark", size=0.1, reps=400, block_size=7, seed=11)
    losses = -returns
    bench, models = losses["benchmark"].to_numpy(), losses.drop(columns="benchmark")
    options = {"block_size": 7, "reps": 400, "seed": 11}
    spa = SPA(bench, models, **options)
    spa.compute()
    assert dict(ours.spa) == pytest.approx(dict(spa.pvalues), abs=0)
    check = RealityCheck(bench, models, studentize=False, **options)
    check.compute()
    assert ours.reality_check_p == check.pvalues["upper"]
    stepm = StepM(bench, models, size=0.1, **options)  # its own draws, not ours
    stepm.compute()
    assert list(ours.superior) == list(stepm.superior_models) and "edge" in ours.superior
    mcs = MCS(losses, 0.1, **options)
    mcs.compute()
    assert ours.mcs_pvalues == mcs.pvalues["Pvalue"].to_dict()
    assert list(ours.included) == [a for a in returns.columns if a in mcs.included]


@pytest.mark.slow
def test_a_planted_edge_is_found_and_ten_noise_arms_are_not() -> None:
    # 30 simulated families (500 days, a daily edge of 0.2 % against noise of 0.71 % in the
    # paired difference), each with its own bootstrap seed: StepM at a 5 % family-wise
    # error finds the edge in at least 28 of 30, the MCS keeps it in at least 28 of 30;
    # a noise arm is called superior in at most 3 families (5 % of 30 expected: 1.5) and
    # kept in the MCS in at most 5 % of the 300 noise-arm places.
    found = kept = false_families = noise_kept = 0
    for seed in range(30):
        tests = snooping_tests(noisy_family(seed), "benchmark", reps=500, seed=seed)
        found += "edge" in tests.superior
        kept += "edge" in tests.included
        false_families += any(arm.startswith("noise") for arm in tests.superior)
        noise_kept += sum(arm.startswith("noise") for arm in tests.included)
    assert found >= 28 and kept >= 28
    assert false_families <= 3 and noise_kept <= 15


@pytest.mark.slow
def test_the_comparison_carries_the_tests_of_its_paired_day_returns() -> None:
    runs = run_seeds(["buy_and_hold", "momentum", "random", "cash"], [1, 2, 3], universe=6, days=8)
    table = paired_comparison(runs, "buy_and_hold", confidence=0.9, seed=5)
    returns = day_returns(runs, ["buy_and_hold", "momentum", "random", "cash"])
    assert len(returns) == 3 * 8  # eight day returns a seed at six steps a day
    direct = snooping_tests(returns, "buy_and_hold", size=0.1, seed=5)
    assert (table["spa_p"] == direct.spa_p).all()
    assert (table["reality_check_p"] == direct.reality_check_p).all()
    for arm in ("momentum", "random", "cash"):
        assert table.loc[arm, "mcs_p"] == direct.mcs_pvalues[arm]
        assert table.loc[arm, "in_mcs"] == (arm in direct.included)
        assert table.loc[arm, "stepm_superior"] == (arm in direct.superior)
    assert table.attrs["snooping"] == direct.summary()
    assert table.attrs["snooping"]["mcs_p"]["buy_and_hold"] == direct.mcs_pvalues["buy_and_hold"]
    again = paired_comparison(runs, "buy_and_hold", confidence=0.9, seed=5)
    pd.testing.assert_frame_equal(table, again)  # seeded: the same bootstrap every time


def test_too_few_days_leave_the_columns_null_unless_asked_for() -> None:
    runs = run_seeds(["buy_and_hold", "momentum"], [1], universe=5, days=3)
    assert math.isnan(paired_comparison(runs, "buy_and_hold").loc["momentum", "spa_p"])
    with pytest.raises(ConfigError, match="at least 10 paired days, got 3; run more seeds"):
        paired_comparison(runs, "buy_and_hold", snooping=True)
    off = paired_comparison(
        run_seeds(["cash", "momentum"], [1, 2], universe=5, days=6), "cash", snooping=False
    )
    assert off.attrs["snooping"] is None and math.isnan(off.loc["momentum", "mcs_p"])
    with pytest.raises(ConfigError, match="snooping=True needs the runs"):
        paired_comparison(per_seed(runs), "buy_and_hold", snooping=True)
    with pytest.raises(ConfigError, match="snooping must be True, False or None"):
        paired_comparison(runs, "buy_and_hold", snooping="yes")  # type: ignore[arg-type]


def test_bad_input_is_refused_with_the_fix() -> None:
    returns = noisy_family(0, days=50)
    with pytest.raises(ConfigError, match="benchmark arm 'nope' is not among the arms"):
        snooping_tests(returns, "nope")
    with pytest.raises(ConfigError, match="at least one other arm"):
        snooping_tests(returns[["benchmark"]], "benchmark")
    with pytest.raises(ConfigError, match="block_size must be a whole number from 1"):
        snooping_tests(returns, "benchmark", block_size=0)
    with pytest.raises(ConfigError, match="reps must be a whole number >= 100"):
        snooping_tests(returns, "benchmark", reps=10)
    bust = returns.copy()
    bust.iloc[3, 2] = float("nan")
    with pytest.raises(ConfigError, match="NaN or infinite"):
        snooping_tests(bust, "benchmark")
    one = run_seeds(["cash", "momentum"], [1], universe=4, days=2)
    other = run_seeds(["cash", "random"], [2], universe=4, days=2)
    with pytest.raises(ConfigError, match="needs every arm on every seed"):
        paired_comparison(one + other, "cash")


def test_without_arch_the_error_names_the_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_arch(name: str, *args: object, **kwargs: object) -> object:
        if name == "arch" or name.startswith("arch."):
            raise ImportError("No module named 'arch'")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_arch)
    with pytest.raises(MissingDependency, match=r'pip install "workbench\[stats\]"'):
        snooping_tests(noisy_family(0, days=50), "benchmark")
    runs = run_seeds(["cash", "momentum"], [1, 2], universe=4, days=6)
    with pytest.warns(UserWarning, match=r"workbench\[stats\]"):
        table = paired_comparison(runs, "cash")
    assert math.isnan(table.loc["momentum", "spa_p"]) and table.attrs["snooping"] is None


def test_arms_with_identical_days_are_one_kind_and_nothing_to_find_is_p_one() -> None:
    # An arm that holds (or fails every decision and so holds) earns exactly what cash earns:
    # the MCS cannot divide by the zero spread of their difference, so it reads one of them
    # and both get its p-value; with every arm equal to the benchmark, the SPA's p is 1.
    returns = noisy_family(5, days=120)
    returns["copy"] = returns["noise0"]
    tests = snooping_tests(returns, "benchmark", reps=300, seed=2)
    assert tests.mcs_pvalues["copy"] == tests.mcs_pvalues["noise0"]
    distinct = snooping_tests(returns.drop(columns="copy"), "benchmark", reps=300, seed=2)
    assert {k: v for k, v in tests.mcs_pvalues.items() if k != "copy"} == distinct.mcs_pvalues
    flat = pd.DataFrame({"cash": np.zeros(30), "idle": np.zeros(30)})
    nothing = snooping_tests(flat, "cash", reps=200)
    assert nothing.spa_p == nothing.reality_check_p == 1.0 and nothing.superior == ()
    assert nothing.mcs_pvalues == {"cash": 1.0, "idle": 1.0}


def test_a_bust_arm_earns_nothing_after_its_bust_on_the_paired_days() -> None:
    run = {
        "meta": {"seed": 4, "steps_per_day": 1},
        "equity": {"bust": [100.0, 50.0, -5.0, 0.0, 0.0], "fine": [100.0, 101, 102, 103, 104]},
    }
    days = day_returns([run], ["bust", "fine"])
    assert list(days.index) == [(4, 0), (4, 1), (4, 2), (4, 3)]
    # the bust is read as exactly 0 equity: -50 %, then -100 %, then nothing to earn
    assert days["bust"].tolist() == [-0.5, -1.0, 0.0, 0.0]
    assert days["fine"].tolist() == pytest.approx([0.01, 1 / 101, 1 / 102, 1 / 103])
    with pytest.raises(ConfigError, match=r"has no equity curve for arms \['gone'\]"):
        day_returns([run], ["fine", "gone"])
