"""Dollars per arm in the scorecard: priced live calls, a dollar budget that stops an arm
like max_calls does, recorded costs that a replay reports, and unknown prices left unknown."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from workbench.errors import ConfigError
from workbench.evaluation import evaluate
from workbench.integrations import AdapterInfo, CallableAgentAdapter
from workbench.integrations.callable import Answer
from workbench.report import format_scorecard
from workbench.transcript import Transcript

MARKET: dict[str, Any] = {"seed": 5, "universe": 6, "days": 4}
MODEL = "priced-model"
# US dollars per million tokens
TABLE = {MODEL: {"input": 2.0, "output": 8.0, "cached_input": 0.5}}
# Each call: 1,000 input tokens (300 of them cached) and 100 output tokens:
# (700 * 2.0 + 300 * 0.5 + 100 * 8.0) / 1e6 = (1400 + 150 + 800) / 1e6 = 2350e-6 dollars
PER_CALL = 2350e-6


def holder(payload: dict[str, Any]) -> Answer:
    decision = {"actions": [], "rationale": f"hold on day {payload['day']}"}
    return Answer(decision, input_tokens=1000, output_tokens=100, cached_input_tokens=300)


def arm(**options: Any) -> CallableAgentAdapter:
    options.setdefault("info", AdapterInfo(framework="callable", model=MODEL))
    return CallableAgentAdapter(holder, name="priced", **options)


def test_each_call_is_priced_and_the_scorecard_sums_it() -> None:
    results = evaluate(["buy_and_hold", arm(prices=TABLE)], **MARKET)
    card = results.scorecard
    assert card.loc["priced", "model_calls"] == 4
    assert card.loc["priced", "cost_usd"] == pytest.approx(4 * PER_CALL, rel=1e-12)
    assert card.loc["buy_and_hold", "cost_usd"] == 0.0  # a baseline calls no model
    assert "cost $" in format_scorecard(results)


def test_an_arm_without_a_price_costs_unknown_not_zero() -> None:
    card = evaluate([arm()], **MARKET).scorecard
    assert math.isnan(card.loc["priced", "cost_usd"])
    other = evaluate([arm(prices={"another-model": TABLE[MODEL]})], **MARKET).scorecard
    assert math.isnan(other.loc["priced", "cost_usd"])


def test_the_call_past_the_dollar_budget_is_one_budget_row_and_the_arm_holds() -> None:
    # The budget is reached after the second call (2 * 2350e-6 >= 0.0047); the third is
    # the one past it, refused once; the fourth day the arm is asked nothing.
    capped = arm(prices=TABLE, max_cost_usd=0.0047)
    results = evaluate([capped], **MARKET)
    assert capped.calls_made == 2
    assert results.errors["kind"].tolist() == ["BudgetExhausted"]
    assert "budget of 0.0047 US dollars" in results.errors["message"].iloc[0]
    assert "max_cost_usd=" in results.errors["message"].iloc[0]
    card = results.scorecard
    assert card.loc["priced", "cost_usd"] == pytest.approx(2 * PER_CALL, rel=1e-12)
    assert card.loc["priced", "decisions"] == 3


@pytest.mark.slow
def test_a_replay_reports_the_recorded_cost_and_spends_nothing(tmp_path: Path) -> None:
    path = tmp_path / "priced.json"
    recorded = evaluate([arm(prices=TABLE, max_cost_usd=0.0047, recorder=path)], **MARKET)
    usages = [exchange.usage for exchange in Transcript.load(path)]
    assert [u.get("cost_usd") for u in usages] == pytest.approx([PER_CALL, PER_CALL, None])
    assert usages[0]["cached_input_tokens"] == 300

    replayed_arm = CallableAgentAdapter(
        None, name="priced", mode="replay", transcript=path, info=AdapterInfo(model=MODEL)
    )
    replayed = evaluate([replayed_arm], **MARKET)
    assert replayed_arm.calls_made == 0
    assert replayed.digest() == recorded.digest()
    assert replayed.scorecard.loc["priced", "cost_usd"] == pytest.approx(2 * PER_CALL)


def test_a_recording_made_without_prices_replays_an_unknown_cost(tmp_path: Path) -> None:
    path = tmp_path / "unpriced.json"
    evaluate([arm(recorder=path)], **MARKET)
    replayed_arm = CallableAgentAdapter(None, name="priced", mode="replay", transcript=path)
    card = evaluate([replayed_arm], **MARKET).scorecard
    assert math.isnan(card.loc["priced", "cost_usd"])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_cost_usd": 1.0}, "max_cost_usd= needs prices="),
        ({"max_cost_usd": 1.0, "prices": {"other": TABLE[MODEL]}}, "has none"),
        ({"max_cost_usd": -1.0, "prices": TABLE}, "finite number >= 0"),
        ({"prices": {MODEL: {"input": -1, "output": 0, "cached_input": 0}}}, ">= 0"),
        ({"prices": {MODEL: {"input": 1, "output": 0}}}, r"missing \['cached_input'\]"),
    ],
)
def test_a_bad_budget_or_price_table_is_refused_with_the_fix(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        arm(**options)


def test_a_yaml_price_table_prices_an_arm(tmp_path: Path) -> None:
    table = tmp_path / "prices.yaml"
    table.write_text(f"{MODEL}: {{input: 2.0, output: 8.0, cached_input: 0.5}}\n")
    card = evaluate([arm(prices=table)], **MARKET).scorecard
    assert card.loc["priced", "cost_usd"] == pytest.approx(4 * PER_CALL, rel=1e-12)


def test_the_compare_notebook_refuses_a_price_table_that_is_not_there(tmp_path: Path) -> None:
    from workbench.notebooks import parameters as check

    assert check.price_file("prices", "") is None
    with pytest.raises(ConfigError, match="parameter 'prices': no YAML file at"):
        check.price_file("prices", str(tmp_path / "missing.yaml"))
