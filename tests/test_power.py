"""Seeds needed for the paired t-test and the minimum track-record length."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench.errors import ConfigError
from workbench.evaluation import deflated
from workbench.evaluation.compare import paired_comparison, pooled_returns, run_seeds
from workbench.evaluation.power import min_track_record, power_at, seeds_needed


@pytest.mark.parametrize(("effect", "alpha", "power"), [(0.5, 0.05, 0.8), (1.2, 0.01, 0.9)])
def test_seeds_needed_is_the_first_n_whose_exact_power_reaches_the_target(
    effect: float, alpha: float, power: float
) -> None:
    needed = int(seeds_needed(effect * 2.0, 2.0, alpha=alpha, power=power))
    assert power_at(needed, effect, alpha) >= power > power_at(needed - 1, effect, alpha)
    statsmodels = pytest.importorskip("statsmodels.stats.power")
    solved = statsmodels.TTestPower().solve_power(effect, alpha=alpha, power=power)
    assert needed == math.ceil(solved)  # statsmodels solves the same noncentral t for n


def test_power_at_is_a_noncentral_t_tail_checked_by_simulation() -> None:
    rng = np.random.default_rng(0)
    samples = rng.normal(0.5, 1.0, (20_000, 12))
    rejected = stats.ttest_1samp(samples, 0.0, axis=1).pvalue < 0.05
    assert float(rejected.mean()) == pytest.approx(power_at(12, 0.5, 0.05), abs=0.015)


def test_no_difference_needs_infinitely_many_seeds_and_no_spread_is_undefined() -> None:
    assert seeds_needed(0.0, 1.0, alpha=0.05) == math.inf
    assert math.isnan(seeds_needed(1.0, 0.0, alpha=0.05))
    with pytest.raises(ConfigError, match="power must be a number between 0 and 1"):
        seeds_needed(1.0, 1.0, alpha=0.05, power=1.0)


def test_min_track_record_by_hand_and_psr_reaches_the_confidence_there() -> None:
    # SR 0.1 a day, normal returns (skew 0, kurtosis 3): 1 + (1 + 2/4 * 0.01) * (z95 / 0.1)^2
    # = 1 + 1.005 * 16.4485^2 = 272.91 days.
    z = stats.norm.ppf(0.95)
    assert min_track_record(0.1, 0.0, 3.0, confidence=0.95) == pytest.approx(
        1 + 1.005 * (z / 0.1) ** 2, rel=1e-12
    )
    assert 272.9 < min_track_record(0.1, 0.0, 3.0, confidence=0.95) < 273.0
    length = min_track_record(0.08, -0.4, 5.0, confidence=0.9)
    psr = deflated.probabilistic_sharpe(0.08, 2, -0.4, 5.0)  # observations only scale z
    assert psr < 0.9
    spread = 1 + 0.4 * 0.08 + 1.0 * 0.08**2
    at_length = stats.norm.cdf(0.08 * math.sqrt(length - 1) / math.sqrt(spread))
    assert at_length == pytest.approx(0.9, abs=1e-12)
    assert min_track_record(-0.1, 0.0, 3.0, confidence=0.95) == math.inf


@pytest.mark.slow
def test_every_comparison_row_carries_both() -> None:
    arms = ["buy_and_hold", "momentum", "random", "equal_weight"]
    runs = run_seeds(arms, [1, 2, 3, 4], universe=6, days=5)
    table = paired_comparison(runs, "buy_and_hold", confidence=0.9, power=0.75, snooping=False)
    per_seed = pd.DataFrame(
        {arm: [r.scorecard.loc[arm, "return_pct"] for r in runs] for arm in arms}
    )
    pooled = pooled_returns(runs, arms)
    for arm in ("momentum", "random", "equal_weight"):
        diff = (per_seed[arm] - per_seed["buy_and_hold"]).to_numpy()
        expected = seeds_needed(diff.mean(), diff.std(ddof=1), alpha=0.1 / 3, power=0.75)
        assert table.loc[arm, "seeds_needed"] == expected
        sharpe, n, skew, kurt = deflated.sharpe_moments(pooled[arm])
        assert table.loc[arm, "pooled_days"] == n == 20
        assert table.loc[arm, "min_track_record_days"] == min_track_record(
            sharpe, skew, kurt, confidence=0.9
        )
