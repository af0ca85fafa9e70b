"""``Results.digest`` takes its tables one list per column, and hashes exactly the bytes
of ``to_json()``: for runs with orders, errors and NaN metrics, results read back from
their JSON, and scorecards indexed otherwise."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench.evaluation import Results, evaluate
from workbench.integrations import callable_agent
from workbench.report._data import as_results
from workbench.testing.scripted import contrarian_agent, trend_agent


def _hashed_text(results: Results) -> str:
    return hashlib.sha256(results.to_json().encode()).hexdigest()


def failing(payload: dict[str, Any]) -> dict[str, Any]:
    if payload["day"] % 2:
        raise RuntimeError("no answer today")
    return {"actions": [], "rationale": "hold"}


@pytest.fixture(scope="module")
def runs() -> list[Results]:
    scripted = [trend_agent(every=1), contrarian_agent(every=1), "momentum", "buy_and_hold"]
    return [
        evaluate(scripted, seed=3, universe=8, days=4),
        evaluate([callable_agent(failing, name="failing"), "cash"], seed=1, universe=3, days=4),
        evaluate(["cash"], seed=2, universe=2, days=1),  # no orders, NaN ratios
    ]


def test_the_digest_is_the_sha256_of_the_json_text(runs: list[Results]) -> None:
    assert len(runs[1].errors) > 0 and len(runs[0].orders) > 0 and len(runs[2].orders) == 0
    for results in runs:
        assert results.digest() == _hashed_text(results)


def test_results_read_back_digest_as_their_json_text(runs: list[Results]) -> None:
    for results in runs:
        again = as_results(json.loads(results.to_json()))
        assert again.digest() == _hashed_text(again) == results.digest()


def test_a_scorecard_indexed_otherwise_digests_as_its_json_text(runs: list[Results]) -> None:
    results = runs[0]
    card = results.scorecard
    variants = [
        card.reset_index(),  # a RangeIndex: reset_index names it "index"
        card.rename_axis(None),
        card.set_index(pd.MultiIndex.from_arrays([card.index, np.arange(len(card))])),
        card.assign(extra=pd.array([pd.NA] * len(card), dtype="Int64")),  # pandas' own NA
        card.assign(extra=pd.array(["a"] * len(card), dtype="string")),
    ]
    for scorecard in variants:
        other = Results(
            scorecard=scorecard,
            equity=results.equity,
            orders=results.orders,
            errors=results.errors,
            meta=results.meta,
            exposure=results.exposure,
        )
        assert other.digest() == _hashed_text(other)


@pytest.mark.parametrize(
    ("change", "error"),
    [
        (lambda card: card.drop(columns=["latency_s"]), KeyError),  # no volatile column
        (lambda card: card.rename(columns={"trades": "arm"}), ValueError),  # the index's name
    ],
)
def test_a_scorecard_to_json_refuses_is_refused_by_the_digest(
    runs: list[Results], change: Any, error: type[Exception]
) -> None:
    results = runs[0]
    odd = Results(
        scorecard=change(results.scorecard),
        equity=results.equity,
        orders=results.orders,
        errors=results.errors,
    )
    with pytest.raises(error):
        odd.to_json()
    with pytest.raises(error):
        odd.digest()


def test_errors_without_rows_or_columns_digest_as_their_json_text(runs: list[Results]) -> None:
    results = runs[0]
    for errors in (pd.DataFrame(), pd.DataFrame(index=range(2)), results.errors.iloc[:0]):
        other = Results(
            scorecard=results.scorecard,
            equity=results.equity,
            orders=results.orders.iloc[:0],
            errors=errors,
        )
        assert other.digest() == _hashed_text(other)


def test_equity_of_other_types_digests_as_its_json_text(runs: list[Results]) -> None:
    results = runs[0]
    equity = results.equity
    first, second = equity.columns[:2]
    variants = [
        equity.astype({first: "int64"}),
        equity.astype({first: "float32"}),
        equity.assign(**{first: equity[first].astype(object)}),
        equity.iloc[:0],
        equity[[]],
    ]
    for frame in variants:
        other = Results(
            scorecard=results.scorecard,
            equity=frame,
            orders=results.orders,
            errors=results.errors,
            meta=results.meta,
            exposure=frame.rename(columns={second: "other"}),
        )
        assert other.digest() == _hashed_text(other)
