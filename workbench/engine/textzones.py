"""Publication times and their zones in the tz database: a wall time its zone's clocks
skipped or showed twice (its two readings), the abbreviations the database writes and a
word after the clock (an abbreviation an offset contradicts, AM or PM), an ISO time
followed by its zone's name, and one with the name in brackets after its offset."""

from __future__ import annotations

import datetime
import functools
import re
import zoneinfo

import numpy as np
import pandas as pd

from workbench.engine.textshared import AFTER, EARLIEST, first, said_of


def zone_name(zone: datetime.tzinfo) -> str:
    return str(getattr(zone, "key", None) or zone)


def two_readings(wall: datetime.datetime, zone: datetime.tzinfo) -> str | None:
    """Why ``wall`` on ``zone``'s clock is no instant for sure, naming its two readings by
    the zone's own offsets before and after its change; None if it is one instant."""
    before = wall.replace(tzinfo=zone, fold=0).utcoffset()
    after = wall.replace(tzinfo=zone, fold=1).utcoffset()
    if before is None or after is None or before == after:
        return None
    if before < after:
        what, readings = "skipped when they moved forward", "by the offset before or after"
    else:
        what, readings = "showed twice when they moved back", "the first time or the second"
    at, name = wall.isoformat(), zone_name(zone)
    return (
        f"a time {name}'s clocks {what}: it reads as {at}{_delta_text(before)} or "
        f"{at}{_delta_text(after)}, {readings}; write it with the offset meant"
    )


def _delta_text(offset: datetime.timedelta) -> str:
    return _minutes_text(int(offset // datetime.timedelta(minutes=1)))


_TRAILING_COMMENT = r"(?:\s*\([^()]{0,80}\))?"
# a word after the clock, its offset between or not: an abbreviation, which Go writes after
# the offset (-0500 EST, or +0000 EST for a zone it could not read), or a 12-hour marker
# (ISO's basic layout writes the clock without colons; a comment may follow the word)
_MARKED = re.compile(
    r"(?P<clock>(?P<hour>[0-9]{1,2}):?[0-9]{2}(?::?[0-9]{2}(?:\.[0-9]+)?)?)\s*"
    r"(?P<offset>[+-][0-9]{2}(?::?[0-9]{2})?)?\s*(?P<word>\(?(?P<mark>[A-Za-z]{1,5}|[AaPp]\.[Mm]\.?)\)?)"
    rf"{_TRAILING_COMMENT}$"
)
_MAYBE_MARKED = re.compile(
    rf"(?:[+-][0-9]{{2}}(?::?[0-9]{{2}})?\s*\(?[A-Za-z]{{1,5}}\)?|[0-9]\s*[AaPp]\.?[Mm]\.?){_TRAILING_COMMENT}$"
)
_HALF_DAY = re.compile(r"(?i:[ap]\.?m\.?)")
_ZERO_NAMES = frozenset(("UTC", "GMT", "UT", "Z"))


def marked_after_the_clock(text: pd.Series, rows: np.ndarray) -> list[tuple[int, str]]:
    """The first time (by row) whose word after the clock cannot be read as it stands: a
    12-hour marker (never a zone), an abbreviation the offset before it contradicts, or
    +0000 before any but UTC's names, which Go writes for a zone it could not read."""
    # a word after an offset or a marker of half a day, looked for only where it can be:
    # the text ends in a letter (or a bracket) and writes a sign, or ends as AM or PM does
    last = text.str.slice(-1)
    signed = text.str.contains("+", regex=False) | text.str.contains("-", regex=False)
    worth = (last.str.isalpha() | (last == ")")) & signed | last.isin(list("Mm."))
    worth_at = np.flatnonzero(worth.to_numpy(bool, na_value=False))
    at = worth_at[text.iloc[worth_at].str.contains(_MAYBE_MARKED).to_numpy(bool)]
    if not len(at):
        return []
    parts = text.iloc[at].str.extract(_MARKED)
    said = parts["mark"].str.upper() + " " + parts["offset"].str.replace(":", "", regex=False)
    unsure = parts["mark"].notna() & ~said.isin(_ABBREVIATIONS_AT_THEIR_OFFSETS)
    for position in at[unsure.to_numpy(bool)]:
        value = str(text.iloc[position])
        marked = _MARKED.search(value)
        why = None if marked is None else _unsure_mark(value, marked)
        if why is not None:
            return [(int(rows[position]), said_of(value, why))]
    return []


# the abbreviations most written, each at its offset, read without a look at the tz database
_ABBREVIATIONS_AT_THEIR_OFFSETS = frozenset(
    [f"{name} {sign}0000" for name in ("UTC", "GMT", "UT", "Z") for sign in "+-"]
    + ["EST -0500", "EDT -0400", "CST -0600", "CDT -0500", "MST -0700", "MDT -0600"]
    + ["PST -0800", "PDT -0700", "BST +0100", "CET +0100", "CEST +0200", "JST +0900"]
)


def _unsure_mark(value: str, marked: re.Match[str]) -> str | None:
    mark, offset = marked["mark"], marked["offset"]
    if _HALF_DAY.fullmatch(mark):
        return _twelve_hour_mark(value, marked)
    if offset is None:
        return None  # an abbreviation alone: refused as one further on
    written = _offset_in_minutes(offset)
    abbreviation = mark.upper()
    known = {0} if abbreviation in _ZERO_NAMES else _abbreviations().get(abbreviation)
    if known is None:
        return None if written else _made_up_offset(value, marked)
    if written in known:
        return None
    return _contradicted(value, marked, sorted(known))


def _twelve_hour_mark(value: str, marked: re.Match[str]) -> str:
    hour, half = int(marked["hour"]), marked["mark"].lower().replace(".", "")
    hour24 = hour % 12 + (12 if half == "pm" and hour <= 12 else 0)
    clock = f"{hour24:02d}{marked['clock'][len(marked['hour']) :]}"
    offset = marked["offset"] or "-0500"
    fix = value[: marked.start()] + f"{clock} {offset}"
    meant = "" if marked["offset"] else " if it is New York's winter time"
    return (
        f"its hour on a 12-hour clock ({marked['mark']!r}), which is no zone; write it on a "
        f"24-hour clock with its offset ({fix}{meant})"
    )


def _made_up_offset(value: str, marked: re.Match[str]) -> str:
    return (
        f"its offset {marked['offset']} followed by the abbreviation {marked['mark']!r}, as Go "
        "writes a time in a zone it could not read (the +0000 made up, not the zone's): "
        "which instant it was cannot be told; write the zone's offset in place of "
        f"{marked['offset']} ({_with_offset(value, marked, '-0500')} if it is five hours "
        "behind UTC)"
    )


def _contradicted(value: str, marked: re.Match[str], known: list[int]) -> str:
    mark, offsets = marked["mark"].upper(), [_minutes_text(minutes) for minutes in known]
    go = (
        " (Go writes +0000 for a zone it could not read)"
        if not _offset_in_minutes(marked["offset"])
        else ""
    )
    fix = _with_offset(value, marked, offsets[0].replace(":", ""))
    return (
        f"its offset {marked['offset']} followed by the abbreviation {marked['mark']!r}, "
        f"which is {' or '.join(offsets)} in the tz database: one of the two is wrong{go}, "
        f"and which cannot be told; write the offset meant ({fix} if {mark} is meant)"
    )


def _with_offset(value: str, marked: re.Match[str], offset: str) -> str:
    return value[: marked.start("offset")] + offset + value[marked.end("offset") :]


def _offset_in_minutes(offset: str) -> int:
    digits = offset[1:].replace(":", "")
    minutes = int(digits[:2]) * 60 + int(digits[2:4] or 0)
    return -minutes if offset[0] == "-" else minutes


@functools.cache
def _abbreviations() -> dict[str, frozenset[int]]:
    """Each abbreviation the tz database writes from 1970 to 2037, with its offsets in
    minutes (EST: -300; IST: 60, 120 and 330)."""
    found: dict[str, set[int]] = {}
    for name in _zone_names():
        zone = zoneinfo.ZoneInfo(name)
        for year in range(1970, 2038):
            for month in (1, 7):
                when = datetime.datetime(year, month, 15, 12, tzinfo=zone)
                offset = when.utcoffset()
                if offset is not None:
                    found.setdefault(str(when.tzname()), set()).add(offset // _MINUTE)
    return {name.upper(): frozenset(offsets) for name, offsets in found.items()}


_MINUTE = datetime.timedelta(minutes=1)

# an ISO time followed by the name of a zone in the tz database (America/New_York)
ZONE_NAME = r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)+"
# or a name without a slash (Japan, EST5EDT, NZ), read only when it is in the database
_NAMED_ZONE = rf"(?P<zone>{ZONE_NAME}|[A-Za-z][A-Za-z0-9_+-]*)"
_IN_NAMED_ZONE = re.compile(
    r"^(?P<time>[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)"
    rf"\s+{_NAMED_ZONE}$"
)


def in_named_zones(text: pd.Series, rows: np.ndarray) -> tuple[pd.Series, list[tuple[int, str]]]:
    """Times written with the name of their zone, rewritten with the offset its rules give
    them; with the refusal of the first (by row) whose zone the tz database does not hold,
    whose time is no date or whose clocks skipped it or showed it twice."""
    # a name with a slash, or a word of two letters or more at the end (not 00Z)
    worded = text.str.slice(-1).str.isalpha() & text.str.slice(-2, -1).str.isalpha()
    named = text.str.contains("/", regex=False) | worded
    at = np.flatnonzero(named.to_numpy(bool, na_value=False))
    if not len(at):
        return text, []
    parts = text.iloc[at].str.extract(_IN_NAMED_ZONE)
    zones = parts["zone"]
    found = (zones.str.contains("/", regex=False) | zones.isin(_names_alone())).to_numpy(
        bool, na_value=False
    )
    parts, at = parts[found], at[found]
    out, refusals = text.copy(), []
    known = parts["zone"].isin(_zone_names()).to_numpy(bool)
    unknown = first(~known)
    if unknown is not None:
        refusals.append((at[unknown], _unknown_zone(str(parts["zone"].iloc[unknown]))))
    for zone in parts["zone"][known].unique():
        mine = at[(parts["zone"] == zone).to_numpy(bool)]
        zoned, refused = _localized(str(zone), parts["time"].set_axis(at)[mine])
        read = zoned.notna().to_numpy(bool)
        out.iloc[mine[read]] = zoned[read].to_numpy(object)
        if refused is not None:
            refusals.append((mine[refused[0]], refused[1]))
    return out, [(int(rows[at_row]), why) for at_row, why in refusals]


# an ISO time with its offset, then its zone's name in brackets, as Java and RFC 9557 write
# it: 2016-03-01T10:00:00-05:00[America/New_York] (a ! before the name marks it critical)
_BRACKETED = re.compile(
    r"^(?P<time>[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"
    r"(?:[Zz]|(?P<sign>[+-])(?P<hours>[0-9]{2})(?::?(?P<minutes>[0-9]{2}))?))"
    rf"\[!?{_NAMED_ZONE}\]$"
)

_BRACKETED_ALONE = r"^([0-9-]{10}T[0-9:.]+)\[!?([^\[\]]+)\]$"


def bracketed_zones(text: pd.Series, rows: np.ndarray) -> tuple[pd.Series, list[tuple[int, str]]]:
    """Times written with their offset and their zone's name in brackets, read by their
    offset, and those with the name alone rewritten with it after a space; with the
    refusal of the first (by row) whose zone the tz database does not hold or whose offset
    is not its zone's at that time (one of the two is wrong, and which cannot be told).
    ``Z`` before the name says the time is UTC, whatever its zone's clock showed, as RFC
    9557 has it."""
    at = np.flatnonzero(text.str.contains("[", regex=False).to_numpy(bool))
    if not len(at):
        return text, []
    out = text.copy()
    # with no offset before the name, the name is read as one after a space (in_named_zones)
    out.iloc[at] = (
        text.iloc[at].str.replace(_BRACKETED_ALONE, r"\1 \2", regex=True).to_numpy(object)
    )
    parts = out.iloc[at].str.extract(_BRACKETED)
    found = parts["zone"].notna().to_numpy(bool)
    parts, at, refusals = parts[found], at[found], []
    out.iloc[at] = parts["time"].to_numpy(object)
    known = parts["zone"].isin(_zone_names()).to_numpy(bool)
    unknown = first(~known)
    if unknown is not None:
        refusals.append((at[unknown], _unknown_zone(str(parts["zone"].iloc[unknown]))))
    for zone in parts["zone"][known].unique():
        mine = (parts["zone"] == zone).to_numpy(bool)
        wrong = _not_the_zones_offset(parts[mine], str(zone))
        if wrong is not None:
            refusals.append((at[mine][wrong[0]], wrong[1]))
    return out, [(int(rows[at_row]), why) for at_row, why in refusals]


def _not_the_zones_offset(parts: pd.DataFrame, zone: str) -> tuple[int, str] | None:
    """The first of ``parts`` (times in ``zone``) whose offset is not the zone's at that
    time: its position, and why."""
    utc = pd.to_datetime(parts["time"], format="ISO8601", utc=True, errors="coerce")
    written = parts["sign"].map({"+": 1, "-": -1}) * (
        pd.to_numeric(parts["hours"]) * 60 + pd.to_numeric(parts["minutes"].fillna("0"))
    )
    local = utc.dt.tz_convert(zone).dt.tz_localize(None)
    own = (local - utc.dt.tz_localize(None)).dt.total_seconds() // 60
    held = (utc >= EARLIEST) & (utc < AFTER)  # a year past these is refused for itself
    differs = held & written.notna() & own.notna() & (own != written)
    wrong = first(differs.to_numpy(bool, na_value=False))
    if wrong is None:
        return None
    return wrong, (
        f"whose offset {_minutes_text(int(written.iloc[wrong]))} is not {zone}'s at that time "
        f"({_minutes_text(int(own.iloc[wrong]))}): one of the two is wrong, and which cannot "
        "be told; write the offset meant alone"
    )


def _minutes_text(minutes: int) -> str:
    """An offset of ``minutes`` from UTC as ISO writes it: ``-05:00``."""
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


@functools.cache
def _zone_names() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


@functools.cache
def _names_alone() -> frozenset[str]:
    """The tz database's names without a slash (Japan, EST5EDT, NZ) that are no
    abbreviation it writes: EST is New York's winter to people and a fixed -05:00 to the
    database, so it stays refused as an abbreviation. Factory (a time not set) and
    localtime (this machine's own zone) place no time for sure."""
    written = _abbreviations().keys() | _ZERO_NAMES
    return frozenset(
        name
        for name in _zone_names()
        if "/" not in name and name.upper() not in written and name not in _NO_PLACE
    )


_NO_PLACE = frozenset(("Factory", "localtime"))


def _unknown_zone(zone: str) -> str:
    spelled = {name.lower(): name for name in _zone_names()}.get(zone.lower())
    if spelled is not None:
        return f"its zone named {zone!r}, which the tz database spells {spelled!r}; write that"
    return (
        f"its zone named {zone!r}, which the tz database does not hold; write a zone as it "
        "names one (America/New_York, Europe/London) or the offset (2016-03-01T10:00:00-05:00)"
    )


def _localized(zone: str, times: pd.Series) -> tuple[pd.Series, tuple[int, str] | None]:
    """``times`` read on ``zone``'s clock, as ISO text with their offset (missing where no
    reading is sure), and the first refusal: its position among ``times``, and why."""
    local = pd.to_datetime(times, format="ISO8601", errors="coerce")
    zoned = local.dt.tz_localize(zoneinfo.ZoneInfo(zone), ambiguous="NaT", nonexistent="NaT")
    no_date, unsure = first(local.isna().to_numpy()), first(zoned.isna().to_numpy())
    text = zoned.astype(str).where(zoned.notna())
    if no_date is not None and no_date == unsure:
        return text, (no_date, _no_date_in(str(times.iloc[no_date]), zone))
    if unsure is not None:
        return text, (unsure, _clock_change(local.iloc[unsure], zone))
    return text, None


def _no_date_in(time: str, zone: str) -> str:
    """Why a time before a zone's name is no date: 24:00 is told the time to write."""
    end = re.fullmatch(r"(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})[T ]24:00(?::00(?:\.0+)?)?", time)
    day = pd.to_datetime(end["date"], format="%Y-%m-%d", errors="coerce") if end else pd.NaT
    if pd.isna(day):
        return "which is no date"
    return (
        "24:00, the end of its day, which a timestamp here does not hold; write the start of "
        f"the next day, {(day + pd.Timedelta(days=1)).date()} 00:00:00 {zone}"
    )


def _clock_change(local: pd.Timestamp, zone: str) -> str:
    """Why a time on ``zone``'s clock at a change of its offset is refused: its two readings,
    by the zone's own offsets before and after the change."""
    wall = local.to_pydatetime(warn=False)
    unsure = two_readings(wall, zoneinfo.ZoneInfo(zone))
    return unsure or f"a time at a change of {zone}'s clocks; write it with the offset meant"
