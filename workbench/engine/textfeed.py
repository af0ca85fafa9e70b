"""Real news and fundamentals on historical bars, indexed once per run, point in time.

A decision on a date is taken at that date's close (``close_time`` in
``timezone``; 16:00 America/New_York unless told). An item is seen only when it
was published **strictly before** that moment, less an optional ``embargo`` (the
time a feed takes to reach a reader): ``published + embargo < close``. Each item
is placed once, by a binary search of the close times (``searchsorted``), on the
first row whose decision may see it; a decision then bisects a sorted list, so
no decision ever scans the feed, and an item published at or after a close can
reach no payload at or before it, by construction.

The payload carries what the simulated market's carries, under the same keys:
``news`` (newest first, at most NEWS_CAP, with ``news_omitted``) and
``fundamentals`` (each name's last report seen, or None). An item's ``day`` is
the day it is first seen; the payload never carries a timestamp or a date.
With the mask on, the text and the figures are masked (``textmask``).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import re
import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd

from workbench.engine.canaries import CANARY, Planted, check_count
from workbench.engine.textdata import (
    Source,
    by_label,
    check_figure_names,
    read_fundamentals,
    read_news,
)
from workbench.engine.textmask import TextMask, figure_kind
from workbench.engine.textnames import NamesSource, names_map
from workbench.errors import ConfigError
from workbench.schema import NEWS_CAP

CLOSE_TIME, TIMEZONE = "16:00", "America/New_York"
_NOT_FIGURES = ("symbol", "published", CANARY)
LONGEST_EMBARGO = pd.Timedelta(days=365)  # a year, as the docs and the mask count one


class UnseenTextWarning(UserWarning):
    """Part of the researcher's text comes after a run's last decision: no payload carries it."""


@dataclass(frozen=True, eq=False)
class TextData:
    """A researcher's checked news and fundamentals, with the names to mask in the text."""

    news: pd.DataFrame | None
    fundamentals: pd.DataFrame | None
    names: Mapping[str, tuple[str, ...]]
    embargo: pd.Timedelta
    close_time: str = CLOSE_TIME
    timezone: str = TIMEZONE
    canaries: int = 0  # planted items per channel (``workbench.engine.canaries``)

    @classmethod
    def load(
        cls,
        bars: pd.DataFrame,
        *,
        news: Source | None = None,
        fundamentals: Source | None = None,
        names: NamesSource | None = None,
        embargo: str | pd.Timedelta | None = None,
        close_time: str = CLOSE_TIME,
        timezone: str = TIMEZONE,
        canaries: int = 0,
    ) -> TextData:
        symbols = sorted(bars["symbol"].astype(str).unique())
        with by_label(news):
            news_table = None if news is None else read_news(news, symbols)
        with by_label(fundamentals):
            reports = None if fundamentals is None else read_fundamentals(fundamentals, symbols)
        masked_names = names_map(names, bars)
        if reports is not None:
            check_figure_names(reports.columns[2:], symbols, masked_names)
        data = cls(
            news=news_table,
            fundamentals=reports,
            names=masked_names,
            embargo=_embargo(embargo),
            close_time=close_time,
            timezone=timezone,
            canaries=check_count(canaries),
        )
        data.closes(["2000-01-03"])  # a bad close time or time zone is refused now
        data._seen_by(str(bars["date"].max()))
        return data

    def _seen_by(self, last_date: str) -> None:
        """Refuse a channel none of whose items the bars' last close sees: text from other
        years, a wrong time zone or an embargo longer than the data would give a run that
        silently reads nothing."""
        last_close = int(self.closes([last_date])[0])
        for what, published in self._channels():
            if (published < last_close - self.embargo.value).any():
                continue
            raise ConfigError(
                f"none of the {len(published)} {what} is seen by the bars' last close "
                f"({last_date} {self.close_time} {self.timezone}, less the embargo of "
                f"{self.embargo}): the first is published {_first(published)}. Check the "
                "year and the time zone of published, and the embargo"
            )

    def check_window(self, dates: Sequence[str], warmup_days: int, days: int) -> None:
        """Refuse a channel no decision of a run of ``days`` on the bars' ``dates`` sees,
        and warn when the run ends before items the bars' later decisions would see: the
        first decision carries what came before it, so only the end leaves text unseen."""
        decisions = dates[warmup_days : warmup_days + days - 1]  # the last day decides none
        ends = self.closes([decisions[-1], dates[-2]]) - self.embargo.value
        window = f"days 0-{len(decisions) - 1}, the closes of {decisions[0]} to {decisions[-1]}"
        for what, published in self._channels():
            late = int((published >= ends[0]).sum())
            if late == len(published):
                raise ConfigError(
                    f"none of the {len(published)} {what} is seen by the run's decisions "
                    f"({window}, less the embargo of {self.embargo}): the first is published "
                    f"{_first(published)}. Trade more days (days=, at most "
                    f"{len(dates) - warmup_days}), or check the year and the time zone of "
                    "published, and the embargo"
                )
            cut = late - int((published >= ends[1]).sum())
            if cut:
                warnings.warn(
                    f"{cut} of the {len(published)} {what} are published after the run's last "
                    f"decision ({window}, less the embargo of {self.embargo}) and reach no "
                    f"payload; trade more days (days=, at most {len(dates) - warmup_days}) to "
                    "read them",
                    UnseenTextWarning,
                    stacklevel=2,
                )

    def _channels(self) -> Iterator[tuple[str, np.ndarray]]:
        """Each channel the data has, named for messages, with its publication times (UTC
        nanoseconds)."""
        for what, table in (("news items", self.news), ("reports", self.fundamentals)):
            if table is not None:
                yield what, table["published"].to_numpy(np.int64)

    def closes(self, dates: Sequence[str]) -> np.ndarray:
        """Each date's decision time (its close), as UTC nanoseconds."""
        try:
            local = pd.to_datetime([f"{d} {self.close_time}" for d in dates], format="mixed")
            zoned = local.tz_localize(self.timezone, ambiguous="raise", nonexistent="raise")
        except (ValueError, TypeError, KeyError) as exc:
            raise ConfigError(
                f"close_time {self.close_time!r} in timezone {self.timezone!r} does not give a "
                f"time of day ({exc}); pass close_time='16:00' and an IANA zone such as "
                "'America/New_York'"
            ) from None
        return zoned.tz_convert("UTC").as_unit("ns").asi8

    @cached_property
    def digest(self) -> str:
        """SHA-256 of the items, the reports, the names and the timing rules."""
        digest = hashlib.sha256(b"workbench-text\0")
        digest.update(json.dumps(self._rules()).encode())
        for table in (self.news, self.fundamentals):
            digest.update(b"\0table\0")
            if table is not None:
                digest.update(_table_bytes(table))
        return digest.hexdigest()

    @cached_property
    def rules_digest(self) -> str:
        """SHA-256 of what names the text to an agent (``Historical.fingerprint``): the
        channels, the names and the timing rules, never the items, since an item published
        after a decision must not change what an agent is told before it."""
        channels = [self.news is not None, self.fundamentals is not None]
        told = json.dumps([*self._rules(), channels]).encode()
        return hashlib.sha256(b"workbench-text-rules\0" + told).hexdigest()

    def _rules(self) -> list[Any]:
        rules: list[Any] = [str(self.embargo), self.close_time, self.timezone]
        return rules + [sorted(self.names.items())] + ([self.canaries] if self.canaries else [])

    def describe(self) -> dict[str, Any]:
        return {
            "text_sha256": self.digest,
            "news_items": 0 if self.news is None else len(self.news),
            "fundamentals_reports": 0 if self.fundamentals is None else len(self.fundamentals),
            "embargo": str(self.embargo),
            "close_time": self.close_time,
            "timezone": self.timezone,
            **({"canaries": self.canaries} if self.canaries else {}),
        }


def _embargo(value: str | pd.Timedelta | None) -> pd.Timedelta:
    if value is None:
        return pd.Timedelta(0)
    number = isinstance(value, (int, float, np.number)) and not isinstance(value, np.timedelta64)
    if number or _BARE.match(str(value)):
        raise ConfigError(
            f"embargo {value!r} has no unit (pandas would read nanoseconds); pass e.g. "
            "'15min', '1h' or '2D'"
        )
    try:
        embargo = pd.Timedelta(value)
        readable = not pd.isna(embargo)
    except (ValueError, TypeError):
        readable = False
    if not readable:
        raise ConfigError(f"embargo {value!r} is not a duration; pass e.g. '15min' or '1h'")
    if embargo < pd.Timedelta(0):
        raise ConfigError(f"embargo {value!r} is negative; an item cannot be seen before it is out")
    if embargo > LONGEST_EMBARGO:
        raise ConfigError(
            f"embargo {value!r} is longer than a year ({LONGEST_EMBARGO.days} days): it is the "
            "time a feed takes to reach you (minutes, hours or days); pass e.g. '15min' or '2D'"
        )
    return embargo


_BARE = re.compile(r"^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$")


def _table_bytes(table: pd.DataFrame) -> bytes:
    columns = {c: table[c].tolist() for c in table.columns if c != "published"}
    stamps = np.ascontiguousarray(table["published"].to_numpy(np.int64), "<i8").tobytes()
    return stamps + json.dumps(columns, default=list, ensure_ascii=True).encode("ascii")


class TextFeed:
    """The text of one market path: each item and report on the row it is first seen."""

    def __init__(
        self,
        data: TextData,
        dates: Sequence[str],
        symbols: Sequence[str],
        alias_of: Mapping[str, str],
        warmup_days: int,
        mask: TextMask | None,
        source_rows: np.ndarray | None = None,
        *,
        seed: str = "",
    ) -> None:
        closes = data.closes(dates)
        shift = data.embargo.value
        planted = Planted(data, closes, alias_of, warmup_days, seed)
        self.warmup_days, self.mask = warmup_days, mask
        self.alias_of, self.symbols = dict(alias_of), tuple(symbols)
        self.has_news, self.has_fundamentals = data.news is not None, data.fundamentals is not None
        self.planted_news, self.planted_fundamentals = planted.news(), planted.fundamentals()
        self.news_rows, news = _placed(self.planted_news, closes, shift, source_rows)
        self.report_rows, reports = _placed(self.planted_fundamentals, closes, shift, source_rows)
        path_rows = len(closes) if source_rows is None else len(source_rows)
        # _seen[r + 1]: the items first seen by row r's close, so a decision looks it up
        self._seen = [0, *np.searchsorted(self.news_rows, np.arange(path_rows), "right").tolist()]
        self.lessons = planted.memory()  # memory canaries, planted in each arm's store
        self.canaries = planted.canaries
        self._news = {c: news[c].tolist() for c in news.columns}
        self._reports: list[dict[str, Any]] = [
            {str(k): v for k, v in record.items()} for record in reports.to_dict("records")
        ]
        # each item as a payload carries it, built (and masked) the first time it is carried
        self._items: list[dict[str, Any] | None] = [None] * len(self.news_rows)
        self._unbuilt = bytearray(b"\1") * len(self.news_rows)  # read without the items
        self._snapshots: dict[int, dict[str, Any]] = {}

    def frames(self) -> dict[str, pd.DataFrame]:
        """The run's news and fundamentals with the canaries planted, as the researcher's
        tables (``published`` as UTC text, real symbols, real figures), for an agent's own
        tools to read in place of the files: a tool that looks ahead then meets a canary."""
        out = {}
        tables = {"news": self.planted_news, "fundamentals": self.planted_fundamentals}
        for name, table in tables.items():
            if table is None:
                continue
            frame = table.drop(columns=[CANARY], errors="ignore").copy()
            frame["published"] = pd.to_datetime(frame["published"], utc=True).map(
                pd.Timestamp.isoformat
            )
            if "symbols" in frame:
                frame["symbols"] = frame["symbols"].map(";".join)
            for column in frame.columns[2:]:
                if figure_kind(column) in ("date", "year"):
                    frame[column] = _written_back(frame[column], figure_kind(column))
            out[name] = frame
        return out

    def news(self, after: int, until: int) -> dict[str, Any]:
        """Items first seen after row ``after`` up to row ``until``: newest first, at most
        NEWS_CAP, and how many more there were."""
        seen, rows = self._seen, self.news_rows
        if after >= -1 and until + 1 < len(seen):
            low, high = seen[after + 1], seen[until + 1]
        else:
            low, high = bisect.bisect_right(rows, after), bisect.bisect_right(rows, until)
        omitted = high - low - NEWS_CAP
        first = high - NEWS_CAP if omitted > 0 else low
        if self._unbuilt.find(1, first, high) >= 0:  # some are carried for the first time
            self._build(range(first, high))
        shown = self._items[first:high]
        shown.reverse()
        return {"news": shown, "news_omitted": omitted if omitted > 0 else 0}

    def item(self, i: int) -> dict[str, Any]:
        """Item ``i`` as the payload carries it (masked once, then reused)."""
        built = self._items[i]
        if built is None:
            self._build(range(i, i + 1))
            built = self._items[i]
            assert built is not None
        return built

    def _build(self, items: range) -> None:
        """The items of ``items`` not built yet, their texts masked in one pass."""
        news, built = self._news, self._items
        todo = [i for i in items if built[i] is None]
        real = [list(news["symbols"][i]) for i in todo]
        headlines, bodies = news["headline"], news["body"]
        texts = [(t, s) for i, s in zip(todo, real, strict=True) for t in (headlines[i], bodies[i])]
        written = [t for t, _ in texts] if self.mask is None else self._masked(todo, texts)
        kinds, rows, alias = news["kind"], self.news_rows, self.alias_of.__getitem__
        # one object per day and per kind: an arm's copy of an item then reads fewer places
        days: dict[int, int] = {}
        shown = zip(todo, real, written[0::2], written[1::2], strict=True)
        for i, symbols, headline, body in shown:
            self._unbuilt[i] = 0
            row = rows[i]
            built[i] = {
                "id": i,
                "day": days.setdefault(row, row - self.warmup_days),
                "step": 0,
                "kind": sys.intern(kinds[i]),
                "symbols": list(map(alias, symbols)),
                "headline": headline,
                "body": body,
            }

    def _masked(self, todo: list[int], texts: list[tuple[str, list[str]]]) -> list[str]:
        """The texts of items ``todo`` (two each) masked, each item's dates on the calendar
        known at the close it is first seen (``TextMask.known_until``); a counterfactual path
        places no date, so its texts go in one pass."""
        mask = self.mask
        assert mask is not None
        if mask.counterfactual:
            return mask.texts(texts)
        written: list[str] = []
        at = 0
        for row, items in itertools.groupby(todo, key=self.news_rows.__getitem__):
            count = 2 * len(list(items))
            with mask.known_until(row):
                written += mask.texts(texts[at : at + count])
            at += count
        return written

    def source(self, i: int) -> tuple[Any, ...]:
        """What names item ``i`` in the researcher's table (its publication time, symbols,
        headline and body): the same on every path, however many rows show the item."""
        news = self._news
        return (
            news["published"][i],
            tuple(news["symbols"][i]),
            news["headline"][i],
            news["body"][i],
        )

    def fundamentals(self, row: int) -> dict[str, Any]:
        """Each name's last report seen by row ``row``'s close (None before its first); built
        once per report seen."""
        count = bisect.bisect_right(self.report_rows, row)
        if count not in self._snapshots:
            self._snapshots[count] = self._fundamentals(count)
        return self._snapshots[count]

    def filings(self, row: int) -> list[dict[str, Any]]:
        """Every report seen by row ``row``'s close, newest first, canaries included: the
        history a filings tool would search (the payload carries only the latest real one)."""
        count = bisect.bisect_right(self.report_rows, row)
        return [
            {"symbol": self.alias_of[self._reports[i]["symbol"]], **self._report(i)}
            for i in range(count - 1, -1, -1)
        ]

    def figure_names(self, until: int) -> list[tuple[tuple[Any, ...], str, list[str]]]:
        """Each real report seen by row ``until``'s close: what names it in the researcher's
        table (its publication time and symbol), the alias it is shown under, and the names
        of the figures it gives (a figure's name reaches the payload as written)."""
        count = bisect.bisect_right(self.report_rows, until)
        out = []
        for report in self._reports[:count]:
            if report[CANARY]:
                continue
            given = [k for k, v in report.items() if k not in _NOT_FIGURES and not pd.isna(v)]
            source = (report["published"], report["symbol"])
            out.append((source, self.alias_of[report["symbol"]], given))
        return out

    def _fundamentals(self, count: int) -> dict[str, Any]:
        out: dict[str, Any] = dict.fromkeys(self.symbols)
        for i in range(count - 1, -1, -1):
            alias = self.alias_of[self._reports[i]["symbol"]]
            if out[alias] is None and not self._reports[i][CANARY]:
                out[alias] = self._report(i)
        return out

    def _report(self, i: int) -> dict[str, Any]:
        report = self._reports[i]
        figures = {
            k: float(v) for k, v in report.items() if k not in _NOT_FIGURES and not pd.isna(v)
        }
        row = self.report_rows[i]
        shown: dict[str, float | int | str]
        if self.mask is not None:
            shown = dict(self.mask.figures(report["symbol"], figures, row))
        else:
            shown = {k: _as_written(k, v) for k, v in figures.items()}
        return {"report_day": row - self.warmup_days, **shown}


def _as_written(column: str, value: float) -> float | int | str:
    """A figure of an unmasked run: a date (held as days since 1970) as its ISO date, a
    year as a whole number, the rest as it is."""
    kind = figure_kind(column)
    if kind == "date":
        return str(np.datetime64(int(value), "D"))
    return int(value) if kind == "year" else value


def _written_back(column: pd.Series, kind: str) -> pd.Series:
    """Dates (held as days since 1970) as ISO dates, years as whole numbers; blank as none."""
    if kind == "year":
        return column.astype("Int64")
    days = column.astype("Int64")
    return pd.Series([None if pd.isna(d) else str(np.datetime64(int(d), "D")) for d in days])


def _placed(
    table: pd.DataFrame | None, closes: np.ndarray, shift: int, source: np.ndarray | None
) -> tuple[list[int], pd.DataFrame]:
    """The first row whose close each entry precedes strictly, and the entries seen by the
    last row (published order is kept, so the rows come out sorted); on a counterfactual
    path, moved with their bars (``_moved``)."""
    if table is None:
        return [], pd.DataFrame()
    # published + shift < close, as published < close - shift: a date near the end of what a
    # timestamp holds plus the embargo would wrap around and be seen on the first row
    rows = np.searchsorted(closes - shift, table["published"].to_numpy(np.int64), side="right")
    seen = rows < len(closes)
    placed, kept = rows[seen], table[seen].reset_index(drop=True)
    return (placed.tolist(), kept) if source is None else _moved(placed, kept, source)


def _moved(
    placed: np.ndarray, table: pd.DataFrame, source: np.ndarray
) -> tuple[list[int], pd.DataFrame]:
    """Each entry shown at every path row whose bar came from the row it was first seen at
    (twice if a block repeats that bar, never if no block drew it), in path order."""
    starts = np.searchsorted(placed, source, side="left")
    ends = np.searchsorted(placed, source, side="right")
    order = np.concatenate([np.arange(a, b) for a, b in zip(starts, ends, strict=True)])
    rows = np.repeat(np.arange(len(source)), ends - starts)
    return rows.tolist(), table.iloc[order.astype(np.int64)].reset_index(drop=True)


def _first(published: np.ndarray) -> str:
    """When the first of a channel's items is published (UTC, ISO 8601)."""
    return pd.Timestamp(int(published.min()), tz="UTC").isoformat()
