"""Golden values for every metric, on series small enough to work out by hand.

Each expected value is written out, with its arithmetic in a comment, so a change
to a formula (ddof, the annualisation, a sign, the anchors of a day return) fails
here and not only in a recording replay.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.evaluation import deflated
from workbench.evaluation import metrics as m
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS, tearsheet

# One step a day. Day returns +10 %, -10 %, +10 %: 100 -> 110 -> 99 -> 108.9.
ARM = np.array([100.0, 110.0, 99.0, 108.9])
# Its benchmark: +5 %, -4 %, +5 %: 100 -> 105 -> 100.8 -> 105.84.
BENCH = np.array([100.0, 105.0, 100.8, 105.84])
# Goes bust on the third step; the -20 is never seen, nor the recovery to 30.
BUST = np.array([100.0, 50.0, -20.0, 30.0])
EXACT = 1e-12


def close(value: float, expected: float) -> bool:
    return math.isclose(value, expected, rel_tol=EXACT, abs_tol=EXACT)


# --- the curve and its day returns ----------------------------------------------------
def test_until_bust_stops_at_the_first_non_positive_point_and_counts_it_as_zero() -> None:
    assert m.until_bust(BUST).tolist() == [100.0, 50.0, 0.0]
    assert m.until_bust(ARM).tolist() == ARM.tolist()


def test_day_returns_have_no_phantom_zero_at_one_step_a_day() -> None:
    # anchors = every step: 110/100 - 1, 99/110 - 1, 108.9/99 - 1
    assert np.allclose(m.daily_returns(ARM, 1), [0.1, -0.1, 0.1], rtol=0, atol=EXACT)
    assert m.day_closes(ARM, 1).tolist() == ARM.tolist()


def test_day_returns_with_several_steps_run_from_the_start_then_close_to_close() -> None:
    curve = np.array([100.0, 104.0, 110.0, 99.0, 108.9, 120.0])
    # two steps a day: anchors are step 0 (the start) and steps 1, 3, 5 (day closes)
    assert m.day_closes(curve, 2).tolist() == [100.0, 104.0, 99.0, 120.0]
    # 104/100 - 1 = 0.04; 99/104 - 1 = -5/104; 120/99 - 1 = 21/99
    assert np.allclose(m.daily_returns(curve, 2), [0.04, -5 / 104, 21 / 99], atol=EXACT)
    # a last day cut short (a stopped run) is left out: steps 0..4 -> anchors 0, 1, 3
    assert m.day_closes(curve[:5], 2).tolist() == [100.0, 104.0, 99.0]


def test_a_bust_inside_a_day_ends_the_returns_with_the_fall_to_zero() -> None:
    curve = np.array([100.0, 90.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    # four steps a day, bust at step 2: anchors are the start and the bust
    assert m.daily_returns(curve, 4).tolist() == [-1.0]
    # one step a day: 50/100 - 1 = -0.5, 0/50 - 1 = -1
    assert m.daily_returns(BUST, 1).tolist() == [-0.5, -1.0]


def test_a_bust_is_an_anchor_once_even_when_it_falls_on_a_day_close_or_the_start() -> None:
    # two steps a day, bust at step 3 (a day close): anchors 0, 1, 3 and no repeat
    assert m.day_closes(np.array([100.0, 90.0, 80.0, -5.0, 7.0]), 2).tolist() == [
        100.0, 90.0, 0.0,
    ]  # fmt: skip
    # bust at the start: the one anchor, for any steps a day
    for steps_per_day in (1, 3):
        assert m.day_closes(np.array([0.0, 5.0, 6.0]), steps_per_day).tolist() == [0.0]
    # three steps a day, bust at step 4 (inside day 1): anchors 0, 2 and the bust
    curve = np.array([100.0, 95.0, 90.0, 80.0, 0.0, 3.0])
    assert m.day_closes(curve, 3).tolist() == [100.0, 90.0, 0.0]
    # a NaN is no bust: the curve is read on past it
    assert np.isnan(m.until_bust(np.array([1.0, np.nan, 2.0]))[1])


# --- the scorecard's metrics -----------------------------------------------------------
def test_total_return_and_pnl() -> None:
    assert close(m.total_return_pct(ARM), 8.9)  # (108.9 / 100 - 1) * 100
    assert close(m.pnl(ARM), 8.9)  # 108.9 - 100
    assert m.total_return_pct(BUST) == -100.0  # read to the bust: 0 / 100 - 1
    assert m.pnl(BUST) == -100.0  # not 30 - 100


def test_sharpe_is_mean_over_sample_std_times_sqrt_252() -> None:
    # mean = 0.1/3 = 1/30; deviations 1/15, -2/15, 1/15; var (ddof=1) = (6/225)/2 = 1/75
    # mean / std = (1/30) * sqrt(75) = 1/sqrt(12); times sqrt(252) = sqrt(21) = 4.58257569...
    assert close(m.sharpe(ARM, 1), 4.58257569495584)
    # two steps a day: returns 0.04, -5/104, 21/99 -> mean 0.0680148, std 0.1323442
    # 0.0680148 / 0.1323442 * sqrt(252) = 8.15841853...
    curve = np.array([100.0, 104.0, 110.0, 99.0, 108.9, 120.0])
    assert close(m.sharpe(curve, 2), 8.158418534677033)
    # bust: returns -0.5, -1.0 -> mean -0.75, std sqrt(0.125) -> -0.75/0.353553 * 15.874508
    assert close(m.sharpe(BUST, 1), -33.67491648096547)


def test_sharpe_is_zero_when_undefined() -> None:
    assert m.sharpe(np.array([100.0, 110.0]), 1) == 0.0  # one day return
    assert m.sharpe(np.full(5, 100.0), 1) == 0.0  # no variation


def test_max_drawdown_turnover() -> None:
    assert close(m.max_drawdown_pct(ARM), 10.0)  # (110 - 99) / 110 * 100
    assert m.max_drawdown_pct(BUST) == 100.0  # (100 - 0) / 100 * 100, never 120
    # the deepest fall is from an earlier, lower peak: (100 - 80) / 100, not / 120
    assert close(m.max_drawdown_pct(np.array([100.0, 80.0, 120.0, 110.0])), 20.0)
    # 50 / mean(100, 110, 99, 108.9) = 50 / 104.475
    assert close(m.turnover(50.0, ARM), 0.47858339315625753)
    assert close(m.turnover(50.0, BUST), 1.0)  # 50 / mean(100, 50, 0)


# --- the tearsheet's metrics -----------------------------------------------------------
def test_annual_return_is_compounded_over_252_days() -> None:
    # (108.9 / 100) ** (252 / 3) - 1 = 1.089 ** 84 - 1 = 1288.2641..., in percent
    assert close(m.annual_return_pct(ARM, 1), 128826.41288883594)
    assert m.annual_return_pct(BUST, 1) == -100.0  # 0 ** (252 / 2) - 1
    assert math.isnan(m.annual_return_pct(np.array([100.0]), 1))  # no day return


def test_annual_volatility_is_sample_std_times_sqrt_252() -> None:
    # sqrt(1/75) * sqrt(252) = sqrt(3.36) = 1.83303028, in percent
    assert close(m.annual_volatility_pct(ARM, 1), 183.30302779823364)
    assert math.isnan(m.annual_volatility_pct(np.array([100.0, 110.0]), 1))


def test_sortino_divides_by_downside_deviation_over_every_day() -> None:
    # downside = sqrt((0 + 0.01 + 0) / 3) = sqrt(1/300); (1/30) / sqrt(1/300) = 1/sqrt(3)
    # times sqrt(252) = sqrt(84) = 9.16515139
    assert close(m.sortino(ARM, 1), 9.16515138991168)
    assert math.isnan(m.sortino(np.array([100.0, 101.0, 102.0]), 1))  # no losing day


def test_calmar_is_annual_return_over_max_drawdown() -> None:
    assert close(m.calmar(ARM, 1), 12882.641288883595)  # 128826.41288883594 / 10
    assert math.isnan(m.calmar(np.array([100.0, 101.0, 102.0]), 1))  # no drawdown
    assert m.calmar(BUST, 1) == -1.0  # -100 / 100


def test_hit_rate_counts_days_above_zero() -> None:
    assert close(m.hit_rate_pct(ARM, 1), 200 / 3)  # 2 of 3 days up
    assert m.hit_rate_pct(np.array([100.0, 100.0, 101.0]), 1) == 50.0  # a flat day misses


def test_average_gross_exposure_is_mean_exposure_over_equity_while_solvent() -> None:
    # (0/100 + 100/110 + 55/99 + 0/108.9) / 4 = (0.909091 + 0.555556) / 4
    assert close(
        m.average_gross_exposure(np.array([0.0, 100.0, 55.0, 0.0]), ARM), 0.36616161616161613
    )
    # bust: the zero and everything after it are left out: (100/100 + 150/50) / 2
    assert m.average_gross_exposure(np.array([100.0, 150.0, 40.0, 9.0]), BUST) == 2.0


def test_beta_alpha_tracking_error_information_ratio() -> None:
    # arm 0.1, -0.1, 0.1 (mean 1/30); benchmark 0.05, -0.04, 0.05 (mean 0.02)
    # cov = (1/15*0.03 + 2/15*0.06 + 1/15*0.03) / 2 = 0.006; var(bench) = 0.0054 / 2 = 0.0027
    assert close(m.beta(ARM, BENCH, 1), 20 / 9)  # 0.006 / 0.0027
    # (1/30 - 20/9 * 0.02) * 252 * 100 = (-1/90) * 25200
    assert close(m.alpha_pct(ARM, BENCH, 1), -280.0)
    # active 0.05, -0.06, 0.05: mean 0.04/3, var (ddof=1) = 0.0080667 / 2 = 0.0040333
    # std 0.0635085 * sqrt(252) * 100
    assert close(m.tracking_error_pct(ARM, BENCH, 1), 100.81666528902846)
    # (0.04/3) / 0.0635085 * sqrt(252)
    assert close(m.information_ratio(ARM, BENCH, 1), 3.33278232360425)


def test_an_arm_against_itself() -> None:
    assert close(m.beta(ARM, ARM, 1), 1.0)
    assert close(m.alpha_pct(ARM, ARM, 1), 0.0)
    assert m.tracking_error_pct(ARM, ARM, 1) == 0.0
    assert math.isnan(m.information_ratio(ARM, ARM, 1))


def test_paired_returns_stop_at_the_earlier_bust() -> None:
    arm, bench = m.paired_returns(np.array([100.0, 50.0, 0.0, 0.0]), BENCH, 1)
    assert arm.tolist() == [-0.5, -1.0]
    assert np.allclose(bench, [0.05, -0.04], atol=EXACT)  # the benchmark's first two days


# --- the tearsheet and the scorecard from a run ----------------------------------------
def test_tearsheet_assembles_the_functions_per_arm() -> None:
    equity = pd.DataFrame({"buy_and_hold": BENCH, "mine": ARM})
    exposure = pd.DataFrame({"buy_and_hold": BENCH, "mine": [0.0, 100.0, 55.0, 0.0]})
    sheet = tearsheet(equity, 1, exposure=exposure)
    assert list(sheet.columns) == list(TEARSHEET_COLUMNS)
    assert list(sheet.index) == ["buy_and_hold", "mine"]
    mine = sheet.loc["mine"]
    assert mine["benchmark"] == "buy_and_hold"
    assert close(mine["sharpe"], 4.58257569495584) and close(mine["beta"], 20 / 9)
    assert close(mine["avg_gross_exposure"], 0.36616161616161613)
    assert close(sheet.loc["buy_and_hold", "avg_gross_exposure"], 1.0)
    plain = tearsheet(equity[["mine"]], 1)
    assert plain.loc["mine", "benchmark"] is None and math.isnan(plain.loc["mine", "beta"])
    assert math.isnan(plain.loc["mine", "avg_gross_exposure"])
    named = tearsheet(equity, 1, benchmark="mine")
    assert close(named.loc["buy_and_hold", "beta"], 0.45)  # cov / var(arm) = 0.006 / (1/75)


def test_tearsheet_refuses_an_unknown_benchmark_and_bad_cadence() -> None:
    equity = pd.DataFrame({"mine": ARM})
    with pytest.raises(ConfigError, match="benchmark arm 'spy' is not in the run"):
        tearsheet(equity, 1, benchmark="spy")
    with pytest.raises(ConfigError, match="steps_per_day must be at least 1"):
        tearsheet(equity, 0)


def _independent_sharpe(closes: pd.Series) -> float:
    returns = closes.pct_change().dropna()
    return float(returns.mean() / returns.std(ddof=1) * math.sqrt(252))


@pytest.mark.slow
def test_scorecard_sharpe_at_one_step_a_day_equals_the_equity_series_sharpe() -> None:
    results = evaluate(["buy_and_hold"], seed=7, universe=40, days=10, steps_per_day=1)
    expected = _independent_sharpe(results.equity["buy_and_hold"])
    assert abs(results.scorecard.loc["buy_and_hold", "sharpe"] - expected) < 1e-12


@pytest.mark.slow
def test_scorecard_sharpe_at_six_steps_a_day_is_the_start_and_day_closes_sharpe() -> None:
    results = evaluate(["buy_and_hold", "momentum"], seed=7, universe=40, days=10)
    equity = results.equity
    # the documented anchors: the start (first step's close) and the last step of every day
    points = pd.concat([equity.iloc[[0]], equity.groupby(level="day").tail(1)])
    for arm in equity.columns:
        expected = _independent_sharpe(points[arm])
        assert abs(results.scorecard.loc[arm, "sharpe"] - expected) < 1e-12
    assert results.tearsheet().loc["momentum", "benchmark"] == "buy_and_hold"


# --- probabilistic and deflated Sharpe -------------------------------------------------
def test_sharpe_moments_are_the_sample_moments() -> None:
    sr, n, skew, kurtosis = deflated.sharpe_moments(np.array([0.1, -0.1, 0.1]))
    # SR = 1/sqrt(12); m2 = 2/225, m3 = -4/3375 -> skew = m3 / m2^1.5 = -1/sqrt(2)
    # m4 = 8/50625 * 3 / 3 ... -> kurtosis = m4 / m2^2 = 1.5
    assert close(sr, 1 / math.sqrt(12)) and n == 3
    assert close(skew, -1 / math.sqrt(2)) and close(kurtosis, 1.5)
    assert all(math.isnan(x) for x in deflated.sharpe_moments(np.zeros(4))[::2])


def test_psr_matches_the_published_worked_example() -> None:
    # Bailey & López de Prado (2012), "The Sharpe Ratio Efficient Frontier", J. Risk 15(2):
    # 24 monthly returns, SR = 0.458 per month (1.59 a year); normal returns give PSR(0) =
    # 0.982, the same SR with skewness -2.448 and kurtosis 10.164 gives 0.913.
    # z = 0.458 * sqrt(23) / sqrt(1 + (3 - 1)/4 * 0.458^2) = 2.196491 / 1.051134 = 2.089638
    normal = deflated.probabilistic_sharpe(0.458, 24, 0.0, 3.0)
    assert abs(normal - 0.9816749190910771) < 1e-6 and round(normal, 3) == 0.982
    # z = 2.196491 / sqrt(1 + 2.448 * 0.458 + 9.164/4 * 0.458^2) = 2.196491 / 1.611498
    skewed = deflated.probabilistic_sharpe(0.458, 24, -2.448, 10.164)
    assert abs(skewed - 0.913361083860933) < 1e-6 and round(skewed, 3) == 0.913


def test_dsr_matches_the_published_worked_example() -> None:
    # Bailey & López de Prado (2014), "The Deflated Sharpe Ratio", J. Portfolio Management
    # 40(5), numerical example: N = 100 trials, variance of their annualised Sharpe ratios
    # 1/2, T = 1250 daily returns (250 a year), annualised SR 2.5, skewness -3, kurtosis 10;
    # the paper finds SR0 = 0.1132 (per day) and DSR = 0.9004.
    # SR0 = sqrt(0.5/250) * (0.42278 * z(0.99) + 0.57722 * z(1 - 1/(100e))) = 0.044721 * 2.5306
    variance = 0.5 / 250
    hurdle = deflated.expected_max_sharpe(100, variance)
    assert abs(hurdle - 0.11317200186513214) < 1e-6 and round(hurdle, 4) == 0.1132
    # z = (0.158114 - 0.113172) * sqrt(1249) / sqrt(1 + 3 * 0.158114 + 9/4 * 0.025) = 1.28290
    dsr = deflated.deflated_sharpe(2.5 / math.sqrt(250), 1250, -3.0, 10.0, 100, variance)
    assert abs(dsr - 0.9003968344493903) < 1e-6 and round(dsr, 4) == 0.9004


def test_one_trial_has_nothing_to_deflate_by() -> None:
    assert deflated.expected_max_sharpe(1, 0.3) == 0.0
    # two trials, unit variance: gamma * z(1 - 1/(2e)) = 0.5772157 * 0.9004526
    assert close(deflated.expected_max_sharpe(2, 1.0), 0.5197553442805939)
    psr = deflated.probabilistic_sharpe(0.1, 100, 0.0, 3.0)
    assert deflated.deflated_sharpe(0.1, 100, 0.0, 3.0, 1, 0.3) == psr
    with pytest.raises(ConfigError, match="trials must be a whole number >= 1"):
        deflated.expected_max_sharpe(0, 1.0)


def test_a_bust_arm_is_measured_up_to_the_bust_and_never_across_zero() -> None:
    # clamped at zero from the bust on, as the runner records a bust arm
    equity = pd.DataFrame(
        {
            "buy_and_hold": [100.0, 101.0, 102.0, 103.0, 104.0, 105.0],
            "bust": [100.0, 120.0, 60.0, 0.0, 0.0, 0.0],
        }
    )
    exposure = pd.DataFrame(
        {"buy_and_hold": equity["buy_and_hold"], "bust": [0.0, 240.0, 300.0, 9.0, 9.0, 9.0]}
    )
    row = tearsheet(equity, 1, exposure=exposure).loc["bust"]
    assert row["return_pct"] == -100.0 and row["max_drawdown_pct"] == 100.0
    assert row["annual_return_pct"] == -100.0 and row["calmar"] == -1.0
    # returns +0.2, -0.5, -1.0 (then nothing): mean -0.4333, std 0.6028 -> Sharpe < 0
    assert close(row["sharpe"], (-1.3 / 3) / np.std([0.2, -0.5, -1.0], ddof=1) * math.sqrt(252))
    assert close(row["hit_rate_pct"], 100 / 3)
    assert close(row["avg_gross_exposure"], (0.0 + 2.0 + 5.0) / 3)  # 0/100, 240/120, 300/60
    assert np.isfinite(row[["beta", "alpha_pct", "tracking_error_pct"]].to_numpy(float)).all()
