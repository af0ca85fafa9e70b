"""The fast indented writer gives json's own bytes, or declines."""

from __future__ import annotations

import json

import numpy as np
import pytest

from workbench.evaluation import evaluate
from workbench.evaluation.indented_json import indented
from workbench.evaluation.results import _clean, _records


def _json(value: object) -> str:
    return json.dumps(
        value, indent=2, sort_keys=True, separators=(",", ": "), ensure_ascii=False,
        allow_nan=False,
    )  # fmt: skip


PLAIN = [
    {},
    [],
    {"a": [], "b": {}, "c": [[]], "d": [{}]},
    [1, 2.5, -0.0, 1e300, 5e-324, 10**30, True, False, None, "x"],
    [0.1, 0.2, 0.30000000000000004, 1.0, 7],
    {"z": 1, "a": {"y": [1.5, {"k": "v"}], "b": None}, "é": 'naïve ☃ \u2028 "q" \\ \n\t\x01'},
    {"emoji": "\U0001f600", "surrogate": "\udc80"},
    [np.float64(1.25), np.float64(-3.0)],
    [[1.0, 2.0], [3, 4], ["a", 1.0]],
    "just a string",
    3,
    2.5,
    None,
    ("tuple", 1, [2, (3.0,)]),
]


@pytest.mark.parametrize("value", PLAIN)
def test_plain_data_is_written_as_json_writes_it(value: object) -> None:
    assert indented(value) == _json(value)


@pytest.mark.parametrize(
    "value",
    [
        {1: "an int key"},
        [float("nan")],
        {"inf": float("inf")},
        [np.int64(3)],
        {"set": {1, 2}},
        [object()],
    ],
)
def test_anything_else_is_left_to_json(value: object) -> None:
    assert indented(value) is None


def test_a_run_s_results_are_written_as_json_writes_them() -> None:
    results = evaluate(["buy_and_hold", "momentum", "random"], seed=4, universe=6, days=3)
    data = _clean(results.to_dict(include_volatile=True))
    assert indented(data) == _json(data)


def test_records_are_those_pandas_gives() -> None:
    results = evaluate(["momentum", "random"], seed=2, universe=5, days=2)
    frame = results.orders.copy()
    frame.loc[0, "reason"] = None  # a missing string too
    ours, pandas = _records(frame), frame.to_dict(orient="records")
    assert json.dumps(ours, default=repr) == json.dumps(pandas, default=repr)  # NaN too
