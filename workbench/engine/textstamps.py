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

This module holds the entry point and the main read path; the readings live beside it:
zones and abbreviations in ``textzones``, the e-mail, ctime and JavaScript layouts in
``textlayouts``, the refusals of values no reading takes in ``textrefusals``, and what
they all share (quoting, the years a timestamp holds) in ``textshared``.
"""

from __future__ import annotations

import datetime
import re

import numpy as np
import pandas as pd

from workbench.engine.bars import unencodable
from workbench.engine.textlayouts import from_rfc2822
from workbench.engine.textrefusals import NAIVE, no_date, offsets_past_any_zone, unzoned
from workbench.engine.textshared import (
    AFTER,
    EARLIEST,
    UTC_NAMES,
    first,
    outside_the_years,
    quoted,
    said_of,
)
from workbench.engine.textzones import (
    bracketed_zones,
    in_named_zones,
    marked_after_the_clock,
    two_readings,
    zone_name,
)
from workbench.errors import ConfigError


class RowError(ConfigError):
    """A refusal of one row, which knows the row's position (``by_label`` names its label)."""

    def __init__(self, what: str, row: int, problem: str) -> None:
        super().__init__(f"{what} row {row + 1} {problem}")
        self.what, self.row = what, row


def refuse(what: str, row: int, problem: str) -> ConfigError:
    return RowError(what, row, problem)


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
    outside = first(((stamps < EARLIEST) | (stamps >= AFTER)).to_numpy(bool))
    if outside is not None:
        raise refuse(what, outside, outside_the_years(str(stamps.iloc[outside])))
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
            why = two_readings(wall, zone)
            if why is not None:
                shown = f"{wall.isoformat(sep=' ')} {zone_name(zone)}"
                raise refuse(what, row, said_of(shown, why + _FIXED_OFFSET))


_FIXED_OFFSET = (
    " (a datetime takes one as tzinfo=datetime.timezone(datetime.timedelta(hours=-5)), "
    "whatever its fold)"
)


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
        f"has the publication time {quoted(column.iloc[dated])}, in a column of dates "
        f"({column.dtype}) with no time of day, which could be before or after "
        "that day's close; write the time with its offset, e.g. frame['published'] = "
        "pd.to_datetime(frame['published'].astype(str) + ' 16:00').dt.tz_localize("
        "'America/New_York') if the items came out at New York's close",
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
            f"has the publication time {quoted(value)}, a {kind}, {why}, with its offset "
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
        unpaired = next(row for row, value in enumerate(column) if unencodable(str(value)))
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


_NO_BREAK_SPACES = "[\u00a0\u2007\u2009\u202f]"  # the characters themselves, as Arrow reads them
# the format marks (Unicode's category Cf) an editor or a right-to-left text leaves: a
# byte-order mark, zero-width spaces and joiners, direction marks and isolates
_INVISIBLE = (
    "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\x00"
)  # and the NUL a C string ends with
_ZONED = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*"
    rf"([Zz]|{UTC_NAMES}|[+-]\d{{2}}(:?\d{{2}})?)$"
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
    refusals.extend(offsets_past_any_zone(text, iso))
    parsed = pd.to_datetime(iso, utc=True, format="ISO8601", errors="coerce")
    bad = first(parsed.isna().to_numpy())
    if bad is not None:
        refusals.append((bad, no_date(str(text.iloc[bad]), str(iso.iloc[bad]))))
    if refusals:
        row, problem = min(refusals, key=lambda refusal: refusal[0])  # the first found, on a tie
        raise refuse(what, row, problem)
    return parsed


def _as_iso(text: pd.Series, others: np.ndarray) -> tuple[pd.Series, list[tuple[int, str]]]:
    """The times of ``text`` at ``others`` (those not in the plain form) rewritten as ISO
    with their offset, and the refusals of those no reading takes, each at its row."""
    # a space that does not break (as a web page or a spreadsheet writes one) for a space
    spaced = text.iloc[others].str.replace(_NO_BREAK_SPACES, " ", regex=True)
    marked = marked_after_the_clock(spaced, others)
    rest, rewritten, refusals = from_rfc2822(spaced, others)
    refusals = marked + refusals
    # a time the RFC 2822 reading rewrote is ISO with its offset: only the others need more
    todo = np.flatnonzero(~rewritten)
    if len(todo):
        iso, more = _iso_evened(rest.iloc[todo], text, others[todo])
        rest.iloc[todo] = iso.to_numpy(object)
        refusals += more
    return rest, refusals


# an offset, then an abbreviation or (as Go writes a zone that has none) its own digits
_GO_ABBREVIATED = (  # an offset of hours alone only right after a clock's minutes or seconds
    r"(([+-][0-9]{2}):?([0-9]{2})|(?:(?<=[0-9]:[0-9]{2})|(?<=[0-9]:[0-9]{2} ))[+-][0-9]{2})"
    r" +(?:[A-Za-z]{1,5}|\2(?::?\3)?)$"
)


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
    rest, bracketed = bracketed_zones(rest, rows)
    rest, in_zones = in_named_zones(rest, rows)
    refusals = [(row, said_of(text.iloc[row], why)) for row, why in bracketed + in_zones]
    naive = first(~rest.str.match(_ZONED).to_numpy(bool))
    if naive is not None:
        written = str(text.iloc[rows[naive]])
        refusals.append((int(rows[naive]), unzoned(str(rest.iloc[naive]), written)))
    # the zone written as a name of UTC, Z or an offset, with or without a space before it
    iso = rest.str.replace(rf"\s*(?:{UTC_NAMES}|[Zz])$", "+00:00", regex=True)
    return iso.str.replace(r"\s+(?=[+-]\d{2}(?::?\d{2})?$)", "", regex=True), refusals


# how an export writes a missing time: each is an undated item
NO_TIME = ("", "nan", "nat", "none", "null", "na", "n/a", "-")
UNDATED = (
    "has no publication time; an undated item could be from any day, so it is refused "
    "(date it or drop it)"
)


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
        NAIVE.format(value=quoted(column.iloc[dated]))
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
        raise refuse(what, row, NAIVE.format(value=quoted(value)))
    return value


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or value is pd.NaT or _is_nan(value)


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and np.isnan(value)


__all__ = ["NO_TIME", "UNDATED", "RowError", "first", "published", "refuse"]
