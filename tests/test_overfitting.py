"""PBO by CSCV: a worked example derived by hand, pure noise near one half, the trial store."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench import services
from workbench.errors import ConfigError
from workbench.evaluation.overfitting import blocks_for, pbo
from workbench.services.compare import trial_returns
from workbench.services.evaluation import MarketRequest


def test_a_worked_example_by_hand() -> None:
    # Four trials over four days, four blocks of one day each: C(4, 2) = 6 splits.
    #        day1 day2 day3 day4
    #   a:     5   -1    1    3
    #   b:     1    5    4   -1
    #   c:     1    4    3    5
    #   d:    -1    4    0   -2
    # On two days x, y the Sharpe ratio (ddof=1) is ((x + y) / 2) / (|x - y| / sqrt 2)
    # = q / sqrt 2 with q = (x + y) / |x - y|, so q alone orders the trials. q per pair:
    #   days {1,2}: a 2/3  b 3/2  c 5/3  d 3/5      days {3,4}: a 2    b 3/5  c 4    d -1
    #   days {1,3}: a 3/2  b 5/3  c 2    d -1       days {2,4}: a 1/2  b 2/3  c 9    d 1/3
    #   days {1,4}: a 4    b 0    c 3/2  d -3       days {2,3}: a 0    b 9    c 7    d 1
    # Train on a pair, test on the other two days; best in training, its test rank (1 worst):
    #   {1,2}: c (5/3) -> on {3,4} c = 4, rank 4     {3,4}: c (4)   -> on {1,2} 5/3, rank 4
    #   {1,3}: c (2)   -> on {2,4} c = 9, rank 4     {2,4}: c (9)   -> on {1,3} 2,   rank 4
    #   {1,4}: a (4)   -> on {2,3} a = 0, rank 1     {2,3}: b (9)   -> on {1,4} 0,   rank 2
    # w = rank / 5, logit ln(w / (1 - w)): rank 4 -> ln 4, rank 1 -> -ln 4, rank 2 -> ln(2/3).
    # Two of six logits are <= 0: PBO = 1/3.
    # Degradation: (train q, test q) = (5/3, 4), (2, 9), (4, 0), (4, 5/3), (9, 2), (9, 0);
    # Sxy = 148/3 - 6 (89/18)(25/9) = -893/27, Sxx = 1807/9 - 6 (89/18)^2 = 2921/54, so the
    # slope is -1786/2921 (q and the Sharpe ratio differ by the same factor on both axes).
    days = pd.DataFrame(
        {"a": [5, -1, 1, 3], "b": [1, 5, 4, -1], "c": [1, 4, 3, 5], "d": [-1, 4, 0, -2]},
        dtype=float,
    )
    result = pbo(days, blocks=4)
    assert result.combinations == 6 and result.pbo == pytest.approx(1 / 3, abs=1e-15)
    logits = sorted(result.logits)
    expected = sorted([math.log(4)] * 4 + [-math.log(4), math.log(2 / 3)])
    assert logits == pytest.approx(expected, abs=1e-12)
    slope, _ = result.degradation
    assert slope == pytest.approx(-1786 / 2921, rel=1e-12)
    assert sorted(result.train_sharpe * math.sqrt(2)) == pytest.approx([5 / 3, 2, 4, 4, 9, 9])
    assert result.probability_of_loss == 0.0  # the chosen trial's test Sharpe is never < 0
    assert result.summary()["chosen_in_sample"] == {"c": 4, "a": 1, "b": 1}


def test_pure_noise_configurations_give_a_pbo_near_one_half() -> None:
    # 100 matrices of 10 noise trials x 200 days, 8 blocks (70 splits each). One matrix's
    # PBO is itself noisy (sd about 0.2 here), the mean of 100 has a standard error near
    # 0.02: it must lie within 0.5 +/- 0.06.
    values = [
        pbo(pd.DataFrame(np.random.default_rng(seed).normal(0, 0.01, (200, 10))), blocks=8).pbo
        for seed in range(100)
    ]
    assert abs(float(np.mean(values)) - 0.5) < 0.06


def test_a_real_edge_among_noise_is_not_overfit() -> None:
    rng = np.random.default_rng(3)
    trials = pd.DataFrame(rng.normal(0, 0.01, (400, 10)))
    trials[0] += 0.004  # one trial with a true daily edge of 0.4 sd
    result = pbo(trials, blocks=8)
    assert result.pbo < 0.05 and set(result.chosen) == {"0"}


def test_the_rows_that_do_not_fill_a_block_are_the_oldest_and_are_dropped() -> None:
    rng = np.random.default_rng(4)
    trials = pd.DataFrame(rng.normal(0, 0.01, (103, 4)))
    whole, trimmed = pbo(trials, blocks=10), pbo(trials.iloc[3:], blocks=10)
    assert whole.observations == 100
    np.testing.assert_array_equal(whole.logits, trimmed.logits)


def test_bad_input_is_refused_with_the_fix() -> None:
    noise = pd.DataFrame(np.random.default_rng(0).normal(0, 0.01, (40, 3)))
    with pytest.raises(ConfigError, match="even whole number"):
        pbo(noise, blocks=5)
    with pytest.raises(ConfigError, match="at least two trials"):
        pbo(noise[[0]], blocks=4)
    with pytest.raises(ConfigError, match="needs at least 16 periods, got 10; pass fewer blocks"):
        pbo(noise.head(10), blocks=16)
    broken = noise.copy()
    broken.iloc[2, 1] = float("inf")
    with pytest.raises(ConfigError, match="NaN or infinite"):
        pbo(broken, blocks=4)


SMALL = {"universe": 6, "days": 12}


@pytest.mark.slow
def test_the_trial_store_gives_every_configuration_on_the_same_paths(tmp_path: Path) -> None:
    services.run_evaluation(tmp_path, ["random", "equal_weight"], seed=1, **SMALL)
    services.run_evaluation(tmp_path, ["random", "equal_weight"], seed=2, **SMALL)
    services.run_evaluation(tmp_path, ["random"], seed=2, fee_bps=3.0, **SMALL)  # seed 2 only
    services.run_evaluation(tmp_path, ["momentum"], seed=1, days=11, universe=6)  # another market
    answer = services.compare_runs(
        tmp_path, ["cash", "buy_and_hold", "momentum"], "buy_and_hold", [1, 2], **SMALL
    )
    matrix = trial_returns(services.RunStore.open(tmp_path), [1, 2], MarketRequest(**SMALL))
    assert sorted(matrix.columns) == ["buy_and_hold", "cash", "equal_weight", "momentum", "random"]
    assert len(matrix) == 2 * 12  # twelve day returns a seed at six steps a day
    expected = pbo(matrix, blocks=12).summary()  # 24 days: twelve blocks drop none
    assert answer["overfitting"] == {**expected, "runs_unreadable": []}
    assert expected["trials"] == 5
    assert answer["snooping"]["paired_days"] == 24
    assert answer["snooping"]["model_confidence_set"]  # never empty: the best arm stays
    lone = services.compare_runs(
        tmp_path / "other", ["cash", "momentum"], "cash", [1], universe=4, days=1
    )
    assert "skipped" in lone["overfitting"] and lone["snooping"] is None


def test_the_block_count_drops_the_fewest_days() -> None:
    assert blocks_for(1000) == 10  # 16 would drop 8 days, 10 drops none
    assert blocks_for(60) == 12 and blocks_for(24) == 12 and blocks_for(3200) == 16
    assert blocks_for(5) == 2 and blocks_for(3) == 0


@pytest.mark.slow
def test_a_damaged_run_in_the_store_is_named_and_hides_no_other(tmp_path: Path) -> None:
    store = services.RunStore.open(tmp_path)
    made = services.run_evaluation(tmp_path, ["random", "equal_weight"], seed=1, **SMALL)
    services.run_evaluation(tmp_path, ["momentum"], seed=1, **SMALL)
    (tmp_path / made["artefacts"]["equity"]).write_bytes(b"not parquet")
    answer = services.compare_runs(tmp_path, ["cash", "buy_and_hold"], "cash", [1], **SMALL)
    assert answer["overfitting"]["runs_unreadable"] == [made["run_id"]]
    matrix = trial_returns(store, [1], MarketRequest(**SMALL))
    assert sorted(matrix.columns) == ["buy_and_hold", "cash", "momentum"]
    assert answer["overfitting"]["trials"] == 3
