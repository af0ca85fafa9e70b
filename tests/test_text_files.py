"""A hostile user's news files: the wrong encoding, the wrong separator, not Parquet, symbols
written another way, a missing time spelt as text. Each refused, naming the place and the fix."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest

from workbench.engine.bars import read_bars
from workbench.engine.textdata import read_names, read_news
from workbench.errors import ConfigError

SYMBOLS = ["ACME", "BOLT", "CRUX"]
CSV = (
    "published,symbols,headline,body\n"
    "2016-01-05T09:00:00-05:00,ACME,Acme wins order,Body one.\n"
    "2016-01-06T17:00:00Z,BOLT;CRUX,Acmé and Crux merge,Body two.\n"
)


def written(tmp_path: Path, raw: bytes, name: str = "news.csv") -> Path:
    path = tmp_path / name
    path.write_bytes(raw)
    return path


def test_a_latin_1_file_is_refused_naming_its_line(tmp_path: Path) -> None:
    path = written(tmp_path, CSV.encode("latin-1"))
    with pytest.raises(ConfigError, match=r"news file .*news.csv is not UTF-8 text: line 3 holds"):
        read_news(path, SYMBOLS)


def test_a_utf_16_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"is not UTF-8 text: line 1 holds the byte 0xff"):
        read_news(written(tmp_path, CSV.encode("utf-16")), SYMBOLS)


def test_a_utf_8_file_with_a_byte_order_mark_reads(tmp_path: Path) -> None:
    items = read_news(written(tmp_path, b"\xef\xbb\xbf" + CSV.encode()), SYMBOLS)
    assert items["headline"].tolist() == ["Acme wins order", "Acmé and Crux merge"]


def test_a_names_file_and_a_bars_file_not_in_utf_8_are_refused(tmp_path: Path) -> None:
    names = written(tmp_path, "symbol,name\nACME,Acmé Industries\n".encode("latin-1"), "n.csv")
    with pytest.raises(ConfigError, match=r"names file .*n.csv is not UTF-8 text: line 2"):
        read_names(names)
    bars = "date,symbol,sector,open,high,low,close,volume\n2016-01-04,ACME,Énergie,1,1,1,1,5\n"
    with pytest.raises(ConfigError, match=r"data file .*b.csv is not UTF-8 text: line 2"):
        read_bars(written(tmp_path, bars.encode("latin-1"), "b.csv"))


def test_a_file_that_is_not_parquet_is_refused(tmp_path: Path) -> None:
    path = written(tmp_path, b"published,symbols\n", "news.parquet")
    with pytest.raises(ConfigError, match=r"news file .*news.parquet is not a Parquet file"):
        read_news(path, SYMBOLS)


def test_a_file_separated_by_semicolons_says_so(tmp_path: Path) -> None:
    path = written(tmp_path, CSV.replace(",", ";").encode())
    with pytest.raises(ConfigError, match=r"reads as one column: the file is separated by ';'"):
        read_news(path, SYMBOLS)


@pytest.mark.parametrize("spelt", ["nan", "NaT", "null", "None", "N/A"])
def test_a_missing_time_spelt_as_text_is_an_undated_item(spelt: str) -> None:
    frame = pd.read_csv(io.StringIO(CSV), dtype=str)
    frame.loc[1, "published"] = spelt
    with pytest.raises(ConfigError, match="news row 2 has no publication time; an undated"):
        read_news(frame, SYMBOLS)


@pytest.mark.parametrize(
    ("symbols", "fix"),
    [
        ("['ACME', 'BOLT']", "look like a Python list written as text"),
        ("ACME BOLT", "separate the symbols with ',', ';' or '|'"),
        ("acme", "symbols match in their case: write 'ACME'"),
        ("MSFT", "add that name's bars or drop the row"),
    ],
)
def test_symbols_written_another_way_name_the_fix(symbols: str, fix: str) -> None:
    frame = pd.read_csv(io.StringIO(CSV), dtype=str)
    frame.loc[0, "symbols"] = symbols
    with pytest.raises(ConfigError, match="news row 1 concerns .*" + re.escape(fix)):
        read_news(frame, SYMBOLS)


@pytest.mark.parametrize("name", ["The", "Inc.", "holdings"])
def test_a_company_name_that_is_a_word_of_any_text_is_refused(name: str) -> None:
    from workbench.engine.historical import Historical
    from workbench.engine.sample_bars import sample_bars

    bars = sample_bars(days=30, names=3, seed=1)
    with pytest.raises(ConfigError, match=f"company name '{re.escape(name)}', a word any text"):
        Historical.load(bars, news=read_news_frame(), names={"ACME": ["Acme Industries", name]})


def test_a_report_for_a_symbol_in_lower_case_names_the_fix() -> None:
    from workbench.engine.textdata import read_fundamentals

    reports = pd.DataFrame(
        {"published": ["2016-01-05T07:30:00-05:00"], "symbol": ["acme"], "eps": [1.0]}
    )
    with pytest.raises(ConfigError, match=r"row 1 is for 'acme', .*write 'ACME'"):
        read_fundamentals(reports, SYMBOLS)


def read_news_frame() -> pd.DataFrame:
    return pd.read_csv(io.StringIO(CSV), dtype=str)


def test_a_folder_given_as_the_news_file_is_named_a_folder(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"the news file .* is a folder; pass the .csv"):
        read_news(tmp_path, SYMBOLS)


def test_names_for_a_symbol_in_lower_case_name_the_fix() -> None:
    from workbench.engine.historical import Historical
    from workbench.engine.sample_bars import sample_bars

    bars = sample_bars(days=30, names=3, seed=1)
    with pytest.raises(ConfigError, match=r"names for 'acme', .* write 'ACME'"):
        Historical.load(bars, news=read_news_frame(), names={"acme": "Acme Industries"})


def test_a_timestamp_column_without_a_zone_says_how_to_give_it_one(tmp_path: Path) -> None:
    frame = read_news_frame()
    frame["published"] = pd.to_datetime(frame["published"], utc=True).dt.tz_localize(None)
    frame.to_parquet(tmp_path / "news.parquet")
    with pytest.raises(ConfigError, match=r"without a time zone.*\.dt\.tz_localize\("):
        read_news(tmp_path / "news.parquet", SYMBOLS)
