"""A researcher's own news and fundamentals for historical bars, read and checked strictly.

News is one row per item: ``published`` (a timestamp with its time zone),
``symbols`` (the names it concerns: a list, or text separated by ``,``, ``;`` or
``|``; blank for an item about the whole market), ``headline`` and ``body``, and
optionally ``kind`` (``news`` when absent). Fundamentals are one row per report:
``published`` (when the figures became public: the report date, with its time of
day and time zone), ``symbol`` and one or more figure columns holding numbers.

Look-ahead through text starts with a date nobody checked, so nothing is coerced:
an undated item, a timestamp without a time zone (or a date without a time of
day), a symbol the bars do not hold, a blank headline, a headline or body that is not
text, a figure that is not a number, or an item given twice (its symbols in any order) is
refused, naming the row and the fix.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.engine.bars import read_parquet_file, table_file, utf8_csv
from workbench.errors import ConfigError

NEWS_COLUMNS = ("published", "symbols", "headline", "body")
FUNDAMENTALS_COLUMNS = ("published", "symbol")
_TEXT = ("published", "symbols", "symbol", "headline", "body", "kind", "name")
_ZONED = re.compile(
    r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?\s*(Z|UTC|[+-]\d{2}(:?\d{2})?)$"
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
        out[column] = _figures(frame[column], column)
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
            return _read_csv(path)
    raise ConfigError(f"{path}: {what} must be a .csv or .parquet file (or a DataFrame)")


def _read_csv(path: Path) -> pd.DataFrame:
    header = [str(c) for c in pd.read_csv(path, nrows=0).columns]
    text = [c for c in header if c.strip().lower() in _TEXT]
    return pd.read_csv(
        path,
        dtype=dict.fromkeys(text, "string"),
        keep_default_na=False,
        na_values={c: [""] for c in text},
    )


def _refuse(what: str, row: int, problem: str) -> ConfigError:
    return ConfigError(f"{what} row {row + 1} {problem}")


def _first(mask: np.ndarray) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if len(hits) else None


def _published(column: pd.Series, what: str) -> np.ndarray:
    """Nanoseconds since the epoch, UTC; every value must carry its own time zone."""
    if isinstance(column.dtype, pd.DatetimeTZDtype):
        stamps = column
    elif pd.api.types.is_datetime64_any_dtype(column):
        raise _refuse(
            what,
            0,
            _NAIVE.format(value=str(column.iloc[0]))
            + "; for a timestamp column, give it its zone: "
            "frame['published'] = frame['published'].dt.tz_localize('America/New_York')",
        )
    elif any(isinstance(v, pd.Timestamp) for v in column.head(1)):
        stamps = pd.Series([_stamp(value, what, row) for row, value in enumerate(column)])
    else:
        stamps = _parsed(column.astype("string").str.strip(), what)
    missing = _first(stamps.isna().to_numpy())
    if missing is not None:
        raise _refuse(what, missing, _UNDATED)
    stamps = pd.to_datetime(stamps, utc=True)
    outside = _first(((stamps < _EARLIEST) | (stamps > _LATEST)).to_numpy(bool))
    if outside is not None:
        raise _refuse(
            what,
            outside,
            f"has the publication time {str(stamps.iloc[outside])!r}, outside the years "
            f"{_EARLIEST.year}-{_LATEST.year} a timestamp can hold; fix the year",
        )
    return stamps.dt.as_unit("ns").to_numpy("datetime64[ns]").view(np.int64)


_EARLIEST, _LATEST = pd.Timestamp("1678-01-01", tz="UTC"), pd.Timestamp("2261-12-31", tz="UTC")


def _parsed(text: pd.Series, what: str) -> pd.Series:
    blank = _first((text.isna() | text.str.lower().isin(_NO_TIME)).to_numpy(bool))
    if blank is not None:
        raise _refuse(what, blank, _UNDATED)
    # most feeds write the plain form, which needs no check or rewriting: only the rest does
    others = np.flatnonzero(~text.str.fullmatch(_PLAIN).to_numpy(bool))
    rest = text.iloc[others]
    naive = _first(~rest.str.match(_ZONED).to_numpy(bool))
    if naive is not None:
        raise _refuse(what, int(others[naive]), _unzoned(str(rest.iloc[naive])))
    iso = text.copy()
    # the zone written as UTC, Z or an offset, with or without a space before it
    iso.iloc[others] = rest.str.replace(r"\s*(?:UTC|Z)$", "+00:00", regex=True).str.replace(
        r"\s+(?=[+-]\d{2}(?::?\d{2})?$)", "", regex=True
    )
    parsed = pd.to_datetime(iso, utc=True, format="ISO8601", errors="coerce")
    bad = _first(parsed.isna().to_numpy())
    if bad is not None:
        raise _refuse(what, bad, f"has the publication time {text.iloc[bad]!r}, which is no date")
    return parsed


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
_ABBREVIATED = re.compile(r"^(?P<time>.*\d)\s*(?P<zone>[A-Z]{2,5})$")
_EPOCH = re.compile(r"^[+-]?\d{9,19}(?:\.\d*)?$")


def _unzoned(value: str) -> str:
    """Why a publication time with no offset is refused, and the fix: a zone written as
    an abbreviation (EST is -05:00 in New York and +10:00 in Sydney; CST is three
    zones) or a bare count from 1970 (in seconds? milliseconds?) is no time for sure."""
    abbreviated = _ABBREVIATED.match(value)
    if abbreviated:
        return (
            f"has the publication time {value!r}, its zone written as the abbreviation "
            f"{abbreviated['zone']!r}, which names no offset for sure (EST is -05:00 in New "
            "York and +10:00 in Australia, CST three zones); write the offset instead "
            f"({abbreviated['time']}-05:00 if it is New York's winter time, +00:00 for UTC)"
        )
    if _EPOCH.match(value):
        return (
            f"has the publication time {value!r}, a bare number, which could count seconds "
            "or milliseconds since 1970; write the time with its offset "
            "(2016-01-07T15:00:00+00:00), e.g. pd.to_datetime(column, unit='s', utc=True) "
            "for seconds"
        )
    return _NAIVE.format(value=value)


def _stamp(value: object, what: str, row: int) -> pd.Timestamp | None:
    if not isinstance(value, pd.Timestamp):
        if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
            return None
        raise _refuse(what, row, f"has the publication time {value!r} among timestamps")
    if value.tzinfo is None:
        raise _refuse(what, row, _NAIVE.format(value=str(value)))
    return value


def _text(column: pd.Series, what: str, name: str, *, blank_ok: bool) -> np.ndarray:
    _only_text(column, what, name)
    bad = None if _utf8_only(column) else _first(_unencodables(column.to_numpy(object)))
    if bad is not None:
        raise _refuse(what, bad, f"{name} holds an unpaired surrogate, which is not text; fix it")
    values = column.astype("string").fillna("").str.strip()
    if not blank_ok:
        blank = _first((values == "").to_numpy())
        if blank is not None:
            raise _refuse(what, blank, f"has a blank {name}; write one or drop the row")
    return values.to_numpy(object)


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
    written = column.notna() & (column.astype("string").str.strip() != "")
    if written.any() and numbers[written.to_numpy(bool)].isna().all():
        raise ConfigError(
            f"fundamentals column {name!r} holds no figure (first value "
            f"{column[written].iloc[0]!r}); every column beside published and symbol is a "
            "figure, so drop that column"
        )
    unreadable = _first(
        (numbers.isna() & column.notna() & (column.astype("string") != "")).to_numpy()
    )
    if unreadable is not None:
        raise _refuse(
            "fundamentals",
            unreadable,
            f"has {name} {column.iloc[unreadable]!r}, which is not a number; fix it, leave it "
            "blank (no figure) or drop the row",
        )
    infinite = _first(np.isinf(numbers.to_numpy(float)))
    if infinite is not None:
        raise _refuse("fundamentals", infinite, f"has {name} {numbers.iloc[infinite]}; not finite")
    return numbers.to_numpy(float)


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
