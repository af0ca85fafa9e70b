"""Why a publication time no reading takes is refused, and the form to write instead:
no offset (an abbreviation, a zone in a layout not read, a 12-hour clock, a date alone),
a number standing for a time (a compact time, a count since 1970, a spreadsheet's day),
an offset past any zone's, and a time that matched a layout but is no date."""

from __future__ import annotations

import re

import pandas as pd

from workbench.engine.textshared import (
    AFTER,
    EARLIEST,
    UTC_NAMES,
    first,
    hours_minutes,
    outside_the_years,
    quoted,
    said_of,
)
from workbench.engine.textzones import ZONE_NAME


def no_date(value: str, iso: str) -> str:
    """Why a time that matched a layout is no date, naming what is wrong when it can be
    told: a digit other than 0-9, a leap second or 24:00 (each refused with the time to
    write instead; ``iso`` is the time as rewritten, with its offset)."""
    shown = quoted(value)
    foreign = _foreign_digit(value)
    if foreign is not None:
        return said_of(value, foreign)
    leap = _LEAP_SECOND.match(iso)
    before = _stamp_or_none(f"{leap['minute']}:59{leap['zone']}") if leap else None
    if before is not None:
        return (
            f"has the publication time {shown}, a leap second (second 60), which a "
            "timestamp here cannot hold (pandas counts no leap seconds); write the second "
            f"before, {before.isoformat()}, or the one after, "
            f"{(before + pd.Timedelta(seconds=1)).isoformat()}, in its place"
        )
    end = _END_OF_DAY.match(iso)
    midnight = _stamp_or_none(f"{end['date']}T00:00:00{end['zone']}") if end else None
    if midnight is not None:
        return (
            f"has the publication time {shown}, 24:00, the end of its day, which a timestamp "
            "here does not hold; write the start of the next day, "
            f"{(midnight + pd.Timedelta(days=1)).isoformat()}"
        )
    year = re.match(r"[0-9]{4}", iso)
    if year and not EARLIEST.year <= int(year[0]) < AFTER.year:
        return outside_the_years(value)
    return f"has the publication time {shown}, which is no date"


def _stamp_or_none(iso: str) -> pd.Timestamp | None:
    stamp = pd.to_datetime(iso, format="ISO8601", errors="coerce")
    return None if pd.isna(stamp) else stamp


def _foreign_digit(value: str) -> str | None:
    """Why ``value`` cannot be read if it writes a digit other than 0-9 (１, ٢), else None."""
    digit = next((c for c in value if c.isdigit() and not "0" <= c <= "9"), None)
    if digit is None:
        return None
    return (
        f"written with the digit {digit!r} (U+{ord(digit):04X}), not one of 0-9; write its "
        "digits as 0-9"
    )


_END_OF_DAY = re.compile(
    r"^(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[T ]24:00(?::00(?:\.0+)?)?"
    r"(?P<zone>[+-][0-9]{2}(?::?[0-9]{2})?)$"
)
_LEAP_SECOND = re.compile(
    r"^(?P<minute>[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}):60(?:\.[0-9]+)?"
    r"(?P<zone>[+-][0-9]{2}(?::?[0-9]{2})?)$"
)


def offsets_past_any_zone(text: pd.Series, iso: pd.Series) -> list[tuple[int, str]]:
    """The first time whose offset no zone has (past 14 hours, or minutes past 59)."""
    past = first(iso.str.contains(_PAST_ANY_ZONE, regex=True, na=False).to_numpy(bool))
    if past is None:
        return []
    return [
        (
            past,
            f"has the publication time {quoted(text.iloc[past])}, whose offset is none: an "
            "offset's hours run to 14 and its minutes to 59 (-05:00 is five hours behind UTC)",
        )
    ]


_PAST_ANY_ZONE = (
    r"[+-](?:1[5-9]|[2-9][0-9])(?::?[0-9]{2})?$|[+-][0-9]{2}:?[6-9][0-9]$"
    r"|[+-]14:?(?:0[1-9]|[1-5][0-9])$"
)


NAIVE = (
    "has the publication time {value} without a time zone; write it with its offset "
    "(2022-01-03T09:30:00-05:00, or Z for UTC) so it can be placed before or after a close"
)
_NAMED_OFFSET = re.compile(
    r"^(?P<time>.*\d)\s*(?P<zone>(?i:GMT|UTC|UT))(?P<offset>[+-]\d{1,2}(?::?\d{2})?)$"
)
_ABBREVIATED = re.compile(r"^(?P<time>.*\d)\s*(?P<zone>[A-Z]{2,5})$")
_OFFSET_SECONDS = re.compile(
    r"^(?P<time>.*\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*"
    r"(?P<offset>(?P<hours>[+-]\d{2}):?(?P<minutes>\d{2}):?\d{2}(?:\.\d+)?)$"
)
_EPOCH = re.compile(r"^[+-]?\d{9,19}(?:\.\d*)?$")
_ZONE_INSIDE = re.compile(rf"(?<![0-9:-])(?:{UTC_NAMES}|[+-][0-9]{{2}}:?[0-9]{{2}})(?![0-9])")
_OFFSET_AFTER = re.compile(
    r"[0-9]{2}:?[0-9]{2}(?::?[0-9]{2}(?:[.,][0-9]+)?)?\s*[+-][0-9]{2}:?[0-9]{2}$"
)
_UTC_TAIL = re.compile(rf"^(?P<time>.*\S)\s*(?<![A-Za-z])(?:{UTC_NAMES}|[Zz])$")
_DATE_ONLY = re.compile(
    rf"^(?P<date>\d{{4}}-\d{{2}}-\d{{2}})\s*(?P<zone>{ZONE_NAME}|[A-Za-z]+|[+-]\d{{2}}:?\d{{2}})$"
)
_TWELVE_HOUR = re.compile(
    r"[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?\s*(?P<half>[AaPp]\.?[Mm]\.?)(?![A-Za-z])"
)
_COMMA_FRACTION = re.compile(r"[0-9]{2}:[0-9]{2}:[0-9]{2},[0-9]")
_NAMED_TAIL = re.compile(rf"^(?P<time>.*\d)\s*(?P<zone>{ZONE_NAME})$")


def unzoned(value: str, written: str) -> str:
    """Why a publication time with no offset is refused, and the fix: a zone written as
    an abbreviation (EST is -05:00 in New York and +10:00 in Sydney; CST is three
    zones) or a bare count from 1970 (in seconds? milliseconds?) is no time for sure."""
    shown = quoted(written)  # as written; ``value`` is read, its letters and layout evened
    return (
        _not_a_clock_time(value, written, shown)
        or _zone_not_read(value, shown)
        or _a_number(value, shown)
        or NAIVE.format(value=shown)
    )


def _not_a_clock_time(value: str, written: str, shown: str) -> str | None:
    """Why a time written with no offset cannot be read for what it writes before its
    zone (its digits, its clock, its date alone), if it cannot."""
    foreign = _foreign_digit(value)
    if foreign is not None:
        return said_of(written, foreign)
    twelve_hour = _TWELVE_HOUR.search(value)
    if twelve_hour:
        return (
            f"has the publication time {shown}, its hour on a 12-hour clock "
            f"({twelve_hour['half']!r}), in a layout not read here; write it as ISO 8601 on a "
            "24-hour clock, with its offset (2016-03-01T15:00:00-05:00 for 3:00 PM in New "
            "York's winter)"
        )
    if not any(character.isdigit() for character in value):
        return (
            f"has the publication time {shown}, which holds no date or time; write when the "
            "item came out, with its offset (2016-03-01T10:00:00-05:00)"
        )
    date_only = _DATE_ONLY.match(value)
    if date_only:
        return (
            f"has the publication time {shown}, a date with no time of day, which could be "
            "before or after that day's close; write the time "
            f"({date_only['date']}T16:00:00-05:00 if it came out at New York's close)"
        )
    if _COMMA_FRACTION.search(value):
        return (
            f"has the publication time {shown}, its fraction of a second after a comma; "
            "write it after a point (2016-03-01T15:00:00.5Z)"
        )
    return None


def _zone_not_read(value: str, shown: str) -> str | None:
    """Why a time whose zone is written in a way not read is refused, if it is."""
    named_zone = _NAMED_TAIL.match(value)
    if named_zone:
        return (
            f"has the publication time {shown}, its zone named {named_zone['zone']!r} but in a "
            "layout not read here; write it as ISO 8601 before the zone's name (2016-03-01 "
            "10:00:00 America/New_York) or with its offset (2016-03-01T10:00:00-05:00)"
        )
    in_utc = _UTC_TAIL.match(value)
    if in_utc:
        return (
            f"has the publication time {shown}, in UTC but in a layout not read here (ISO "
            "8601, or e-mail's RFC 2822); write it as 2016-03-01T15:00:00Z or "
            "Tue, 01 Mar 2016 15:00:00 GMT"
        )
    named = _NAMED_OFFSET.match(value)
    if named:
        return (
            f"has the publication time {shown}, its zone written as "
            f"{named['zone'] + named['offset']!r}, which reads two ways: {named['offset']} "
            "from UTC as people write it, the opposite sign in POSIX zone names (Etc/GMT+5 "
            "is UTC-05:00); write the offset alone "
            f"({named['time']}{hours_minutes(named['offset'])} if {named['offset']} is "
            "meant as people write it)"
        )
    abbreviated = _ABBREVIATED.match(value)
    if abbreviated:
        return (
            f"has the publication time {shown}, its zone written as the abbreviation "
            f"{abbreviated['zone']!r}, which names no offset for sure (EST is -05:00 in New "
            "York and +10:00 in Australia, CST three zones); write the offset instead "
            f"({abbreviated['time']}-05:00 if it is New York's winter time, +00:00 for UTC)"
        )
    seconds = _OFFSET_SECONDS.match(value)
    if seconds:
        return (
            f"has the publication time {shown}, its offset {seconds['offset']!r} written "
            "with seconds, which an offset here cannot hold; write hours and minutes "
            f"({seconds['time']}{seconds['hours']}:{seconds['minutes']}), moving the time "
            "by the seconds dropped if they matter"
        )
    if _EPOCH.match(value) is None and (_ZONE_INSIDE.search(value) or _OFFSET_AFTER.search(value)):
        return (
            f"has the publication time {shown}, with a zone but in a layout not read here; "
            "write it as ISO 8601 (2016-03-01T15:00:00+05:30) or as e-mail does (Tue, 01 "
            "Mar 2016 15:00:00 +0530)"
        )
    return None


def _a_number(value: str, shown: str) -> str | None:
    """Why a number standing for a time is refused (a compact time, a count since 1970, a
    spreadsheet's day), with the times it could be."""
    compact = _compact_time(value)
    if compact is not None:
        layout_name, layout, when = compact
        return (
            f"has the publication time {shown}, a compact time ({layout_name}, as GDELT writes "
            f"it: {when.isoformat(sep=' ')}) with no offset; write it with its offset, e.g. "
            f"pd.to_datetime(column.astype(str), format={layout!r}).dt.tz_localize('UTC') if "
            "it is in UTC"
        )
    if _EPOCH.match(value):
        return _bare_number(value, shown)
    if _SERIAL_DAY.match(value):
        day = _SPREADSHEETS_DAY_0 + pd.Timedelta(days=float(value))
        return (
            f"has the publication time {shown}, a day number as a spreadsheet counts days "
            f"(from 1899-12-30: {day.round('s').isoformat(sep=' ')}) with no offset; format the "
            "cells as ISO 8601 text with the offset, or read them with "
            "pd.to_datetime(pd.to_numeric(column), unit='D', origin='1899-12-30')"
            ".dt.tz_localize('UTC') if they are in UTC"
        )
    return None


def _compact_time(value: str) -> tuple[str, str, pd.Timestamp] | None:
    """A time written ``YYYYMMDDHHMMSS`` or ``YYYYMMDDHHMM`` (GDELT's layouts): the layout
    as people and as strftime write it, and the time, without an offset."""
    compact = _COMPACT.match(value)
    if compact is None:
        return None
    written, layout = (
        ("YYYYMMDDHHMMSS", "%Y%m%d%H%M%S") if compact["seconds"] else ("YYYYMMDDHHMM", "%Y%m%d%H%M")
    )
    when = pd.to_datetime(compact["digits"], format=layout, errors="coerce")
    return None if pd.isna(when) else (written, layout, when)


# a spreadsheet's day number from 1899-12-30, its fraction the time of day: 1955 to 2119
_SERIAL_DAY = re.compile(r"^[2-7][0-9]{4}(?:\.[0-9]+)?$")
_SPREADSHEETS_DAY_0 = pd.Timestamp("1899-12-30")
_COMPACT = re.compile(r"^(?P<digits>(?:19|20)\d{10}(?P<seconds>\d{2})?)(?:\.0*)?$")
_UNITS = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}


def _bare_number(value: str, shown: str) -> str:
    """Why a bare number is refused, with its own readings: in seconds, and in any other
    unit that gives a time from 1980 to 2099, the unit the fix names."""
    seconds = _counted(value, "s")
    likely = {
        unit: when
        for unit, when in ((unit, _counted(value, unit)) for unit in ("ms", "us", "ns"))
        if when is not None and 1980 <= when.year < 2100
    }
    read = [f"in seconds {'beyond 1678-2261' if seconds is None else seconds.isoformat()}"]
    read += [f"in {_UNITS[unit]} {when.isoformat()}" for unit, when in likely.items()]
    unit = next(iter(likely), "s")
    return (
        f"has the publication time {shown}, a bare number, which could count seconds or "
        f"milliseconds since 1970 ({', '.join(read)}); write the time with its offset, e.g. "
        f"pd.to_datetime(pd.to_numeric(column), unit={unit!r}, utc=True) if it counts "
        f"{_UNITS[unit]}"
    )


def _counted(value: str, unit: str) -> pd.Timestamp | None:
    """The time ``value`` counts in ``unit`` since 1970, UTC; None past what a timestamp holds."""
    try:
        when = pd.Timestamp(float(value), unit=unit, tz="UTC")
    except (OverflowError, ValueError):  # past what a timestamp holds
        return None
    return when if EARLIEST <= when < AFTER else None
