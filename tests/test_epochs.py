"""Epochs: each model-backed arm run several times on one path, recorded and replayed
exactly, and read as decision agreement, within- against across-path spread and
path-clustered standard errors."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ConfigError
from workbench.evaluation.compare import run_seeds
from workbench.evaluation.epochs import (
    base_arm,
    epoch_agreement,
    epoch_arms,
    epoch_comparison,
    spread,
)
from workbench.evaluation.results import ERROR_COLUMNS, ORDER_COLUMNS, Results
from workbench.recordings import record, replay
from workbench.testing.scripted import trend_agent

REPO = Path(__file__).resolve().parents[1]
SHIPPED = REPO / "recordings" / "callable-sampler-epochs"
SAMPLER = "workbench.testing.scripted:sampler_agent"
MARKET: dict[str, Any] = {"seed": 5, "universe": 6, "days": 5}


def test_the_shipped_recording_holds_three_epochs_that_decide_differently_and_replays() -> None:
    report = replay(SHIPPED, check=True)
    names = ["sampler.epoch1", "sampler.epoch2", "sampler.epoch3"]
    assert sorted(p.stem for p in (SHIPPED / "transcripts").glob("*.json")) == names
    agreement = epoch_agreement(report.results)["sampler"]
    assert 0.0 <= agreement < 1.0  # the epochs sampled different answers on one path


@pytest.mark.slow
def test_a_recording_with_three_epochs_is_the_same_in_another_process(tmp_path: Path) -> None:
    made = record(tmp_path / "here", [SAMPLER, "buy_and_hold"], epochs=3, **MARKET)
    assert list(made.scorecard.index) == [
        "sampler.epoch1", "sampler.epoch2", "sampler.epoch3", "buy_and_hold"
    ]  # fmt: skip
    assert replay(tmp_path / "here").matched
    code = (
        "from workbench.recordings import record, replay\n"
        f"r = record({str(tmp_path / 'there')!r}, [{SAMPLER!r}, 'buy_and_hold'], epochs=3, "
        f"**{MARKET!r})\n"
        f"print(r.digest(), replay({str(tmp_path / 'there')!r}).matched)"
    )
    env = {"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True, timeout=600)  # fmt: skip
    assert out.stdout.split() == [made.digest(), "True"]


def test_a_replay_asking_for_more_epochs_than_recorded_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"holds only 3 transcript\(s\) of arm 'sampler'"):
        replay(SHIPPED, epochs=4)
    with pytest.raises(ConfigError, match="replay with epochs=3"):
        replay(SHIPPED, epochs=2)
    assert replay(SHIPPED, epochs=3).matched
    with pytest.raises(ConfigError, match=r"ran each arm once \(no epochs\)"):
        replay(REPO / "recordings" / "callable-sync-trend", epochs=2)


@pytest.mark.slow
def test_a_deterministic_arm_agrees_with_itself_and_its_spread_is_the_markets() -> None:
    arms = epoch_arms({"trend": lambda **kw: trend_agent(**kw), "cash": "cash"}, 3)
    assert list(arms) == ["trend.epoch1", "trend.epoch2", "trend.epoch3", "cash"]
    runs = run_seeds(arms, [1, 2, 3], universe=6, days=5)
    table = epoch_comparison(runs, "cash")
    row = table.loc["trend"]
    assert row["agreement"] == 1.0 and row["within_sd"] == 0.0 and row["model_share"] == 0.0
    assert row["epochs"] == 3 and row["seeds"] == 3 and row["across_sd"] > 0


def test_epochs_need_a_factory_and_a_whole_number() -> None:
    with pytest.raises(ConfigError, match="needs a fresh one per epoch"):
        epoch_arms([trend_agent()], 2)
    with pytest.raises(ConfigError, match="whole number >= 1"):
        epoch_arms([SAMPLER], 0)
    assert list(epoch_arms([trend_agent()], 1)) == ["trend"]  # one epoch: the arm as it is
    assert base_arm("gpt-4.1.epoch12") == ("gpt-4.1", 12) and base_arm("x.epoch0")[1] is None


def test_spread_splits_the_variance_into_the_models_and_the_markets() -> None:
    # Two seeds, three epochs: rows are paths. Within-path variances: [1, 4] -> mean 2.5.
    # Path means 1 and 5: across variance 8 (ddof 1). Between-path part of one run's
    # variance: 8 - 2.5 / 3 = 43/6. Model share: 2.5 / (2.5 + 43/6) = 15/58.
    values = np.array([[0.0, 1.0, 2.0], [3.0, 5.0, 7.0]])
    got = spread(values)
    assert got["within_sd"] == pytest.approx(math.sqrt(2.5), rel=1e-15)
    assert got["across_sd"] == pytest.approx(math.sqrt(8.0), rel=1e-15)
    assert got["model_share"] == pytest.approx(15 / 58, rel=1e-14)


def _runs(metric: np.ndarray) -> list[Results]:
    """One run per seed whose scorecards hold ``metric`` (seeds × epochs) and a benchmark at 0."""
    runs = []
    for row in metric:
        names = [f"x.epoch{k + 1}" for k in range(len(row))] + ["bench"]
        card = pd.DataFrame(
            {"return_pct": [*row, 0.0], "decisions": 1}, index=pd.Index(names, name="arm")
        )
        empty_orders = pd.DataFrame(columns=list(ORDER_COLUMNS))
        empty_errors = pd.DataFrame(columns=list(ERROR_COLUMNS))
        runs.append(Results(card, pd.DataFrame(), empty_orders, empty_errors))
    return runs


@pytest.mark.slow
def test_path_clustered_errors_match_statsmodels_cluster_robust_ols() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    seeds, epochs = 7, 4
    metric = rng.normal(size=(seeds, 1)) + 0.3 * rng.normal(size=(seeds, epochs)) + 0.2
    row = epoch_comparison(_runs(metric), "bench").loc["x"]
    groups = np.repeat(np.arange(seeds), epochs)
    fit = sm.OLS(metric.ravel(), np.ones(metric.size)).fit(
        cov_type="cluster", cov_kwds={"groups": groups, "use_correction": True}
    )
    # statsmodels' CR1: G/(G-1) * (N-1)/(N-K); with one regressor (N-1)/(N-K) = 1.
    assert row["mean_diff"] == pytest.approx(float(fit.params[0]), rel=1e-13)
    assert row["se_clustered"] == pytest.approx(float(fit.bse[0]), rel=1e-12)
    naive = sm.OLS(metric.ravel(), np.ones(metric.size)).fit()
    assert row["se_naive"] == pytest.approx(float(naive.bse[0]), rel=1e-12)
    assert row["se_clustered"] > row["se_naive"]  # epochs on one path share its market
    low, high = row["ci_low"], row["ci_high"]
    assert low < row["mean_diff"] < high and 0 < row["p_value"] < 1
    json.dumps(row.to_dict(), default=str)  # plain values for the report


@pytest.mark.slow
def test_evaluate_and_compare_take_epochs_and_the_comparison_reads_them() -> None:
    from workbench.evaluation import evaluate
    from workbench.evaluation.compare import compare

    one = evaluate([SAMPLER, "buy_and_hold"], epochs=2, **MARKET)
    assert list(one.scorecard.index) == ["sampler.epoch1", "sampler.epoch2", "buy_and_hold"]
    assert list(evaluate(trend_agent(), epochs=1, **MARKET).scorecard.index) == ["trend"]
    with pytest.raises(ConfigError, match="epochs must be a whole number >= 1"):
        evaluate([SAMPLER], epochs=0, **MARKET)
    market = {k: v for k, v in MARKET.items() if k != "seed"}
    compared = compare([SAMPLER, "buy_and_hold"], "buy_and_hold", [1, 2, 3], epochs=2, **market)
    table = epoch_comparison(compared.runs, "buy_and_hold")
    assert list(table.index) == ["sampler"] and table.loc["sampler", "seeds"] == 3
    assert {"sampler.epoch1", "sampler.epoch2"} <= set(compared.table.index)
