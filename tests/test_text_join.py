"""Reading a feed fast: the plain timestamp form read without rewriting, symbols split once per
distinct value; every other form and every refusal as before, naming the same row."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench.engine.textdata import read_news
from workbench.errors import ConfigError

SYMBOLS = ["ACME", "BOLT", "CRUX"]


def feed(published: list[Any], symbols: list[Any] | None = None) -> pd.DataFrame:
    count = len(published)
    return pd.DataFrame(
        {
            "published": published,
            "symbols": symbols if symbols is not None else ["ACME"] * count,
            "headline": [f"Item {i}" for i in range(count)],
            "body": [""] * count,
        }
    )


STAMPS = {
    "2016-01-05T09:00:00-05:00": "2016-01-05T14:00:00Z",
    "2016-01-05T09:00-0500": "2016-01-05T14:00:00Z",
    "2016-01-05 09:00:00.250+01": "2016-01-05T08:00:00.250Z",
    "2016-01-05T14:00:00Z": "2016-01-05T14:00:00Z",
    "2016-01-05 14:00 UTC": "2016-01-05T14:00:00Z",
    "2016-01-05 09:00 -05:00": "2016-01-05T14:00:00Z",
    "2016-01-05T09:00:00\u00a0-0500": "2016-01-05T14:00:00Z",
}


def test_every_written_form_lands_on_its_instant_in_one_table() -> None:
    """Plain forms and forms that need their zone rewritten, mixed in one column."""
    items = read_news(feed(list(STAMPS)), SYMBOLS)
    got = sorted(pd.to_datetime(items["published"].to_numpy(np.int64), utc=True))
    assert got == sorted(pd.Timestamp(v) for v in STAMPS.values())


@pytest.mark.parametrize("bad", ["2016-01-05 09:00", "2016-01-05T09:00:00 EST", "٢٠١٦-01-05T09:00"])
def test_a_stamp_without_a_zone_among_plain_ones_names_its_own_row(bad: str) -> None:
    stamps = ["2016-01-05T09:00:00-05:00", "2016-01-06 14:00 UTC", "2016-01-07T09:00-0500", bad]
    with pytest.raises(ConfigError, match="news row 4 has the publication time"):
        read_news(feed(stamps), SYMBOLS)


def test_symbols_read_alike_from_text_lists_and_tuples() -> None:
    written = ["ACME", "BOLT;CRUX", None, "", "ACME", "CRUX | ACME"]
    as_lists = [["ACME"], ["BOLT", "CRUX"], [], [], ["ACME"], ["CRUX", "ACME"]]
    stamps = [f"2016-01-0{i + 1}T09:00:00Z" for i in range(len(written))]
    expected = [("ACME",), ("BOLT", "CRUX"), (), (), ("ACME",), ("CRUX", "ACME")]
    for symbols in (written, as_lists, [tuple(s) for s in as_lists]):
        column = pd.Series(symbols, dtype=object)
        items = read_news(feed(stamps, column.tolist()), SYMBOLS)
        assert items["symbols"].tolist() == expected


@pytest.mark.parametrize("as_list", [False, True])
def test_an_unknown_symbol_is_named_at_its_first_row(as_list: bool) -> None:
    written = ["ACME", "BOLT", "ACME", "BOLT;MSFT", "BOLT;MSFT"]
    symbols: list[Any] = [s.split(";") for s in written] if as_list else written
    stamps = [f"2016-01-0{i + 1}T09:00:00Z" for i in range(len(written))]
    with pytest.raises(ConfigError, match="news row 4 concerns 'MSFT'"):
        read_news(feed(stamps, symbols), SYMBOLS)


def test_text_held_by_arrow_passes_and_a_python_surrogate_is_refused() -> None:
    stamps = ["2016-01-05T09:00:00Z", "2016-01-06T09:00:00Z"]
    arrow = feed(stamps).astype({"headline": "string[pyarrow]", "body": "string[pyarrow]"})
    assert read_news(arrow, SYMBOLS)["headline"].tolist() == ["Item 0", "Item 1"]
    broken = feed(stamps).astype({"headline": object})
    broken.loc[1, "headline"] = "bad \ud800"
    with pytest.raises(ConfigError, match="news row 2 headline holds an unpaired surrogate"):
        read_news(broken, SYMBOLS)
