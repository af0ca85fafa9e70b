"""The bars' digest is pinned: sorting the rows by their codes (text keys) or by pandas
(any other keys) hashes the same bytes, whatever order or types the table comes in."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.engine.historical import bars_digest
from workbench.engine.sample_bars import sample_bars

BARS = sample_bars(days=6, names=3, seed=2)
TEXT_KEYS = "f81ee616230b1fdb38ddaaa6e93cff26aacb4217eea8ed0acd22584872586f1d"


@pytest.mark.parametrize(
    "bars",
    [
        BARS,
        BARS.sample(frac=1.0, random_state=5),
        BARS.astype({"date": object, "symbol": object}),
    ],
    ids=["sorted", "shuffled", "object-keys"],
)
def test_the_digest_of_the_same_bars_is_pinned(bars: pd.DataFrame) -> None:
    assert bars_digest(bars) == TEXT_KEYS


def test_symbols_that_are_numbers_sort_as_numbers() -> None:
    numbered = BARS.assign(symbol=BARS["symbol"].map({"ACME": 10, "BOLT": 9, "CRUX": 100}))
    assert bars_digest(numbered) == (
        "a8d9d6e7268ca1e6048ebde22aad0fb6f6bb9f814ceb25924abd04e720861cb7"
    )


def test_repeated_bars_keep_their_table_order() -> None:
    head = BARS.iloc[:4]
    repeated = pd.concat([head, head.assign(close=head["close"] * 2)])
    assert bars_digest(repeated) == (
        "8b002d4f63ca4f5d563bdca290d92fa4553e5b1c9b386cd1e40a3d15be8e3bc1"
    )
