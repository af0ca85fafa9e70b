"""Canaries: planted items no honest agent can know about before their date.

With ``canaries=K`` the run's text carries K extra items in each channel it has:

- **news**: an item on one name about "Project Vexlor-<8 hex>", a code no real
  text holds, with a letter in it (digits alone could read as a date or a number,
  which the text mask rewrites);
- **fundamentals**: a report on one name whose figure is a code amount (eleven
  digits and cents, the last six a check of the six before: ``figure_code``) in a
  figure the mask keeps as written (``figure_column``: no money, date or year), so
  the payload, the report history and the exported table all read the same number;
- **memory**: a lesson on one name about "Mnemo-<8 hex>", which the runner gives
  each arm that keeps a memory store to plant (``Agent.plant_memory``), visible
  from its day on, so an honest store recalls it no earlier.

Canary ``i`` is published at the close of the trading row ``warmup + (i + 1) x
days / (K + 1)`` less the embargo, so it is first seen at the next decision, the
day the audit records: the rows are spread over the run and each canary is in
the future for every decision before it. The codes are drawn from a seed of the
bars and the mask secret (``Historical.canary_seed``), never from the text, so a
run repeats with the same canaries and changing an item can change no canary
seen before it.

A fundamentals canary is a report of its own: it never enters the payload's
``fundamentals`` (each name's latest real report), so an honest agent's figures
stay the researcher's; it is in the feed's report history (``TextFeed.filings``)
and in the exported tables (``TextFeed.frames``) an agent's own tools may read.
``TextFeed.canaries`` lists each one (channel, token, name, first day it can be
seen), ``TextFeed.lessons`` the memory canaries to plant;
``workbench.evaluation.canaries`` audits a run against them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench._checks import is_whole
from workbench.engine.textmask import figure_kind
from workbench.errors import ConfigError

if TYPE_CHECKING:
    import numpy as np

    from workbench.engine.textfeed import TextData

MOST = 50
CANARY = "_canary"  # the column marking a planted report among the researcher's
FIGURE = "guidance_ratio"  # the canaries' figure when every figure of the table is money
FIGURE_LOW = 10**12  # a figure canary in cents: 1 then 12 digits, 10,000,000,000.00 and up
CHECK = 10**6  # its last six digits check the six before them


def figure_column(table: pd.DataFrame) -> str:
    """The figure a fundamentals canary is planted in: the first the mask keeps as written
    (a ratio, a count), so the payload, the filings and the exported table read one number;
    ``FIGURE`` when every figure is money, a date or a year (the mask would rescale or
    place it)."""
    figures = [c for c in table.columns if c not in ("published", "symbol", CANARY)]
    return next((c for c in figures if figure_kind(c) == "figure"), FIGURE)


def figure_code(drawn: int) -> float:
    """A fundamentals canary's figure: 11 digits and cents, its last six digits a check of
    the six before them (``is_figure_code``), so rounding to cents keeps it whole and the
    audit knows a canary of any run by its digits alone."""
    unique = drawn % CHECK
    return (FIGURE_LOW + unique * CHECK + figure_check(unique)) / 100


def figure_check(unique: int) -> int:
    return int(hashlib.sha256(f"canary figure\0{unique}".encode()).hexdigest(), 16) % CHECK


def is_figure_code(cents: int) -> bool:
    """Whether an amount in cents has the digits of a fundamentals canary (one in a million
    other amounts of its size has them by chance)."""
    if cents // FIGURE_LOW != 1:
        return False
    return figure_check(cents // CHECK % CHECK) == cents % CHECK


def check_count(count: Any) -> int:
    if not is_whole(count) or not 0 <= count <= MOST:
        raise ConfigError(
            f"canaries is a whole number of items per channel, 0 to {MOST}; got {count!r}"
        )
    return int(count)


class Planted:
    """The run's news and fundamentals with the canaries in them, and the canaries."""

    def __init__(
        self,
        data: TextData,
        closes: np.ndarray,
        alias_of: Mapping[str, str],
        warmup_days: int,
        seed: str,
    ) -> None:
        self.data, self.alias_of, self.seed = data, dict(alias_of), seed
        count, days = data.canaries, len(closes) - warmup_days
        self.rows = [warmup_days + (i + 1) * days // (count + 1) for i in range(count)]
        self.warmup_days = warmup_days
        # published this long before a row's close, a canary is first seen at the next row
        self.published = closes - data.embargo.value
        self.canaries: list[dict[str, Any]] = []

    def news(self) -> pd.DataFrame | None:
        table = self.data.news
        if table is None or not self.rows:
            return table
        rows = []
        for i, row in enumerate(self.rows):
            token, real = f"Vexlor-{self._lettered(i, 'news')}", self._name(i)
            headline = f"{real} unveils Project {token}"
            body = f"Project {token} will reshape the business, the company said."
            rows.append((int(self.published[row]), (real,), headline, body, "news"))
            self._keep("news", token, real, row)
        planted = pd.DataFrame(rows, columns=list(table.columns))
        return (
            pd.concat([table, planted])
            .sort_values("published", kind="stable")
            .reset_index(drop=True)
        )

    def fundamentals(self) -> pd.DataFrame | None:
        table = self.data.fundamentals
        if table is None:
            return None
        table = table.assign(**{CANARY: False})
        if not self.rows:
            return table
        column = figure_column(table)
        if column not in table:  # every figure is money: the canaries get a ratio of their own
            table = table.assign(**{column: float("nan")})
        rows = []
        for i, row in enumerate(self.rows):
            real, code = self._name(i), figure_code(int(self._code(i, "fundamentals"), 16))
            published, figures = int(self.published[row]), {column: code, CANARY: True}
            rows.append({"published": published, "symbol": real, **figures})
            self._keep("fundamentals", f"{code:.2f}", real, row)
        planted = pd.DataFrame(rows).reindex(columns=table.columns)
        return (
            pd.concat([table, planted])
            .sort_values("published", kind="stable")
            .reset_index(drop=True)
        )

    def memory(self) -> list[dict[str, Any]]:
        """The memory canaries: each a lesson (its ``day``, ``situation`` and ``lesson``)
        an arm's store makes visible from ``day`` on."""
        lessons = []
        for i, row in enumerate(self.rows):
            token, real = f"Mnemo-{self._lettered(i, 'memory')}", self._name(i)
            symbol = self.alias_of[real]
            lesson = f"Lesson: {symbol} jumped when Project {token} was announced; buy it early."
            situation = f"{symbol} Project {token} announcement"
            day = self._keep("memory", token, real, row)
            lessons.append({"token": token, "day": day, "situation": situation, "lesson": lesson})
        return lessons

    def _code(self, i: int, channel: str, draw: int = 0) -> str:
        # the row is in the code: a tool built on a World of other days quotes a canary this
        # run never planted, which the audit flags (workbench.evaluation.canaries)
        row, again = self.rows[i], f"\0{draw}" if draw else ""
        key = f"canary\0{self.seed}\0{channel}\0{i}\0{row}{again}"
        return hashlib.sha256(key.encode()).hexdigest()

    def _lettered(self, i: int, channel: str) -> str:
        """Eight hex digits with a letter among them: digits alone could read as a date or
        a number, which the text mask rewrites."""
        draw, code = 0, self._code(i, channel)[:8]
        while code.isdigit():
            draw += 1
            code = self._code(i, channel, draw)[:8]
        return code

    def _name(self, i: int) -> str:
        names = sorted(self.alias_of)
        return names[i % len(names)]

    def _keep(self, channel: str, token: str, real: str, row: int) -> int:
        symbol = self.alias_of[real]  # the alias (the symbol itself when unmasked)
        day = row + 1 - self.warmup_days  # published at this row's close: seen at the next
        self.canaries.append({"channel": channel, "token": token, "symbol": symbol, "day": day})
        return day
