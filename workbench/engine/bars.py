"""Historical OHLCV bars: read from a file or a DataFrame, and checked strictly.

Every check names the row or the symbol at fault and the fix; nothing is
silently coerced. A bar passes when its date parses (one format per file, daily,
no time of day), its symbol is not blank, its prices are finite and positive
with ``low <= open, close <= high``, and its volume is finite and non-negative.
The table as a whole passes when its columns are unambiguous, each symbol keeps
one sector, no (date, symbol) repeats and every symbol has a bar on every date.
Odd but legal calendars pass with a warning (``calendar_notes`` says what): a hole
longer than a week between consecutive dates, or bars on a Saturday or Sunday.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.errors import ConfigError

REQUIRED = ("date", "symbol", "open", "high", "low", "close", "volume")
PRICES = ("open", "high", "low", "close")
_SHOWN_DATES = 5
LONGEST_GAP_DAYS = 7
_MISSING = ["", "NaN", "nan", "NA", "N/A", "null", "NULL", "None", "-"]


def read_bars(source: str | Path | pd.DataFrame) -> pd.DataFrame:
    """The bars as a checked long table sorted by date then symbol (dates as YYYY-MM-DD)."""
    frame = _read(source)
    if frame.empty:
        where = "the DataFrame" if isinstance(source, pd.DataFrame) else str(source)
        raise ConfigError(f"{where} has a header but no bars; pass a table with one row per bar")
    frame = _columns(frame)
    _refuse_unwritable_text(frame)
    frame["symbol"] = _symbols(frame["symbol"])
    frame["date"] = _dates(frame["date"])
    for column in (*PRICES, "volume"):
        frame[column] = _numbers(frame[column], column)
    _check_values(frame)
    _check_table(frame)
    dates = np.asarray(frame["date"].unique(), dtype=object)  # an Arrow array is read slowly
    for note in calendar_notes(dates):
        warnings.warn(note, stacklevel=2)
    return frame.sort_values(["date", "symbol"]).reset_index(drop=True)


def table_file(source: str | Path, what: str, row: str) -> Path:
    """``source`` as the path of a non-empty file, or a ConfigError naming ``what`` it is."""
    path = Path(source)
    if path.is_dir():
        raise ConfigError(f"the {what} file {path} is a folder; pass the .csv or .parquet file")
    if not path.is_file():
        raise ConfigError(f"no such {what} file: {path}")
    if path.stat().st_size == 0:
        raise ConfigError(f"{what} file {path} is empty; it needs a header and one row per {row}")
    return path


def read_parquet_file(path: Path, what: str) -> pd.DataFrame:
    """A Parquet file, or a ConfigError naming it when it is not one Arrow can read."""
    try:
        return pd.read_parquet(path)
    except (ValueError, OSError) as exc:  # Arrow's ArrowInvalid is a ValueError
        raise ConfigError(
            f"{what} file {path} is not a Parquet file that can be read ({exc}); write it "
            "again with DataFrame.to_parquet, or pass it as a .csv"
        ) from None


@contextmanager
def utf8_csv(path: Path, what: str) -> Iterator[None]:
    """Reading a CSV inside: a file that is not UTF-8 text is refused, naming the line."""
    try:
        yield
    except UnicodeDecodeError:
        raw = path.read_bytes()
        try:
            raw.decode("utf-8")
            raise
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise ConfigError(
                f"{what} file {path} is not UTF-8 text: line {line} holds the byte "
                f"0x{raw[exc.start]:02x}; save it as UTF-8 (in pandas: pd.read_csv(path, "
                "encoding='latin-1').to_csv(path, index=False), with the file's own encoding)"
            ) from None


def _read(source: str | Path | pd.DataFrame) -> pd.DataFrame:
    if isinstance(source, pd.DataFrame):
        return source.copy()
    path = table_file(source, "data", "bar")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        return read_parquet_file(path, "data")
    if suffix == ".csv":
        with utf8_csv(path, "data"):
            return _read_csv(path)
    raise ConfigError(f"{path}: historical bars must be a .csv or .parquet file (or a DataFrame)")


def _read_csv(path: Path) -> pd.DataFrame:
    """A CSV with symbols as written: a ticker such as NA or NULL is not a missing value."""
    header = [str(c) for c in pd.read_csv(path, nrows=0).columns]
    text = [c for c in header if c.strip().lower() in ("symbol", "date", "sector")]
    missing = {c: ([""] if c in text else _MISSING) for c in header}
    return pd.read_csv(
        path, dtype=dict.fromkeys(text, "string"), keep_default_na=False, na_values=missing
    )


def _columns(frame: pd.DataFrame) -> pd.DataFrame:
    lowered = [str(c).strip().lower() for c in frame.columns]
    for name in set(lowered):
        same = [str(c) for c, low in zip(frame.columns, lowered, strict=True) if low == name]
        if len(same) > 1:
            raise ConfigError(
                f"columns {' and '.join(map(repr, same))} are the same column in any case; "
                "keep one of them"
            )
    frame.columns = lowered
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise ConfigError(f"historical bars need columns {', '.join(REQUIRED)}; missing {missing}")
    return frame


def _refuse_unwritable_text(frame: pd.DataFrame) -> None:
    """Text UTF-8 cannot encode (an unpaired surrogate a DataFrame may hold) is refused by
    row before any run, rather than failing when results or recordings are written."""
    for column in ("date", "symbol", "sector"):
        if column not in frame.columns or frame[column].dtype != object:
            continue
        bad = frame[column].map(unencodable).to_numpy(bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            shown = str(frame[column].iloc[row]).encode("utf-8", "backslashreplace").decode()
            raise ConfigError(
                f"data row {row + 1}: {column} {shown!r} holds an unpaired surrogate, which "
                "is not text; fix the value or drop the row"
            )


def unencodable(value: object) -> bool:
    """Whether ``value`` is text that cannot be written as UTF-8 (an unpaired surrogate)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _symbols(column: pd.Series) -> pd.Series:
    text = column.astype("string").str.strip()
    blank = text.isna() | (text == "")
    if blank.any():
        row = int(np.flatnonzero(blank.to_numpy())[0])
        raise ConfigError(f"data row {row + 1} has a blank symbol; fill it in or drop the row")
    return text.astype(str)


def _dates(column: pd.Series) -> pd.Series:
    """Each date as YYYY-MM-DD, every distinct value parsed and written once (a date
    repeats for every symbol); a bad value is named by the first row that holds it."""
    codes, distinct = pd.factorize(column, use_na_sentinel=False)  # in order of first row
    rows = np.unique(codes, return_index=True)[1]  # each distinct value's first row
    days = pd.Series(distinct)
    if not pd.api.types.is_datetime64_any_dtype(days):
        days = _parsed_dates(days.astype("string").str.strip(), rows)
    if getattr(days.dt, "tz", None) is not None:
        days = days.dt.tz_localize(None)
    timed = days != days.dt.normalize()
    if timed.any():
        first = int(np.flatnonzero(timed.to_numpy())[0])
        raise ConfigError(
            f"data row {rows[first] + 1} has the time of day {days.iloc[first]}; historical "
            "bars are daily, one bar per date (resample intraday bars to days first)"
        )
    return days.dt.strftime("%Y-%m-%d").take(codes).set_axis(column.index)


def _parsed_dates(text: pd.Series, rows: np.ndarray) -> pd.Series:
    """``text`` (distinct values, the first row of each in ``rows``) as dates."""
    blank = text.isna() | (text == "")
    if blank.any():
        first = int(np.flatnonzero(blank.to_numpy())[0])
        raise ConfigError(f"data row {rows[first] + 1} has no date; fill it in or drop the row")
    try:  # the first value sets the format; a value that does not fit it is named below
        parsed = pd.to_datetime(text, errors="coerce")
    except (ValueError, TypeError, OverflowError):
        parsed = pd.Series(pd.NaT, index=text.index)
    bad = parsed.isna()
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        raise ConfigError(
            f"data row {rows[first] + 1} has the date {text.iloc[first]!r}, which does not parse "
            f"in the format of the first date {text.iloc[0]!r}; write every date in one format "
            "(YYYY-MM-DD)"
        )
    return parsed


def _numbers(column: pd.Series, name: str) -> pd.Series:
    if pd.api.types.is_bool_dtype(column):
        raise ConfigError(f"column {name!r} holds true/false values; it must hold numbers")
    numbers = pd.to_numeric(column, errors="coerce")
    unreadable = numbers.isna() & column.notna()
    if unreadable.any():
        row = int(np.flatnonzero(unreadable.to_numpy())[0])
        raise ConfigError(
            f"data row {row + 1}: {name} {column.iloc[row]!r} is not a number; "
            "fix the value or drop the row"
        )
    return numbers.astype(float)


def _check_values(frame: pd.DataFrame) -> None:
    """The first bar with a bad value, named by symbol and date, with what is wrong."""
    for mask, describe in _value_problems(frame):
        if mask.any():
            row = frame[mask].iloc[0]
            raise ConfigError(
                f"bar for {row['symbol']} on {row['date']} {describe(row)}; "
                "fix or drop it before loading"
            )


def _value_problems(frame: pd.DataFrame) -> list[tuple[pd.Series, Callable[[pd.Series], str]]]:
    prices = frame[list(PRICES)]
    volume = frame["volume"]
    return [
        (prices.isna().any(axis=1), lambda r: f"has no {_first_missing(r, PRICES)} price"),
        (
            ~np.isfinite(prices.fillna(0)).all(axis=1),
            lambda r: f"has a price that is not finite ({_first_infinite(r)})",
        ),
        (
            (prices <= 0).any(axis=1),
            lambda r: f"has a non-positive price ({_first_non_positive(r)}); prices must be > 0",
        ),
        (volume.isna(), lambda r: "has no volume (NaN)"),
        (~np.isfinite(volume), lambda r: f"has a volume that is not finite ({r['volume']})"),
        (volume < 0, lambda r: f"has a negative volume ({r['volume']:g})"),
        (frame["high"] < frame["low"], lambda r: _pair(r, "high", "below", "low")),
        (frame["open"] > frame["high"], lambda r: _pair(r, "open", "above", "high")),
        (frame["close"] > frame["high"], lambda r: _pair(r, "close", "above", "high")),
        (frame["open"] < frame["low"], lambda r: _pair(r, "open", "below", "low")),
        (frame["close"] < frame["low"], lambda r: _pair(r, "close", "below", "low")),
    ]


def _first_missing(row: pd.Series, columns: tuple[str, ...]) -> str:
    return next(c for c in columns if pd.isna(row[c]))


def _first_infinite(row: pd.Series) -> str:
    return next(f"{c} {row[c]}" for c in PRICES if not np.isfinite(row[c]))


def _first_non_positive(row: pd.Series) -> str:
    return next(f"{c} {row[c]:g}" for c in PRICES if row[c] <= 0)


def _pair(row: pd.Series, left: str, relation: str, right: str) -> str:
    return f"has {left} {row[left]:g} {relation} {right} {row[right]:g}"


def _check_table(frame: pd.DataFrame) -> None:
    symbols, names = pd.factorize(frame["symbol"])
    if "sector" in frame.columns:
        _one_sector_per_symbol(frame, symbols, len(names))
        frame["sector"] = frame["sector"].astype("string").fillna("unknown").astype(str)
    if _full_panel(frame["date"], symbols, len(names)):
        return  # each (date, symbol) once, every symbol on every date: nothing to name
    repeated = frame.duplicated(["date", "symbol"])
    if repeated.any():
        row = frame[repeated].iloc[0]
        raise ConfigError(f"two bars for {row['symbol']} on {row['date']}; keep one per date")
    _refuse_gaps(frame)


def _full_panel(dates: pd.Series, symbols: np.ndarray, names: int) -> bool:
    """Whether the rows hold each (date, symbol) pair once and every pair of a full panel:
    as many distinct pairs as rows, and as rows as dates x names."""
    days, distinct = pd.factorize(dates)
    if len(dates) != len(distinct) * names:
        return False
    pairs = np.zeros(len(dates), dtype=bool)
    pairs[days * names + symbols] = True
    return bool(pairs.all())


def _one_sector_per_symbol(frame: pd.DataFrame, symbols: np.ndarray, names: int) -> None:
    sectors = frame["sector"].astype("string").fillna("")
    codes, distinct = pd.factorize(sectors)
    if len(np.unique(symbols * len(distinct) + codes)) == names:
        return  # one (symbol, sector) pair per symbol: no symbol changes sector
    counts = sectors.groupby(frame["symbol"]).nunique()
    changing = counts[counts > 1]
    if len(changing):
        symbol = changing.index[0]
        seen = sorted(set(sectors[frame["symbol"] == symbol]))
        raise ConfigError(
            f"{symbol} has the sectors {', '.join(map(repr, seen))}; a symbol keeps one sector "
            "for the whole data set (pick one or split the symbol)"
        )


def _refuse_gaps(frame: pd.DataFrame) -> None:
    """Every symbol has a bar on every date (no (date, symbol) repeats: refused before)."""
    dates = np.sort(frame["date"].unique())
    if len(frame) == len(dates) * frame["symbol"].nunique():
        return  # as many distinct (date, symbol) pairs as a full panel holds
    counts = frame.groupby("symbol")["date"].nunique()
    short = counts[counts < len(dates)]
    if not len(short):
        return
    symbol = short.index[0]
    missing = np.setdiff1d(dates, frame.loc[frame["symbol"] == symbol, "date"].unique())
    shown = ", ".join(missing[:_SHOWN_DATES])
    more = f" and {len(missing) - _SHOWN_DATES} more" if len(missing) > _SHOWN_DATES else ""
    raise ConfigError(
        f"{symbol} has no bar on {shown}{more} ({len(missing)} of {len(dates)} dates); every "
        "symbol needs a bar on every date (drop the symbol or fill the gaps)"
    )


def calendar_notes(dates: Sequence[str] | np.ndarray) -> list[str]:
    """What is odd about a calendar of YYYY-MM-DD dates: holes longer than a week between
    consecutive dates, and dates on a weekend; empty when nothing is."""
    days = pd.DatetimeIndex(pd.to_datetime(sorted(set(dates))))
    notes = []
    gaps = np.diff(days.to_numpy()).astype("timedelta64[D]").astype(int)
    long = np.flatnonzero(gaps > LONGEST_GAP_DAYS)
    if long.size:
        first = long[0]
        notes.append(
            f"the bars have {long.size} hole(s) longer than {LONGEST_GAP_DAYS} days, the first "
            f"{days[first]:%Y-%m-%d} to {days[first + 1]:%Y-%m-%d} ({gaps[first]} days): each "
            "counts as one day return, so annualised figures and rolling windows run fast there"
        )
    weekend = days[days.day_of_week >= 5]
    if len(weekend):
        notes.append(
            f"{len(weekend)} date(s) fall on a weekend (first {weekend[0]:%Y-%m-%d}); annualising "
            "assumes 252 trading days a year"
        )
    return notes
