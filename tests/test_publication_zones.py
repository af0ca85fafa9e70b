"""Publication times whose zone could be read to a wrong instant (review of issue 27):
each is refused naming the fix, and the fix itself is read, as the instant meant."""

from __future__ import annotations

import datetime
import zoneinfo

import pandas as pd
import pyarrow as pa
import pytest

from workbench.engine.textstamps import RowError, published


def read(*written: object) -> list[pd.Timestamp]:
    stamps = published(pd.Series(list(written), dtype=object), "news")
    return [pd.Timestamp(int(stamp), tz="UTC") for stamp in stamps]


def refusal(written: object) -> str:
    with pytest.raises(RowError) as refused:
        read(written)
    return str(refused.value)


def the_fix(message: str) -> str:
    """The time a refusal tells its reader to write: in the brackets after its last
    'write', less what follows an ' if '."""
    start = message.index("(", message.rindex("; write")) + 1
    depth, end = 1, start
    while depth:
        depth += {"(": 1, ")": -1}.get(message[end], 0)
        end += 1
    return message[start : end - 1].split(" if ")[0]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("2023-09-27 18:00:00 +0000 CEST", "2023-09-27T16:00:00Z"),
        ("2016-03-01 10:00:00 +0000 EST", "2016-03-01T15:00:00Z"),
        ("Tue, 01 Mar 2016 10:00:00 +0000 EST", "2016-03-01T15:00:00Z"),
        ("Tue, 01 Mar 2016 10:00:00 +0000 (EST)", "2016-03-01T15:00:00Z"),
        ("2016-03-01 10:00:00 -0800 EST", "2016-03-01T15:00:00Z"),
        # a comment after the abbreviation, and ISO's basic layout (review rts2)
        ("Tue, 01 Mar 2016 10:00:00 +0000 EST (Eastern Standard Time)", "2016-03-01T15:00:00Z"),
        ("2016-03-01 10:00:00 +0000 CEST (Central European Summer Time)", "2016-03-01T08:00:00Z"),
        ("2016-03-01 10:00:00 +0000 EST (EST)", "2016-03-01T15:00:00Z"),
        ("20160301T100000+0000 EST", "2016-03-01T15:00:00Z"),
    ],
)
def test_an_offset_its_abbreviation_contradicts_is_refused_naming_both(
    written: str, meant: str
) -> None:
    message = refusal(written)
    assert "EST" in message or "CEST" in message
    assert "in the tz database" in message
    assert read(the_fix(message)) == [pd.Timestamp(meant)]


@pytest.mark.parametrize(
    "written", ["2016-03-01 10:00:00 +0000 XYZ", "2016-03-01 10:00:00 -0000 ABC"]
)
def test_zero_offset_before_an_unknown_abbreviation_is_refused_as_go_writes_it(
    written: str,
) -> None:
    message = refusal(written)
    assert "as Go writes a time in a zone it could not read" in message
    assert read(the_fix(message)) == [pd.Timestamp("2016-03-01T15:00:00Z")]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("2016-03-01 03:00:00 -0500 PM", "2016-03-01T20:00:00Z"),
        ("Tue, 01 Mar 2016 03:00:00 -0500 PM", "2016-03-01T20:00:00Z"),
        ("Tue, 01 Mar 2016 03:00:00 PM", "2016-03-01T20:00:00Z"),
        ("Tue, 01 Mar 2016 12:30:00 AM", "2016-03-01T05:30:00Z"),
        ("2016-03-01 12:00:00 +0000 pm", "2016-03-01T12:00:00Z"),
    ],
)
def test_a_twelve_hour_marker_is_no_zone_and_the_fix_is_the_24_hour_time(
    written: str, meant: str
) -> None:
    message = refusal(written)
    assert "12-hour clock" in message and "no zone" in message
    assert read(the_fix(message)) == [pd.Timestamp(meant)]


@pytest.mark.parametrize(
    "written",
    [
        "2016-03-01 10:00:00 -0500 EST",
        "2016-03-01 16:00:00 +0100 CET",
        "Tue, 01 Mar 2016 15:00:00 +0000 GMT",
        "2016-03-01 15:00:00 +0000 UTC",
        "2016-03-01 20:30:00 +0530 IST",
        "Tue, 01 Mar 2016 20:30:00 +05:30 (IST)",
        "2016-03-01 15:00:00 +0000 WET",
        "2016-03-01 18:00:00 +0300 ZZZ",
    ],
)
def test_an_abbreviation_that_agrees_with_its_offset_is_read_by_the_offset(written: str) -> None:
    assert read(written) == [pd.Timestamp("2016-03-01T15:00:00Z")]


NEW_YORK = zoneinfo.ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("value", "wall"),
    [
        (datetime.datetime(2016, 3, 13, 2, 30, tzinfo=NEW_YORK), "2016-03-13 02:30:00"),
        (datetime.datetime(2016, 11, 6, 1, 30, tzinfo=NEW_YORK), "2016-11-06 01:30:00"),
        (datetime.datetime(2016, 11, 6, 1, 30, fold=1, tzinfo=NEW_YORK), "2016-11-06 01:30:00"),
        (pd.Timestamp(2016, 3, 13, 2, 30, tz=NEW_YORK), "2016-03-13 02:30:00"),
        (
            pd.Timestamp(datetime.datetime(2016, 11, 6, 1, 30, tzinfo=NEW_YORK)),
            "2016-11-06 01:30:00",
        ),
    ],
)
def test_a_time_object_at_a_wall_time_of_two_instants_is_refused_as_its_text_is(
    value: datetime.datetime, wall: str
) -> None:
    as_text = refusal(f"{wall} America/New_York")
    assert refusal(value).startswith(as_text)


def test_a_time_object_its_zone_places_once_is_read() -> None:
    value = datetime.datetime(2016, 3, 1, 10, tzinfo=NEW_YORK)
    assert read(value, pd.Timestamp(value)) == [pd.Timestamp("2016-03-01T15:00:00Z")] * 2


def test_a_whole_skipped_day_names_the_offsets_before_and_after() -> None:
    message = refusal("2011-12-30 12:00 Pacific/Apia")
    assert "2011-12-30T12:00:00-10:00 or 2011-12-30T12:00:00+14:00" in message


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("2016-03-01 10:00:00 EST5EDT", "2016-03-01T15:00:00Z"),
        ("2016-03-01 19:00:00 Japan", "2016-03-01T10:00:00Z"),
        ("2016-03-01 10:00:00 Zulu", "2016-03-01T10:00:00Z"),
        ("2016-07-01 11:00:00 Eire", "2016-07-01T10:00:00Z"),
        ("2016-03-01 03:00:00 Navajo", "2016-03-01T10:00:00Z"),
        ("2017-04-02 04:20:00 NZ", "2017-04-01T16:20:00Z"),
        ("2016-03-01T10:00Z[UTC]", "2016-03-01T10:00:00Z"),
        ("2016-03-01T10:00:00+00:00[GB]", "2016-03-01T10:00:00Z"),
        ("2016-03-01 05:00:00 Etc/GMT+5", "2016-03-01T10:00:00Z"),
    ],
)
def test_a_tz_database_name_without_a_slash_is_read_by_its_rules(written: str, meant: str) -> None:
    assert read(written) == [pd.Timestamp(meant)]


@pytest.mark.parametrize("written", ["2016-03-01 10:00:00 EST", "2016-03-01 10:00:00 CET"])
def test_an_abbreviation_that_is_also_a_tz_database_name_stays_refused(written: str) -> None:
    assert "its zone written as the abbreviation" in refusal(written)


@pytest.mark.parametrize(
    "written", ["2017-04-02 04:20:00 XZ", "2016-03-01 10:00:00 AUT", "2016-03-01 10:00 localtime"]
)
def test_a_short_name_ending_as_utc_does_is_never_told_it_is_utc(written: str) -> None:
    assert "in UTC but in a layout not read here" not in refusal(written)


def _code_fix(message: str) -> str:
    """The pandas call a refusal suggests, written on ``column``."""
    start = message.index("pd.to_datetime(")
    return message[start : message.index(" if ", start)]


@pytest.mark.parametrize(
    ("column", "meant"),
    [
        (pd.Series(["1456844400000"], dtype="string"), "2016-03-01T15:00:00Z"),
        (pd.Series(["1456844400000"], dtype=object), "2016-03-01T15:00:00Z"),
        (pd.Series([1456844400000]), "2016-03-01T15:00:00Z"),
        (pd.Series(["1456844400"], dtype="string"), "2016-03-01T15:00:00Z"),
        (pd.Series(["42430.625"], dtype="string"), "2016-03-01T15:00:00Z"),
        (pd.Series([42430.625]), "2016-03-01T15:00:00Z"),
        (pd.Series(["20160301150000"], dtype="string"), "2016-03-01T15:00:00Z"),
        (pd.Series([20160301150000]), "2016-03-01T15:00:00Z"),
        (
            pd.Series([datetime.date(2016, 3, 1)], dtype=pd.ArrowDtype(pa.date32())),
            "2016-03-01T21:00:00Z",
        ),
    ],
)
def test_each_suggested_fix_reads_the_users_own_column(column: pd.Series, meant: str) -> None:
    with pytest.raises(RowError) as refused:
        published(column, "news")
    fix = _code_fix(str(refused.value)).replace("frame['published']", "column")
    fixed = eval(fix, {"pd": pd, "column": column})  # the message's own code, tried
    assert [pd.Timestamp(int(stamp), tz="UTC") for stamp in published(fixed, "news")] == [
        pd.Timestamp(meant)
    ]


def test_a_column_of_arrow_dates_is_told_it_has_no_time_of_day() -> None:
    column = pd.Series([datetime.date(2016, 3, 1)], dtype=pd.ArrowDtype(pa.date32()))
    message = refusal_of(column)
    assert "in a column of dates (date32[day][pyarrow]) with no time of day" in message
    assert "timestamp column" not in message


def refusal_of(column: pd.Series) -> str:
    with pytest.raises(RowError) as refused:
        published(column, "news")
    return str(refused.value)


@pytest.mark.parametrize(
    "written",
    [
        "\u200f2016-03-01T15:00:00Z",
        "2016-03-01T10:00:00-05:00\u200e",
        "\u061c2016-03-01T15:00:00Z\u2069",
        "2016-03-01T10:00:00\u201305:00",
        "2016-03-01T15:00:00Z\x00",
    ],
)
def test_format_marks_a_nul_and_an_en_dash_before_the_offset_are_read_as_typed(
    written: str,
) -> None:
    assert read(written) == [pd.Timestamp("2016-03-01T15:00:00Z")]


def test_bytes_that_are_not_utf8_are_refused_naming_the_row() -> None:
    with pytest.raises(RowError, match=r"news row 2 .*bytes that are not UTF-8 text; decode"):
        read(b"2016-03-01T15:00:00Z", b"2016-03-01T15:00:00Z\xff")


@pytest.mark.parametrize(
    "written",
    ["2016-03-01T15:00:00+14:30", "2016-03-01T15:00:00+1459", "Tue, 01 Mar 2016 15:00:00 +1430"],
)
def test_an_offset_past_fourteen_hours_is_refused(written: str) -> None:
    assert "whose offset" in refusal(written) and "is none" in refusal(written)


def test_fourteen_hours_itself_is_read() -> None:
    assert read("2016-03-02T05:00:00+14:00") == [pd.Timestamp("2016-03-01T15:00:00Z")]


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("2016-03-01 10:00:00 -0300 -03", "2016-03-01T13:00:00Z"),
        ("2016-03-01 20:30:00 +0530 +0530", "2016-03-01T15:00:00Z"),
        ("2016-03-01 15:00:00 +0000 +0000", "2016-03-01T15:00:00Z"),
    ],
)
def test_go_numeric_abbreviation_equal_to_its_offset_is_read(written: str, meant: str) -> None:
    assert read(written) == [pd.Timestamp(meant)]


def test_a_two_digit_offset_its_abbreviation_contradicts_is_refused() -> None:
    message = refusal("Tue, 01 Mar 2016 10:00:00 -03 EST")
    assert "its offset -03 followed by the abbreviation 'EST', which is -05:00" in message
    assert read(the_fix(message)) == [pd.Timestamp("2016-03-01T15:00:00Z")]


def test_24_00_before_a_zones_name_is_told_the_start_of_the_next_day() -> None:
    message = refusal("2016-03-01 24:00 America/New_York")
    assert message.endswith("write the start of the next day, 2016-03-02 00:00:00 America/New_York")
    assert read(message.rsplit(", ", 1)[1]) == [pd.Timestamp("2016-03-02T05:00:00Z")]


@pytest.mark.parametrize("written", ["2016-03-01T10:00:00-05 EST", "2016-03-01 10:00 -05 EST"])
def test_a_two_digit_offset_its_abbreviation_agrees_with_is_read(written: str) -> None:
    """Refused before as an abbreviation alone, with a fix (…-05-05:00) itself refused
    (review rts2 M-C)."""
    assert read(written) == [pd.Timestamp("2016-03-01T15:00:00Z")]
