"""The mask carried into the text: names, calendar dates and prices, as the bars are masked.

An item's text is rewritten in one pass that reads, at each place, a date first,
then money, then a name:

1. **Dates** become the run's relative day numbers: ``2022-03-04``, ``March 4,
   2022``, ``Mar 4 2022`` and ``4 March 2022`` read ``day 41`` (the first trading
   date on or after it, counted from the first decision day; dates beyond the bars
   count business days). A month with its year (``March 2022``) or a year alone
   (1900–2099) would still place the text in time, so each becomes ``[date]``.
2. **Money** (``$12.50``, ``$3.4 billion``, ``USD 12.50``) is multiplied by the
   price factor of the one name the item concerns, the factor the mask scales that
   name's prices by, so a quoted price still matches the masked bars. In an item
   about several names or none no single factor applies and the figure becomes
   ``$[amount]``.
3. **Names**: each real symbol (also as ``$SYM`` or ``EXCHANGE:SYM``) and each
   company name of the ``names=`` map becomes the name's alias, longest first,
   whole words only, company names in any case; a ticker that reads as a word
   (``is_word_like``: ``A``, ``IT``, ``ON``) only as ``$SYM`` or ``EXCHANGE:SYM``.
   The text's words are looked up in a dictionary of the names' first words and
   only the names found are tried, so masking costs what the text's length does,
   whatever the number of names.

What is left is what the leak report (``workbench.evaluation.textleaks``) is for:
a product, a city or a chief executive that still points at one name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from workbench.errors import ConfigError

_MONTHS = [
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
]
_YEAR = r"(?:19|20)\d{2}"
# what each match became, by its kind, its text and the price factor
_Replacements = dict[tuple[str | None, str, float | None], str]


def _month(group: str) -> str:
    return rf"(?P<{group}>" + "|".join(f"{m[:3]}(?:{m[3:]})?\\.?" for m in _MONTHS) + ")"


# One pass over the text: at each place the first alternative that matches wins, so a
# full date is read before the year inside it, and money before a name.
_PARTS = (
    rf"(?P<iso>\b(?P<iso_y>{_YEAR})-(?P<iso_m>[01]\d)-(?P<iso_d>[0-3]\d)\b)",
    rf"(?P<mdy>\b{_month('mdy_m')}\s+(?P<mdy_d>[0-3]?\d)(?:st|nd|rd|th)?,?\s+(?P<mdy_y>{_YEAR})\b)",
    rf"(?P<dmy>\b(?P<dmy_d>[0-3]?\d)(?:st|nd|rd|th)?\s+{_month('dmy_m')},?\s+(?P<dmy_y>{_YEAR})\b)",
    rf"(?P<loose>\b{_month('my_m')}\s+{_YEAR}\b|\b{_YEAR}\b)",
    r"(?P<money>(?:\$|\bUSD\s?)(?P<amount>\d[\d,]*(?:\.\d+)?)"
    r"(?P<scale>\s?(?:billion|million|thousand|bn|mn|[mbk])\b)?)",
)


@dataclass(frozen=True)
class TextMask:
    """One run's mask for text: real symbol → alias, each name's price factor, the dates.

    ``names`` maps a real symbol to the company names it goes by; ``dates`` are the
    bars' trading dates (YYYY-MM-DD) and ``warmup_days`` how many come before day 0."""

    aliases: Mapping[str, str]
    price_factor: Mapping[str, float]
    dates: Sequence[str]
    warmup_days: int
    names: Mapping[str, Sequence[str]] = field(default_factory=dict)
    counterfactual: bool = False  # a bootstrap path: no calendar day or price holds

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_word", _first_words(self.aliases, self.names))
        object.__setattr__(self, "_patterns", {})
        object.__setattr__(self, "_lookup", _name_lookup(self.aliases, self.names))
        object.__setattr__(self, "_days", np.array(self.dates, dtype="datetime64[D]"))
        object.__setattr__(self, "_known_days", {})
        object.__setattr__(self, "_done", {})

    def text(self, text: str, symbols: Sequence[str]) -> str:
        """``text`` about the real ``symbols`` with its dates, money and names masked."""
        factor = self.price_factor.get(symbols[0]) if len(symbols) == 1 else None
        pattern = self._pattern_for(text)
        done: _Replacements = self._done  # type: ignore[attr-defined]

        def replaced(match: re.Match[str]) -> str:
            # a match's replacement depends on its kind, its text and the factor alone
            key = (match.lastgroup, match.group(0), factor)
            if key not in done:
                done[key] = self._replaced(match, factor)
            return done[key]

        return pattern.sub(replaced, text)

    def _pattern_for(self, text: str) -> re.Pattern[str]:
        """The dates and money, and the names whose first word the text holds: a dictionary
        look-up of its words, so the cost follows the text, not the number of names."""
        by_word: dict[str, tuple[str, ...]] = self._by_word  # type: ignore[attr-defined]
        present = by_word.keys() & set(_WORD.findall(text.casefold()))
        names = frozenset(n for w in present for n in by_word[w])
        patterns: dict[frozenset[str], re.Pattern[str]] = self._patterns  # type: ignore[attr-defined]
        if names not in patterns:
            parts = "|".join((*_PARTS, *_name_parts(self.aliases, names)))
            # every part starts a word (or is money): trying them only there halves the cost
            patterns[names] = re.compile(rf"(?<!\w)(?=[\w$])(?:{parts})", re.IGNORECASE)
        return patterns[names]

    def _replaced(self, match: re.Match[str], factor: float | None) -> str:
        kind = match.lastgroup
        if self.counterfactual and kind in ("iso", "mdy", "dmy", "money"):
            return "$[amount]" if kind == "money" else "[date]"
        if kind == "iso":
            return self._day_of(match, match["iso_y"], match["iso_m"], match["iso_d"])
        if kind in ("mdy", "dmy"):
            month = _month_number(match[f"{kind}_m"])
            return self._day_of(match, match[f"{kind}_y"], month, match[f"{kind}_d"])
        if kind == "loose":
            return "[date]"
        if kind == "money":
            return _scaled(match, factor)
        return _alias(match, self._lookup)  # type: ignore[attr-defined]

    def _day_of(self, match: re.Match[str], year: str, month: str | int, day: str) -> str:
        key = (year, int(month), int(day))
        known: dict[tuple[str, int, int], str] = self._known_days  # type: ignore[attr-defined]
        if key not in known:
            try:
                when = np.datetime64(f"{year}-{key[1]:02d}-{key[2]:02d}", "D")
            except ValueError:
                return match.group(0)  # not a calendar date (2016-02-31): left as written
            known[key] = f"day {self.relative_day(when)}"
        return known[key]

    def relative_day(self, when: np.datetime64) -> int:
        """The day number of a calendar date (its first trading date on or after it)."""
        days = self._days  # type: ignore[attr-defined]
        position = int(np.searchsorted(days, when, side="left"))
        if position == len(days):
            position = len(days) - 1 + int(np.busday_count(days[-1], when))
        elif position == 0 and when < days[0]:
            position = -int(np.busday_count(when, days[0]))
        return position - self.warmup_days

    def figures(self, symbol: str, figures: Mapping[str, float]) -> dict[str, float]:
        """A report's figures with its money columns (``is_money``) scaled like the name's
        prices; every other figure (a ratio, a count, a year) is kept as written."""
        factor = self.price_factor[symbol]
        return {k: round(v * factor, 4) if is_money(k) else v for k, v in figures.items()}


_MONEY_WORDS = (
    *("eps", "revenue", "sales", "income", "earnings", "profit", "ebit", "cash", "assets"),
    *("liabilities", "debt", "equity", "dividend", "price", "book_value", "capex", "cost"),
    *("expense", "per_share"),
)
_RATIO_ENDINGS = ("_pct", "_ratio", "margin", "_growth", "_yield", "_rate")


def is_money(column: str) -> bool:
    """A figure in money, scaled with the prices: its name holds a money word (eps, revenue,
    sales, income, earnings, profit, ebit, cash, assets, liabilities, debt, equity, dividend,
    price, book_value, capex, cost, expense, per_share) and it is no ratio (a name ending in
    _pct, _ratio, margin, _growth, _yield or _rate, or holding _to_)."""
    name = column.lower()
    if name.endswith(_RATIO_ENDINGS) or "_to_" in name:
        return False
    return any(word in name for word in _MONEY_WORDS)


def _month_number(name: str) -> int:
    return _MONTHS.index(next(m for m in _MONTHS if m.startswith(name[:3].lower()))) + 1


def _scaled(match: re.Match[str], factor: float | None) -> str:
    scale = match.group("scale") or ""
    if factor is None:
        return f"$[amount]{scale}"
    value = float(match.group("amount").replace(",", "")) * factor
    return f"${value:,.2f}{scale}"


# tickers that are also words ("A rally in IT spending, ON track"): masked only as $SYM
# or EXCHANGE:SYM
_WORDS = frozenset(
    (
        *("all", "and", "any", "are", "big", "can", "car", "day", "eat", "for", "fun", "get"),
        *("has", "how", "key", "low", "man", "new", "now", "one", "out", "own", "run", "see"),
        *("she", "two", "use", "way", "who", "win", "you", "well", "life", "true", "good"),
        *("love", "real", "best"),
    )
)


def is_word_like(ticker: str) -> bool:
    """A ticker of two letters or fewer, or a common word: bare, it is more often a word."""
    return len(ticker) <= 2 or ticker.lower() in _WORDS


_WORD = re.compile(r"\w+")


def _first_words(
    aliases: Mapping[str, str], names: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Each symbol's and company name's first word, casefolded → the symbols and names that
    start with it."""
    out: dict[str, list[str]] = {}
    for word in (*aliases, *(n for ns in names.values() for n in ns)):
        first = _WORD.findall(word.casefold())
        if first:
            out.setdefault(first[0], []).append(word)
    return {k: tuple(v) for k, v in out.items()}


def _name_parts(aliases: Mapping[str, str], present: frozenset[str]) -> list[str]:
    """A ticker as ``$SYM`` or ``EXCHANGE:SYM``, then a symbol that reads as no word
    (``is_word_like``) or a company name, longest first, as a whole word: of the symbols
    and names ``present`` in a text."""
    tickers = [s for s in present if s in aliases]
    words = [w for w in present if w not in aliases or not is_word_like(w)]
    parts = [rf"(?:\$|\b[A-Z]{{2,8}}:)(?P<quoted>{_longest_first(tickers)})\b"] if tickers else []
    return parts + ([rf"(?<![\w$])(?P<plain>{_longest_first(words)})(?!\w)"] if words else [])


def _longest_first(words: Sequence[str] | frozenset[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def _name_lookup(aliases: Mapping[str, str], names: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Casefolded company name → alias; symbols are matched exactly (below)."""
    lookup = {n.casefold(): aliases[s] for s, ns in names.items() for n in ns if s in aliases}
    lookup.update({"\0" + s: alias for s, alias in aliases.items()})
    return lookup


def _alias(match: re.Match[str], lookup: dict[str, str]) -> str:
    word = match.group(match.lastgroup or 0)  # the quoted ticker or the plain word
    exact = lookup.get("\0" + word)
    if exact is not None:
        return exact
    # a symbol in another case is not the symbol: the text stays as written
    return lookup.get(word.casefold(), match.group(0))


def names_map(
    given: Mapping[str, str | Sequence[str]] | None, bars: pd.DataFrame
) -> dict[str, tuple[str, ...]]:
    """Real symbol → company names, from ``names=`` and a ``name`` column of the bars."""
    out: dict[str, list[str]] = {}
    if "name" in bars.columns:
        for symbol, name in bars.drop_duplicates("symbol")[["symbol", "name"]].itertuples(
            index=False
        ):
            if isinstance(name, str) and name.strip():
                out.setdefault(str(symbol), []).append(name.strip())
    known = set(bars["symbol"].astype(str))
    for symbol, value in (given or {}).items():
        if str(symbol) not in known:
            raise ConfigError(
                f"names= has company names for {symbol!r}, which the bars do not hold; drop "
                "that entry (only the bars' names are masked)"
            )
        listed = [value] if isinstance(value, str) else list(value)
        out.setdefault(str(symbol), []).extend(_company_name(symbol, n) for n in listed)
    return {s: tuple(dict.fromkeys(ns)) for s, ns in out.items()}


def _company_name(symbol: str, name: object) -> str:
    text = str(name).strip()
    if len(text) <= 2:
        raise ConfigError(
            f"names= gives {symbol!r} the company name {name!r}: blank or two letters or "
            "fewer would mask every such word in the text; give the full name"
        )
    return text
