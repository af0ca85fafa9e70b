"""The scorecard's text column (pandas' ``str``, missing as NaN) is taken one list per
column by ``Results.digest``, as ``to_dict`` takes it: the same records, the same digest."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from workbench.evaluation import Results, evaluate
from workbench.evaluation.columns import VOLATILE_COLUMNS
from workbench.evaluation.results import _card_records, _listed_as_to_dict


@pytest.fixture(scope="module")
def results() -> Results:
    return evaluate(["cash", "momentum"], seed=4, universe=3, days=2)


def _to_dict_records(card: pd.DataFrame) -> list[dict]:
    return card.drop(columns=list(VOLATILE_COLUMNS)).reset_index().to_dict(orient="records")


def test_the_scorecard_text_column_is_pandas_str_missing_as_nan(results: Results) -> None:
    dtype = results.scorecard["last_error"].dtype
    assert isinstance(dtype, pd.StringDtype) and _listed_as_to_dict(dtype)


@pytest.mark.parametrize(
    "values",
    [["", ""], ["boom", None], [np.nan, "é ☃ \x00"], [None, None]],
)
def test_text_missing_as_nan_is_taken_as_to_dict_takes_it(results: Results, values: list) -> None:
    card = results.scorecard.assign(last_error=pd.array(values, dtype="str"))
    taken, expected = _card_records(card), _to_dict_records(card)
    assert repr(taken) == repr(expected)  # NaN where to_dict has NaN, the same strings
    other = Results(
        scorecard=card,
        equity=results.equity,
        orders=results.orders,
        errors=results.errors,
        meta=results.meta,
        exposure=results.exposure,
    )
    assert other.digest() == hashlib.sha256(other.to_json().encode()).hexdigest()


@pytest.mark.parametrize(
    "dtype",
    [pd.StringDtype(), pd.StringDtype("python"), pd.StringDtype("python", na_value=np.nan)],
)
def test_only_text_missing_as_nan_is_taken_a_list_at_a_time(dtype: pd.StringDtype) -> None:
    column = pd.array(["a", None], dtype=dtype)
    listed = pd.Series(column).tolist()
    by_to_dict = [row["x"] for row in pd.DataFrame({"x": column}).to_dict(orient="records")]
    assert _listed_as_to_dict(dtype) == (repr(listed) == repr(by_to_dict))
