"""Every key of the observation payload: its type, unit and meaning, in one table.

The payload is built by ``observation`` and ``reading``; this table describes it for
people (the payload reference in the docs is generated from it) and ``keys_of``
reads the same key paths out of a real payload, so a test holds the two together:
a key added to the payload and not here, or described here and never sent, fails.

A path names a key from the top: ``macro.vix``; ``<symbol>`` stands for every
symbol of a mapping keyed by symbol, ``[]`` for every item of a list.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workbench.schema import HISTORY_STEPS, NEWS_CAP, OBSERVABLE_MACRO

BY_SYMBOL = ("symbols", "fundamentals", "calendar", "portfolio.positions")
CURRENCY = "currency units"
PER_SHARE = "currency units per share"


@dataclass(frozen=True)
class PayloadField:
    """One key path of the payload, from the schema version that added it."""

    path: str
    type: str
    unit: str
    meaning: str
    schema: str = "1"
    sometimes: bool = False  # only on some items (one kind of news), so not in every payload


def _f(path: str, type_: str, unit: str, meaning: str) -> PayloadField:
    return PayloadField(path, type_, unit, meaning)


MARKET_FIELDS = (
    _f("schema_version", "string", "", '"1" (prices only) or "2" (with news and reports)'),
    _f("day", "integer", "trading days", "the decision's day; 0 is the first decision day"),
    _f("step", "integer", "steps", "the decision step within the day, from 0"),
    _f("steps_per_day", "integer", "steps", "decision steps in each trading day"),
    _f("macro", "object", "", f"the observable macro readings: {', '.join(OBSERVABLE_MACRO)}"),
    _f("macro.regime", "string or null", "", '"expansion" or "contraction"'),
    _f("macro.growth", "number or null", "fraction a year", "real growth (0.02 is 2 %)"),
    _f("macro.inflation", "number or null", "fraction a year", "inflation"),
    _f("macro.policy_rate", "number or null", "fraction a year", "the central bank's rate"),
    _f("macro.yield_2y", "number or null", "fraction a year", "the two-year yield"),
    _f("macro.yield_10y", "number or null", "fraction a year", "the ten-year yield"),
    _f("macro.vix", "number or null", "annualised vol, %", "the market's volatility index"),
    _f("symbols", "object", "", "one entry per traded symbol, keyed by symbol"),
    _f("symbols.<symbol>", "object", "", "one name's quote"),
    _f("symbols.<symbol>.sector", "string", "", "the name's sector"),
    _f(
        "symbols.<symbol>.history",
        "array of numbers",
        PER_SHARE,
        f"the last {HISTORY_STEPS} step closes, oldest first; the last is this close",
    ),
    _f("symbols.<symbol>.last", "number", PER_SHARE, "this step's close"),
    _f("symbols.<symbol>.bid", "number", PER_SHARE, "the best bid at this close"),
    _f("symbols.<symbol>.ask", "number", PER_SHARE, "the best ask at this close"),
    _f("symbols.<symbol>.volume", "number", "shares", "shares traded in this step"),
    _f(
        "symbols.<symbol>.max_order",
        "integer",
        "shares",
        "the most shares the next step's orders on the name may take (10 % of volume)",
    ),
)
PORTFOLIO_FIELDS = (
    _f("portfolio", "object", "", "this arm's own book at this close"),
    _f("portfolio.cash", "number", CURRENCY, "cash, negative when borrowing"),
    _f("portfolio.equity", "number", CURRENCY, "cash plus positions marked at mid"),
    _f(
        "portfolio.buying_power",
        "number",
        CURRENCY,
        "gross exposure still allowed: leverage cap x equity minus the gross held",
    ),
    _f("portfolio.positions", "object", "", "shares held, keyed by symbol (held names only)"),
    _f("portfolio.positions.<symbol>", "number", "shares", "negative when short"),
)
EARNINGS = "only on an earnings report"  # the one kind of item with figures


def _r(path: str, type_: str, unit: str, meaning: str) -> PayloadField:
    """A key of schema 2: on a market that publishes news and reports."""
    return PayloadField(path, type_, unit, meaning, schema="2")


def _once(path: str, type_: str, unit: str, meaning: str) -> PayloadField:
    """A key of schema 2 that only one kind of news item carries."""
    return PayloadField(path, type_, unit, meaning, schema="2", sometimes=True)


READING_FIELDS = (
    _r("news", "array of objects", "", f"items since this arm's last decision, newest first, "
       f"at most {NEWS_CAP}"),
    _r("news_omitted", "integer", "items", "how many more items there were"),
    _r("news[].id", "integer", "", "the item's number in the run"),
    _r("news[].day", "integer", "trading days", "the day it was released"),
    _r("news[].step", "integer", "steps", "the step it was released in"),
    _r("news[].kind", "string", "", "earnings, guidance, product, legal, management, "
       "analyst_rating, deal_rumour, sector, policy or notice"),
    _r("news[].symbols", "array of strings", "", "the symbols it concerns (none for policy)"),
    _r("news[].headline", "string", "", "the headline"),
    _r("news[].body", "string", "", "the text; it may hedge, negate or pull both ways"),
    _once("news[].eps", "number", PER_SHARE, f"reported earnings per share ({EARNINGS})"),
    _once("news[].consensus_eps", "number", PER_SHARE, f"what was expected ({EARNINGS})"),
    _once("news[].revenue", "number", CURRENCY, f"reported revenue ({EARNINGS})"),
    _once("news[].guidance_eps", "number", PER_SHARE, f"next quarter's guidance ({EARNINGS})"),
    _once("news[].reliability", "number", "probability", "stated reliability (on a rumour)"),
    _once("news[].policy_rate", "number", "fraction a year", "the rate set (on a policy item)"),
    _once("news[].change_bp", "integer", "basis points", "the change (on a policy item)"),
    _r("fundamentals", "object", "", "each symbol's last released report, or null before it"),
    _r("fundamentals.<symbol>", "object or null", "", "one name's last report"),
    _r("fundamentals.<symbol>.report_day", "integer", "trading days", "when it was released"),
    _r("fundamentals.<symbol>.eps", "number", PER_SHARE, "reported earnings per share"),
    _r("fundamentals.<symbol>.consensus_eps", "number", PER_SHARE, "what was expected"),
    _r("fundamentals.<symbol>.revenue", "number", CURRENCY, "reported revenue"),
    _r("fundamentals.<symbol>.net_margin", "number", "fraction", "earnings over revenue"),
    _r("fundamentals.<symbol>.guidance_eps", "number", PER_SHARE, "next quarter's guidance"),
    _r("calendar", "object", "", "each symbol's next report, keyed by symbol"),
    _r("calendar.<symbol>", "object", "", "one name's next report: known in advance, so it "
       "may fall after the run's last day"),
    _r("calendar.<symbol>.report_day", "integer", "trading days", "when it will be released"),
    _r("calendar.<symbol>.consensus_eps", "number or null", PER_SHARE,
       "the consensus, once published (null before)"),
)  # fmt: skip
PAYLOAD_FIELDS: tuple[PayloadField, ...] = MARKET_FIELDS + PORTFOLIO_FIELDS + READING_FIELDS


def fields_of_schema(version: str) -> tuple[PayloadField, ...]:
    """The fields a payload of observation schema ``version`` carries."""
    return tuple(f for f in PAYLOAD_FIELDS if f.schema <= version)


def keys_of(payload: Any) -> set[str]:
    """Every key path in ``payload``, written as ``PAYLOAD_FIELDS`` writes them."""
    return set(_walk(payload, ""))


def _walk(value: Any, path: str) -> Iterator[str]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, child in value.items():
            name = "<symbol>" if path in BY_SYMBOL else key
            yield from _walk(child, f"{path}.{name}" if path else name)
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict):
                for key, child in item.items():
                    yield from _walk(child, f"{path}[].{key}")


__all__ = ["PAYLOAD_FIELDS", "PayloadField", "fields_of_schema", "keys_of"]
