"""When an item of text became public: a ``published`` column read strictly, as UTC.

Every value carries its own zone: an offset (``2016-03-01T15:00:00-05:00``, or in ISO's
basic layout ``20160301T150000-0500``), ``Z``, ``UTC``, ``UT`` or ``GMT`` in any case
(+00:00, as is ``UTC+0``), or the zone of a timezone-aware timestamp column (Arrow's
too). E-mail and RSS times are read (``Tue, 01 Mar 2016 15:00:00 -0500``, ``... GMT``, a
comment such as ``(UTC)`` after the zone, an abbreviation after an offset as Go writes
one when the two agree, a month in full), and so are the same parts in ctime's order
with the zone before the year (``Tue Mar 01 15:00:00 +0000 2016``, a well-known social
API's ``created_at``) and as JavaScript's Date writes itself (``Tue Mar 01 2016 10:00:00
GMT-0500 (Eastern Standard Time)``). An ISO time followed by the name of its zone in the
tz database (``2016-03-01 10:00:00 America/New_York``, or a name without a slash such as
``Japan`` that is no abbreviation it writes) is read by that zone's rules; one
its clocks skip or show twice is refused with its two readings, a name the database does
not hold naming it. Java and RFC 9557 write the name in brackets after the offset
(``...-05:00[America/New_York]``): that is read by its offset, refused when the offset
is not the zone's at that time. A datetime or Timestamp object at a wall time its zone
skipped or showed twice is refused the same way, whatever its ``fold``.

Anything that could be two instants is refused, naming the row, the reading that fails
and the form to write instead: a zone abbreviation (``EST``), an offset its abbreviation
contradicts (``+0000 CEST``; ``+0000`` before one the tz database does not write, as Go
writes a zone it could not read), ``AM`` or ``PM`` after the time (never a zone),
``GMT+5`` (a POSIX zone name flips its sign), a two-digit year, a weekday that is not
the date's, an offset whose minutes pass 59 or whose hours pass 14, a bare count since
1970 (shown as the times it could count), a spreadsheet's day number, a compact
``YYYYMMDDHHMMSS`` with no offset, an hour on a 12-hour clock. A leap second and 24:00,
which pandas cannot hold, are refused naming the time to write.
"""

from __future__ import annotations

import datetime
import functools
import re
import zoneinfo

import numpy as np
import pandas as pd

from workbench.errors import ConfigError


class RowError(ConfigError):
    """A refusal of one row, which knows the row's position (``by_label`` names its label)."""

    def __init__(self, what: str, row: int, problem: str) -> None:
        super().__init__(f"{what} row {row + 1} {problem}")
        self.what, self.row = what, row


def refuse(what: str, row: int, problem: str) -> ConfigError:
    return RowError(what, row, problem)


def first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def published(column: pd.Series, what: str) -> np.ndarray:
    """Nanoseconds since the epoch, UTC; every value must carry its own time zone."""
    if isinstance(column.dtype, pd.ArrowDtype) and _arrow_dates(column.dtype):
        raise _dates_alone(column, what)
    if isinstance(column.dtype, pd.ArrowDtype) and column.dtype.kind == "M":
        # Arrow's timestamps (a frame read with dtype_backend="pyarrow") as pandas' own
        column = column.astype(column.dtype.pyarrow_dtype.to_pandas_dtype())
    if column.dtype == object:
        _refuse_a_wall_time_of_two_instants(column, what)
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        stamps = column
    elif pd.api.types.is_datetime64_any_dtype(column):
        raise _naive_column(column, what)
    elif any(isinstance(v, pd.Timestamp) for v in column.head(1)) and all(
        isinstance(v, pd.Timestamp) or _missing(v) for v in column
    ):
        stamps = pd.Series([_stamp(value, what, row) for row, value in enumerate(column)])
    else:
        stamps = _parsed_or_told(column, what)
    missing = first(stamps.isna().to_numpy())
    if missing is not None:
        raise refuse(what, missing, UNDATED)
    stamps = pd.to_datetime(stamps, utc=True)
    outside = first(((stamps < _EARLIEST) | (stamps >= _AFTER)).to_numpy(bool))
    if outside is not None:
        raise refuse(what, outside, _outside_the_years(str(stamps.iloc[outside])))
    return stamps.dt.as_unit("ns").to_numpy("datetime64[ns]").view(np.int64)


def _refuse_a_wall_time_of_two_instants(column: pd.Series, what: str) -> None:
    """Refuse the first time object (a datetime, a Timestamp) whose zone's clocks skipped
    its wall time or showed it twice: Python reads one by its ``fold`` and pandas keeps
    the offset before the change, neither of which says which instant was meant."""
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty", "bytes"):
        return
    for row, value in enumerate(column):
        if isinstance(value, pd.Timestamp):
            value = value.to_pydatetime(warn=False)
        zone = value.tzinfo if isinstance(value, datetime.datetime) else None
        if zone is not None:
            wall = value.replace(tzinfo=None, fold=0)
            why = _two_readings(wall, zone)
            if why is not None:
                shown = f"{wall.isoformat(sep=' ')} {_zone_name(zone)}"
                raise refuse(what, row, _said_of(shown, why + _FIXED_OFFSET))


_FIXED_OFFSET = (
    " (a datetime takes one as tzinfo=datetime.timezone(datetime.timedelta(hours=-5)), "
    "whatever its fold)"
)


def _zone_name(zone: datetime.tzinfo) -> str:
    return str(getattr(zone, "key", None) or zone)


def _two_readings(wall: datetime.datetime, zone: datetime.tzinfo) -> str | None:
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
    at, name = wall.isoformat(), _zone_name(zone)
    return (
        f"a time {name}'s clocks {what}: it reads as {at}{_delta_text(before)} or "
        f"{at}{_delta_text(after)}, {readings}; write it with the offset meant"
    )


def _delta_text(offset: datetime.timedelta) -> str:
    return _minutes_text(int(offset // datetime.timedelta(minutes=1)))


def _arrow_dates(dtype: pd.ArrowDtype) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_date(dtype.pyarrow_dtype))


def _dates_alone(column: pd.Series, what: str) -> ConfigError:
    """The refusal of an Arrow column of dates (date32, date64) at its first date."""
    dated = first(column.notna().to_numpy(bool))
    if dated is None:
        return refuse(what, 0, UNDATED)
    return refuse(
        what,
        dated,
        f"has the publication time {_quoted(column.iloc[dated])}, in a column of dates "
        f"({column.dtype}) with no time of day, which could be before or after "
        "that day's close; write the time with its offset, e.g. frame['published'] = "
        "pd.to_datetime(frame['published'].astype(str) + ' 16:00').dt.tz_localize("
        "'America/New_York') if the items came out at New York's close",
    )


def _outside_the_years(shown: str) -> str:
    return (
        f"has the publication time {shown!r}, outside the years {_EARLIEST.year}-"
        f"{_AFTER.year - 1} a timestamp can hold; fix the year"
    )


def _parsed_or_told(column: pd.Series, what: str) -> pd.Series:
    """The times of a column read as text; a refused value that is no text, number or
    time (a list, a duration) is told what it is rather than how its text reads."""
    try:
        return _parsed(_as_text(column, what), what)
    except RowError as refused:
        value, kind = column.iloc[refused.row], type(column.iloc[refused.row]).__name__
        if isinstance(value, _DURATIONS):
            why = "a duration rather than a time; write when the item came out"
        elif isinstance(value, _COLLECTIONS):
            why = "which is no time; write one time per row"
        else:
            raise
        raise refuse(
            what,
            refused.row,
            f"has the publication time {_quoted(value)}, a {kind}, {why}, with its offset "
            "(2016-03-01T10:00:00-05:00)",
        ) from None


_COLLECTIONS = (list, tuple, dict, set, frozenset)
_DURATIONS = (datetime.timedelta, np.timedelta64)


def _as_text(column: pd.Series, what: str) -> pd.Series:
    """The column as text, stripped of white space and of the invisible marks an editor
    leaves (a byte-order mark, a zero-width space); a value that is no text is refused."""
    try:
        text = column.astype("string")
    except UnicodeEncodeError:
        unpaired = next(row for row, value in enumerate(column) if _unpaired(value))
        raise refuse(
            what, unpaired, "holds an unpaired surrogate in published, which is no text; fix it"
        ) from None
    except UnicodeDecodeError:
        undecoded = next(row for row, value in enumerate(column) if _not_utf8(value))
        raise refuse(
            what,
            undecoded,
            f"has the publication time {column.iloc[undecoded]!r}, bytes that are not UTF-8 "
            "text; decode the column in its own encoding "
            "(column.str.decode('latin-1') if it is Latin-1)",
        ) from None
    # a minus sign (U+2212) or an en dash (U+2013) for the hyphen an offset is written with
    stripped = text.str.strip().str.strip(_INVISIBLE)
    return stripped.str.replace("\u2212", "-", regex=False).str.replace("\u2013", "-", regex=False)


def _not_utf8(value: object) -> bool:
    if not isinstance(value, bytes):
        return False
    try:
        value.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _unpaired(value: object) -> bool:
    try:
        str(value).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_NO_BREAK_SPACES = "[\u00a0\u2007\u2009\u202f]"  # the characters themselves, as Arrow reads them
# the format marks (Unicode's category Cf) an editor or a right-to-left text leaves: a
# byte-order mark, zero-width spaces and joiners, direction marks and isolates
_INVISIBLE = (
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\x00"
)  # and the NUL a C string ends with
_EARLIEST, _AFTER = pd.Timestamp("1678-01-01", tz="UTC"), pd.Timestamp("2262-01-01", tz="UTC")
_UTC_NAMES = r"(?i:UTC|GMT|UT)(?:[+-]0{1,2}(?::?00)?)?"  # a name of UTC, or one at offset 0
_ZONED = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*"
    rf"([Zz]|{_UTC_NAMES}|[+-]\d{{2}}(:?\d{{2}})?)$"
)
# zoned, in ASCII digits, the offset right after the time: what _ZONED accepts and the zone
# rewriting leaves as it is (an engine-neutral pattern, read by Arrow or by Python alike)
_BASIC = r"^([0-9]{4})([0-9]{2})([0-9]{2})[Tt]([0-9]{2})([0-9]{2})([0-9]{2})"
_PLAIN = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"
    r"[+-][0-9]{2}(?::?[0-9]{2})?"
)


def _parsed(text: pd.Series, what: str) -> pd.Series:
    """The times of ``text``, or the refusal of its first row no reading takes (each
    check names its problem; the earliest row is the one named)."""
    blank = first((text.isna() | text.str.lower().isin(NO_TIME)).to_numpy(bool))
    if blank is not None:
        raise refuse(what, blank, UNDATED)
    # most feeds write the plain form, which needs no check or rewriting: only the rest does
    others = np.flatnonzero(~text.str.fullmatch(_PLAIN).to_numpy(bool))
    iso = text.copy()
    refusals: list[tuple[int, str]] = []
    if len(others):
        rewritten, refusals = _as_iso(text, others)
        iso.iloc[others] = rewritten.to_numpy(object)
    refusals.extend(_offsets_past_any_zone(text, iso))
    parsed = pd.to_datetime(iso, utc=True, format="ISO8601", errors="coerce")
    bad = first(parsed.isna().to_numpy())
    if bad is not None:
        refusals.append((bad, _no_date(str(text.iloc[bad]), str(iso.iloc[bad]))))
    if refusals:
        row, problem = min(refusals, key=lambda refusal: refusal[0])  # the first found, on a tie
        raise refuse(what, row, problem)
    return parsed


def _as_iso(text: pd.Series, others: np.ndarray) -> tuple[pd.Series, list[tuple[int, str]]]:
    """The times of ``text`` at ``others`` (those not in the plain form) rewritten as ISO
    with their offset, and the refusals of those no reading takes, each at its row."""
    # a space that does not break (as a web page or a spreadsheet writes one) for a space
    spaced = text.iloc[others].str.replace(_NO_BREAK_SPACES, " ", regex=True)
    marked = _marked_after_the_clock(spaced, others)
    rest, rewritten, refusals = _from_rfc2822(spaced, others)
    refusals = marked + refusals
    # a time the RFC 2822 reading rewrote is ISO with its offset: only the others need more
    todo = np.flatnonzero(~rewritten)
    if len(todo):
        iso, more = _iso_evened(rest.iloc[todo], text, others[todo])
        rest.iloc[todo] = iso.to_numpy(object)
        refusals += more
    return rest, refusals


# an offset, then an abbreviation or (as Go writes a zone that has none) its own digits
_GO_ABBREVIATED = r"(([+-][0-9]{2}):?([0-9]{2})) +(?:[A-Za-z]{1,5}|\2(?::?\3)?)$"


def _iso_evened(
    rest: pd.Series, text: pd.Series, rows: np.ndarray
) -> tuple[pd.Series, list[tuple[int, str]]]:
    """ISO times (and what no reading has taken yet) at ``rows`` of ``text``, with their
    letters and layout evened, their zone written as an offset, and the refusals of those
    no reading takes."""
    # an ISO time with a lowercase t, in ISO's basic layout (20160301T150000Z), or with a
    # comment after its zone ("+05:30 (IST)", or an abbreviation after its offset as Go
    # writes one: "-0500 EST", or for a zone with none the offset's own digits: "-0300 -03")
    rest = (
        rest.str.replace(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})t", r"\1T", regex=True)
        .str.replace(_BASIC, r"\1-\2-\3T\4:\5:\6", regex=True)
        .str.replace(r"\s*\([^()]*\)$", "", regex=True)
        .str.replace(_GO_ABBREVIATED, r"\1", regex=True)
    )
    rest, bracketed = _bracketed_zones(rest, rows)
    rest, in_zones = _in_named_zones(rest, rows)
    refusals = [(row, _said_of(text.iloc[row], why)) for row, why in bracketed + in_zones]
    naive = first(~rest.str.match(_ZONED).to_numpy(bool))
    if naive is not None:
        written = str(text.iloc[rows[naive]])
        refusals.append((int(rows[naive]), _unzoned(str(rest.iloc[naive]), written)))
    # the zone written as a name of UTC, Z or an offset, with or without a space before it
    iso = rest.str.replace(rf"\s*(?:{_UTC_NAMES}|[Zz])$", "+00:00", regex=True)
    return iso.str.replace(r"\s+(?=[+-]\d{2}(?::?\d{2})?$)", "", regex=True), refusals


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


def _marked_after_the_clock(text: pd.Series, rows: np.ndarray) -> list[tuple[int, str]]:
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
            return [(int(rows[position]), _said_of(value, why))]
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
_ZONE_NAME = r"[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)+"
# or a name without a slash (Japan, EST5EDT, NZ), read only when it is in the database
_NAMED_ZONE = rf"(?P<zone>{_ZONE_NAME}|[A-Za-z][A-Za-z0-9_+-]*)"
_IN_NAMED_ZONE = re.compile(
    r"^(?P<time>[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)"
    rf"\s+{_NAMED_ZONE}$"
)


def _in_named_zones(text: pd.Series, rows: np.ndarray) -> tuple[pd.Series, list[tuple[int, str]]]:
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


def _bracketed_zones(text: pd.Series, rows: np.ndarray) -> tuple[pd.Series, list[tuple[int, str]]]:
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
    # with no offset before the name, the name is read as one after a space (_in_named_zones)
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
    held = (utc >= _EARLIEST) & (utc < _AFTER)  # a year past these is refused for itself
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


def _said_of(value: object, why: str) -> str:
    return f"has the publication time {_quoted(value)}, {why}"


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
    unsure = _two_readings(wall, zoneinfo.ZoneInfo(zone))
    return unsure or f"a time at a change of {zone}'s clocks; write it with the offset meant"


def _no_date(value: str, iso: str) -> str:
    """Why a time that matched a layout is no date, naming what is wrong when it can be
    told: a digit other than 0-9, a leap second or 24:00 (each refused with the time to
    write instead; ``iso`` is the time as rewritten, with its offset)."""
    shown = _quoted(value)
    foreign = _foreign_digit(value)
    if foreign is not None:
        return _said_of(value, foreign)
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
    if year and not _EARLIEST.year <= int(year[0]) < _AFTER.year:
        return _outside_the_years(value)
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


def _offsets_past_any_zone(text: pd.Series, iso: pd.Series) -> list[tuple[int, str]]:
    """The first time whose offset no zone has (past 14 hours, or minutes past 59)."""
    past = first(iso.str.contains(_PAST_ANY_ZONE, regex=True, na=False).to_numpy(bool))
    if past is None:
        return []
    return [
        (
            past,
            f"has the publication time {_quoted(text.iloc[past])}, whose offset is none: an "
            "offset's hours run to 14 and its minutes to 59 (-05:00 is five hours behind UTC)",
        )
    ]


_PAST_ANY_ZONE = (
    r"[+-](?:1[5-9]|[2-9][0-9])(?::?[0-9]{2})?$|[+-][0-9]{2}:?[6-9][0-9]$"
    r"|[+-]14:?(?:0[1-9]|[1-5][0-9])$"
)


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


def _from_rfc2822(
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
    utc = parts["zone"].str.fullmatch(_UTC_NAMES + "|[Zz]").to_numpy(bool)
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
        (~digits & ~zone.str.fullmatch(_UTC_NAMES + "|[Zz]"), _named_zone),
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
            f"has the publication time {_quoted(value)}, whose weekday {part['weekday']!r} is "
            f"not its date's: {int(part['day'])} {part['month'].title()} {part['year']} is a "
            f"{actual.iloc[wrong].title()}; fix the date or the weekday",
        )
    ]


def _no_month(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {_quoted(value)}, whose month {part['month']!r} is no "
        "month's name; write its first three letters (Jan ... Dec)"
    )


def _no_weekday(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {_quoted(value)}, whose weekday {part['weekday']!r} is no "
        "weekday; write its first three letters (Mon ... Sun) or leave it out"
    )


def _two_digit_year(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {_quoted(value)}, its year written as {part['year']!r}, "
        f"which could be 19{part['year'][-2:]} or 20{part['year'][-2:]}; write all four digits"
    )


def _no_offset(value: str, part: pd.Series) -> str:
    return (
        f"has the publication time {_quoted(value)}, whose offset {part['zone']!r} is none: "
        "an offset's hours run to 14 and its minutes to 59 (-0500 is five hours behind UTC)"
    )


def _named_zone(value: str, part: pd.Series) -> str:
    zone = part["zone"]
    time, year = value[: value.rindex(zone)].rstrip(), _after_zone(value, zone)
    named = re.fullmatch(r"(?P<name>[A-Za-z]+)(?P<offset>[+-].*)", zone)
    if named:
        return (
            f"has the publication time {_quoted(value)}, its zone written as {zone!r}, which "
            f"reads two ways: {named['offset']} from UTC as people write it, the opposite sign "
            "in POSIX zone names (Etc/GMT+5 is UTC-05:00); write the offset alone "
            f"({time} {_rfc_offset(named['offset'])}{year} if {named['offset']} is meant as people "
            "write it)"
        )
    return (
        f"has the publication time {_quoted(value)}, its zone written as the abbreviation "
        f"{zone!r}, which names no offset for sure (EST is -05:00 in New York and +10:00 in "
        f"Australia, CST three zones); write the offset instead ({time} -0500{year} if it is New "
        "York's winter time, +0000 for UTC)"
    )


def _after_zone(value: str, zone: str) -> str:
    """What a time writes after its zone other than a comment: the year, in ctime's order."""
    return re.sub(r"\s*\([^()]*\)$", "", value[value.rindex(zone) + len(zone) :])


def _rfc_offset(offset: str) -> str:
    """``+5`` or ``+05:30`` as RFC 2822 writes an offset: ``+0500``, ``+0530``."""
    return _hours_minutes(offset).replace(":", "")


def _quoted(value: object) -> str:
    """``repr(value)``, cut to its first 80 characters when it is longer."""
    text = str(value)
    if len(text) <= 80:
        return repr(text)
    return f"{text[:80]!r}... ({len(text)} characters)"


# how an export writes a missing time: each is an undated item
NO_TIME = ("", "nan", "nat", "none", "null", "na", "n/a", "-")
UNDATED = (
    "has no publication time; an undated item could be from any day, so it is refused "
    "(date it or drop it)"
)
_NAIVE = (
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
_ZONE_INSIDE = re.compile(rf"(?<![0-9:-])(?:{_UTC_NAMES}|[+-][0-9]{{2}}:?[0-9]{{2}})(?![0-9])")
_OFFSET_AFTER = re.compile(
    r"[0-9]{2}:?[0-9]{2}(?::?[0-9]{2}(?:[.,][0-9]+)?)?\s*[+-][0-9]{2}:?[0-9]{2}$"
)
_UTC_TAIL = re.compile(rf"^(?P<time>.*\S)\s*(?<![A-Za-z])(?:{_UTC_NAMES}|[Zz])$")
_DATE_ONLY = re.compile(
    rf"^(?P<date>\d{{4}}-\d{{2}}-\d{{2}})\s*(?P<zone>{_ZONE_NAME}|[A-Za-z]+|[+-]\d{{2}}:?\d{{2}})$"
)
_TWELVE_HOUR = re.compile(
    r"[0-9]{1,2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?\s*(?P<half>[AaPp]\.?[Mm]\.?)(?![A-Za-z])"
)
_COMMA_FRACTION = re.compile(r"[0-9]{2}:[0-9]{2}:[0-9]{2},[0-9]")
_NAMED_TAIL = re.compile(rf"^(?P<time>.*\d)\s*(?P<zone>{_ZONE_NAME})$")


def _unzoned(value: str, written: str) -> str:
    """Why a publication time with no offset is refused, and the fix: a zone written as
    an abbreviation (EST is -05:00 in New York and +10:00 in Sydney; CST is three
    zones) or a bare count from 1970 (in seconds? milliseconds?) is no time for sure."""
    shown = _quoted(written)  # as written; ``value`` is read, its letters and layout evened
    return (
        _not_a_clock_time(value, written, shown)
        or _zone_not_read(value, shown)
        or _a_number(value, shown)
        or _NAIVE.format(value=shown)
    )


def _not_a_clock_time(value: str, written: str, shown: str) -> str | None:
    """Why a time written with no offset cannot be read for what it writes before its
    zone (its digits, its clock, its date alone), if it cannot."""
    foreign = _foreign_digit(value)
    if foreign is not None:
        return _said_of(written, foreign)
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
            f"({named['time']}{_hours_minutes(named['offset'])} if {named['offset']} is "
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
    return when if _EARLIEST <= when < _AFTER else None


def _hours_minutes(offset: str) -> str:
    """``+5`` or ``+0530`` as ``+05:00`` or ``+05:30``."""
    sign, digits = offset[0], offset[1:].replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "00")
    return f"{sign}{int(hours):02d}:{minutes}"


def _naive_column(column: pd.Series, what: str) -> ConfigError:
    """The refusal of a timestamp column without a zone, at its first time (a column of
    missing times alone is undated), with the fix: localize it to the zone its times were
    written in."""
    dated = first(column.notna().to_numpy())
    if dated is None:
        return refuse(what, 0, UNDATED)
    return refuse(
        what,
        dated,
        _NAIVE.format(value=_quoted(column.iloc[dated]))
        + "; for a timestamp column, give it the zone its times were written in: "
        "frame['published'] = frame['published'].dt.tz_localize('America/New_York') for "
        "New York's clock, tz_localize('UTC') for times in UTC",
    )


def _stamp(value: object, what: str, row: int) -> pd.Timestamp | None:
    if not isinstance(value, pd.Timestamp):
        if _missing(value):
            return None
        raise refuse(what, row, f"has the publication time {value!r} among timestamps")
    if value.tzinfo is None:
        raise refuse(what, row, _NAIVE.format(value=_quoted(value)))
    return value


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or _is_nan(value)


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and np.isnan(value)


__all__ = ["NO_TIME", "UNDATED", "RowError", "first", "published", "refuse"]
