"""Paired comparison across seeds: intervals, p-values and the Holm correction."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.errors import ConfigError
from workbench.evaluation import evaluate, metrics
from workbench.evaluation.compare import holm, paired_comparison, per_seed, run_seeds


def _table() -> pd.DataFrame:
    return pd.DataFrame(
        {"bench": [1.0, 2.0, 3.0], "a": [2.0, 4.0, 6.0], "b": [1.5, 2.0, 2.5]},
        index=pd.Index([1, 2, 3], name="seed"),
    )


def test_t_interval_and_p_value_match_the_textbook():
    row = paired_comparison(_table(), "bench").loc["a"]
    # differences 1, 2, 3: mean 2, sd 1, n 3
    half = stats.t.ppf(0.975, 2) / math.sqrt(3)
    assert row["mean_diff"] == pytest.approx(2.0)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((2 - half, 2 + half))
    assert row["p_value"] == pytest.approx(stats.ttest_rel([2, 4, 6], [1, 2, 3]).pvalue)
    assert row["seeds"] == 3 and row["benchmark"] == "bench"


def test_holm_adjusts_in_step_down_order_and_keeps_input_order():
    adjusted = holm([0.01, 0.04, 0.03, float("nan")])
    np.testing.assert_allclose(adjusted[:3], [0.03, 0.06, 0.06])
    assert math.isnan(adjusted[3])


def test_benchmark_is_left_out_and_holm_applies_across_arms():
    table = paired_comparison(_table(), "bench")
    assert list(table.index) == ["a", "b"]
    raw = table["p_value"].to_numpy()
    np.testing.assert_allclose(table["p_holm"], holm(raw))
    assert (table["significant"] == (table["p_holm"] < 0.05)).all()


def test_bootstrap_is_seeded_and_brackets_the_mean():
    one = paired_comparison(_table(), "bench", method="bootstrap", seed=4)
    two = paired_comparison(_table(), "bench", method="bootstrap", seed=4)
    pd.testing.assert_frame_equal(one, two)
    assert (one["ci_low"] <= one["mean_diff"]).all() and (one["mean_diff"] <= one["ci_high"]).all()


def test_one_seed_has_no_interval():
    row = paired_comparison(_table().head(1), "bench").loc["a"]
    assert math.isnan(row["ci_low"]) and math.isnan(row["p_value"])


def test_runs_from_evaluate_are_paired_by_seed():
    runs = run_seeds(["cash", "buy_and_hold"], [1, 2], universe=5, days=2)
    table = per_seed(runs)
    assert list(table.index) == [1, 2]
    row = paired_comparison(runs, "cash").loc["buy_and_hold"]
    assert row["mean_diff"] == pytest.approx(table["buy_and_hold"].mean())
    assert per_seed([r.to_dict() for r in runs]).equals(table)


def test_bad_requests_name_the_fix():
    with pytest.raises(ConfigError, match="benchmark arm 'nope'"):
        paired_comparison(_table(), "nope")
    with pytest.raises(ConfigError, match="confidence"):
        paired_comparison(_table(), "bench", confidence=1.5)
    with pytest.raises(ConfigError, match="method"):
        paired_comparison(_table(), "bench", method="z")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unknown metric"):
        per_seed(run_seeds(["cash"], [1], universe=3, days=1), metric="alpha")


def test_an_arm_that_failed_carries_its_failure_count_into_the_comparison():
    from workbench.integrations import callable_agent

    def broken(payload):
        return "not a decision"

    runs = [
        evaluate(
            ["cash", "buy_and_hold", callable_agent(broken, name="broken")],
            seed=seed,
            universe=5,
            days=2,
        )
        for seed in (1, 2)
    ]
    table = paired_comparison(runs, "cash")
    assert table.loc["broken", "mean_diff"] == 0.0  # a failed arm holds, like cash
    assert table.loc["broken", "failed_decisions"] == 4  # two decisions a run, two runs
    assert table.loc["buy_and_hold", "failed_decisions"] == 0
    assert math.isnan(paired_comparison(per_seed(runs), "cash").loc["broken", "failed_decisions"])


def test_psr_and_dsr_are_computed_from_the_pooled_day_returns():
    runs = run_seeds(["buy_and_hold", "momentum", "random"], [1, 2, 3], universe=8, days=5)
    table = paired_comparison(runs, "buy_and_hold")
    assert (table["trials"] == 3).all()  # by default, every arm compared is a trial
    pooled = {
        arm: np.concatenate([metrics.daily_returns(r.equity[arm].to_numpy(), 6) for r in runs])
        for arm in ("buy_and_hold", "momentum", "random")
    }
    assert all(p.size == 15 for p in pooled.values())  # 5 day returns a seed x 3 seeds
    sharpes = {arm: r.mean() / r.std(ddof=1) for arm, r in pooled.items()}
    variance = float(np.var(list(sharpes.values()), ddof=1))
    for arm in ("momentum", "random"):
        r = pooled[arm]
        skew, kurt = stats.skew(r), stats.kurtosis(r, fisher=False)
        row = table.loc[arm]
        assert row["pooled_sharpe"] == pytest.approx(sharpes[arm] * math.sqrt(252), rel=1e-12)
        z = (
            sharpes[arm]
            * math.sqrt(14)
            / math.sqrt(1 - skew * sharpes[arm] + (kurt - 1) / 4 * sharpes[arm] ** 2)
        )
        assert row["psr"] == pytest.approx(stats.norm.cdf(z), rel=1e-9)
        hurdle = math.sqrt(variance) * (
            (1 - np.euler_gamma) * stats.norm.ppf(1 - 1 / 3)
            + np.euler_gamma * stats.norm.ppf(1 - 1 / (3 * math.e))
        )
        assert row["sharpe_hurdle"] == pytest.approx(hurdle * math.sqrt(252), rel=1e-9)
        assert row["dsr"] < row["psr"]  # deflating for three trials only lowers it


def test_more_trials_deflate_more_and_fewer_than_the_arms_are_refused():
    runs = run_seeds(["buy_and_hold", "momentum"], [1, 2], universe=8, days=5)
    two = paired_comparison(runs, "buy_and_hold")
    many = paired_comparison(runs, "buy_and_hold", trials=200)
    assert many.loc["momentum", "trials"] == 200 and two.loc["momentum", "trials"] == 2
    assert many.loc["momentum", "dsr"] < two.loc["momentum", "dsr"]
    assert many.loc["momentum", "psr"] == two.loc["momentum", "psr"]
    with pytest.raises(ConfigError, match="trials must be a whole number at least"):
        paired_comparison(runs, "buy_and_hold", trials=1)


def test_a_per_seed_table_has_no_sharpe_columns():
    row = paired_comparison(_table(), "bench").loc["a"]
    assert math.isnan(row["psr"]) and math.isnan(row["dsr"]) and row["trials"] == 3
