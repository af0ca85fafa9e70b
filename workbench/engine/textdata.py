"""A researcher's own news and fundamentals for historical bars, read and checked strictly.

News is one row per item: ``published`` (a timestamp with its time zone: an offset,
``Z``, ``UTC`` or ``GMT``, or a zone's name in the tz database; read by
``workbench.engine.textstamps``, which lists the layouts it reads), ``symbols`` (the
names it concerns: a list, or text separated by ``,``, ``;`` or ``|``; blank for an
item about the whole market), ``headline`` and ``body``, and optionally ``kind``
(``news`` when absent). Fundamentals are one row per report: ``published`` (when the
figures became public: the report date, with its time of day and time zone), ``symbol``
and one or more figure columns holding numbers.

Look-ahead through text starts with a date nobody checked, so nothing is coerced:
an undated item, a timestamp without a time zone (or a date without a time of
day), a symbol the bars do not hold, a blank headline, a headline or body that is not
text, a figure that is not a number, or an item given twice (its symbols in any order) is
refused, naming the row and the fix.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.engine.bars import read_parquet_file, table_file, unencodable, utf8_csv
from workbench.engine.textmask import (
    column_words,
    is_date_column,
    is_money,
    is_word_like,
    is_year_column,
)
from workbench.engine.textstamps import NO_TIME as _NO_TIME
from workbench.engine.textstamps import RowError as _RowError
from workbench.engine.textstamps import first as _first
from workbench.engine.textstamps import published as _published
from workbench.engine.textstamps import refuse as _refuse
from workbench.errors import ConfigError

NEWS_COLUMNS = ("published", "symbols", "headline", "body")
FUNDAMENTALS_COLUMNS = ("published", "symbol")
_TEXT = ("published", "symbols", "symbol", "headline", "body", "kind", "name")
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
    return np.fromiter(map(unencodable, raw), bool, len(raw))


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
