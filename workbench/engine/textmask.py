"""The mask carried into the text: names, calendar dates and prices, as the bars are masked.

An item's text is rewritten in one pass that reads, at each place, a date first,
then money, then a name:

1. **Dates** become the run's relative day numbers: ``2022-03-04`` (also
   ``2022/03/04``, ``2022.03.04`` and ``2022-3-4``, with a time after ``T``, and glued
   to the word before: ``report_2022-03-04.pdf``), ``March 4, 2022``, ``Mar 4 2022``,
   ``Sept. 4, 2022``, ``4 March 2022``, ``4-Mar-2022``, ``04MAR2022``, ``Mar-04-2022``,
   ``04-MAR-22`` (a year of two digits: 00 to 69 in the 2000s), by Unicode's hyphens and
   dashes too (``2022–03–04``), in French ``4 mars 2022``
   (``1er mai 2022``, ``4 avr. 2022``, ``4 fevrier 2022``) and in Japanese
   ``2022年3月4日`` (glued to the word before too, as Japanese writes it:
   ``アクメは2022年3月4日に``; an era's year too, ``平成28年3月4日``, on a day the era
   held) read ``day 41`` (the first trading date on or after it, counted from the first
   decision day; a date after the last trading date known when the item is first seen
   counts business days from that date, so no later bar shows; a date more than a year
   before the first date or after that date reads in whole years, ``[over 16 years
   before day -20]``, since its exact day would anchor the calendar). What would still place the
   text in time but names no one day becomes ``[date]``: a date no calendar holds
   (``2016-02-30``), a month with its year
   (``mars 2022``, ``2022-03`` too), a year alone (1900–2099; an era's, ``平成28年``),
   a year of two digits after an apostrophe (``the '16 season``; ``Dec. '16``,
   ``Jan. 5, '16``; by any of ' ’ ‘ ʼ ʻ ´ ′ ` ׳), a season's years (``2015/16``), a numeric
   date (``02/03/2016``, ``01-05-2016``: day or month first?), ``20160203``, a month
   and day with no year (``Feb 3``, ``4th March``, ``3月4日``), fiscal years, quarters and halves
   (``FY2016``, ``2016Q1``, ``CY16``, ``H1'16``, ``FY’16``).
2. **Money** in any currency (``$12.50``, ``C$12``, ``€45.10``, ``146.17$``,
   ``USD 12``, ``Rs. 1,200``, ``12 kr``, ``45 dollars``, ``$3.4 billion``; with a
   decimal comma ``45,50 €``, written back the same way) and a bare price after a
   price verb, a move in percent or the price's name (``closed at 123.45``, ``rose to
   130``, ``52-week high 999.99``, ``bid 146.10``), per share, as an option's strike,
   and both figures of a range (``from 150.37 to 146.17``) are multiplied by the price
   factor of the one name the item concerns, so a quoted price still matches the
   masked bars; a price after another masked name in its sentence takes that name's
   factor. In an item about several names or none the figure becomes ``[amount]``
   (its currency kept). Volumes (``1,864,600 shares``, ``volume 1.86M``) always
   become ``[amount]``: the text's mask holds no volume factor. ``textprices`` lists
   every form and the rule.
3. **Names**: each real symbol (also as ``$SYM`` or ``EXCHANGE:SYM``) and each
   company name of the ``names=`` map (checked by ``textnames``) becomes the name's
   alias, longest first, whole words only, company names in any case; a ticker that
   reads as a word (``is_word_like``: ``A``, ``IT``, ``ON``) only as ``$SYM`` or
   ``EXCHANGE:SYM``. A company name's words may be joined by any run of white space
   (``Acme\\r\\nIndustries``), a hyphen or an underscore (a line broken after a hyphen
   too) or nothing (``AcmeIndustries``, ``www.acmeindustries.com``), its apostrophes
   and a name's possessive written by any of ' ’ ʼ ‘ (``McDonald’s`` for
   ``McDonald's``, ``ACMEʼs``), a ticker written in
   capitals takes a plural's s (``ACMEs``), a share class any of its marks (``BRK-B``,
   ``BRK.B``, ``BRK/B``); a ticker is masked in any case after ``$`` or a colon
   (``$acme``) and, when it reads as no word, as an address's name (``ir@acme.com``).
   A name glued to a date written year first ends where the date starts
   (``ACME2016-03-04`` reads as the alias and the day).
   A text's HTML character references ending in a semicolon are decoded first, so the
   agent reads ``Procter & Gamble`` where a feed wrote ``Procter &amp; Gamble``
   (``&nbsp;`` a space, ``&#8217;`` ’); an ``&`` in prose (``AT&T``) stays as written.
   Text that is not ASCII is then composed (NFC) and its full-width and mathematical
   letters and digits (``ＡＣＭＥ``, ``＄１２``), ligatures and spaces of other widths
   brought to their compatibility form (NFKC), so they are read like the others;
   superscripts, fractions and numerals (``5²``, ``½``, ``Ⅳ``) stay as written.
   The names' first words are looked for among the text's words and only the
   names found are tried, so masking costs what the text's length does, whatever
   the number of names (with few names, all in ASCII, a text in ASCII is read with
   all of them at once: a name it does not hold cannot match in it).

A text in ASCII is read in two passes (``textspans``): the parts that read a digit,
tried only at the digits and the word or two before each, and the names, looked
for as literal words; the two together are what the pattern writes, and where
they overlap the text is read the long way. There the pattern is tried only where
a cheap first pass finds it can start (``textscan``), and there only the parts that
can start with the character found: the same text comes out, at half the cost of
trying it at every word. ``texts`` masks many texts at once (a feed, the items a
decision first carries): those that need the same pattern are joined by a
character no part reads across and masked in one pass (the long way, those of one
price factor together), and a text met before in the run is not masked again.

What is left is what the leak report (``workbench.evaluation.textleaks``) is for:
a product, a city or a chief executive that still points at one name.
"""

from __future__ import annotations

import bisect
import html
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property, lru_cache, partial

import numpy as np

from workbench.engine.textprices import (
    AMOUNTS,
    CURRENCY_STARTS,
    EUROPEAN_PARTS,
    GUARDS,
    PHRASE_ENDS,
    PRICE_PARTS,
    ByName,
    amount_mark,
    crossing,
    digit_parts,
    factors_by_alias,
    names_of,
    names_other,
    scaled,
    scaled_by,
    scaled_money,
    volume_mark,
)
from workbench.engine.textscan import (
    DASHES,
    EXCHANGES,
    IN_ADDRESS,
    MOIS_WRITTEN,
    MONTHS,
    NAME_END,
    PLURAL,
    SIGNS,
    YEAR_MARKS,
    Matcher,
    glued_forms,
    name_key,
    name_pattern,
    name_words,
    scannable,
    starts,
    substitute,
    ticker_forms,
)
from workbench.engine.textspans import DigitParts, NameFinder, Span, amounts_and_dates, merged

_YEAR = r"(?:19|20)\d{2}"
_Day = tuple[int, int, str]  # a date: days since 1970, its first trading date's row, "day N"
# the patterns and their starts, by the names a text holds, whether it has a colon and a 年
_Patterns = dict[tuple[frozenset[str], bool, bool], "_Compiled"]
_JOIN = "\0"  # between texts masked in one pass: no part reads across it
# The texts masked under one horizon: by price factor, then by the text as written. (Not
# by a pair of both: a pair is an object the collector tracks, and two an item, kept
# until it next passes, made it pass twice as often, each full pass over every object
# the run holds.)
_Done = dict[float | None, dict[str, str]]
_NONE_DONE: dict[str, str] = {}


def _spelled(month: str) -> str:
    """A month in full or by its first three letters (September by ``Sept`` too), with an
    optional full stop."""
    rest = "t|tember" if month == "september" else month[3:]
    return f"{month[:3]}(?:{rest})?\\.?"


def _month(group: str) -> str:
    return rf"(?P<{group}>" + "|".join(_spelled(m) for m in MONTHS) + ")"


def _mois() -> str:
    """A French month as written (``février``, ``fevrier``, ``févr.``), longest first."""
    written = sorted((m for ms in MOIS_WRITTEN for m in ms), key=lambda m: (-len(m), m))
    return "|".join(rf"{m}\.?" if m in _ABBREVIATED_MOIS else m for m in written)


_ABBREVIATED_MOIS = frozenset(
    ("janv", "févr", "fevr", "avr", "juil", "sept", "oct", "nov", "déc", "dec")
)


def _capital_month() -> str:
    """A month name written with its capital (``Feb``, ``March``): a month without a year
    is told from the verb "may" by that alone."""
    return "(?-i:" + "|".join(_spelled(m)[0].upper() + _spelled(m)[1:] for m in MONTHS) + ")"


# a year of two digits after an apostrophe or a mark written for one ('16, ’16, ʻ16, ´16:
# ``YEAR_MARKS``), not a figure's first digits ('15.5)
_SHORT_YEAR = rf"[{YEAR_MARKS}]\d{{2}}\b(?![.,]\d)"
# such a year after a month and day, or a day and month (Jan. 5, '16; 5 Jan '16)
_THEN_SHORT_YEAR = rf"(?:,?\s*{_SHORT_YEAR})?"


# One pass over the text: at each place the first alternative that matches wins, so a
# full date is read before the year inside it, and money before a name.
_PARTS: tuple[tuple[str, str], ...] = (
    (
        "[jfmasond]",
        rf"(?P<mdy>\b{_month('mdy_m')}(?:\s+|[{DASHES}])(?P<mdy_d>[0-3]?\d)(?:st|nd|rd|th)?"
        rf"(?:,?\s+|[{DASHES}])(?P<mdy_y>{_YEAR})\b)",
    ),
    (
        r"\d",
        rf"(?P<dmy>\b(?P<dmy_d>[0-3]?\d)(?:st|nd|rd|th)?[\s{DASHES}]*{_month('dmy_m')},?"
        rf"[\s{DASHES}]*(?P<dmy_y>{_YEAR})\b)",
    ),
    # a day, a month's three letters, a year of two digits, by hyphens or glued: 05-JAN-16,
    # 05JAN16
    (
        r"\d",
        rf"(?P<dmy2>\b(?P<dmy2_d>[0-3]?\d)(?P<dmy2_s>[{DASHES}]?)"
        rf"(?P<dmy2_m>{'|'.join(m[:3] for m in MONTHS)})(?P=dmy2_s)(?P<dmy2_y>\d{{2}})\b)",
    ),
    # in French (4 mars 2022, 1er mai 2022); Japanese dates are read apart (``_GLUED``)
    (
        r"\d",
        rf"(?P<dmy_fr>\b(?P<dmy_fr_d>[0-3]?\d)(?:er)?\s+(?P<dmy_fr_m>{_mois()})\s+"
        rf"(?P<dmy_fr_y>{_YEAR})\b)",
    ),
    *EUROPEAN_PARTS,
    # what cannot be placed on one day: numeric dates (day or month first?), 20160203,
    # a month and day with no year, fiscal years, quarters and halves
    # (each in two parts, those starting with a digit and those with a letter: a form
    # for one character holds one of them)
    (
        r"\d",
        rf"(?P<unplaced>\b[0-3]?\d[/.][0-3]?\d[/.](?:{_YEAR}|\d{{2}})\b"
        rf"|\b[0-3]?\d[{DASHES}][0-3]?\d[{DASHES}](?:{_YEAR}|\d{{2}})\b|\b{_YEAR}[01]\d[0-3]\d\b"
        rf"|\b{_YEAR}[{DASHES}/](?:1[0-2]|0?[1-9]|\d{{2}})\b(?![{DASHES}/.]\d)"
        rf"|\b[0-3]?\d(?:st|nd|rd|th)?\s+(?:of\s+)?{_capital_month()}{_THEN_SHORT_YEAR}"
        rf"|\b(?:19|20)\d{{2}}\s?[QH][1-4]\b|\b[1-4][QH]\s?[{YEAR_MARKS}]?\d{{2}}(?:\d{{2}})?\b)",
    ),
    (
        f"[fcqhjmasond{YEAR_MARKS}]",
        rf"(?P<unplaced_w>\b{_capital_month()}(?:\s+|[{DASHES}])[0-3]?\d(?:st|nd|rd|th)?\b"
        rf"{_THEN_SHORT_YEAR}|\b{_capital_month()}\s*{_SHORT_YEAR}|{_SHORT_YEAR}"
        rf"|\b(?:FY|CY)\s?[{YEAR_MARKS}]?\d{{2}}(?:\d{{2}})?\b"
        rf"|\b[QH][1-4]\s?(?:FY)?[{YEAR_MARKS}]?\d{{2}}(?:\d{{2}})?\b)",
    ),
    (r"\d", rf"(?P<loose>\b{_YEAR}\b)"),
    (
        "[jfmasond]",
        rf"(?P<loose_w>\b{_month('my_m')}(?:\s+|[{DASHES}]){_YEAR}\b|\b(?:{_mois()})\s+{_YEAR}\b)",
    ),
    *PRICE_PARTS,
)


@dataclass(frozen=True, eq=False)
class _Compiled:
    """The mask's pattern for the names a text holds: its starts (``textscan``), the
    pattern whole and in smaller forms, each holding only the parts that can start with
    a given character, in the same order; each compiled the first time it is needed."""

    parts: tuple[tuple[str, str], ...]  # each part's first characters, and the part
    starts: re.Pattern[str]
    glued: bool  # the text holds a 年: a Japanese date is looked for too (``_GLUED``)
    names: NameFinder | None = None  # the names as words, for a text in ASCII (``textspans``)

    def __post_init__(self) -> None:
        object.__setattr__(self, "match_at", _MatchAt(self))

    @cached_property
    def whole(self) -> re.Pattern[str]:
        return _compiled((p for _, p in self.parts), glued=self.glued)

    def form(self, char: str) -> tuple[tuple[int, ...], bool, bool]:
        """The parts that can start with ``char`` (in any case), whether a Japanese date
        can, and whether a date written year first can."""
        chosen = tuple(k for k, (first, _) in enumerate(self.parts) if _can_start(first, char))
        glued = self.glued and (char.isdecimal() or char in "昭平令")
        return chosen, glued, char in "12"


def _can_start(first: str, char: str) -> bool:
    return re.fullmatch(first, char, re.IGNORECASE) is not None


class _MatchAt(dict[str, "Matcher"]):
    """A character → the ``match`` of the form to try where it stands, learnt the first
    time the character is asked for; characters that can start the same parts share one."""

    def __init__(self, compiled: _Compiled) -> None:
        super().__init__()
        self.compiled = compiled
        self.forms: dict[tuple[tuple[int, ...], bool, bool], Matcher] = {}

    def __missing__(self, char: str) -> Matcher:
        form = self.compiled.form(char)
        if form not in self.forms:
            parts = (self.compiled.parts[k][1] for k in form[0])
            self.forms[form] = _compiled(parts, glued=form[1], iso=form[2]).match
        self[char] = self.forms[form]
        return self[char]


def _unguarded(part: str) -> str:
    """A part without what it looks for first (the reference reads the parts as written)."""
    for guard in GUARDS:
        part = part.replace(guard, "")
    return part


# A date year first, by "-", "/" or "." (2016-02-10, 2016/2/10, 2016.02.10), read wherever
# no digit precedes it: at a word or glued to the word before (report_2016-03-04.pdf)
_ISO = (
    rf"(?<!\d)(?P<iso>(?P<iso_y>{_YEAR})(?P<iso_s>[{DASHES}/.])(?P<iso_m>[01]?\d)(?P=iso_s)"
    rf"(?P<iso_d>[0-3]?\d)(?:T[\d:.]+(?:Z|[+-]\d{{2}}:?\d{{2}})?)?(?![^\W_]|[{DASHES}]))"
)
# A date in Japanese (2022年3月4日), read wherever no digit precedes it: Japanese puts no
# space between words (アクメは2022年3月4日に), so it is no word start. A year, or a year
# and month, alone (2022年, 2022年3月), or a month and day with no year (3月4日) is
# [date]. A year of an era (平成28年3月4日) is placed when the era held that day.
_GLUED = (
    rf"(?<!\d)(?:(?P<ymd_ja>(?P<ymd_ja_y>{_YEAR})年(?P<ymd_ja_m>[01]?\d)月(?P<ymd_ja_d>[0-3]?\d)日)"
    rf"|(?P<loose_ja>{_YEAR}年(?:[01]?\d月)?)|(?P<md_ja>(?:1[0-2]|0?[1-9])月[0-3]?\d日))"
    r"|(?P<era_ja>(?P<era>昭和|平成|令和)(?P<era_y>元|\d{1,2})年"
    r"(?:(?P<era_m>[01]?\d)月(?:(?P<era_d>[0-3]?\d)日)?)?)"
)
# each era's first year and its first and last day
_ERAS = {
    "昭和": (1926, date(1926, 12, 25), date(1989, 1, 7)),
    "平成": (1989, date(1989, 1, 8), date(2019, 4, 30)),
    "令和": (2019, date(2019, 5, 1), date(2099, 12, 31)),
}


def _compiled(parts: Iterable[str], *, glued: bool = True, iso: bool = True) -> re.Pattern[str]:
    # every other part starts a word (or is money): trying them only there halves the cost
    words = rf"(?<!\w)(?=[\w{SIGNS}{YEAR_MARKS}])(?:{'|'.join(parts)})"
    anywhere = [_ISO] * iso + [_GLUED] * glued
    return _pattern("|".join([*anywhere, words]))


@lru_cache(maxsize=32)  # some 0.1 MB each (only the names a text holds are in one)
def _pattern(source: str) -> re.Pattern[str]:
    # kept here: the module's own small patterns would push these large ones, about 20 ms
    # to compile each, out of re's shared cache
    return re.compile(source, re.IGNORECASE)


# the parts without names, and the characters one can start with (in ASCII): what
# ``textspans`` tries near each digit
_BARE = _Compiled(_PARTS, starts(CURRENCY_STARTS, exchange=False, glued=False), glued=False)
_STARTABLE = frozenset(
    c for c in map(chr, range(128)) if any(_can_start(first, c) for first, _ in _PARTS)
)


def _part_name(part: str) -> str:
    found = re.match(r"\(\?P<(\w+)>", part)
    assert found is not None
    return found.group(1)


_PART_NAMES = tuple(_part_name(part) for _, part in _PARTS)
_AFTER_ORDINAL = ("s", "n", "r", "t", "S", "N", "R", "T")  # st, nd, rd, th
_QUARTER = ("q", "Q", "h", "H")


def _digit_parts(length: int, after: str, phrase: bool) -> tuple[int, ...]:
    """The parts that can match at a digit no digit precedes and no word character, where
    its run of digits is ``length`` long (0: neither 1, 2, 4 nor 8) and ``after`` follows
    it ("" at the end), and ``phrase`` when a word a part reads before a number (a price
    phrase's last word, "volume", "hit") and one space stand before it: what each part
    reads at its first digits, read off the parts above."""
    space, word = after.isspace(), after.isalnum() or after == "_"
    short = length in (1, 2)
    can = {
        "dmy": short and (after.isalpha() or space or after == "-"),
        "dmy2": short and (after.isalpha() or after == "-"),
        "dmy_fr": short and (after in ("e", "E") or space),
        "unplaced": (short and (after in ("/", ".", "-", *_AFTER_ORDINAL) or space))
        or (length == 8 and not word)
        or (length == 4 and (after in ("-", "/", *_QUARTER) or space))
        or (length == 1 and after in _QUARTER),
        "loose": length == 4 and not word,
        **digit_parts(length, after, phrase),
    }
    return tuple(k for k, name in enumerate(_PART_NAMES) if can.get(name, False))


class _DigitForms(dict[tuple[int, str, bool, bool], "Matcher | None"]):
    """The matcher to try at a digit no digit precedes, by what stands around it: the
    length of its run of digits (1, 2, 4, 8, or 0 for any other), the character after
    the run, whether a word character stands before it, and whether a price phrase's
    last word, "volume" or "hit" and one space do; None where no part can match. It
    holds only the parts that can match there (``_digit_parts``), in the pattern's
    order, so it matches what the digit's form of every part matches, at the cost of
    the few parts left."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: dict[tuple[tuple[int, ...], bool], Matcher | None] = {}

    def __missing__(self, key: tuple[int, str, bool, bool]) -> Matcher | None:
        length, after, word_before, phrase = key
        chosen = () if word_before else _digit_parts(length, after, phrase)
        form = (chosen, length == 4 and after in ("-", "/", "."))  # and a date year first
        if form not in self.forms:
            self.forms[form] = _digit_form(*form)
        self[key] = self.forms[form]
        return self[key]


def _digit_form(chosen: tuple[int, ...], iso: bool) -> Matcher | None:
    if chosen:
        return _compiled((_PARTS[k][1] for k in chosen), glued=False, iso=iso).match
    return re.compile(_ISO, re.IGNORECASE).match if iso else None


_DIGIT_PARTS = DigitParts(
    _BARE.match_at,  # type: ignore[attr-defined]
    _DigitForms(),
    _STARTABLE,
    PHRASE_ENDS,
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
        names = _with_short_forms(self.names)
        by_word = _first_words(self.aliases, names)
        object.__setattr__(self, "_by_word", by_word)
        # each first word as a whole word (all its characters are word characters)
        few = len(by_word) <= _FEW_WORDS  # with more, compiling each would flush re's cache
        alone = {w: re.compile(rf"(?<!\w){re.escape(w)}{NAME_END}") for w in by_word if few}
        object.__setattr__(self, "_word_alone", alone)
        # few names, all in ASCII: a text in ASCII is masked with all of them (a name the
        # text does not hold cannot match in it), so texts need not be read for names first
        every = frozenset(n for ns in by_word.values() for n in ns)
        ascii_names = few and all(n.isascii() for n in every)
        object.__setattr__(self, "_every_name", every if ascii_names else None)
        object.__setattr__(self, "_patterns", {})
        object.__setattr__(self, "_lookup", _name_lookup(self.aliases, names))
        object.__setattr__(self, "_days", np.array(self.dates, dtype="datetime64[D]"))
        object.__setattr__(self, "_day_numbers", self._days.astype(np.int64).tolist())  # type: ignore[attr-defined]
        object.__setattr__(self, "_known_days", {})
        object.__setattr__(self, "_read_days", {})  # (kind, date as written) → its day
        object.__setattr__(self, "_writers", {})
        object.__setattr__(self, "_horizons", {})  # per last known date: the texts masked
        object.__setattr__(self, "_factors", factors_by_alias(self.aliases, self.price_factor))
        self._known_until(len(self.dates) - 1)

    def text(self, text: str, symbols: Sequence[str]) -> str:
        """``text`` about the real ``symbols`` with its dates, money and names masked."""
        text = _compatible(text)
        return self._masked(self._compiled_for(text), text, self._factor(symbols))

    def texts(self, texts: Sequence[tuple[str, Sequence[str]]]) -> list[str]:
        """Many texts, each about its real symbols, masked as ``text`` masks each: the texts
        that need the same pattern joined by a character no part can cross (``_JOIN``) and
        masked in one pass (``_spans_apart``; the long way, those of one price factor
        together). A text met before in the run (with the same price factor: an item
        repeated, or shown on two rows of a counterfactual path) is not masked again."""
        done: _Done = self._texts  # type: ignore[attr-defined]
        factor_of = self.price_factor.get  # an item about one name has its factor (``_factor``)
        keys = [(raw, factor_of(s[0]) if len(s) == 1 else None) for raw, s in texts]
        out = [done.get(factor, _NONE_DONE).get(raw) for raw, factor in keys]
        every: frozenset[str] | None = self._every_name  # type: ignore[attr-defined]
        groups: dict[_Compiled, list[int]] = {}
        plain: list[int] = []
        for k, (raw, factor) in enumerate(keys):
            if out[k] is not None:
                continue
            if every is not None and raw.isascii() and _JOIN not in raw and "&" not in raw:
                out[k] = raw
                plain.append(k)
                continue
            text = out[k] = _compatible(raw)
            if _JOIN in text or not scannable(text):
                out[k] = self._masked(self._compiled_for(text), text, factor)
            elif every is not None and text.isascii():
                plain.append(k)
            else:
                groups.setdefault(self._compiled_for(text), []).append(k)
        if plain:
            exchange = any(":" in (out[k] or "") for k in plain)
            compiled = self._pattern(every or frozenset(), exchange=exchange, glued=False)
            groups.setdefault(compiled, []).extend(plain)
        for compiled, members in groups.items():
            written = self._spans_apart(compiled, [out[k] or "" for k in members], keys, members)
            if written is None:  # the long way, the texts of each price factor together
                written = self._joined(compiled, [out[k] or "" for k in members], keys, members)
            for k, text in zip(members, written, strict=True):
                raw, factor = keys[k]
                out[k] = (done.get(factor) or done.setdefault(factor, {}))[raw] = text
        return [text or "" for text in out]

    def _spans_apart(
        self,
        compiled: _Compiled,
        texts: list[str],
        keys: list[tuple[str, float | None]],
        members: list[int],
    ) -> list[str] | None:
        """Texts in ASCII masked in one pass whatever their price factors (``textspans``):
        the names, then the parts near each digit, each scaled by its own text's factor;
        None when the passes cannot tell (the texts are then masked the long way)."""
        joined = _JOIN.join(texts)
        if compiled.names is None or not joined.isascii():
            return None
        names = compiled.names.spans(joined)
        if names is None:
            return None
        ends = [end + k for k, end in enumerate(itertools.accumulate(map(len, texts)), 1)]
        own = [keys[k][1] for k in members]
        replacers = [self._replacer(factor) for factor in own]
        for at in crossing(names, ends, own, self._factors):  # type: ignore[attr-defined]
            replacers[at] = self._knowing(own[at], names_of(names, ends, at))
        found = amounts_and_dates(joined, _DIGIT_PARTS, replacers, ends)
        written = merged(joined, found, names)
        return None if written is None else written.split(_JOIN)

    def _joined(
        self,
        compiled: _Compiled,
        texts: list[str],
        keys: list[tuple[str, float | None]],
        members: list[int],
    ) -> list[str]:
        """The texts of each price factor joined and masked in one pass of the pattern."""
        by_factor: dict[float | None, list[int]] = {}
        for at, k in enumerate(members):
            by_factor.setdefault(keys[k][1], []).append(at)
        out = [""] * len(texts)
        for factor, ats in by_factor.items():
            joined = _JOIN.join(texts[at] for at in ats)
            masked = self._masked(compiled, joined, factor).split(_JOIN)
            for at, text in zip(ats, masked, strict=True):
                out[at] = text
        return out

    def _compiled_for(self, text: str) -> _Compiled:
        return self._patterns_for(text, self._first_words_in(text.casefold()))

    def text_by_pattern(self, text: str, symbols: Sequence[str]) -> str:
        """What ``text`` gives, the long way: the names found among all the text's words,
        the pattern tried at every place (the reference the mask's tests compare with)."""
        text = _compatible(text)
        by_word: dict[str, tuple[str, ...]] = self._by_word  # type: ignore[attr-defined]
        words = by_word.keys() & set(_WORD.findall(text.casefold()))
        names = frozenset(n for w in words for n in by_word[w])
        parts = (*_PARTS, *_name_parts(self.aliases, names))
        pattern = _compiled(_unguarded(p) for _, p in parts)
        factor = self._factor(symbols)
        replace = self._by_name(factor, lambda f: partial(_flipped, self._replaced, f))
        return pattern.sub(replace or (lambda match: self._replaced(match, factor)), text)

    def _factor(self, symbols: Sequence[str]) -> float | None:
        """The one price factor of an item about one name (None about several or none)."""
        return self.price_factor.get(symbols[0]) if len(symbols) == 1 else None

    def _masked(self, compiled: _Compiled, text: str, factor: float | None) -> str:
        """``text`` masked by ``compiled`` in a text of price factor ``factor``: in two
        passes (``textspans``) where they can tell, else by the pattern at its starts."""
        if not scannable(text):
            return compiled.whole.sub(self._in_order(factor), text)
        if compiled.names is not None and text.isascii():
            names = compiled.names.spans(text)
            if names is not None:
                replace = self._knowing(factor, names)
                found = amounts_and_dates(text, _DIGIT_PARTS, [replace], [len(text) + 1])
                written = merged(text, found, names)
                if written is not None:
                    return written
        replace = self._in_order(factor)
        return substitute(compiled.match_at, compiled.starts, text, replace)  # type: ignore[attr-defined]

    def _by_name(
        self,
        factor: float | None,
        writers: Callable[[float | None], Callable[[re.Match[str]], str]],
    ) -> ByName | None:
        """What writes a text's prices each by its name's factor (``textprices.ByName``),
        in an item about one name of a mask whose names' factors differ; None where the
        item's factor (or none) writes them all."""
        factors: dict[str, float] = self._factors  # type: ignore[attr-defined]
        if factor is None or self.counterfactual or not factors:
            return None
        return ByName(writers, factor, factors)

    def _in_order(self, factor: float | None) -> Callable[[re.Match[str]], str]:
        """What writes one pass of the pattern, which meets the names in order."""
        return self._by_name(factor, self._replacer) or self._replacer(factor)

    def _knowing(self, factor: float | None, names: list[Span]) -> Callable[[re.Match[str]], str]:
        """What writes the prices of a text whose names another pass found (``names``)."""
        factors: dict[str, float] = self._factors  # type: ignore[attr-defined]
        if factor is None or not names_other(names, factor, factors):
            return self._replacer(factor)
        by_name = self._by_name(factor, self._replacer)
        return self._replacer(factor) if by_name is None else by_name.known(names)

    def _replacer(self, factor: float | None) -> Callable[[re.Match[str]], str]:
        """What writes a match in a text of price factor ``factor``: by its kind, from a
        table built once per factor (``_writers``)."""
        by_factor: dict[float | None, Callable[[re.Match[str]], str]]
        by_factor = self._writers  # type: ignore[attr-defined]
        if factor not in by_factor:
            writers = _Writers(self, factor)
            by_factor[factor] = lambda match: writers[match.lastgroup](match)
        return by_factor[factor]

    def _patterns_for(self, text: str, first_words: Iterable[str]) -> _Compiled:
        """The dates and money, and the names whose first word the text holds (so the cost
        follows the text, not the number of names); and where they can start
        (``textscan.starts``)."""
        by_word: dict[str, tuple[str, ...]] = self._by_word  # type: ignore[attr-defined]
        names = frozenset(n for w in first_words for n in by_word[w])
        return self._pattern(names, exchange=":" in text, glued="年" in text or "月" in text)

    def _pattern(self, names: frozenset[str], *, exchange: bool, glued: bool) -> _Compiled:
        """The pattern for a text holding ``names``, a colon (``exchange``: an exchange
        prefix can stand before a ticker) or a 年 or 月 (``glued``: a Japanese date)."""
        key = (names, exchange and any(n in self.aliases for n in names), glued)
        patterns: _Patterns = self._patterns  # type: ignore[attr-defined]
        if key not in patterns:
            parts = (*_PARTS, *_name_parts(self.aliases, names))
            found_at = starts((*names, *CURRENCY_STARTS), exchange=key[1], glued=glued)
            patterns[key] = _Compiled(parts, found_at, glued=glued, names=self._finder(names))
        return patterns[key]

    def _finder(self, names: frozenset[str]) -> NameFinder | None:
        """The names as literal words (``textspans``), when they can be looked for so."""
        if not NameFinder.usable(names):
            return None
        tickers = [n for n in names if n in self.aliases]
        words = [n for n in names if n not in self.aliases or not is_word_like(n)]
        return NameFinder(words, tickers, self._lookup)  # type: ignore[attr-defined]

    def _first_words_in(self, folded: str) -> Iterable[str]:
        """The names' first words that are words of ``folded``: with a few names, each looked
        for in the text; with many, the text's words looked up among them."""
        by_word: dict[str, tuple[str, ...]] = self._by_word  # type: ignore[attr-defined]
        if len(by_word) > _FEW_WORDS:
            return by_word.keys() & set(_WORD.findall(folded))
        alone: dict[str, re.Pattern[str]] = self._word_alone  # type: ignore[attr-defined]
        return [w for w, pattern in alone.items() if w in folded and pattern.search(folded)]

    def _replaced(self, match: re.Match[str], factor: float | None) -> str:
        kind = match.lastgroup
        if kind in AMOUNTS and (self.counterfactual or factor is None or kind == "volume"):
            return amount_mark(match)
        if kind in _UNPLACED or (self.counterfactual and kind in _DATES):
            return "[date]"
        if kind in _DATES:
            return self._on_horizon(self._day_in(match, kind))
        if kind in AMOUNTS:
            assert factor is not None
            return scaled(match, factor)
        return _alias(match, self._lookup)  # type: ignore[attr-defined]

    def _day_in(self, match: re.Match[str], kind: str) -> _Day | None:
        """The calendar date a match of a date's ``kind`` writes, placed on the bars (None:
        no calendar date, written [date]); the same under any horizon."""
        if kind == "era_ja":
            return self._era_day(match)
        if kind == "iso":
            return self._known_day(match["iso_y"], match["iso_m"], match["iso_d"])
        month = _month_number(match[f"{kind}_m"])
        return self._known_day(_full_year(match[f"{kind}_y"]), month, match[f"{kind}_d"])

    def _era_day(self, match: re.Match[str]) -> _Day | None:
        """A day of a Japanese era (平成28年3月4日) placed when the era held it; a year or a
        month of an era alone, or a day the era did not hold, is none."""
        first_year, began, ended = _ERAS[match["era"]]
        year = first_year + (1 if match["era_y"] == "元" else int(match["era_y"])) - 1
        if match["era_d"] is None:
            return None
        try:
            when = date(year, int(match["era_m"]), int(match["era_d"]))
        except ValueError:
            return None
        if not began <= when <= ended:
            return None
        return self._known_day(str(year), when.month, str(when.day))

    def _known_day(self, year: str, month: str | int, day: str) -> _Day | None:
        """A calendar date with its first trading date's row and label, once per date; none
        for a day the calendar does not hold (2016-02-31), which still places the text."""
        key = (year, int(month), int(day))
        known: dict[tuple[str, int, int], _Day] = self._known_days  # type: ignore[attr-defined]
        found = known.get(key)
        if found is None:
            try:
                when = date(int(year), key[1], key[2]).toordinal() - _EPOCH
            except ValueError:
                return None
            numbers: list[int] = self._day_numbers  # type: ignore[attr-defined]
            position = bisect.bisect_left(numbers, when)  # its first trading date, or none
            found = known[key] = (when, position, self._traded_day(when, position))
        return found

    def _on_horizon(self, found: _Day | None) -> str:
        """A placed date as written under the horizon (``known_until``): its label when its
        trading date is known by then (the same under any later horizon), else counted from
        the horizon's date."""
        if found is None:
            return "[date]"
        when, position, label = found
        horizon: int = self._horizon  # type: ignore[attr-defined]
        if position <= horizon:
            return label
        past = when - self._day_numbers[horizon]  # type: ignore[attr-defined]
        if past > FAR_DAYS:  # counted from the last date known
            return _far(past, f"after day {horizon - self.warmup_days}")
        return f"day {self._day_number(when)}"

    def _traded_day(self, when: int, position: int) -> str:
        """The label of a date on the bars' calendar, once its first trading date is known
        (``position``); none for a date after the last."""
        if position == len(self.dates):
            return ""
        if position == 0:  # on or before the first date: business days back from it
            numbers: list[int] = self._day_numbers  # type: ignore[attr-defined]
            if numbers[0] - when > FAR_DAYS:  # counted from the first date, known to all
                return _far(numbers[0] - when, f"before day {-self.warmup_days}")
            return f"day {self.relative_day(np.datetime64(when, 'D'))}"
        return f"day {position - self.warmup_days}"

    @contextmanager
    def known_until(self, row: int) -> Iterator[None]:
        """Mask texts first seen at the close of trading date ``row``: a date after it is
        numbered by business days from it (weekends only), never by the bars' later dates,
        so an item's text cannot tell which later dates the market closed."""
        last = len(self.dates) - 1
        self._known_until(row)
        try:
            yield
        finally:
            self._known_until(last)

    def _known_until(self, row: int) -> None:
        # the texts masked under this horizon, kept for its return
        object.__setattr__(self, "_horizon", row)
        object.__setattr__(self, "_texts", self._horizons.setdefault(row, {}))  # type: ignore[attr-defined]

    def _day_number(self, when: int) -> int:
        """``relative_day`` of a date given as days since 1970-01-01: a bisection of the
        bars' dates up to the horizon, numpy's business days only beyond it."""
        numbers: list[int] = self._day_numbers  # type: ignore[attr-defined]
        horizon: int = self._horizon  # type: ignore[attr-defined]
        position = bisect.bisect_left(numbers, when, hi=horizon + 1)
        if position > horizon:  # as relative_day counts it, without numpy's scalars
            return horizon + max(1, _weekdays(numbers[horizon], when)) - self.warmup_days
        if position == 0 and when < numbers[0]:
            return self.relative_day(np.datetime64(when, "D"))
        return position - self.warmup_days

    def relative_day(self, when: np.datetime64) -> int:
        """The day number of a calendar date (its first trading date on or after it), the
        dates after the horizon (``known_until``) counted in business days from it."""
        days, horizon = self._days, self._horizon  # type: ignore[attr-defined]
        position = int(np.searchsorted(days[: horizon + 1], when, side="left"))
        if position > horizon:
            position = horizon + max(1, int(np.busday_count(days[horizon], when)))
        elif position == 0 and when < days[0]:
            position = -int(np.busday_count(when, days[0]))
        return position - self.warmup_days

    def figures(self, symbol: str, figures: Mapping[str, float], row: int) -> dict[str, float]:
        """A report first seen at the close of trading date ``row``, masked: its money
        columns (``is_money``) scaled like the name's prices, its dates (``is_date_column``,
        held as days since 1970) as day numbers under ``known_until(row)``, its years
        (``is_year_column``) counted from the year of day 0; every other figure (a ratio, a
        count) kept as written. A counterfactual path has no calendar: its dates and years
        are left out."""
        factor = self.price_factor[symbol]
        shown: dict[str, float] = {}
        with self.known_until(row):
            for column, value in figures.items():
                kind = figure_kind(column)
                if kind == "money":
                    shown[column] = round(value * factor, 4)
                elif kind == "figure":
                    shown[column] = value
                elif not self.counterfactual:
                    shown[column] = self._calendar_figure(kind, value)
        return shown

    def _calendar_figure(self, kind: str, value: float) -> int:
        """A date (days since 1970) as its day number, or a year as years from day 0's."""
        if kind == "date":
            return self.relative_day(np.datetime64(int(value), "D"))
        return int(value) - int(self.dates[self.warmup_days][:4])


_MONEY_WORDS = (
    *("eps", "revenue", "sales", "income", "earnings", "profit", "ebit", "cash", "assets"),
    *("liabilities", "debt", "equity", "dividend", "price", "book_value", "capex", "cost"),
    *("expense", "per_share"),
)
_RATIO_ENDINGS = ("_pct", "_ratio", "margin", "_growth", "_yield", "_rate")


def _weekdays(start: int, end: int) -> int:
    """Monday to Friday days from ``start`` up to ``end`` (days since 1970-01-01, a
    Thursday), as ``np.busday_count`` counts them."""
    weeks, rest = divmod(end - start, 7)
    return weeks * 5 + _PART_WEEK[(start + 3) % 7][rest]  # 1970-01-01 is weekday 3


# _PART_WEEK[first][n]: Monday to Friday days among n days from weekday ``first`` (Monday 0)
_PART_WEEK = tuple(
    tuple(sum((f + i) % 7 < 5 for i in range(n)) for n in range(7)) for f in range(7)
)


def is_money(column: str) -> bool:
    """A figure in money, scaled with the prices: its name holds a money word (eps, revenue,
    sales, income, earnings, profit, ebit, cash, assets, liabilities, debt, equity, dividend,
    price, book_value, capex, cost, expense, per_share) and it is no ratio (a name ending in
    _pct, _ratio, margin, _growth, _yield or _rate, or holding _to_)."""
    name = column.lower()
    if name.endswith(_RATIO_ENDINGS) or "_to_" in name:
        return False
    return any(word in name for word in _MONEY_WORDS)


def _compatible(text: str) -> str:
    """Text with its HTML character references decoded (``_unescaped``, again while a pass
    leaves one: a feed may escape its markup twice), then, where it
    is not ASCII, composed (NFC), and only what the mask must read as ASCII brought to it
    (``_TO_PLAIN``): full-width ＡＣＭＥ or ＄１２ read as ACME and $12, while ``5²``, ``½``
    or ``Ⅳ`` stay as written, so no number is made up."""
    for _ in range(_DECODINGS):  # a feed that escaped its markup again: &amp;amp;, &amp;#36;
        if "&" not in text or (decoded := _unescaped(text)) == text:
            break
        text = decoded
    if text.isascii():
        return text
    text = unicodedata.normalize("NFC", text)
    return text.translate(_TO_PLAIN) if _NOT_PLAIN.search(text) else text


def _unescaped(text: str) -> str:
    """``text`` with each HTML character reference that ends in a semicolon decoded
    (``&amp;``, ``&nbsp;``, ``&#8217;``, ``&#x2019;``), as a feed's markup writes a name
    (``Procter &amp; Gamble``); an ``&`` in prose (``AT&T``, ``R&D``) stays, and so does a
    reference written without its semicolon (``&copy``), which prose can hold."""
    return _REFERENCE.sub(_decoded, text)


_DECODINGS = 3  # passes at most: markup escaped once, twice or three times


def _decoded(reference: re.Match[str]) -> str:
    return html.unescape(reference.group())


_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _plain_forms() -> dict[int, str]:
    """Each character the mask reads as its compatibility form (NFKC) → that form: the
    full-width and half-width forms, the mathematical letters and digits (𝐀𝐂𝐌𝐄), the
    ligatures (ﬁ), the long s, the spaces of other widths and the squared eras (㍻)."""
    spans = (
        (0xFF01, 0xFFEE), (0x1D400, 0x1D7FF), (0xFB00, 0xFB06), (0x017F, 0x017F),
        (0x00A0, 0x00A0), (0x2000, 0x200A), (0x202F, 0x202F), (0x205F, 0x205F),
        (0x3000, 0x3000), (0x337B, 0x337C), (0x32FF, 0x32FF),
    )  # fmt: skip
    chars = (chr(c) for lo, hi in spans for c in range(lo, hi + 1))
    forms = {ord(c): unicodedata.normalize("NFKC", c) for c in chars}
    return {c: form for c, form in forms.items() if form != chr(c)}


_TO_PLAIN = _plain_forms()
_NOT_PLAIN = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_TO_PLAIN)) + "]")


# a date further than this many days before the bars' first date, or after the last date
# known when its text is first seen, is written in whole years (``_far``): its exact day
# would anchor the calendar
FAR_DAYS = 365


def _far(days: int, side: str) -> str:
    """A date far from the bars by its whole years only: ``[over 3 years before day -20]``."""
    years = days // 365
    return f"[over {years} year{'s' * (years != 1)} {side}]"


def _full_year(year: str) -> str:
    """A year as written, or of two digits: 00 to 69 in the 2000s, 70 to 99 in the 1900s."""
    if len(year) != 2:
        return year
    return f"{20 if int(year) < 70 else 19}{year}"


def _month_number(name: str) -> int:
    if name.isdecimal():
        return int(name)
    written = name.lower().rstrip(".")
    return _MOIS_NUMBERS.get(written) or _MONTH_NUMBERS[written[:3]]


_MONTH_NUMBERS = {month[:3]: k + 1 for k, month in enumerate(MONTHS)}
_MOIS_NUMBERS = {m: k + 1 for k, ms in enumerate(MOIS_WRITTEN) for m in ms}
_EPOCH = date(1970, 1, 1).toordinal()


_UNPLACED = ("unplaced", "unplaced_w", "loose", "loose_w", "loose_ja", "md_ja")
_DATES = ("iso", "mdy", "dmy", "dmy2", "dmy_fr", "ymd_ja", "era_ja")


def _DATE_MARK(match: re.Match[str]) -> str:
    return "[date]"


class _Writers(dict[str | None, Callable[[re.Match[str]], str]]):
    """Each kind of match (its last group) → what writes it in a text of one price
    factor: what ``TextMask._replaced`` writes, found by one look-up instead of a chain of
    tests; a date written once per way it is written; a kind not in the table written by
    ``_replaced`` itself."""

    def __init__(self, mask: TextMask, factor: float | None) -> None:
        super().__init__()
        self.mask, self.factor = mask, factor
        if mask.counterfactual or factor is None:
            self.update(dict.fromkeys(AMOUNTS, amount_mark))
            self.update(dict.fromkeys(("volume", "bare", "bare_eu", "hit"), volume_mark))
        else:
            self.update({kind: partial(scaled_by, factor) for kind in AMOUNTS})
            self.update(money=partial(scaled_money, factor), volume=volume_mark)
        dates = _DATES if mask.counterfactual else ()
        self.update(dict.fromkeys((*_UNPLACED, *dates), _DATE_MARK))
        lookup = mask._lookup  # type: ignore[attr-defined]
        self.update(dict.fromkeys(("quoted", "host", "plain"), partial(_alias, lookup=lookup)))

    def __missing__(self, kind: str | None) -> Callable[[re.Match[str]], str]:
        """A date (each read once per way it is written, then placed under the horizon its
        text is first seen at: ``known_until``), or any other kind as ``_replaced`` writes
        it."""
        replaced, factor = self.mask._replaced, self.factor
        if kind not in _DATES:
            self[kind] = partial(_flipped, replaced, factor)
            return self[kind]
        mask = self.mask
        read: dict[tuple[str, str], _Day | None] = mask._read_days  # type: ignore[attr-defined]
        day_in, on_horizon = mask._day_in, mask._on_horizon

        def date(match: re.Match[str]) -> str:
            key = (kind, match.group(0))
            if key in read:
                found = read[key]
                if found is not None and found[1] <= mask._horizon:  # type: ignore[attr-defined]
                    return found[2]
            else:
                found = read[key] = day_in(match, kind)
            return on_horizon(found)

        self[kind] = date
        return date


def _flipped(
    replaced: Callable[[re.Match[str], float | None], str],
    factor: float | None,
    match: re.Match[str],
) -> str:
    return replaced(match, factor)


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


# a word, ended where a name can end (``NAME_END``): before a date glued to it too
_WORD = re.compile(r"\w+?" + NAME_END)
_FEW_WORDS = 24  # names' first words looked for one by one; more, and the text's words are read


def _first_words(
    aliases: Mapping[str, str], names: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """Each symbol's and company name's first word, casefolded → the symbols and names that
    start with it."""
    out: dict[str, list[str]] = {}
    for word in (*aliases, *(n for ns in names.values() for n in ns)):
        for written in _written_as(word, word in aliases):
            first = _WORD.findall(written)
            if first:
                out.setdefault(first[0], []).append(word)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def _written_as(word: str, ticker: bool) -> set[str]:
    """A ticker or company name casefolded, and as a text can write it besides: a ticker
    in the plural (ACMEs), a company name's words glued (AcmeIndustries)."""
    folded = word.casefold()
    return {folded, folded + "s"} if ticker else {folded, *glued_forms(word)}


def _name_parts(aliases: Mapping[str, str], present: frozenset[str]) -> list[tuple[str, str]]:
    """A ticker as ``$SYM`` or ``EXCHANGE:SYM`` (an exchange of ``EXCHANGES``), one that
    reads as no word in any case as an address's name (``ir@acme.com``), then a symbol
    that reads as no word (``is_word_like``) or a company name, longest first, as a whole
    word: of the symbols and names ``present`` in a text."""
    tickers = [s for s in present if s in aliases]
    words = [w for w in present if w not in aliases or not is_word_like(w)]
    hosts = [t for t in tickers if not is_word_like(t)]
    exchanges = "|".join(EXCHANGES)
    quoted = rf"(?:\$|\b(?:{exchanges}):)(?P<quoted>{_longest_first(tickers, aliases)})\b"
    host = IN_ADDRESS.format(f"(?P<host>{_longest_first(hosts, aliases)})")
    plain = rf"(?<![\w$])(?P<plain>{_longest_first(words, aliases)})(?:{NAME_END}|{PLURAL})"
    firsts = "".join(sorted({re.escape(w[0]) for w in words}))
    host_firsts = "".join(sorted({re.escape(t[0]) for t in hosts}))
    return (
        [("[$a-z]", quoted)] * bool(tickers)
        + [(f"[{host_firsts}]", host)] * bool(hosts)
        + [(f"[{firsts}]", plain)] * bool(words)
    )


def _longest_first(words: Sequence[str] | frozenset[str], tickers: Mapping[str, str]) -> str:
    ordered = sorted(words, key=lambda w: (-len(w), w))
    return "|".join(name_pattern(w, ticker=w in tickers) for w in ordered)


# a company's legal form, written after its name: optional in the text
_LEGAL_FORM = re.compile(
    r",?\s+(?:&\s*)?(?:Inc\.?|Incorporated|Corp\.?|Corporation|Co\.?|Company|Ltd\.?|Limited"
    r"|plc|P\.L\.C\.|LLC|L\.L\.C\.|N\.?V\.?|AG|S\.?A\.?|SE|GmbH|L\.?P\.?)$",
    re.IGNORECASE,
)


def _with_short_forms(names: Mapping[str, Sequence[str]]) -> dict[str, tuple[str, ...]]:
    """Each symbol's company names, and each written without its legal form (``Thunder
    Holdings Inc.`` → ``Thunder Holdings``) where two words or more remain, so a one-word
    name that is also a word (``Apple Inc.``) does not mask the word, and where no other
    name or short form is written so."""
    short = {s: [_LEGAL_FORM.sub("", n) for n in ns] for s, ns in names.items()}
    owners: dict[str, set[str]] = {}
    for symbol, written in (*names.items(), *short.items()):
        for name in written:
            owners.setdefault(name_key(name), set()).add(symbol)
    return {
        symbol: tuple(
            dict.fromkeys(
                [
                    *ns,
                    *(
                        n
                        for n in short[symbol]
                        if len(name_words(n)) > 1 and owners[name_key(n)] == {symbol}
                    ),
                ]
            )
        )
        for symbol, ns in names.items()
    }


def _name_lookup(aliases: Mapping[str, str], names: Mapping[str, Sequence[str]]) -> dict[str, str]:
    """Company name (``name_key``) → alias; symbols are matched exactly, with any share-class
    mark (below)."""
    lookup = {name_key(n): aliases[s] for s, ns in names.items() for n in ns if s in aliases}
    forms = [(form, alias) for s, alias in aliases.items() for form in ticker_forms(s)]
    lookup.update({"\0" + form: alias for form, alias in forms})
    lookup.update({"\1" + form.casefold(): alias for form, alias in forms})  # an address
    return lookup


def _alias(match: re.Match[str], lookup: Mapping[str, str]) -> str:
    word = match.group(match.lastgroup or 0)  # the quoted ticker or the plain word
    if match.lastgroup != "plain":  # a ticker after $ or a colon, or an address's name
        return lookup.get("\1" + word.casefold(), match.group(0))  # in any case
    exact = lookup.get("\0" + word)
    if exact is not None:
        return exact
    # a symbol in another case is not the symbol: the text stays as written
    return lookup.get(name_key(word), match.group(0))


# what a fundamentals figure is, by its column's name: the mask scales money, places dates
# and years on the run's calendar and keeps the rest as written
_DATE_WORDS = ("date", "end", "ended", "ending", "start", "begin", "beginning")
_YEAR_WORDS = ("year", "fy")


def column_words(column: str) -> list[str]:
    """A column's name as words: runs of letters and runs of digits, in lower case."""
    return re.findall(r"[^\W\d_]+|\d+", column.lower())


def is_date_column(column: str) -> bool:
    """A figure that is a calendar date (``period_end``, ``report_date``,
    ``fiscal_year_end``): its name's last word is date, end, ended, ending, start, begin or
    beginning."""
    words = column_words(column)
    return bool(words) and words[-1] in _DATE_WORDS


def is_year_column(column: str) -> bool:
    """A figure that is a calendar or fiscal year (``fiscal_year``, ``fy``, ``year``): its
    name's last word is year or fy."""
    words = column_words(column)
    return bool(words) and words[-1] in _YEAR_WORDS


def figure_kind(column: str) -> str:
    """``date``, ``year``, ``money`` (scaled with the prices) or ``figure`` (kept as
    written), by the column's name."""
    if is_date_column(column):
        return "date"
    if is_year_column(column):
        return "year"
    return "money" if is_money(column) else "figure"
