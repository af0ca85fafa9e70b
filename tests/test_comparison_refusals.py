"""What comparisons, epochs and priced arms refuse or leave unknown, rather than answer
wrongly: repeated seeds, degenerate intervals, merged epochs, factories outside
epochs=, late argument checks, mid-ranked PBO trials, unpriced calls."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ConfigError
from workbench.evaluation import evaluate
from workbench.evaluation.compare import compare, paired_comparison, run_seeds
from workbench.evaluation.overfitting import pbo
from workbench.evaluation.sequential import interval, verdict

SAMPLER = "workbench.testing.scripted:sampler_agent"
SMALL: dict[str, Any] = {"universe": 4, "days": 3}


# --- repeated seeds -----------------------------------------------------------------------
def test_compare_refuses_a_repeated_seed_before_running_it() -> None:
    with pytest.raises(ConfigError, match=r"seeds must be unique.*pass each seed once"):
        compare(["cash", "buy_and_hold"], "cash", [1, 1, 1], **SMALL)


def test_run_seeds_refuses_a_repeated_seed() -> None:
    with pytest.raises(ConfigError, match=r"\[2\] appear more than once"):
        run_seeds(["cash"], [1, 2, 2], **SMALL)


def test_paired_comparison_refuses_one_market_run_twice() -> None:
    run = evaluate(["cash", "buy_and_hold"], seed=1, **SMALL)
    with pytest.raises(ConfigError, match="seed 1 on the same market"):
        paired_comparison([run, run, run], "cash")


def test_paired_comparison_still_takes_one_seed_on_two_markets() -> None:
    runs = [evaluate(["cash", "buy_and_hold"], seed=1, universe=4, days=d) for d in (3, 4)]
    assert paired_comparison(runs, "cash", snooping=False)["seeds"].iloc[0] == 2


# --- degenerate intervals ------------------------------------------------------------------
def test_an_infinite_critical_value_gives_an_infinite_interval_even_without_spread() -> None:
    constant = np.array([4.0, 4.0])  # two seeds: Lai's critical value is still infinite
    assert interval(constant, 0.05, 0.5) == (-math.inf, math.inf)
    assert verdict(constant, 0.05, 0.5, None)[0] == "open"


@pytest.mark.slow
def test_settling_on_a_constant_difference_waits_for_a_finite_critical_value() -> None:
    found = compare(
        ["cash", "buy_and_hold"], "cash", range(1, 11), stop="settled", metric="trades", **SMALL
    )
    assert found.stopping is not None and found.stopping.seeds_used > 2


def test_a_constant_nonzero_difference_has_no_t_p_value_nor_interval() -> None:
    table = pd.DataFrame({"bench": [1.0, 2.0, 3.0], "arm": [5.0, 6.0, 7.0]})
    row = paired_comparison(table, "bench").loc["arm"]
    assert row["mean_diff"] == 4.0
    assert math.isnan(row["p_value"]) and math.isnan(row["ci_low"]) and not row["significant"]


def test_all_zero_differences_keep_p_one() -> None:
    table = pd.DataFrame({"bench": [1.0, 2.0, 3.0], "arm": [1.0, 2.0, 3.0]})
    assert paired_comparison(table, "bench").loc["arm", "p_value"] == 1.0


# --- epochs and factories --------------------------------------------------------------------
def test_two_copies_of_one_factory_are_refused_with_epochs() -> None:
    with pytest.raises(ConfigError, match=r"'sampler\.epoch1', 'sampler\.epoch2' appear more"):
        evaluate(["buy_and_hold", SAMPLER, SAMPLER], seed=1, epochs=2, **SMALL)


def test_a_repeated_baseline_is_refused_with_epochs() -> None:
    with pytest.raises(ConfigError, match="'cash' appear"):
        evaluate(["cash", "cash"], seed=1, epochs=2, **SMALL)


def test_a_factory_string_runs_with_epochs_one() -> None:
    results = evaluate(["buy_and_hold", SAMPLER], seed=1, epochs=1, **SMALL)
    assert list(results.scorecard.index) == ["buy_and_hold", "sampler.epoch1"]


def test_a_factory_string_without_epochs_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"is a factory.*epochs=1.*callable_agent"):
        evaluate(["buy_and_hold", SAMPLER], seed=1, **SMALL)


# --- checked before the first seed -----------------------------------------------------------
def _counting_factory(calls: list[int]) -> Any:
    from workbench.testing.scripted import sampler_agent

    def factory(**options: Any) -> Any:
        agent = sampler_agent(**options)
        original = agent.begin

        def begin(*args: Any, **kwargs: Any) -> Any:
            calls.append(1)
            return original(*args, **kwargs)

        agent.begin = begin  # type: ignore[method-assign]
        return agent

    return factory


@pytest.mark.parametrize("stop", [None, "settled"])
def test_an_unknown_benchmark_is_refused_before_any_seed_runs(stop: Any) -> None:
    calls: list[int] = []
    with pytest.raises(ConfigError, match="benchmark arm 'nope' is not among the arms"):
        compare(["cash", _counting_factory(calls)], "nope", [1, 2, 3, 4], stop=stop,
                epochs=1, **SMALL)  # fmt: skip
    assert calls == []


def test_too_few_trials_are_refused_before_any_seed_runs() -> None:
    calls: list[int] = []
    with pytest.raises(ConfigError, match="trials must be a whole number at least"):
        compare(["cash", _counting_factory(calls)], "cash", [1, 2], trials=1, epochs=1, **SMALL)
    assert calls == []


# --- PBO at the median rank ------------------------------------------------------------------
@pytest.mark.parametrize("trials", [3, 5, 10])
def test_pure_noise_gives_a_pbo_near_one_half_for_odd_and_even_trials(trials: int) -> None:
    # 40 matrices of noise trials x 80 days, 8 blocks (70 splits each); one matrix's PBO has
    # a standard deviation near 0.25, the mean of 40 a standard error near 0.04. The median
    # rank counted whole put three trials at 0.69 and five at 0.60.
    values = [
        pbo(pd.DataFrame(np.random.default_rng(seed).normal(0, 0.01, (80, trials))), blocks=8).pbo
        for seed in range(40)
    ]
    assert abs(float(np.mean(values)) - 0.5) < 0.08


def test_identical_trials_give_a_pbo_of_one_half() -> None:
    days = np.random.default_rng(1).normal(size=(40, 1))
    assert pbo(pd.DataFrame(np.repeat(days, 3, axis=1), columns=list("abc")), blocks=8).pbo == 0.5


# --- dollars: unknown, not free ----------------------------------------------------------------
PRICES = {"scripted-sampler": {"input": 1.0, "output": 2.0, "cached_input": 0.5}}


def test_a_priced_arm_answering_without_token_counts_costs_an_unknown_amount() -> None:
    from workbench.testing.scripted import sampler_agent

    results = evaluate(["cash", sampler_agent(prices=PRICES)], seed=1, universe=3, days=2)
    card = results.scorecard
    assert card.loc["sampler", "model_calls"] > 0 and math.isnan(card.loc["sampler", "cost_usd"])
    assert card.loc["cash", "cost_usd"] == 0.0  # no calls: nothing spent


def test_a_priced_arm_reporting_token_counts_still_has_its_cost() -> None:
    from workbench.integrations import AdapterInfo, CallableAgentAdapter
    from workbench.integrations.callable import Answer

    def holder(payload: Any) -> Answer:
        return Answer({"actions": [], "rationale": "hold"}, input_tokens=1000, output_tokens=100)

    arm = CallableAgentAdapter(holder, name="priced", info=AdapterInfo(model="scripted-sampler"),
                               prices=PRICES)  # fmt: skip
    card = evaluate([arm], seed=1, universe=3, days=2).scorecard
    calls = card.loc["priced", "model_calls"]
    assert card.loc["priced", "cost_usd"] == pytest.approx(calls * (1000 * 1.0 + 100 * 2.0) / 1e6)


# --- epochs read from one seed, and a recording missing an epoch -------------------------------
def test_one_seed_leaves_the_model_share_unknown() -> None:
    from workbench.evaluation.epochs import epoch_comparison

    runs = run_seeds(["buy_and_hold", SAMPLER], [1], epochs=2, **SMALL)
    row = epoch_comparison(runs, "buy_and_hold").loc["sampler"]
    assert math.isnan(row["across_sd"]) and math.isnan(row["model_share"])


def test_a_recording_missing_one_epochs_transcript_says_how_many_it_holds(tmp_path: Any) -> None:
    from workbench.errors import RecordingError
    from workbench.recordings import record, replay

    record(tmp_path / "rec", [SAMPLER, "buy_and_hold"], epochs=3, seed=1, **SMALL)
    (tmp_path / "rec" / "transcripts" / "sampler.epoch2.json").unlink()
    with pytest.raises(RecordingError, match=r"2 of the 3 epochs of arm 'sampler' \(missing: "
                       r"sampler.epoch2\).*record it again with epochs=3"):  # fmt: skip
        replay(tmp_path / "rec")
