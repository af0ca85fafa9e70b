"""What the text checks say of input written another way: what is written and how to write it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from workbench.engine.sample_bars import sample_bars
from workbench.engine.textdata import read_fundamentals, read_news
from workbench.engine.textfeed import TextData
from workbench.errors import ConfigError

SYMBOLS = ("ACME", "BOLT")
WHEN = "2016-03-01T10:00:00-05:00"


THREE = {"symbols": ["ACME"] * 3, "headline": ["a", "b", "c"], "body": [""] * 3}


def news(**columns: Any) -> pd.DataFrame:
    table = {"published": [WHEN, WHEN], "symbols": ["ACME", "BOLT"], "headline": ["a", "b"]}
    return pd.DataFrame({**table, "body": ["", ""], **columns})


def _read_as_when(written: str) -> bool:
    """Whether ``written`` is read as the same instant as WHEN, in a row beside it."""
    read = read_news(news(published=[WHEN, written], headline=["a", "a2"]), SYMBOLS)
    return read["published"].nunique() == 1


def reports(**figures: Any) -> pd.DataFrame:
    return pd.DataFrame({"published": [WHEN, WHEN], "symbol": ["ACME", "BOLT"], **figures})


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("1,234.5", "revenue '1,234.5', a number written with thousands separators; write it "
         "plain: 1234.5"),
        ("12%", r"revenue '12%', a percentage; write the number alone \(12, in a column named "
         r"revenue_pct\) or the share \(0.12\)"),
        ("NA", "revenue 'NA', a missing figure written as text; leave the cell blank"),
        ("NaN", "revenue 'NaN', a missing figure written as text; leave the cell blank"),
        ("$1.5", "revenue '\\$1.5', a number with its currency; write the number alone: 1.5"),
    ],
)  # fmt: skip
def test_a_figure_written_another_way_is_told_how_to_write_it(written: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"fundamentals row 2 has {message}"):
        read_fundamentals(reports(revenue=["1.0", written]), SYMBOLS)


def test_a_column_of_figures_written_with_separators_is_not_told_to_go(tmp_path: Path) -> None:
    path = tmp_path / "reports.csv"
    path.write_text(f'published,symbol,revenue\n{WHEN},ACME,NA\n{WHEN},BOLT,"1,234.5"\n')
    with pytest.raises(ConfigError, match="row 1 has revenue 'NA', a missing figure written"):
        read_fundamentals(path, SYMBOLS)


def test_a_dataframes_bad_row_is_named_by_its_index_label_too() -> None:
    table = news(published=[WHEN, "2016-03-01 10:00"]).set_axis(["first", "second"])
    bars = sample_bars(days=60, names=2, seed=5)
    with pytest.raises(ConfigError, match=r"^news row 2 \(index 'second'\) has the publication"):
        TextData.load(bars, news=table)
    with pytest.raises(ConfigError, match=r"^fundamentals row 1 \(index 7\) has eps 'n/a'"):
        TextData.load(bars, fundamentals=reports(eps=["n/a", "1"]).set_axis([7, 3]))


@pytest.mark.parametrize("symbols", [{"ACME"}, {"ACME": 1}])
def test_symbols_as_a_set_or_a_mapping_are_refused_clearly(symbols: object) -> None:
    kind = type(symbols).__name__
    with pytest.raises(ConfigError, match=f"news row 2 has the symbols .*, a {kind}, which is no"):
        read_news(news(symbols=["ACME", symbols]), SYMBOLS)


@pytest.mark.parametrize(
    "written", ["2016-03-01T15:00:00z", "Tue, 01 Mar 2016 10:00:00 -0500", "1 Mar 2016 15:00 +0000"]
)
def test_a_zoned_time_in_another_common_form_is_read(written: str) -> None:
    assert _read_as_when(written)


def test_an_e_mail_time_with_a_zone_abbreviation_is_refused_as_an_abbreviation() -> None:
    with pytest.raises(ConfigError, match="its zone written as the abbreviation 'EST'"):
        read_news(news(published=[WHEN, "Tue, 01 Mar 2016 10:00:00 EST"]), SYMBOLS)


def test_the_last_year_a_timestamp_holds_is_whole() -> None:
    read = read_news(news(published=[WHEN, "2261-12-31T23:00:00Z"]), SYMBOLS)
    assert len(read) == 2
    with pytest.raises(ConfigError, match="outside the years 1678-2261"):
        read_news(news(published=[WHEN, "2262-01-01T00:00:00Z"]), SYMBOLS)


def test_an_embargo_as_a_numpy_duration_has_its_unit() -> None:
    bars = sample_bars(days=60, names=2, seed=5)
    text = TextData.load(bars, news=news(), embargo=np.timedelta64(15, "m"))
    assert text.embargo == pd.Timedelta("15min")


@pytest.mark.parametrize("headline", ["\u200b\u200b", "\ufeff \u200d", "\u00ad"])
def test_a_headline_of_invisible_marks_is_blank(headline: str) -> None:
    with pytest.raises(ConfigError, match="news row 2 has a blank headline"):
        read_news(news(headline=["a", headline]), SYMBOLS)


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (f"{WHEN},ACME,a,b,EXTRA\n", "row 1 has 5 fields where the header has 4 .* needs quotes"),
        (f"{WHEN},ACME,a,b\n{WHEN},BOLT,Acme, Inc. up,b\n", "row 2 has 5 fields where the header"),
        (f"{WHEN},ACME,a\n", "row 1 has 3 fields where the header has 4 .* a field is missing"),
        (f"{WHEN},ACME,a,b\n\n{WHEN},BOLT,c\n", "row 2 has 3 fields"),  # a blank line is no row
    ],
)
def test_a_csv_row_of_another_width_says_so(tmp_path: Path, rows: str, message: str) -> None:
    path = tmp_path / "news.csv"
    path.write_text("published,symbols,headline,body\n" + rows, encoding="utf-8")
    with pytest.raises(ConfigError, match=f"^news {message}"):
        read_news(path, SYMBOLS)


def test_a_csv_with_empty_bodies_is_read(tmp_path: Path) -> None:
    path = tmp_path / "news.csv"
    path.write_text(f"published,symbols,headline,body\n{WHEN},ACME,a,\n{WHEN},BOLT,b,\n")
    assert read_news(path, SYMBOLS)["body"].tolist() == ["", ""]


@pytest.mark.parametrize(
    "written",
    [
        "2016-03-01 15:00 GMT",
        "2016-03-01T15:00:00GMT",
        "2016-03-01 15:00 UTC",
        "Tue, 01 Mar 2016 15:00:00 GMT",  # an RSS pubDate
        "Tue, 01 Mar 2016 15:00:00 UT",
        "1 Mar 2016 15:00 UTC",
        "Tue, 01 Mar 2016 15:00:00 Z",
        "Tue, 1 Mar 2016 15:00:00 GMT",
        "2016-03-01 15:00 gmt",
        "2016-03-01T15:00:00utc",
        "tue, 01 Mar 2016 15:00:00 gmt",
    ],
)
def test_a_time_in_gmt_is_read_as_utc(written: str) -> None:
    assert _read_as_when(written)


def test_an_rss_time_with_a_one_digit_hour_is_read() -> None:
    written = "Tue, 1 Mar 2016 9:00:00 -0600"  # the hour as some feeds write it
    assert _read_as_when(written)


def test_an_offset_with_seconds_is_refused_as_such() -> None:
    with pytest.raises(
        ConfigError,
        match=r"row 2 .*'2016-03-01T20:30:30\+05:30:30', its offset '\+05:30:30' written with "
        r"seconds, .*write hours and minutes \(2016-03-01T20:30:30\+05:30\)",
    ):
        read_news(news(published=[WHEN, "2016-03-01T20:30:30+05:30:30"]), SYMBOLS)


def test_a_missing_timestamp_is_no_publication_time_not_a_time_without_a_zone() -> None:
    zoned = pd.Timestamp(WHEN)
    for published in ([zoned, pd.NaT], [pd.NaT, pd.NaT]):
        with pytest.raises(ConfigError, match=r"row \d has no publication time"):
            read_news(news(published=published), SYMBOLS)
    naive = pd.Series([pd.NaT, pd.Timestamp("2016-03-01 10:00")])
    with pytest.raises(ConfigError, match=r"row 2 has the publication time '2016-03-01 10:00:00'"):
        read_news(news(published=naive), SYMBOLS)


def test_a_timestamp_column_without_a_zone_is_told_to_take_the_zone_it_was_written_in(
    tmp_path: Path,
) -> None:
    frame = news(published=pd.to_datetime([WHEN, WHEN], utc=True).tz_localize(None))
    frame.to_parquet(tmp_path / "news.parquet")
    with pytest.raises(ConfigError) as refused:
        read_news(tmp_path / "news.parquet", SYMBOLS)
    assert "give it the zone its times were written in" in str(refused.value)
    assert ".dt.tz_localize('America/New_York') for New York's clock" in str(refused.value)
    assert "tz_localize('UTC') for times in UTC" in str(refused.value)


@pytest.mark.parametrize(
    ("written", "fix"),
    [
        ("2016-03-01 20:00 GMT+5", "2016-03-01 20:00+05:00"),
        ("2016-03-01 23:00 UTC+8", "2016-03-01 23:00+08:00"),
        ("2016-03-01T20:30:00 UTC+05:30", "2016-03-01T20:30:00+05:30"),
        ("2016-03-01 10:00 gmt-05:00", "2016-03-01 10:00-05:00"),
    ],
)
def test_a_zone_written_as_gmt_or_utc_with_an_offset_is_refused_for_its_two_readings(
    written: str, fix: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=[WHEN, written]), SYMBOLS)
    message = str(refused.value)
    assert message.startswith(f"news row 2 has the publication time {written!r}, its zone")
    assert "reads two ways" in message and "Etc/GMT+5 is UTC-05:00" in message
    assert f"write the offset alone ({fix} if" in message
    assert "without a time zone" not in message


def test_an_rss_time_whose_weekday_is_not_its_dates_is_refused() -> None:
    with pytest.raises(
        ConfigError,
        match=r"^news row 2 has the publication time 'Mon, 01 Mar 2016 15:00:00 GMT', whose "
        r"weekday 'Mon' is not its date's: 1 Mar 2016 is a Tue; fix the date or the weekday",
    ):
        read_news(news(published=[WHEN, "Mon, 01 Mar 2016 15:00:00 GMT"]), SYMBOLS)
    with pytest.raises(
        ConfigError, match=r"row 2 .*'Fri, 31 Feb 2016 15:00:00 GMT', which is no date"
    ):
        read_news(news(published=[WHEN, "Fri, 31 Feb 2016 15:00:00 GMT"]), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "Tuesday, 01 Mar 2016 15:00:00 GMT",  # the weekday in full, in any case
        "TUESDAY, 01 Mar 2016 15:00:00 GMT",
        "Tue 01 Mar 2016 15:00:00 GMT",  # no comma
        "Tue, 01 Mar 2016 15:00:00 +0000 (UTC)",  # an e-mail's comment after the zone
        "Tue, 01 Mar 2016 15:00:00 z",
        "Tue, 01 MAR 2016 15:00:00 GMT",
        "2016-03-01 15:00 GMT+0",  # UTC at offset zero reads one way
        "2016-03-01 15:00 UTC-0",
        "2016-03-01T15:00:00 UTC+00:00",
        "2016-03-01 15:00 UT",
    ],
)
def test_more_forms_of_a_time_in_utc_are_read(written: str) -> None:
    assert _read_as_when(written)


def test_an_rss_time_keeps_its_fraction_of_a_second() -> None:
    read = read_news(news(published=[WHEN, "Tue, 01 Mar 2016 15:00:00.5 GMT"]), SYMBOLS)
    assert np.diff(read["published"].to_numpy()).tolist() == [500_000_000]


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("Tue, 01 Mar 16 15:00:00 GMT", r"its year written as '16', which could be 1916 or "
         r"2016; write all four digits"),
        ("01 Xyz 2016 15:00:00 GMT", r"whose month 'Xyz' is no month's name"),
        ("Foo, 01 Mar 2016 15:00:00 GMT", r"whose weekday 'Foo' is no weekday"),
        ("Fri, 15 Jan 2016 15:00:00 +0060", r"whose offset '\+0060' is none: an offset's "
         r"hours run to 14 and its minutes to 59"),
        ("Tue, 01 Mar 2016 15:00:00 +9999", r"whose offset '\+9999' is none"),
        ("01 Mar 0099 15:00:00 GMT", r"'0099-03-01 15:00:00\+00:00', outside the years"),
        ("Tue, 01 Mar 2016 15:00:00 GMT+5", r"its zone written as 'GMT\+5', which reads two "
         r"ways: .*\(Tue, 01 Mar 2016 15:00:00 \+0500 if \+5 is meant"),
        ("Tue, 01 Mar 2016 15:00:00 EST", r"the abbreviation 'EST', .*write the offset instead "
         r"\(Tue, 01 Mar 2016 15:00:00 -0500 if"),
        ("2016-03-01 UTC", r"a date with no time of day, .*write the time "
         r"\(2016-03-01T16:00:00-05:00 if it came out at New York's close\)"),
    ],
)  # fmt: skip
def test_an_rss_or_dated_time_is_refused_naming_what_is_wrong(written: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"^news row 2 has the publication time .*{message}"):
        read_news(news(published=[WHEN, written]), SYMBOLS)


def test_a_long_refused_time_is_quoted_in_part() -> None:
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=[WHEN, "9" * 30 + "x" * 200_000]), SYMBOLS)
    assert "... (200030 characters)" in str(refused.value) and len(str(refused.value)) < 600


def test_an_rss_time_with_no_space_after_its_comma_or_a_byte_order_mark_is_read() -> None:
    for written in ("Tue,01 Mar 2016 15:00:00 GMT", "\ufeffTue, 01 Mar 2016 15:00:00 GMT"):
        assert _read_as_when(written), written


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("01-Mar-2016 15:00:00 GMT", r"in UTC but in a layout not read here .*write it as "
         r"2016-03-01T15:00:00Z or Tue, 01 Mar 2016 15:00:00 GMT"),
        ("2016-03-01T15:00:00+15:00", r"whose offset is none: an offset's hours run to 14"),
        ("2016-03-01T15:00:00+14:60", r"whose offset is none"),
        ("x\ud800y", r"holds an unpaired surrogate in published, which is no text"),
    ],
)  # fmt: skip
def test_a_time_is_refused_for_what_it_is(written: str, message: str) -> None:
    published = pd.Series([WHEN, written], dtype=object)  # a lone surrogate stays as written
    with pytest.raises(ConfigError, match=f"^news row 2 .*{message}"):
        read_news(news(published=published), SYMBOLS)


def test_the_first_row_no_reading_takes_is_the_one_named() -> None:
    three = {"symbols": ["ACME"] * 3, "headline": ["a", "b", "c"], "body": [""] * 3}
    rss_later = [WHEN, "2016-03-01 15:00", "Tue, 01 Mar 2016 15:00:00 EST"]
    with pytest.raises(ConfigError, match=r"^news row 2 .*'2016-03-01 15:00' without a time zone"):
        read_news(news(published=rss_later, **three), SYMBOLS)
    no_date_first = [WHEN, "2016-13-01T15:00:00Z", "Mon, 01 Mar 2016 15:00:00 GMT"]
    with pytest.raises(ConfigError, match=r"^news row 2 .*, which is no date"):
        read_news(news(published=no_date_first, **three), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "Tue, 01 Mar 2016 20:00:00 +05",  # an offset of hours alone
        "Tue, 01 Mar 2016 20:30:00 +05:30",  # an offset with a colon
        "Tue, 01 Mar 2016 10:00:00 \u22120500",  # a minus sign for the hyphen
        "2016-03-01T10:00:00\u221205:00",
        "2016-03-01T20:30:00 +05:30 (IST)",  # a comment after the zone
        "2016-03-01t15:00:00z",  # both letters in lower case
    ],
)
def test_a_time_with_its_zone_written_loosely_is_read(written: str) -> None:
    assert _read_as_when(written)


def test_a_time_with_a_zone_in_a_layout_not_read_is_told_so() -> None:
    with pytest.raises(ConfigError, match=r"row 2 .*with a zone but in a layout not read here"):
        read_news(news(published=[WHEN, "01.03.2016 15:00:00 +0000"]), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "Tue Mar 01 15:00:00 +0000 2016",  # a social API's created_at
        "Tue Mar 01 10:00:00 -0500 2016",
        "Tue Mar  1 15:00:00 UTC 2016",  # as the date command writes it
        "tue mar 01 20:30:00 +05:30 2016",
        "Mar 01 15:00:00 +0000 2016",
    ],
)
def test_a_time_in_ctimes_order_with_its_offset_is_read(written: str) -> None:
    assert _read_as_when(written)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("Mon Mar 01 15:00:00 +0000 2016", r"whose weekday 'Mon' is not its date's: 1 Mar 2016 "
         r"is a Tue; fix the date or the weekday"),
        ("Tue Mrz 01 15:00:00 +0000 2016", r"whose month 'Mrz' is no month's name"),
        ("Tue Mar 01 15:00:00 +1500 2016", r"whose offset '\+1500' is none"),
        ("Tue Mar 01 15:00:00 +0060 2016", r"whose offset '\+0060' is none"),
        ("Tue Mar 01 15:00:00 +0000 16", r"its year written as '16'"),
        ("Tue Mar 01 10:00:00 EST 2016", r"the abbreviation 'EST', .*write the offset instead "
         r"\(Tue Mar 01 10:00:00 -0500 2016 if"),
        ("Tue Mar 01 15:00:00 +0000 2016", None),
    ],
)  # fmt: skip
def test_a_time_in_ctimes_order_is_checked_as_an_rss_time(
    written: str, message: str | None
) -> None:
    rows = news(published=[WHEN, written, "Tue Feb 30 15:00:00 +0000 2016"], **THREE)
    expected = message or r"'Tue Feb 30 15:00:00 \+0000 2016', which is no date"
    with pytest.raises(ConfigError, match=f"^news row {2 if message else 3} .*{expected}"):
        read_news(rows, SYMBOLS)


def test_a_column_of_timestamps_and_text_is_read_as_text() -> None:
    stamp = pd.Timestamp(WHEN)
    mixed = pd.Series([stamp, "2016-03-01T16:00:00Z", stamp], dtype=object)
    three = {"symbols": ["ACME"] * 3, "headline": ["a", "b", "c"], "body": [""] * 3}
    read = read_news(news(published=mixed, **three), SYMBOLS)
    assert read["published"].nunique() == 2  # WHEN (15:00 UTC) twice, 16:00 UTC once


@pytest.mark.parametrize(
    ("written", "before", "after"),
    [
        ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59+00:00", "2017-01-01T00:00:00+00:00"),
        ("2016-12-31 18:59:60.25 -05:00", "2016-12-31T18:59:59-05:00", "2016-12-31T19:00:00-05:00"),
        ("Sat, 31 Dec 2016 23:59:60 GMT", "2016-12-31T23:59:59+00:00", "2017-01-01T00:00:00+00:00"),
    ],
)
def test_a_leap_second_is_refused_as_one_naming_the_seconds_around_it(
    written: str, before: str, after: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=[WHEN, written]), SYMBOLS)
    assert str(refused.value) == (
        f"news row 2 has the publication time {written!r}, a leap second (second 60), which a "
        "timestamp here cannot hold (pandas counts no leap seconds); write the second before, "
        f"{before}, or the one after, {after}, in its place"
    )


def test_a_second_60_of_no_date_is_no_date() -> None:
    with pytest.raises(ConfigError, match=r"row 2 .*'2016-12-32T23:59:60Z', which is no date$"):
        read_news(news(published=[WHEN, "2016-12-32T23:59:60Z"]), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "2016-03-01 10:00:00 America/New_York",
        "2016-03-01T15:00 Europe/London",
        "2016-03-01 16:00:00 Europe/Berlin",
        "2016-03-01 10:00 US/Eastern",
        "2016-03-01 10:00 Etc/GMT+5",  # the tz database's sign: five hours behind UTC
        "2016-03-01 12:00:00 America/Argentina/Buenos_Aires",
    ],
)
def test_a_time_followed_by_its_zones_name_is_read_by_that_zones_rules(written: str) -> None:
    assert _read_as_when(written)


def test_a_zones_name_gives_each_date_the_offset_its_rules_give_it() -> None:
    summer, winter = "2016-07-01 10:00:00 America/New_York", "2016-01-04 10:00:00 America/New_York"
    read = read_news(news(published=[summer, winter], headline=["a", "b"]), SYMBOLS)
    assert read["published"].tolist() == [
        pd.Timestamp("2016-01-04T15:00Z").value,
        pd.Timestamp("2016-07-01T14:00Z").value,
    ]


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("2016-03-13 02:30:00 America/New_York", "a time America/New_York's clocks skipped when "
         "they moved forward: it reads as 2016-03-13T02:30:00-05:00 or 2016-03-13T02:30:00-04:00, "
         "by the offset before or after; write it with the offset meant"),
        ("2016-11-06 01:30:00 America/New_York", "a time America/New_York's clocks showed twice "
         "when they moved back: it reads as 2016-11-06T01:30:00-04:00 or "
         "2016-11-06T01:30:00-05:00, the first time or the second; write it with the offset meant"),
        ("2016-03-01 10:00:00 Mars/Olympus", "its zone named 'Mars/Olympus', which the tz "
         "database does not hold; write a zone as it names one (America/New_York, Europe/London) "
         "or the offset (2016-03-01T10:00:00-05:00)"),
        ("2016-03-01 10:00:00 america/new_york", "its zone named 'america/new_york', which the tz "
         "database spells 'America/New_York'; write that"),
        ("2016-02-30 10:00:00 America/New_York", "which is no date"),
        ("Tue, 01 Mar 2016 10:00:00 America/New_York", "its zone named 'America/New_York' but in "
         "a layout not read here; write it as ISO 8601 before the zone's name (2016-03-01 "
         "10:00:00 America/New_York) or with its offset (2016-03-01T10:00:00-05:00)"),
    ],
)  # fmt: skip
def test_a_time_in_a_named_zone_that_has_no_one_reading_is_refused(
    written: str, message: str
) -> None:
    published = [WHEN, "Tue, 01 Mar 2016 15:00:00 GMT", "2016-03-01 10:00 Europe/Paris", written]
    four = {"symbols": ["ACME"] * 4, "headline": list("abcd"), "body": [""] * 4}
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=published, **four), SYMBOLS)
    assert str(refused.value) == f"news row 4 has the publication time {written!r}, {message}"


def test_a_date_with_a_zones_name_but_no_time_of_day_is_told_to_write_the_time() -> None:
    with pytest.raises(ConfigError, match=r"row 2 .*, a date with no time of day"):
        read_news(news(published=[WHEN, "2016-03-01 America/New_York"]), SYMBOLS)


@pytest.mark.parametrize(
    ("written", "readings", "unit"),
    [
        (1457000000, "in seconds 2016-03-03T10:13:20+00:00", "'s', utc=True) if it counts seconds"),
        ("1457000000.5", "in seconds 2016-03-03T10:13:20.500000+00:00", "'s'"),
        (1457000000000, "in seconds beyond 1678-2261, in milliseconds 2016-03-03T10:13:20+00:00",
         "'ms', utc=True) if it counts milliseconds"),
        ("1457000000000000000", "in seconds beyond 1678-2261, in nanoseconds "
         "2016-03-03T10:13:20+00:00", "'ns'"),
    ],
)  # fmt: skip
def test_a_bare_number_is_shown_as_the_times_it_could_count(
    written: object, readings: str, unit: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=pd.Series([WHEN, written], dtype=object)), SYMBOLS)
    message = str(refused.value)
    assert f"a bare number, which could count seconds or milliseconds since 1970 ({readings});" in (
        message
    )
    assert f"e.g. pd.to_datetime(pd.to_numeric(column), unit={unit}" in message


@pytest.mark.parametrize(
    ("written", "layout", "time", "strftime"),
    [
        ("20160301150000", "YYYYMMDDHHMMSS", "2016-03-01 15:00:00", "%Y%m%d%H%M%S"),
        (20160301150000, "YYYYMMDDHHMMSS", "2016-03-01 15:00:00", "%Y%m%d%H%M%S"),
        ("201603011500", "YYYYMMDDHHMM", "2016-03-01 15:00:00", "%Y%m%d%H%M"),
    ],
)
def test_a_compact_time_as_gdelt_writes_it_is_told_it_has_no_offset(
    written: object, layout: str, time: str, strftime: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=pd.Series([WHEN, written], dtype=object)), SYMBOLS)
    assert str(refused.value) == (
        f"news row 2 has the publication time {str(written)!r}, a compact time ({layout}, as "
        f"GDELT writes it: {time}) with no offset; write it with its offset, e.g. "
        f"pd.to_datetime(column.astype(str), format={strftime!r}).dt.tz_localize('UTC') if it "
        "is in UTC"
    )


@pytest.mark.parametrize("zone", ["UTC", "America/New_York"])
def test_an_arrow_timestamp_column_with_a_zone_is_read(tmp_path: Path, zone: str) -> None:
    frame = news(published=pd.to_datetime([WHEN, WHEN], utc=True).tz_convert(zone))
    frame.to_parquet(tmp_path / "news.parquet")
    arrow = pd.read_parquet(tmp_path / "news.parquet", dtype_backend="pyarrow")
    assert isinstance(arrow["published"].dtype, pd.ArrowDtype)
    read = read_news(arrow, SYMBOLS)
    assert read["published"].tolist() == [pd.Timestamp(WHEN).value] * 2


def test_an_arrow_timestamp_column_without_a_zone_is_told_to_take_one() -> None:
    naive = pd.Series(pd.to_datetime([WHEN, WHEN], utc=True).tz_localize(None))
    arrow = naive.astype(pd.ArrowDtype(pa.timestamp("us")))
    with pytest.raises(ConfigError, match=r"^news row 1 .* give it the zone its times were"):
        read_news(news(published=arrow), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    ["20160301T150000Z", "20160301T100000-0500", "20160301t150000z", "20160301T100000-05"],
)
def test_a_time_in_iso_8601s_basic_layout_is_read(written: str) -> None:
    assert _read_as_when(written)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("20160301T150000", "'20160301T150000' without a time zone"),
        ("2016-03-01t15:00 (EST)", "'2016-03-01t15:00 \\(EST\\)' without a time zone"),
        ("20160301T1000-0500", "'20160301T1000-0500', with a zone but in a layout not read"),
        ("03/01/2016 10:00:00-0500", "'03/01/2016 10:00:00-0500', with a zone but in a layout"),
    ],
)
def test_a_time_refused_for_its_zone_is_quoted_as_written(written: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"^news row 2 has the publication time {message}"):
        read_news(news(published=[WHEN, written]), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "2016-03-01T10:00-05:00[America/New_York]",  # as Java and RFC 9557 write it
        "2016-03-01T10:00:00-05:00[!America/New_York]",
        "2016-03-01T15:00:00Z[America/New_York]",  # Z: the time in UTC, its zone's offset untold
        "2016-03-01T10:00[America/New_York]",  # the name alone
    ],
)
def test_a_time_with_its_zones_name_in_brackets_is_read(written: str) -> None:
    assert _read_as_when(written)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("2016-03-01T10:00:00-04:00[America/New_York]", "whose offset -04:00 is not "
         "America/New_York's at that time \\(-05:00\\): one of the two is wrong, and which "
         "cannot be told; write the offset meant alone"),
        ("2016-03-01T10:00-05:00[Mars/Olympus]", "its zone named 'Mars/Olympus', which the tz "
         "database does not hold"),
        ("2016-02-30T10:00-05:00[America/New_York]", "which is no date"),
        ("2016-03-13T02:30[America/New_York]", "a time America/New_York's clocks skipped"),
    ],
)  # fmt: skip
def test_a_time_with_a_zone_in_brackets_that_has_no_one_reading_is_refused(
    written: str, message: str
) -> None:
    published = [WHEN, "2016-03-01T10:00-05:00[America/New_York]", written]
    with pytest.raises(ConfigError, match=f"^news row 3 has the publication time '.*', {message}"):
        read_news(news(published=published, **THREE), SYMBOLS)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("2016-03-01T24:00:00Z", "'2016-03-01T24:00:00Z', 24:00, the end of its day, which a "
         "timestamp here does not hold; write the start of the next day, "
         "2016-03-02T00:00:00\\+00:00$"),
        ("2016-03-01 24:00 -05:00", "'2016-03-01 24:00 -05:00', 24:00, the end of its day, .*"
         "2016-03-02T00:00:00-05:00$"),
        ("2016-03-01T24:30:00Z", "'2016-03-01T24:30:00Z', which is no date$"),
        ("2016-03-01T15:00:00,5Z", "'2016-03-01T15:00:00,5Z', its fraction of a second after a "
         "comma; write it after a point \\(2016-03-01T15:00:00.5Z\\)$"),
        ("\uff12\uff10\uff11\uff16-03-01T15:00:00Z", "'２０１６-03-01T15:00:00Z', written with the "
         "digit '２' \\(U\\+FF12\\), not one of 0-9; write its digits as 0-9$"),
        ("\u0662\u0660\u0661\u0666-03-01 15:00", "'٢٠١٦-03-01 15:00', written with the digit '٢' "
         "\\(U\\+0662\\)"),
        ("yesterday", "'yesterday', which holds no date or time; write when the item came out, "
         "with its offset \\(2016-03-01T10:00:00-05:00\\)$"),
        (True, "'True', which holds no date or time"),
    ],
)  # fmt: skip
def test_a_time_that_is_no_date_is_told_what_is_wrong(written: object, message: str) -> None:
    published = pd.Series([WHEN, written], dtype=object)
    with pytest.raises(ConfigError, match=f"^news row 2 has the publication time {message}"):
        read_news(news(published=published), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "2016-03-01\u00a015:00:00Z",  # a space that does not break, as a web page writes one
        "2016-03-01T15:00:00\u202fGMT",
        "Tue,\u00a001\u00a0Mar\u00a02016\u00a015:00:00\u00a0GMT",
    ],
)
def test_a_time_with_spaces_that_do_not_break_is_read(written: str) -> None:
    assert _read_as_when(written)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("9999-12-31T23:59:59.999999999Z", "'9999-12-31T23:59:59.999999999Z', outside the years "
         "1678-2261 a timestamp can hold; fix the year$"),
        (["2016-03-01T15:00Z"], "\"\\['2016-03-01T15:00Z'\\]\", a list, which is no time; write "
         "one time per row, with its offset \\(2016-03-01T10:00:00-05:00\\)$"),
        (pd.Timedelta("1D"), "'1 days 00:00:00', a Timedelta, a duration rather than a time; "
         "write when the item came out, with its offset"),
    ],
)  # fmt: skip
def test_a_value_that_is_no_time_or_out_of_range_is_told_so(written: object, message: str) -> None:
    published = pd.Series([WHEN, written], dtype=object)
    with pytest.raises(ConfigError, match=f"^news row 2 has the publication time {message}"):
        read_news(news(published=published), SYMBOLS)


@pytest.mark.parametrize(
    "written",
    [
        "Tue Mar 01 2016 10:00:00 GMT-0500 (Eastern Standard Time)",  # JavaScript's Date
        "Tue Mar 01 2016 15:00:00 GMT+0000",
        "1 March 2016 15:00 GMT",  # a month's name in full
        "Tuesday, 01 MARCH 2016 15:00:00 GMT",
        "2016-03-01 15:00:00 +0000 UTC",  # as Go writes a time: an abbreviation after the offset
        "2016-03-01 10:00:00 -0500 EST",
        "2016-03-01T10:00:00-05:00 EST",
        "Tue, 01 Mar 2016 15:00:00 +0000 GMT",
        "Tue, 01 Mar 2016 10:00:00 -0500 EST",
    ],
)
def test_more_layouts_with_a_sure_offset_are_read(written: str) -> None:
    assert _read_as_when(written)


@pytest.mark.parametrize(
    ("written", "message"),
    [
        ("Mon Mar 01 2016 15:00:00 GMT+0000", "whose weekday 'Mon' is not its date's"),
        ("Tue, 01 Marchy 2016 15:00:00 GMT", "whose month 'Marchy' is no month's name"),
        ("Tuesday, March 1, 2016 3:00 PM EST", "its hour on a 12-hour clock \\('PM'\\), in a "
         "layout not read here; write it as ISO 8601 on a 24-hour clock, with its offset "
         "\\(2016-03-01T15:00:00-05:00 for 3:00 PM in New York's winter\\)$"),
        ("2016-03-01 3:00 p.m. -05:00", "its hour on a 12-hour clock \\('p.m.'\\)"),
    ],
)  # fmt: skip
def test_more_layouts_are_refused_for_what_is_wrong(written: str, message: str) -> None:
    with pytest.raises(ConfigError, match=f"^news row 2 has the publication time '.*', {message}"):
        read_news(news(published=[WHEN, written]), SYMBOLS)


def test_a_bracketed_time_past_the_years_a_timestamp_holds_is_refused_for_its_year() -> None:
    with pytest.raises(ConfigError, match=r"^news row 2 .*, outside the years 1678-2261"):
        read_news(news(published=[WHEN, "0001-01-01T00:00-05:00[America/New_York]"]), SYMBOLS)


@pytest.mark.parametrize(
    ("written", "day"), [(42430.625, "2016-03-01 15:00:00"), (42430, "2016-03-01 00:00:00")]
)
def test_a_spreadsheets_day_number_is_shown_as_its_day_and_told_it_has_no_offset(
    written: float, day: str
) -> None:
    with pytest.raises(ConfigError) as refused:
        read_news(news(published=pd.Series([WHEN, written], dtype=object)), SYMBOLS)
    message = str(refused.value)
    assert message.startswith(
        f"news row 2 has the publication time {str(written)!r}, a day number as a spreadsheet "
        f"counts days (from 1899-12-30: {day}) with no offset;"
    )
    fix = (
        "pd.to_datetime(pd.to_numeric(column), unit='D', origin='1899-12-30').dt.tz_localize('UTC')"
    )
    assert fix in message
