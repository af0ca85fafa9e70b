"""Publication times as e-mail and RSS write them (RFC 2822), in ctime's order and as
JavaScript's Date writes itself: rewritten as ISO with their offset, and the refusal of
a part no reading takes (a month, a weekday, a two-digit year, an offset, a named zone)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from workbench.engine.textshared import UTC_NAMES, first, hours_minutes, quoted

# an e-mail or RSS time (RFC 2822), loosely, so what is wrong in one can be named
_CLOCK = (
    r"(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2})(?::(?P<second>[0-9]{2})(?P<fraction>\.[0-9]+)?)?"
)
_ZONE = r"(?P<zone>[+-][0-9]{2}(?::?[0-9]{2})?|[A-Za-z]{1,5}(?:[+-][0-9]{1,2}(?::?[0-9]{2})?)?)"
# after an offset, a zone's abbreviation is read as a comment, as Go writes one: +0000 UTC
_COMMENT = r"(?:(?<=[0-9])\s+[A-Za-z]{1,5})?(?:\s*\([^()]*\))?"
_RFC2822 = re.compile(
    r"^(?:(?P<weekday>[A-Za-z]+)(?:\s*,\s*|\s+))?(?P<day>[0-9]{1,2})\s+(?P<month>[A-Za-z]+)\s+"
    rf"(?P<year>[0-9]{{2,4}})\s+{_CLOCK}\s*{_ZONE}{_COMMENT}$"
)
# the same parts in the order of C's ctime with the zone before the year, as a well-known
# social API writes its created_at: Tue Mar 01 15:00:00 +0000 2016
_CTIME = re.compile(
    r"^(?:(?P<weekday>[A-Za-z]+),?\s+)?(?P<month>[A-Za-z]+)\s+(?P<day>[0-9]{1,2})\s+"
    rf"{_CLOCK}\s+{_ZONE}\s+(?P<year>[0-9]{{2,4}})$"
)
# as JavaScript's Date writes itself: Tue Mar 01 2016 10:00:00 GMT-0500 (Eastern Standard
# Time), its offset after GMT with four digits, as people write it
_JAVASCRIPT = re.compile(
    r"^(?P<weekday>[A-Za-z]+)\s+(?P<month>[A-Za-z]+)\s+(?P<day>[0-9]{1,2})\s+"
    rf"(?P<year>[0-9]{{4}})\s+{_CLOCK}\s+GMT(?P<zone>[+-][0-9]{{4}})(?:\s*\([^()]*\))?$"
)
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_FULL_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_FULL_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_MONTH_NUMBERS = {name: f"{i % 12 + 1:02d}" for i, name in enumerate(_MONTHS + _FULL_MONTHS)} | {
    "sept": "09"
}


def from_rfc2822(
    text: pd.Series, rows: np.ndarray
) -> tuple[pd.Series, np.ndarray, list[tuple[int, str]]]:
    """Times written as e-mail and RSS write them (or in ctime's order with an offset, or
    as JavaScript's Date writes itself) rewritten as ISO with their offset, all at once;
    one that names a zone any other way than by its offset or as UTC is refused here, with
    a fix written as it was, and so is a weekday that is not the date's: one of the two is
    wrong, and which cannot be told.
    Returned with the rewritten text and which of it was rewritten: the first refusal of a
    wrong part, and of a wrong weekday, by row."""
    # both start with a weekday, a month or the day: an ISO time, with its four-digit year
    # first, is passed over by a quick match rather than a full extraction
    at = np.flatnonzero(text.str.match(r"[A-Za-z]|[0-9]{1,2}[^0-9]").to_numpy(bool))
    parts = text.iloc[at].str.extract(_RFC2822)
    for layout in (_CTIME, _JAVASCRIPT):
        unread = parts["day"].isna().to_numpy(bool)
        if unread.any():
            other = text.iloc[at[unread]].str.extract(layout).reindex(columns=parts.columns)
            parts.loc[unread] = other.to_numpy(object)
    found = parts["day"].notna().to_numpy(bool)
    if not found.any():
        return text, np.zeros(len(text), bool), []
    parts, at = parts[found], at[found]
    refusals = _a_wrong_part(text, parts, at, rows)
    utc = parts["zone"].str.fullmatch(UTC_NAMES + "|[Zz]").to_numpy(bool)
    offset = parts["zone"].str.slice(0, 3) + ":" + _offset_minutes(parts["zone"])
    iso = (
        parts["year"] + "-" + parts["month"].str.lower().map(_MONTH_NUMBERS) + "-"
        + parts["day"].str.zfill(2) + "T" + parts["hour"].str.zfill(2) + ":"
        + parts["minute"] + ":" + parts["second"].fillna("00") + parts["fraction"].fillna("")
        + offset.where(~utc, "+00:00")
    )  # fmt: skip
    refusals += _a_wrong_weekday(text, parts, iso, at, rows)
    out, rewritten = text.copy(), np.zeros(len(text), bool)
    read = iso.notna().to_numpy(bool)  # a time with a part no reading takes stays as written
    out.iloc[at[read]] = iso[read].to_numpy(object)
    rewritten[at[read]] = True
    return out, rewritten, refusals


def _offset_minutes(zone: pd.Series) -> pd.Series:
    """The minutes of an offset written ``+0530``, ``+05:30`` or ``+05`` (``00``)."""
    minutes = zone.str.slice(1).str.replace(":", "", regex=False).str.slice(2, 4)
    return minutes.where(minutes.str.len() == 2, "00")


def _a_wrong_part(
    text: pd.Series, parts: pd.DataFrame, at: np.ndarray, rows: np.ndarray
) -> list[tuple[int, str]]:
    """The first RFC 2822 time with a part no reading can take, and why, naming that part."""
    zone = parts["zone"]
    digits = zone.str.fullmatch(r"[+-][0-9]{2}(?::?[0-9]{2})?")
    hours = pd.to_numeric(zone.str.slice(1, 3).where(digits), errors="coerce")
    minutes = pd.to_numeric(_offset_minutes(zone).where(digits), errors="coerce")
    weekday = parts["weekday"].str.lower()
    checks = (
        (~parts["month"].str.lower().isin(_MONTH_NUMBERS), _no_month),
        (weekday.notna() & ~weekday.isin(_WEEKDAYS + _FULL_DAYS), _no_weekday),
        (parts["year"].str.len() != 4, _two_digit_year),
        ((hours > 14) | (minutes > 59) | ((hours == 14) & (minutes > 0)), _no_offset),
        (~digits & ~zone.str.fullmatch(UTC_NAMES + "|[Zz]"), _named_zone),
    )
    wrong = [(first(bad.fillna(False).to_numpy(bool)), why) for bad, why in checks]
    found = [(position, why) for position, why in wrong if position is not None]
    if not found:
        return []
    position, why = min(found, key=lambda pair: pair[0])
    value = str(text.iloc[at[position]])
    return [(int(rows[at[position]]), why(value, parts.iloc[position]))]


def _a_wrong_weekday(
    text: pd.Series, parts: pd.DataFrame, iso: pd.Series, at: np.ndarray, rows: np.ndarray
) -> list[tuple[int, str]]:
    """The first RFC 2822 time whose weekday is not its date's, and why."""
    written = parts["weekday"].str.lower().str.slice(0, 3)
    days = pd.to_datetime(iso.str.slice(0, 10), format="%Y-%m-%d", errors="coerce")
    actual = pd.Series(
        np.asarray(_WEEKDAYS)[days.dt.day_of_week.fillna(0).astype(int)], index=iso.index
    )
    wrong = first(
        (written.notna() & days.notna() & (written != actual)).to_numpy(bool, na_value=False)
    )
    if wrong is None:
        return []
    value, part = str(text.iloc[at[wrong]]), parts.iloc[wrong]
    return [
        (
            int(rows[at[wrong]]),
            f"has the publication time {quoted(value)}, whose weekday {part['weekday']!r} is "
            f"not its date's: {int(part['day'])} {part['month'].title()} {part['year']} is a "
            f"{actual.iloc[wrong].title()}; fix the date or the weekday",
        )
    ]


def _no_month(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {quoted(value)}, whose month {part['month']!r} is no "
        "month's name; write its first three letters (Jan ... Dec)"
    )


def _no_weekday(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {quoted(value)}, whose weekday {part['weekday']!r} is no "
        "weekday; write its first three letters (Mon ... Sun) or leave it out"
    )


def _two_digit_year(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {quoted(value)}, its year written as {part['year']!r}, "
        f"which could be 19{part['year'][-2:]} or 20{part['year'][-2:]}; write all four digits"
    )


def _no_offset(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {quoted(value)}, whose offset {part['zone']!r} is none: "
        "an offset's hours run to 14 and its minutes to 59 (-0500 is five hours behind UTC)"
    )


def _named_zone(value: str, part: pd.Series) -> str:
    zone = part["zone"]
    time, year = value[: value.rindex(zone)].rstrip(), _after_zone(value, zone)
    named = re.fullmatch(r"(?P<name>[A-Za-z]+)(?P<offset>[+-].*)", zone)
    if named:
        return (
            f"has the publication time {quoted(value)}, its zone written as {zone!r}, which "
            f"reads two ways: {named['offset']} from UTC as people write it, the opposite sign "
            "in POSIX zone names (Etc/GMT+5 is UTC-05:00); write the offset alone "
            f"({time} {_rfc_offset(named['offset'])}{year} if {named['offset']} is meant as people "
            "write it)"
        )
    return (
        f"has the publication time {quoted(value)}, its zone written as the abbreviation "
        f"{zone!r}, which names no offset for sure (EST is -05:00 in New York and +10:00 in "
        f"Australia, CST three zones); write the offset instead ({time} -0500{year} if it is New "
        "York's winter time, +0000 for UTC)"
    )


def _after_zone(value: str, zone: str) -> str:
    """What a time writes after its zone other than a comment: the year, in ctime's order."""
    return re.sub(r"\s*\([^()]*\)$", "", value[value.rindex(zone) + len(zone) :])


def _rfc_offset(offset: str) -> str:
    """``+5`` or ``+05:30`` as RFC 2822 writes an offset: ``+0500``, ``+0530``."""
    return hours_minutes(offset).replace(":", "")
