"""Dollars per arm from a price table: arithmetic, refusals, and a shipped recording priced
without running it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.errors import ConfigError
from workbench.evaluation.pricing import (
    CostMeter,
    Price,
    PriceTable,
    transcript_cost,
    transcript_costs,
)

RECORDING = Path(__file__).resolve().parents[1] / "recordings" / "callable-smollm2"
TABLE = {"smollm2-135m-instruct": {"input": 0.5, "output": 2.0, "cached_input": 0.25}}


def test_a_call_costs_fresh_cached_and_output_tokens_at_their_prices() -> None:
    price = Price(input=0.15, output=0.60, cached_input=0.075)
    # 1,000 input tokens of which 400 cached, 200 output:
    # (600 * 0.15 + 400 * 0.075 + 200 * 0.60) / 1e6 = (90 + 30 + 120) / 1e6
    assert price.cost(1000, 200, 400) == pytest.approx(240 / 1e6, rel=1e-15)
    with pytest.raises(ConfigError, match="exceed input tokens"):
        price.cost(10, 0, 11)


def test_a_shipped_recording_is_priced_from_its_transcript_and_nothing_runs() -> None:
    (path,) = sorted((RECORDING / "transcripts").glob("*.json"))
    exchanges = json.loads(path.read_text())["exchanges"]
    fed = sum(e["usage"]["input_tokens"] for e in exchanges)
    said = sum(e["usage"]["output_tokens"] for e in exchanges)
    row = transcript_cost(path, PriceTable.from_mapping(TABLE))
    assert row["model"] == "smollm2-135m-instruct" and row["model_calls"] == len(exchanges)
    assert (row["input_tokens"], row["output_tokens"]) == (fed, said)
    assert row["cost_usd"] == pytest.approx((fed * 0.5 + said * 2.0) / 1e6, rel=1e-15)
    expected = json.loads((RECORDING / "expected_results.json").read_text())
    card = {r["arm"]: r for r in expected["scorecard"]}
    assert fed + said == card[row["arm"]]["tokens"]  # the scorecard's tokens, priced
    unknown = transcript_costs([path], PriceTable.from_mapping({}))
    assert unknown.loc[row["arm"], "cost_usd"] is None  # no price assumed, not 0


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"input": -1, "output": 1, "cached_input": 0}, "input must be a finite number >= 0"),
        ({"input": 1, "output": float("nan"), "cached_input": 0}, "output must be a finite"),
        ({"input": 1, "output": 1}, r"missing \['cached_input'\]"),
        ({"input": 1, "output": 1, "cached_input": 0, "cache": 1}, r"unknown \['cache'\]"),
        ({"input": "1", "output": 1, "cached_input": 0}, "input must be a number"),
        (0.5, "must be a mapping with input, output, cached_input"),
    ],
)
def test_a_bad_price_is_refused_with_the_fix(entry: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        PriceTable.from_mapping({"m": entry})  # type: ignore[dict-item]


def test_a_yaml_price_table_loads_and_a_broken_one_is_refused(tmp_path: Path) -> None:
    good = tmp_path / "prices.yaml"
    good.write_text("gpt-4o-mini: {input: 0.15, output: 0.60, cached_input: 0.075}\n")
    table = PriceTable.load(good)
    assert table.price("gpt-4o-mini") == Price(0.15, 0.60, 0.075)
    assert table.cost("other", {"input_tokens": 5}) is None
    bad = tmp_path / "bad.yaml"
    bad.write_text("gpt-4o-mini: {input: 0.15, output: -2, cached_input: 0}\n")
    with pytest.raises(ConfigError, match="output must be a finite number >= 0"):
        PriceTable.load(bad)
    with pytest.raises(ConfigError, match="cannot read the price table"):
        PriceTable.load(tmp_path / "missing.yaml")


def test_a_dollar_budget_is_reached_by_the_calls_charged_to_it() -> None:
    table = PriceTable.from_mapping(TABLE)
    meter = CostMeter(table, "smollm2-135m-instruct", max_cost_usd=0.001)
    call = {"input_tokens": 1000, "output_tokens": 100}  # (1000 * 0.5 + 100 * 2) / 1e6
    spent = [meter.charge(call) for _ in range(2)]
    assert spent == [pytest.approx(7e-4)] * 2 and meter.exhausted  # the third call is past it
    fresh = CostMeter(table, "smollm2-135m-instruct", max_cost_usd=0.001)
    fresh.charge(call)
    assert not fresh.exhausted
    with pytest.raises(ConfigError, match="needs a price for the model 'gpt-9'"):
        CostMeter(table, "gpt-9", max_cost_usd=1.0)
    with pytest.raises(ConfigError, match="max_cost_usd must be a finite number >= 0"):
        CostMeter(table, "smollm2-135m-instruct", max_cost_usd=-1.0)
