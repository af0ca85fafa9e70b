"""A researcher's own news and fundamentals for historical bars, read and checked strictly.

News is one row per item: ``published`` (a timestamp with its time zone: an offset,
``Z``, ``UTC`` or ``GMT``), ``symbols`` (the names it concerns: a list, or text separated
by ``,``, ``;`` or ``|``; blank for an item about the whole market), ``headline`` and
``body``, and optionally ``kind`` (``news`` when absent). Fundamentals are one row per
report: ``published`` (when the figures became public: the report date, with its time of
day and time zone), ``symbol`` and one or more figure columns holding numbers.

Look-ahead through text starts with a date nobody checked, so nothing is coerced:
an undated item, a timestamp without a time zone (or a date without a time of
day), a symbol the bars do not hold, a blank headline, a headline or body that is not
text, a figure that is not a number, or an item given twice (its symbols in any order) is
refused, naming the row and the fix.
"""

from __future__ import annotations

import csv
import datetime as _dt
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from email.utils import parsedate_tz
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.engine.bars import read_parquet_file, table_file, utf8_csv
from workbench.engine.textmask import (
    column_words,
    is_date_column,
    is_money,
    is_word_like,
    is_year_column,
)
from workbench.errors import ConfigError

NEWS_COLUMNS = ("published", "symbols", "headline", "body")
FUNDAMENTALS_COLUMNS = ("published", "symbol")
_TEXT = ("published", "symbols", "symbol", "headline", "body", "kind", "name")
_ZONED = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*([Zz]|(?i:UTC|GMT)|[+-]\d{2}(:?\d{2})?)$"
)
# zoned, in ASCII digits, the offset right after the time: what _ZONED accepts and the zone
# rewriting leaves as it is (an engine-neutral pattern, read by Arrow or by Python alike)
_PLAIN = (
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?"
    r"[+-][0-9]{2}(?::?[0-9]{2})?"
)
_SEPARATORS = re.compile(r"[,;|]")

Source = str | Path | pd.DataFrame


def read_news(source: Source, symbols: Iterable[str]) -> pd.DataFrame:
    """The news as a checked table: ``published`` (UTC nanoseconds), ``symbols`` (tuples of
    real symbols), ``headline``, ``body`` and ``kind``, in publication order."""
    frame = _table(source, "news", NEWS_COLUMNS)
    known = frozenset(symbols)
    out = pd.DataFrame(
        {
            "published": _published(frame["published"], "news"),
            "symbols": _symbol_lists(frame["symbols"], known),
            "headline": _text(frame["headline"], "news", "headline", blank_ok=False),
            "body": _text(frame["body"], "news", "body", blank_ok=True),
            "kind": _kinds(frame),
        }
    )
    # the same names in another order or with another separator are the same item
    keyed = out.assign(symbols=pd.Series([tuple(sorted(s)) for s in out["symbols"]], dtype=object))
    _no_twice(keyed, ["published", "symbols", "headline", "body"], "news", "the same item")
    return out.sort_values("published", kind="stable").reset_index(drop=True)


def read_fundamentals(source: Source, symbols: Iterable[str]) -> pd.DataFrame:
    """The reports as a checked table: ``published`` (UTC nanoseconds), ``symbol`` and the
    figure columns as floats, in publication order."""
    frame = _table(source, "fundamentals", FUNDAMENTALS_COLUMNS)
    figures = [c for c in frame.columns if c not in FUNDAMENTALS_COLUMNS]
    if not figures:
        raise ConfigError(
            "fundamentals need at least one figure column (eps, revenue, ...) beside "
            "published and symbol"
        )
    known = frozenset(symbols)
    out = pd.DataFrame(
        {
            "published": _published(frame["published"], "fundamentals"),
            "symbol": _one_symbol(frame["symbol"], known),
        }
    )
    for column in figures:
        if is_date_column(column):
            out[column] = _dates(frame[column], column)
        elif is_year_column(column):
            out[column] = _years(frame[column], column)
        else:
            out[column] = _figures(frame[column], column)
            if not is_money(column):  # a money figure is shown scaled, never as written
                _no_hidden_calendar(out[column].to_numpy(float), column)
    _no_twice(out, ["published", "symbol"], "fundamentals", "a report on the same name")
    return out.sort_values("published", kind="stable").reset_index(drop=True)


def _no_twice(table: pd.DataFrame, key: list[str], what: str, same: str) -> None:
    """Refuse a second row with the same key: which of two copies a decision sees would
    hang on row order."""
    again = _first(table.duplicated(key).to_numpy(bool))
    if again is not None:
        first = _first(table[key].eq(table[key].iloc[again]).all(axis=1).to_numpy(bool))
        assert first is not None
        raise ConfigError(
            f"{what} rows {first + 1} and {again + 1} are {same} at the same time; keep one "
            "(merge them, or drop the copy)"
        )


def _table(source: Source, what: str, required: tuple[str, ...]) -> pd.DataFrame:
    frame = _read(source, what)
    if frame.empty:
        raise ConfigError(f"the {what} table has a header but no rows; pass one row per item")
    lowered = [str(c).strip().lower() for c in frame.columns]
    repeated = sorted({c for c in lowered if lowered.count(c) > 1})
    if repeated:
        raise ConfigError(f"the {what} table has the column {repeated[0]!r} twice; keep one")
    frame.columns = lowered
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ConfigError(
            f"the {what} table needs columns {', '.join(required)}; missing {missing}"
            + _one_column_hint(lowered)
        )
    return frame.reset_index(drop=True)


def _one_column_hint(header: list[str]) -> str:
    """A header read as one column: the file is separated by something other than commas."""
    separator = next((c for c in ";\t|" if len(header) == 1 and c in header[0]), None)
    if separator is None:
        return ""
    return (
        f" (the header {header[0]!r} reads as one column: the file is separated by "
        f"{separator!r}; write it with commas)"
    )


def _read(source: Source, what: str) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return source.copy()
    if not isinstance(source, (str, Path)):
        raise ConfigError(
            f"{what}= is a {type(source).__name__}; pass the path of a .csv or .parquet file, "
            "or a DataFrame"
        )
    path = table_file(source, what, "item")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return read_parquet_file(path, what)
    if suffix == ".csv":
        with utf8_csv(path, what):
            return _read_csv(path, what)
    raise ConfigError(f"{path}: {what} must be a .csv or .parquet file (or a DataFrame)")


def _read_csv(path: Path, what: str) -> pd.DataFrame:
    header = [str(c) for c in pd.read_csv(path, nrows=0).columns]
    text = [c for c in header if c.strip().lower() in _TEXT]
    try:
        frame = pd.read_csv(
            path,
            dtype=dict.fromkeys(text, "string"),
            keep_default_na=False,
            na_values={c: [""] for c in text},
        )
    except pd.errors.ParserError as exc:  # a row with more fields than the header
        _same_width(path, what)
        raise ConfigError(f"{what} file {path} cannot be read as CSV: {exc}") from None
    # pandas reads a row too long as an index, and a row too short as blanks at its end
    if not isinstance(frame.index, pd.RangeIndex) or frame.iloc[:, -1].isna().any():
        _same_width(path, what)
    return frame


def _same_width(path: Path, what: str) -> None:
    """Refuse a row with more or fewer fields than the header, naming it."""
    with path.open(encoding="utf-8-sig", newline="") as file:
        rows = csv.reader(file)
        header = next(rows, [])
        records = (record for record in rows if record)  # pandas skips blank lines too
        for row, record in enumerate(records):
            if len(record) == len(header):
                continue
            if len(record) > len(header):
                why = 'a text holding a comma needs quotes ("Acme, Inc."): quote it'
            else:
                why = "a field is missing (an empty one still needs its comma): add it"
            raise _refuse(
                what,
                row,
                f"has {len(record)} fields where the header has {len(header)} "
                f"({', '.join(header)}); {why} or fix the row",
            )


class _RowError(ConfigError):
    """A refusal of one row, which knows the row's position (``by_label`` names its label)."""

    def __init__(self, what: str, row: int, problem: str) -> None:
        super().__init__(f"{what} row {row + 1} {problem}")
        self.what, self.row = what, row


def _refuse(what: str, row: int, problem: str) -> ConfigError:
    return _RowError(what, row, problem)


@contextmanager
def by_label(source: object) -> Iterator[None]:
    """Read ``source`` inside: a refused row of a DataFrame with an index of its own is
    named by its index label too, as the researcher finds it (``frame.loc[label]``)."""
    try:
        yield
    except _RowError as error:
        index = source.index if isinstance(source, pd.DataFrame) else None
        message = str(error)
        if index is not None and not index.equals(pd.RangeIndex(len(index))):
            label = index[error.row]
            label = label.item() if isinstance(label, np.generic) else label
            where = f"{error.what} row {error.row + 1}"
            message = message.replace(where, f"{where} (index {label!r})", 1)
        raise ConfigError(message) from None


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _published(column: pd.Series, what: str) -> np.ndarray:
    """Nanoseconds since the epoch, UTC; every value must carry its own time zone."""
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        stamps = column
    elif pd.api.types.is_datetime64_any_dtype(column):
        raise _naive_column(column, what)
    elif any(isinstance(v, pd.Timestamp) for v in column.head(1)):
        stamps = pd.Series([_stamp(value, what, row) for row, value in enumerate(column)])
    else:
        stamps = _parsed(column.astype("string").str.strip(), what)
    missing = _first(stamps.isna().to_numpy())
    if missing is not None:
        raise _refuse(what, missing, _UNDATED)
    stamps = pd.to_datetime(stamps, utc=True)
    outside = _first(((stamps < _EARLIEST) | (stamps >= _AFTER)).to_numpy(bool))
    if outside is not None:
        raise _refuse(
            what,
            outside,
            f"has the publication time {str(stamps.iloc[outside])!r}, outside the years "
            f"{_EARLIEST.year}-{_AFTER.year - 1} a timestamp can hold; fix the year",
        )
    return stamps.dt.as_unit("ns").to_numpy("datetime64[ns]").view(np.int64)


_EARLIEST, _AFTER = pd.Timestamp("1678-01-01", tz="UTC"), pd.Timestamp("2262-01-01", tz="UTC")


def _parsed(text: pd.Series, what: str) -> pd.Series:
    blank = _first((text.isna() | text.str.lower().isin(_NO_TIME)).to_numpy(bool))
    if blank is not None:
        raise _refuse(what, blank, _UNDATED)
    # most feeds write the plain form, which needs no check or rewriting: only the rest does
    others = np.flatnonzero(~text.str.fullmatch(_PLAIN).to_numpy(bool))
    rest = _from_rfc2822(text.iloc[others], what, others)
    naive = _first(~rest.str.match(_ZONED).to_numpy(bool))
    if naive is not None:
        raise _refuse(what, int(others[naive]), _unzoned(str(rest.iloc[naive])))
    iso = text.copy()
    # the zone written as UTC, GMT (in any case), Z or an offset, with or without a space
    iso.iloc[others] = rest.str.replace(
        r"\s*(?:(?i:UTC|GMT)|[Zz])$", "+00:00", regex=True
    ).str.replace(r"\s+(?=[+-]\d{2}(?::?\d{2})?$)", "", regex=True)
    parsed = pd.to_datetime(iso, utc=True, format="ISO8601", errors="coerce")
    bad = _first(parsed.isna().to_numpy())
    if bad is not None:
        raise _refuse(what, bad, f"has the publication time {text.iloc[bad]!r}, which is no date")
    return parsed


def _from_rfc2822(text: pd.Series, what: str, rows: np.ndarray) -> pd.Series:
    """Times written as e-mail and RSS write them (``Tue, 01 Mar 2016 10:00:00 -0500``,
    ``... 15:00:00 GMT``) rewritten as ISO with their offset; one with another zone's name
    (``EST``) is left as written, to be refused as any abbreviation is. A weekday that is
    not the date's is refused: one of the two is wrong, and which cannot be told."""
    rfc = np.flatnonzero(text.str.match(_RFC2822).to_numpy(bool))
    if not len(rfc):
        return text
    out = text.copy()
    for position in rfc.tolist():
        value = text.iloc[position]
        wrong = _wrong_weekday(value)
        if wrong:
            raise _refuse(what, int(rows[position]), wrong)
        out.iloc[position] = _rfc2822_iso(value)
    return out


def _wrong_weekday(value: str) -> str | None:
    """Why an RFC 2822 time's weekday contradicts its date, or None when it agrees (or
    none is written)."""
    parts = parsedate_tz(value)
    written = value.lstrip()[:3].title()
    if parts is None or written not in _WEEKDAYS:
        return None
    year, month, day = parts[:3]
    try:
        actual = _WEEKDAYS[_dt.date(year, month, day).weekday()]
    except ValueError:  # no such day: refused later as a time that is no date
        return None
    if written == actual:
        return None
    return (
        f"has the publication time {value!r}, whose weekday {written!r} is not its date's: "
        f"{day} {_MONTHS[month - 1]} {year} is a {actual}; fix the date or the weekday"
    )


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _rfc2822_iso(value: str) -> str:
    parts = parsedate_tz(value)
    if parts is None or parts[9] is None:
        return value
    year, month, day, hour, minute, second = parts[:6]
    sign, offset = "-" if parts[9] < 0 else "+", abs(parts[9])
    return (
        f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}"
        f"{sign}{offset // 3600:02d}:{offset % 3600 // 60:02d}"
    )


_RFC2822 = (
    r"(?:[A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{4}\s+\d{1,2}:\d{2}(?::\d{2})?"
    r"\s+(?:[+-]\d{4}|(?i:GMT|UTC?)|Z)$"  # UT and GMT are +00:00 in RFC 2822, as Z and UTC are
)

# how an export writes a missing time: each is an undated item
_NO_TIME = ("", "nan", "nat", "none", "null", "na", "n/a", "-")
_UNDATED = (
    "has no publication time; an undated item could be from any day, so it is refused "
    "(date it or drop it)"
)
_NAIVE = (
    "has the publication time {value!r} without a time zone; write it with its offset "
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


def _unzoned(value: str) -> str:
    """Why a publication time with no offset is refused, and the fix: a zone written as
    an abbreviation (EST is -05:00 in New York and +10:00 in Sydney; CST is three
    zones) or a bare count from 1970 (in seconds? milliseconds?) is no time for sure."""
    named = _NAMED_OFFSET.match(value)
    if named:
        return (
            f"has the publication time {value!r}, its zone written as "
            f"{named['zone'] + named['offset']!r}, which reads two ways: {named['offset']} "
            "from UTC as people write it, the opposite sign in POSIX zone names (Etc/GMT+5 "
            "is UTC-05:00); write the offset alone "
            f"({named['time']}{_hours_minutes(named['offset'])} if {named['offset']} is "
            "meant as people write it)"
        )
    abbreviated = _ABBREVIATED.match(value)
    if abbreviated:
        return (
            f"has the publication time {value!r}, its zone written as the abbreviation "
            f"{abbreviated['zone']!r}, which names no offset for sure (EST is -05:00 in New "
            "York and +10:00 in Australia, CST three zones); write the offset instead "
            f"({abbreviated['time']}-05:00 if it is New York's winter time, +00:00 for UTC)"
        )
    seconds = _OFFSET_SECONDS.match(value)
    if seconds:
        return (
            f"has the publication time {value!r}, its offset {seconds['offset']!r} written "
            "with seconds, which an offset here cannot hold; write hours and minutes "
            f"({seconds['time']}{seconds['hours']}:{seconds['minutes']}), moving the time "
            "by the seconds dropped if they matter"
        )
    if _EPOCH.match(value):
        return (
            f"has the publication time {value!r}, a bare number, which could count seconds "
            "or milliseconds since 1970; write the time with its offset "
            "(2016-01-07T15:00:00+00:00), e.g. pd.to_datetime(column, unit='s', utc=True) "
            "for seconds"
        )
    return _NAIVE.format(value=value)


def _hours_minutes(offset: str) -> str:
    """``+5`` or ``+0530`` as ``+05:00`` or ``+05:30``."""
    sign, digits = offset[0], offset[1:].replace(":", "")
    hours, minutes = (digits[:-2], digits[-2:]) if len(digits) > 2 else (digits, "00")
    return f"{sign}{int(hours):02d}:{minutes}"


def _naive_column(column: pd.Series, what: str) -> ConfigError:
    """The refusal of a timestamp column without a zone, at its first time (a column of
    missing times alone is undated), with the fix: localize it to the zone its times were
    written in."""
    dated = _first(column.notna().to_numpy())
    if dated is None:
        return _refuse(what, 0, _UNDATED)
    return _refuse(
        what,
        dated,
        _NAIVE.format(value=str(column.iloc[dated]))
        + "; for a timestamp column, give it the zone its times were written in: "
        "frame['published'] = frame['published'].dt.tz_localize('America/New_York') for "
        "New York's clock, tz_localize('UTC') for times in UTC",
    )


def _stamp(value: object, what: str, row: int) -> pd.Timestamp | None:
    if not isinstance(value, pd.Timestamp):
        if value is None or value is pd.NA or value is pd.NaT or _is_nan(value):
            return None
        raise _refuse(what, row, f"has the publication time {value!r} among timestamps")
    if value.tzinfo is None:
        raise _refuse(what, row, _NAIVE.format(value=str(value)))
    return value


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and np.isnan(value)


def _text(column: pd.Series, what: str, name: str, *, blank_ok: bool) -> np.ndarray:
    _only_text(column, what, name)
    bad = None if _utf8_only(column) else _first(_unencodables(column.to_numpy(object)))
    if bad is not None:
        raise _refuse(what, bad, f"{name} holds an unpaired surrogate, which is not text; fix it")
    values = column.astype("string").fillna("").str.strip()
    if not blank_ok:
        blank = _first(values.str.fullmatch(_INVISIBLE).to_numpy(bool))
        if blank is not None:
            raise _refuse(what, blank, f"has a blank {name}; write one or drop the row")
    return values.to_numpy(object)


# what shows nothing: white space, and format marks (zero-width spaces and joiners, a soft
# hyphen, direction marks, a byte order mark)
_INVISIBLE = r"[\s\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]*"


def _only_text(column: pd.Series, what: str, name: str) -> None:
    """Refuse a value that is not text (a number, a date): a column read wrong, or the
    wrong column, not what the feed wrote."""
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):
        return
    row = next((r for r, v in enumerate(column) if not (isinstance(v, str) or _missing(v))), None)
    if row is not None:
        value = column.iloc[row]
        raise _refuse(
            what,
            row,
            f"has the {name} {value} (a {type(value).__name__}), which is not text; "
            "write it as text",
        )


def _missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _utf8_only(column: pd.Series) -> bool:
    """Whether the column is held by Arrow, which holds UTF-8 alone (no lone surrogate)."""
    dtype = column.dtype
    return isinstance(dtype, pd.ArrowDtype) or getattr(dtype, "storage", None) == "pyarrow"


def _unencodables(raw: np.ndarray) -> np.ndarray:
    return np.fromiter(map(_unencodable, raw), bool, len(raw))


def _unencodable(value: object) -> bool:
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _kinds(frame: pd.DataFrame) -> np.ndarray:
    if "kind" not in frame.columns:
        return np.full(len(frame), "news", dtype=object)
    kinds = _text(frame["kind"], "news", "kind", blank_ok=True)
    return np.where(kinds == "", "news", kinds).astype(object)


def _symbol_lists(column: pd.Series, known: frozenset[str]) -> list[tuple[str, ...]]:
    """Each row's symbols, split once per distinct value (feeds repeat them)."""
    try:
        codes, values = pd.factorize(column)
    except TypeError:  # lists of symbols: not hashable as they are
        return _symbol_lists_by_row(column, known)
    firsts = np.unique(codes, return_index=True)[1]
    rows = firsts[1:] if len(codes) and codes[firsts[0]] < 0 else firsts  # -1: no value
    parsed = [_known(_split(v), known, int(r)) for v, r in zip(values, rows, strict=True)]
    table = np.empty(len(parsed) + 1, dtype=object)
    for i, symbols in enumerate(parsed):
        table[i] = symbols
    table[-1] = ()  # a blank value's code, -1, reads the last: no symbols
    return table[codes].tolist()


def _symbol_lists_by_row(column: pd.Series, known: frozenset[str]) -> list[tuple[str, ...]]:
    parsed: dict[object, tuple[str, ...]] = {}
    out = []
    for row, value in enumerate(column):
        if isinstance(value, (set, frozenset, Mapping)):
            raise _refuse(
                "news",
                row,
                f"has the symbols {value!r}, a {type(value).__name__}, which is no list of "
                "symbols; give them as a list (['ACME', 'BOLT']) or as text (ACME;BOLT)",
            )
        key = tuple(value) if isinstance(value, (list, np.ndarray)) else value
        if key not in parsed:
            parsed[key] = _known(_split(value), known, row)
        out.append(parsed[key])
    return out


def _known(names: list[str], known: frozenset[str], row: int) -> tuple[str, ...]:
    unknown = [s for s in names if s not in known]
    if unknown:
        written = _written_wrong(unknown[0], known)
        raise _refuse(
            "news",
            row,
            f"concerns {unknown[0]!r}, which the bars do not hold; "
            + (
                written
                or "add that name's bars or drop the row (only the names of the bars are "
                "masked, so dropping the ticker from symbols would leave it unmasked in the text)"
            ),
        )
    return tuple(dict.fromkeys(names))


def _written_wrong(symbol: str, known: frozenset[str]) -> str | None:
    """The fix when the bars' symbols are there but written another way."""
    if any(c in symbol for c in "[]'\""):
        return (
            "the symbols look like a Python list written as text (a list column saved to CSV): "
            "write them as ACME;BOLT"
        )
    parts = symbol.split()
    if len(parts) > 1 and all(p in known for p in parts):
        return "separate the symbols with ',', ';' or '|'"
    if symbol.upper() in known:
        return f"symbols match in their case: write {symbol.upper()!r}"
    return None


def _split(value: object) -> list[str]:
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return []
    if isinstance(value, (list, tuple, np.ndarray)):
        parts = [str(v) for v in value]
    else:
        parts = _SEPARATORS.split(str(value))
    return [p.strip() for p in parts if p.strip()]


def _one_symbol(column: pd.Series, known: frozenset[str]) -> np.ndarray:
    values = column.astype("string").fillna("").str.strip()
    blank = _first((values == "").to_numpy())
    if blank is not None:
        raise _refuse("fundamentals", blank, "has a blank symbol; fill it in or drop the row")
    unknown = _first(~values.isin(known).to_numpy())
    if unknown is not None:
        symbol = str(values.iloc[unknown])
        fix = _written_wrong(symbol, known) or "drop the row"
        raise _refuse(
            "fundamentals", unknown, f"is for {symbol!r}, which the bars do not hold; {fix}"
        )
    return values.to_numpy(object)


def _figures(column: pd.Series, name: str) -> np.ndarray:
    if pd.api.types.is_bool_dtype(column):
        raise ConfigError(f"fundamentals column {name!r} holds true/false values, not numbers")
    numbers = pd.to_numeric(column, errors="coerce")
    written = (column.notna() & (column.astype("string").str.strip() != "")).to_numpy(bool)
    unreadable = _first(numbers.isna().to_numpy(bool) & written)
    if unreadable is not None:
        value = column.iloc[unreadable]
        fix = _figure_fix(str(value).strip(), name)
        if fix is None and numbers[written].isna().all():
            raise ConfigError(
                f"fundamentals column {name!r} holds no figure (first value {value!r}); every "
                "column beside published and symbol is a figure, so drop that column"
            )
        raise _refuse(
            "fundamentals",
            unreadable,
            f"has {name} {value!r}, "
            + (fix or "which is not a number; fix it, leave it blank (no figure) or drop the row"),
        )
    infinite = _first(np.isinf(numbers.to_numpy(float)))
    if infinite is not None:
        raise _refuse("fundamentals", infinite, f"has {name} {numbers.iloc[infinite]}; not finite")
    return numbers.to_numpy(float)


def _dates(column: pd.Series, name: str) -> np.ndarray:
    """A column of calendar dates (``is_date_column``) as days since 1970-01-01 (NaN for
    none): written year first (2015-12-31), as a number YYYYMMDD (20151231), or as dates."""
    days = np.full(len(column), np.nan)
    for row, value in enumerate(column):
        if _missing(value) or (isinstance(value, str) and not value.strip()):
            continue
        day = _day(value)
        if day is None:
            raise _refuse(
                "fundamentals",
                row,
                f"has {name} {_plain(value)!r}, which is no date; write it year first (2015-12-31) "
                "or as YYYYMMDD (20151231). A column whose name ends in date, end, ended, "
                "ending, start, begin or beginning holds dates: rename it if it holds another "
                "figure",
            )
        days[row] = day
    return days


def _day(value: object) -> int | None:
    """Days since 1970-01-01 of a date written year first, as YYYYMMDD or as a date."""
    if isinstance(value, (pd.Timestamp, np.datetime64)) or hasattr(value, "toordinal"):
        stamp = pd.Timestamp(value)  # type: ignore[arg-type]
        return None if pd.isna(stamp) else pd.Timestamp(stamp.date()).value // _DAY_NS
    text = str(value).strip()
    if isinstance(value, (int, float, np.number)) and float(value).is_integer():
        text = str(int(value))
    found = _DATE_FORMS.fullmatch(text)
    if found is None:
        return None
    try:
        when = pd.Timestamp(int(found["y"]), int(found["m"]), int(found["d"]))
    except ValueError:
        return None
    return when.value // _DAY_NS


def _no_hidden_calendar(numbers: np.ndarray, name: str) -> None:
    """Refuse a figure kept as written that holds dates written as numbers (20151231 in
    every row), or years (2015) under a name that speaks of a period: shown as written,
    it would date the bars."""
    given = numbers[np.isfinite(numbers)]
    if not len(given) or not (given == np.round(given)).all():
        return
    dated = ((given >= 1900_01_01) & (given < 2100_00_00)).all()
    if dated and all(_day(int(v)) is not None for v in given):
        raise ConfigError(
            f"fundamentals column {name!r} holds dates written as numbers (first "
            f"{int(given[0])}), which agents would read as written; name it so it ends "
            f"in date or end ({name}_date, period_end) and the mask places it on the "
            "run's calendar, or drop it"
        )
    words = column_words(name)
    periodic = any(w in _PERIOD_WORDS for w in words)
    if periodic and ((given >= 1900) & (given < 2100)).all():
        raise ConfigError(
            f"fundamentals column {name!r} holds years (first {int(given[0])}), which agents "
            "would read as written; name it so it ends in year or fy (fiscal_year) and the "
            "mask counts it from the run's first year, or drop it"
        )
    if periodic and ((given >= 1900_01) & (given < 2100_00) & _months(given)).all():
        raise ConfigError(
            f"fundamentals column {name!r} holds months written as numbers YYYYMM (first "
            f"{int(given[0])}), which agents would read as written; give the period's last "
            "day in a column whose name ends in end (period_end, 2016-03-31) and the mask "
            "places it on the run's calendar, or drop it"
        )
    _no_epoch_times(given, name, words)


def _months(numbers: np.ndarray) -> np.ndarray:
    month = numbers % 100
    return (month >= 1) & (month <= 12)


def _no_epoch_times(given: np.ndarray, name: str, words: list[str]) -> None:
    """Refuse times counted since 1970 (seconds, milliseconds or nanoseconds of the years
    2000-2099) under a name that speaks of a time (filed_ts, as_of_epoch)."""
    timely = any(w in _TIME_WORDS for w in words) or {"as", "of"} <= set(words)
    if not timely:
        return
    for unit in (1, 10**3, 10**9):
        if ((given >= 946_684_800 * unit) & (given < 4_102_444_800 * unit)).all():
            raise ConfigError(
                f"fundamentals column {name!r} holds times counted since 1970 (first "
                f"{int(given[0])}), which agents would read as dates; write the date year "
                f"first (2016-03-31) in a column whose name ends in date ({name}_date) and "
                "the mask places it on the run's calendar, or drop it"
            )


_PERIOD_WORDS = frozenset(
    ("period", "fiscal", "calendar", "year", "yr", "fy", "quarter", "reported", "month")
)
_TIME_WORDS = frozenset(
    ("ts", "timestamp", "time", "epoch", "unix", "filed", "updated", "created", "asof")
)


def _plain(value: object) -> object:
    """A NumPy scalar as the Python number it holds (for messages)."""
    return value.item() if isinstance(value, np.generic) else value


_DAY_NS = 86_400 * 10**9
_DATE_FORMS = re.compile(r"(?P<y>\d{4})-?(?P<m>\d{2})-?(?P<d>\d{2})")


def _years(column: pd.Series, name: str) -> np.ndarray:
    """A column of years (``is_year_column``): whole numbers of four digits, 1000 to 2999."""
    numbers = pd.to_numeric(column, errors="coerce").to_numpy(float)
    written = (column.notna() & (column.astype("string").str.strip() != "")).to_numpy(bool)
    whole = np.isfinite(numbers) & (numbers == np.round(numbers))
    bad = _first(written & ~(whole & (numbers >= 1000) & (numbers < 3000)))
    if bad is not None:
        raise _refuse(
            "fundamentals",
            bad,
            f"has {name} {_plain(column.iloc[bad])!r}, which is no year; write the year in full "
            "(2015). A column whose name ends in year or fy holds years: rename it if it "
            "holds another figure",
        )
    return np.where(written, numbers, np.nan)


def _figure_fix(text: str, name: str) -> str | None:
    """What a figure written another way is, and how to write it; None for what is no
    number in any way."""
    if text.lower() in _NO_TIME:
        return "a missing figure written as text; leave the cell blank for no figure"
    number = text.replace(",", "")
    if _THOUSANDS.fullmatch(text):
        return f"a number written with thousands separators; write it plain: {number}"
    if _PERCENT.fullmatch(text):
        share = float(text.rstrip("% ")) / 100
        return (
            f"a percentage; write the number alone ({text.rstrip('% ')}, in a column named "
            f"{name}_pct) or the share ({share:g})"
        )
    if _MONEY.fullmatch(text):
        return f"a number with its currency; write the number alone: {text.lstrip('$€£¥ ')}"
    if _DATE_TEXT.fullmatch(text):
        return (
            "a date; dates go in a column whose name ends in date or end "
            f"({name}_date, period_end), written year first (2015-12-31), and the mask "
            "places them on the run's calendar"
        )
    if _PERIOD_TEXT.fullmatch(text):
        return (
            "a period written as text; give its year in a column whose name ends in year "
            "(fiscal_year, 2015) and its last day in one whose name ends in end (period_end, "
            "2015-12-31), which the mask places on the run's calendar"
        )
    return None


_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PERCENT = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)\s*%")
_MONEY = re.compile(r"[$€£¥]\s*[+-]?(?:\d+\.?\d*|\.\d+)")
_DATE_TEXT = re.compile(
    r"(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})(?:[T ].*)?"
)
_PERIOD_TEXT = re.compile(
    r"(?:fy|cy|q[1-4]|h[12])\s*'?(?:\d{2}|\d{4})|\d{4}\s*-?\s*(?:fy|q[1-4]|h[12])", re.I
)


def check_figure_names(
    columns: Iterable[str], symbols: Iterable[str], names: Mapping[str, Iterable[str]]
) -> None:
    """Refuse a figure whose column name identifies a company or a date: agents read a
    figure's name as written, so ``acme_segment_revenue`` or ``rev_2016`` would give away
    what the mask hides. A ticker counts as a word of the name unless it reads as a word
    (``is_word_like``: ``on``, ``it``) or is a word figures are named by (``FIGURE_WORDS``:
    Costco's ``cost`` in ``cost_of_sales``, Cloudflare's ``net`` in ``net_income``), a
    company name as its words in a row."""
    tickers = {
        s.lower(): s for s in symbols if not is_word_like(s) and s.lower() not in FIGURE_WORDS
    }
    companies = [(column_words(n), s) for s, ns in names.items() for n in ns]
    for column in columns:
        words = column_words(column)
        found = _company_in(words, companies) or _ticker_in(words, tickers) or _date_in(words)
        if found is None:
            continue
        why, at = found
        neutral = "_".join(w for k, w in enumerate(words) if k not in at) or "figure"
        fix = (
            f"rename it without the name ({neutral}), or drop the column if the figure "
            "itself tells the company apart"
            if not why.endswith("a year or a date")
            else "give each period's figure in the row of the report that gives it, under "
            f"one name without the period ({neutral}), the period in fiscal_year or "
            "period_end, which the mask places on the run's calendar"
        )
        raise ConfigError(
            f"fundamentals column {column!r} {why}: agents read a figure's name as written, "
            f"so it would give away what the mask hides; {fix}"
        )


# words figures are named by, some of them tickers too (COST, NET, CASH, FCF, TTM, UNIT)
FIGURE_WORDS = frozenset((
    "eps", "revenue", "revenues", "sales", "sale", "income", "earnings", "profit", "ebit",
    "ebitda", "cash", "flow", "free", "fcf", "assets", "asset", "liabilities", "debt", "equity",
    "dividend", "dividends", "div", "price", "book", "value", "capex", "cost", "costs",
    "expense", "expenses", "net", "gross", "operating", "margin", "ratio", "rate", "growth",
    "yield", "return", "gain", "loss", "roe", "roa", "roic", "pe", "pb", "ps", "ev", "ttm",
    "per", "share", "shares", "unit", "units", "count", "next", "prior", "last", "est",
    "estimate", "actual", "surprise", "guidance", "total", "current", "interest", "tax",
    "turnover", "payout", "cap", "market", "float", "beta", "high", "low", "change",
))  # fmt: skip


def _ticker_in(words: list[str], tickers: Mapping[str, str]) -> tuple[str, list[int]] | None:
    at = [k for k, w in enumerate(words) if w in tickers]
    if not at:
        return None
    return f"holds {words[at[0]]!r}, the ticker of {tickers[words[at[0]]]}", at


def _company_in(
    words: list[str], companies: list[tuple[list[str], str]]
) -> tuple[str, list[int]] | None:
    for name, symbol in companies:
        width = len(name)
        for k in range(len(words) - width + 1 if width else 0):
            if words[k : k + width] == name:
                why = f"holds {' '.join(name)!r}, a company name of {symbol}"
                return why, list(range(k, k + width))
    return None


def _date_in(words: list[str]) -> tuple[str, list[int]] | None:
    """A year (1900-2099) or a date written year first (201603, 20160331) among the words,
    or a year written short after fy or cy (fy16)."""
    for k, word in enumerate(words):
        dated = word.isdigit() and len(word) in (4, 6, 8) and word[:2] in ("19", "20")
        short = word.isdigit() and len(word) == 2 and k > 0 and words[k - 1] in ("fy", "cy")
        if dated or short:
            at = [k - 1, k] if short else [k]
            return f"holds {word!r}, a year or a date", at
    return None


def read_names(source: Source) -> dict[str, list[str]]:
    """Company names to mask from a ``symbol,name`` table (a symbol may have several rows)."""
    frame = _table(source, "names", ("symbol", "name"))
    symbols = frame["symbol"].astype("string").fillna("").str.strip()
    names = _text(frame["name"], "names", "name", blank_ok=False)
    blank = _first((symbols == "").to_numpy())
    if blank is not None:
        raise _refuse("names", blank, "has a blank symbol; fill it in or drop the row")
    out: dict[str, list[str]] = {}
    for symbol, name in zip(symbols, names, strict=True):
        out.setdefault(str(symbol), []).append(str(name))
    return out
