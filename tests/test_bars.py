"""Strict bar checks: every kind of bad historical data is refused with what to fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench import World, evaluate
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError


def good(dates: int = 25) -> pd.DataFrame:
    rows = []
    for d, day in enumerate(pd.bdate_range("2022-01-03", periods=dates).strftime("%Y-%m-%d")):
        for i, symbol in enumerate(("AAA", "BBB")):
            close = 50.0 + d + 10 * i
            rows.append({"date": day, "symbol": symbol, "open": close - 0.5, "high": close + 1,
                         "low": close - 1, "close": close, "volume": 1000.0 + d})  # fmt: skip
    return pd.DataFrame(rows)


def edited(row: int, **values: object) -> pd.DataFrame:
    frame = good().astype(object)
    for column, value in values.items():
        frame.loc[row, column] = value
    return frame


BAD = {
    "negative volume": (edited(3, volume=-5.0), "bar for BBB on 2022-01-04 has a negative volume"),
    "infinite close": (edited(4, close=np.inf), "AAA on 2022-01-05 has a price that is not finite"),
    "high below low": (
        edited(2, high=40.0),
        "AAA on 2022-01-04 has high 40 below low 50",
    ),
    "close above high": (
        edited(6, close=60.0),
        "AAA on 2022-01-06 has close 60 above high 54",
    ),
    "open below low": (edited(6, open=1.0), "AAA on 2022-01-06 has open 1 below low 52"),
    "zero price": (edited(1, low=0.0), "BBB on 2022-01-03 has a non-positive price \\(low 0\\)"),
    "missing close": (edited(5, close=np.nan), "BBB on 2022-01-05 has no close price"),
    "missing volume": (edited(5, volume=np.nan), "BBB on 2022-01-05 has no volume \\(NaN\\)"),
    "infinite volume": (edited(5, volume=np.inf), "has a volume that is not finite"),
    "blank symbol": (edited(7, symbol="  "), "data row 8 has a blank symbol"),
    "missing symbol": (edited(7, symbol=None), "data row 8 has a blank symbol"),
    "text price": (edited(9, open="n/a"), "data row 10: open 'n/a' is not a number"),
    "text volume": (edited(9, volume="lots"), "data row 10: volume 'lots' is not a number"),
    "unparseable date": (
        edited(11, date="someday"),
        "data row 12 has the date 'someday', which does not parse",
    ),
    "mixed date formats": (
        edited(11, date="01/06/2022"),
        "data row 12 has the date '01/06/2022'.*format of the first date '2022-01-03'",
    ),
    "intraday dates": (
        good().assign(date=lambda f: f["date"] + " 15:30"),
        "data row 1 has the time of day 2022-01-03 15:30:00; historical bars are daily",
    ),
    "missing date": (edited(11, date=None), "data row 12 has no date"),
}


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.slow
def test_each_bad_bar_is_refused_naming_where_and_what(case: str) -> None:
    frame, message = BAD[case]
    with pytest.raises(ConfigError, match=message):
        World(data=frame)


def test_a_symbol_whose_sector_changes_is_refused() -> None:
    frame = good().assign(sector="tech")
    frame.loc[frame.index[-1], "sector"] = "energy"
    with pytest.raises(ConfigError, match="BBB has the sectors 'energy', 'tech'; a symbol keeps"):
        World(data=frame)


def test_columns_that_differ_only_in_case_are_refused() -> None:
    frame = good().assign(Close=lambda f: f["close"])
    with pytest.raises(ConfigError, match="columns 'close' and 'Close' are the same column"):
        World(data=frame)


def test_a_gap_names_the_symbol_and_the_missing_dates() -> None:
    frame = good().drop(index=[5, 9])  # BBB on the 3rd and 5th dates
    with pytest.raises(ConfigError, match="BBB has no bar on 2022-01-05, 2022-01-07 \\(2 of 25"):
        World(data=frame)


def test_empty_and_header_only_files_are_refused_as_such(tmp_path: Path) -> None:
    empty, header = tmp_path / "empty.csv", tmp_path / "header.csv"
    empty.write_text("")
    header.write_text("date,symbol,open,high,low,close,volume\n")
    with pytest.raises(ConfigError, match=r"data file .*empty\.csv is empty"):
        World(data=empty)
    with pytest.raises(ConfigError, match=r"header\.csv has a header but no bars"):
        World(data=header)
    with pytest.raises(ConfigError, match="the DataFrame has a header but no bars"):
        World(data=good().iloc[:0])


def test_a_csv_with_every_check_passing_loads_like_its_dataframe(tmp_path: Path) -> None:
    source = tmp_path / "bars.csv"
    good().to_csv(source, index=False)
    from_file = World(data=source).data
    from_frame = World(data=good()).data
    assert from_file is not None and from_frame is not None
    assert from_file.digest == from_frame.digest


@pytest.mark.parametrize(
    ("option", "value"), [("universe", 5), ("steps_per_day", 6), ("ticks_per_step", 65)]
)
def test_options_without_meaning_on_bars_are_refused_by_name(option: str, value: int) -> None:
    with pytest.raises(ConfigError, match=f"^{option} cannot be set with data="):
        evaluate(["cash"], data=good(), **{option: value})


def test_a_ticker_that_reads_like_a_missing_value_stays_a_ticker(tmp_path: Path) -> None:
    source = tmp_path / "bars.csv"
    good().replace({"symbol": {"AAA": "NA"}}).to_csv(source, index=False)
    data = World(data=source).data
    assert data is not None and sorted(data.mapping.values()) == ["BBB", "NA"]
    edited(3, volume=np.nan).to_csv(source, index=False)
    with pytest.raises(ConfigError, match="BBB on 2022-01-04 has no volume"):
        World(data=source)


@pytest.mark.parametrize("column", ["symbol", "sector"])
def test_text_utf8_cannot_write_is_refused_naming_the_row(column: str) -> None:
    """A DataFrame may hold an unpaired surrogate; it is refused before any run, not met
    as a raw UnicodeEncodeError when the results are written."""
    frame = sample_bars(days=30, names=3, seed=2)
    if column == "sector":
        frame["sector"] = "tech"
    values = frame[column].astype(object).tolist()
    values[4] = str(values[4]) + "\ud800"
    frame[column] = pd.Series(values, dtype=object)
    with pytest.raises(ConfigError, match=rf"data row 5: {column} '.*\\\\ud800' holds an unpaired"):
        evaluate(["momentum"], data=frame)


def test_a_bad_date_on_several_rows_is_named_by_its_first_row() -> None:
    """Each distinct date is parsed once: the row named is still the first that holds it."""
    frame = edited(11, date="someday")
    frame.loc[[4, 11, 17], "date"] = "someday"
    with pytest.raises(ConfigError, match="data row 5 has the date 'someday'"):
        World(data=frame)
    timed = good().astype(object)
    timed["date"] = pd.to_datetime(timed["date"])
    timed.loc[[6, 7, 20], "date"] = pd.Timestamp("2022-01-20 09:30")
    with pytest.raises(ConfigError, match="data row 7 has the time of day 2022-01-20 09:30"):
        World(data=timed)
