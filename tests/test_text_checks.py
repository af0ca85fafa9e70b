"""The checks on a researcher's news and fundamentals: one test per refusal, row and fix named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench import evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textdata import read_fundamentals, read_names, read_news
from workbench.errors import ConfigError

SYMBOLS = ["ACME", "BOLT", "CRUX"]


def news(**changes: Any) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "published": ["2016-01-05T09:00:00-05:00", "2016-01-06T17:00:00Z"],
            "symbols": ["ACME", "BOLT;CRUX"],
            "headline": ["Acme wins order", "Bolt and Crux merge"],
            "body": ["Body one.", "Body two."],
        }
    )
    for column, (row, value) in changes.items():
        frame[column] = frame[column].astype(object)
        frame.loc[row, column] = value
    return frame


def fundamentals(**changes: Any) -> pd.DataFrame:
    frame = pd.DataFrame(
        {
            "published": ["2016-01-05T07:30:00-05:00", "2016-01-07T07:30:00-05:00"],
            "symbol": ["ACME", "BOLT"],
            "eps": [1.5, 2.0],
        }
    )
    for column, (row, value) in changes.items():
        frame[column] = frame[column].astype(object)
        frame.loc[row, column] = value
    return frame


def test_good_news_and_fundamentals_pass() -> None:
    items = read_news(news(), SYMBOLS)
    assert items["symbols"].tolist() == [("ACME",), ("BOLT", "CRUX")]
    assert items["kind"].tolist() == ["news", "news"]
    assert read_fundamentals(fundamentals(), SYMBOLS)["eps"].tolist() == [1.5, 2.0]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"published": (1, None)}, "news row 2 has no publication time; an undated item"),
        ({"published": (1, "")}, "news row 2 has no publication time"),
        (
            {"published": (0, "2016-01-05 09:00")},
            "news row 1 has the publication time '2016-01-05 09:00' without a time zone",
        ),
        ({"published": (0, "2016-01-05")}, "'2016-01-05' without a time zone"),
        (
            {"published": (0, "2016-13-45T09:00:00Z")},
            "news row 1 has the publication time '2016-13-45T09:00:00Z', which is no date",
        ),
        ({"symbols": (1, "BOLT;MSFT")}, "news row 2 concerns 'MSFT', which the bars do not hold"),
        ({"headline": (0, "  ")}, "news row 1 has a blank headline"),
        ({"headline": (0, "bad \ud800")}, "news row 1 headline holds an unpaired surrogate"),
    ],
)
def test_news_refusals_name_the_row_and_the_fix(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        read_news(news(**changes), SYMBOLS)


def test_a_tz_naive_timestamp_column_is_refused() -> None:
    frame = news()
    frame["published"] = pd.to_datetime(["2016-01-05 09:00", "2016-01-06 09:00"])
    with pytest.raises(ConfigError, match="without a time zone"):
        read_news(frame, SYMBOLS)


def test_a_zoned_timestamp_column_passes_and_lands_in_utc() -> None:
    frame = news()
    frame["published"] = pd.to_datetime(["2016-01-05 09:00", "2016-01-06 09:00"]).tz_localize(
        "America/New_York"
    )
    stamps = read_news(frame, SYMBOLS)["published"]
    assert pd.Timestamp(stamps[0], tz="UTC") == pd.Timestamp("2016-01-05T14:00:00Z")


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (
            news().drop(columns="body"),
            r"needs columns published, symbols, headline, body; missing \['body'\]",
        ),
        (news().iloc[:0], "has a header but no rows"),
        (news().assign(Headline="x"), "has the column 'headline' twice"),
    ],
)
def test_news_table_refusals(frame: pd.DataFrame, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        read_news(frame, SYMBOLS)


def test_news_files_are_refused_when_missing_empty_or_of_another_kind(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such news file"):
        read_news(tmp_path / "absent.csv", SYMBOLS)
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ConfigError, match=r"news file .* is empty"):
        read_news(tmp_path / "empty.csv", SYMBOLS)
    (tmp_path / "news.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"must be a \.csv or \.parquet file"):
        read_news(tmp_path / "news.json", SYMBOLS)


def test_news_round_trips_through_csv_and_parquet(tmp_path: Path) -> None:
    news().to_csv(tmp_path / "news.csv", index=False)
    news().to_parquet(tmp_path / "news.parquet", index=False)
    from_csv = read_news(tmp_path / "news.csv", SYMBOLS)
    pd.testing.assert_frame_equal(from_csv, read_news(tmp_path / "news.parquet", SYMBOLS))
    pd.testing.assert_frame_equal(from_csv, read_news(news(), SYMBOLS))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"published": (0, None)}, "fundamentals row 1 has no publication time"),
        ({"published": (1, "2016-01-07")}, "fundamentals row 2 .* without a time zone"),
        ({"symbol": (1, "")}, "fundamentals row 2 has a blank symbol"),
        ({"symbol": (1, "MSFT")}, "fundamentals row 2 is for 'MSFT', which the bars do not hold"),
        ({"eps": (1, "n/a")}, "fundamentals row 2 has eps 'n/a', a missing figure written as"),
        ({"eps": (1, "abc")}, "fundamentals row 2 has eps 'abc', which is not a number"),
        ({"eps": (0, float("inf"))}, "fundamentals row 1 has eps inf; not finite"),
    ],
)
def test_fundamentals_refusals_name_the_row_and_the_fix(
    changes: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        read_fundamentals(fundamentals(**changes), SYMBOLS)


def test_fundamentals_need_a_figure_column_of_numbers() -> None:
    with pytest.raises(ConfigError, match="at least one figure column"):
        read_fundamentals(fundamentals().drop(columns="eps"), SYMBOLS)
    with pytest.raises(ConfigError, match="holds true/false values"):
        read_fundamentals(fundamentals().assign(eps=[True, False]), SYMBOLS)


def test_a_names_file_needs_symbols_and_names() -> None:
    table = pd.DataFrame({"symbol": ["ACME", "ACME"], "name": ["Acme Industries", "Acme"]})
    assert read_names(table) == {"ACME": ["Acme Industries", "Acme"]}
    with pytest.raises(ConfigError, match="names row 2 has a blank name"):
        read_names(table.assign(name=["Acme", " "]))


BARS = sample_bars(days=40, names=3, seed=5)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"embargo": "-5min"}, "embargo '-5min' is negative"),
        ({"embargo": "soon"}, "embargo 'soon' is not a duration"),
        ({"close_time": "25:99"}, "close_time '25:99' in timezone"),
        ({"timezone": "Mars/Olympus"}, "timezone 'Mars/Olympus'"),
    ],
)
def test_timing_refusals(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Historical.load(BARS, news=news(), **options)


def test_text_on_a_counterfactual_variant_is_refused() -> None:
    with pytest.raises(ConfigError, match="cannot follow the reversed variant"):
        Historical.load(BARS, news=news(), variant="reversed")


def test_news_without_bars_is_refused() -> None:
    with pytest.raises(ConfigError, match="news= and fundamentals= join text to historical bars"):
        evaluate(["cash"], news=news(), days=2, universe=3)


def test_text_given_twice_is_refused() -> None:
    data = Historical.load(BARS, news=news())
    with pytest.raises(ConfigError, match="already carries news or fundamentals"):
        evaluate(["cash"], data=data, news=news())


def test_recording_text_without_bars_is_refused(tmp_path: Path) -> None:
    from workbench.recordings import record

    with pytest.raises(ConfigError, match="join text to historical bars and need data="):
        record(tmp_path / "rec", ["cash"], seed=1, universe=3, days=5, news=news())
    assert not (tmp_path / "rec").exists()
