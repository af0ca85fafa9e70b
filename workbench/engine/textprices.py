"""Prices in a text: the parts of the mask's pattern that read money, a bare price or a
volume, and what writes each match (``textmask`` reads them with its dates and names).

Money is read in any currency (a sign, another country's dollar, a code or a word,
before or after the amount, a decimal point or comma: ``CA$146.17``, ``146.17$US``,
``146.17 US dollars``); a bare number only where the words around it make it a price:
after a price phrase (``_PHRASES``: ``closing at``, ``peaked at``, ``as high as``,
``shares were``, ``last trade``, ``price:``, ``Close:``, ``@``, ``market value``,
``NAV of``, ``moving average of``, ``2.10, or 1.4%, to``), per share, as an option's
strike; and, only written with cents, in brackets after a word, after ``hit``,
``around`` or ``near``, after a price and ``from``, ``vs``, ``up`` or ``down``. Both
figures of a range are read together, as scaling one alone would give the real ratio
away. Never a percentage, a time of day or an index's points; a count, a year or a
ratio has no price's words around it. A figure is not read as a price by its shape
alone (cents, a ticker-like word before it, a run of figures): an index level, a rate,
a time or a score is written so too, and a figure scaled in a quote whose others are
not gives the factor away as surely as none.

A price is multiplied by the price factor of the one name the item concerns and written
back as it was written (its currency, scale and decimal comma kept); in a text that names
another masked name, by the factor of the masked name written last before it in its
sentence (``ByName``). Where no single factor applies, and for a volume always, the
figure becomes ``[amount]``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial

from workbench.engine.textscan import MONTHS, SIGNS

_YEAR = r"(?:19|20)\d{2}"
# A number is read from its first digit only, never from a digit inside it (after a
# digit and a separator), and over at most 20 groups of thousands: a longer number is no
# amount and is left whole, not cut with its tail read as one. Reading on from each of
# its runs of digits would cost the square of its length ("1.1.1..." or "12,3" written
# thousands of times), so each part that can start at a bare digit (an amount and its
# unit, a volume, a price per share, a strike) checks this first; the others start
# after a currency, a price's words or a bracket, never inside a number.
_NOT_INSIDE = r"(?<!\d)(?<!\d[,.])"
# (nor from a group of three digits after a digit and a space: "1 234,50", not "10 45,50")
_NOT_INSIDE_EU = rf"{_NOT_INSIDE}(?!(?<=\d )\d{{3}}(?!\d))"
_THOUSANDS = r"(?:,\d{3}){1,20}"
# (never a number a fraction follows, "146-1/4", "146 1/4": it is left whole, not in part)
_AMOUNT = rf"(?:\d{{1,3}}{_THOUSANDS}|\d+)(?:\.\d+)?(?!\d|[.,/]\d|[- ]\d+/\d)"
# a decimal comma, thousands by dots or spaces: 45,50, 1.234,50 and 1 234,50
_EU_AMOUNT = r"(?:\d{1,3}(?:\.\d{3}){1,20}|\d{1,3}(?: \d{3}){1,20}|\d+),\d{1,2}(?!\d|[.,]\d)"
# what such an amount needs, looked for first (over no more than it reads)
_EU_FIRST = r"(?=\d++(?:[. ]\d{3}){0,20}+,\d)"
_SCALE = r"\s?(?:billion|million|thousand|bn|mn|[mbk])\b"
# Money is scaled whatever its unit: the mask is about the stock's price level, and one
# factor keeps every quote of it in proportion. Currency codes (each also written after
# the amount), and the words for a currency, after the amount:
CODES = (
    *("usd", "eur", "gbp", "jpy", "chf", "cad", "aud", "hkd", "nzd", "sgd", "inr", "cny"),
    *("rmb", "brl", "sek", "nok", "dkk", "pln", "krw"),
)
_WORDS = (
    *("dollars?", "bucks?", "cents?", "euros?", "pounds?", "pence", "yen", "yuan", "francs?"),
    *("rupees?", "reais", "kronor", "krona", "kroner", "krone", "kr", "złoty", "zloty", "zł"),
    # another country's dollar in words: "146.17 US dollars", "12 Canadian dollars"
    r"(?:us|u\.s\.|canadian|australian|hong kong|new zealand|singapore) dollars?",
)
# a dollar of another country (C$, CA$, A$, AU$, HK$, NZ$, R$, S$, SG$, NT$, MX$), a
# sign, or a code before the amount, glued to it or not (USD12.50, CHF 12, Rs. 1,200,
# SFr. 12, kr 12)
_DOLLARS = ("us", "c", "ca", "a", "au", "hk", "nz", "r", "s", "sg", "nt", "mx")
_CODES_BEFORE = (*CODES, r"rs\.?", r"sfr\.", "kr", "zł")
_CURRENCY = f"(?:{'|'.join(_DOLLARS)})\\$|[{SIGNS}]|\\b(?:{'|'.join(_CODES_BEFORE)})(?![^\\W\\d_])"
_CURRENCY_WORD = "|".join((*_WORDS, *CODES))
# where a code or another country's dollar starts (for ``textscan.starts``)
CURRENCY_STARTS = tuple(sorted({*CODES, *(f"{d}$" for d in _DOLLARS), "rs", "sfr.", "kr", "zł"}))
_PHRASES = (
    (("closed", "opened", "traded", "priced", "ended", "finished", "trading", "close"), "at"),
    (("last", "settled", "shares", "stands", "stood", "trades", "quoted", "stock"), "at"),
    (("closing", "peaked", "bottomed", "topped", "hovered", "hovering", "average"), "at"),
    # "traded as high as 147.10", "as low as 144.90"
    (("as high", "as low"), "as"),
    (("rose", "fell", "up", "down"), "from"),
    (("rose", "fell", "climbed", "dropped", "jumped", "rallied", "slipped", "surged"), "to"),
    (("down", "slid", "sank", "declined", "tumbled", "plunged", "soared", "rebounded"), "to"),
    (("recovered", "retreated", "eased", "edged", "dipped", "advanced", "spiked"), "to"),
    # a headline's present tense: "Acme shares fall to 146.17", "Acme rises to 146.17"
    (("falls", "fall", "rises", "rise", "climbs", "drops", "jumps", "slips", "sinks"), "to"),
    (("slides", "surges", "tumbles", "plunges", "soars", "rallies", "rebounds"), "to"),
    (("closes", "opens", "ends", "trade", "support", "resistance"), "at"),
    # a move in percent, then the price it moved to: "up 3.5% to 175.72", "down 2.10,
    # or 1.4%, to 146.17"
    (("%", "percent", "%,", "percent,"), "to"),
    (("%", "percent"), "at"),
    # a price named by what it is: "52-week high 999.99", "a high of 120.5"
    (("week",), "high"),
    (("week",), "low"),
    (("high", "low"), "of"),
    (("target", "closing", "stock", "share", "last"), "price"),
    (("last",), "trade"),  # "last trade 146.17"
    # a value a share: "market value 146.17", "NAV of 146.17", "net asset value of 146.17",
    # "the 200-day moving average of 140.5"
    (("market", "asset"), "value"),
    (("market value", "asset value", "nav", "moving average"), "of"),
    (("moving",), "average"),
    (("",), "nav"),
    (("price",), "target"),
    (("price",), "of"),  # "a price of 150", "target price of 150"
    (("price target",), "of"),
    # earnings per share: "EPS of 1.46", "EPS 1.46", "earnings per share of 1.46"
    (("eps", "per share"), "of"),
    (("",), "eps"),
    # a range: "traded between 140 and 150"
    (("traded", "trading", "priced", "ranged", "range", "moved", "swung", "stock"), "between"),
    (("price",), "was"),  # "the price was 146.17", "shares were 146.17"
    (("price",), "is"),
    (("shares", "stock", "prices"), "were"),
    # a quote named by one word: "bid 146.10 ask 146.20", "VWAP 146.15"
    (("",), "bid"),
    (("",), "ask"),
    (("",), "vwap"),
    # the name, a colon, the price: "52-week high: 999.99", "closing price: 12", "Close: 12"
    (("",), "high:"),
    (("",), "low:"),
    (("",), "open:"),
    (("",), "close:"),
    (("",), "last:"),
    (("",), "price:"),
    (("price",), "target:"),
    # a quote after "@": "ACME @ 146.17"
    (("",), "@"),
)


def _price_phrases(last: str | None = None) -> str:
    """Each phrase's lookbehind (those ending with the word ``last`` if given), grouped by
    its last word, looked for first: a number after any other word is passed over at
    the cost of one lookbehind a word."""
    by_word: dict[str, list[str]] = {}
    for verbs, word in _PHRASES:
        if last in (None, word):
            by_word.setdefault(word, []).extend(verbs)
    return "|".join(
        f"(?<={word} )(?:{'|'.join(_behind(verb, word) for verb in verbs)})"
        for word, verbs in by_word.items()
    )


def _behind(verb: str, word: str) -> str:
    """The lookbehind of one phrase: its verb and word, or its word alone as a word."""
    if verb:
        return f"(?<={verb} {word} )"
    return f"(?<=\\b{word} )" if word[0].isalpha() else f"(?<={word} )"


_PRICE_VERBS = _price_phrases()
_BETWEEN = _price_phrases("between")
# What an amount in a currency's word, or of shares, needs, looked for first: it spares
# the amount's backtracking where neither follows (the headline's "update 123").
# (an amount is followed by a space or a letter, so its digits are never given back)
_A_WORD = rf"(?=[\d,.]++\s?(?:[^\W\d_]|[{SIGNS}]))"
_THEN_WORD = rf"{_A_WORD}(?=[\d,.]++(?:{_SCALE})?\s?(?:(?:{_CURRENCY_WORD})\b|[{SIGNS}]))"
_THEN_WORDS = rf"(?=[\d,.]++\s*[^\W\d_])(?=[\d,.]++(?:{_SCALE})?\s+shares\b)"
# a price phrase's last character ("at", "from", "to", ..., "bid", "vwap" or a colon)
_AFTER_VERB = f"(?<=[{''.join(sorted({word[-1] for _, word in _PHRASES}))}] )"
# (nor a time of day: "closed at 4 p.m.", "at 4:00")
_NO_RATIO = r"(?!\s?(?:%|percent|per\s?cent|bps|basis|times|x\b|shares|[ap]\.?m\b)|:\d)"
# a currency's sign after the amount (146.17$, 146.17 $), as no $SYM or price starts it,
# or a dollar's sign and country glued to it (146.17$US, 146.17$CA, 146.17$USD)
_SIGN_AFTER = rf"[{SIGNS}](?![\w$]|\s?\d)|(?<=\d)\$(?:{'|'.join(_DOLLARS)})d?\b(?!\$)"
# a price only as a price is written, with two decimals ("hit 3 home runs" is none)
_CENTS = rf"(?:\d{{1,3}}{_THOUSANDS}|\d+)\.\d{{2}}(?!\d|[.,]\d)"
# a range's second figure: "150.37 to 146.17", "140 and 150", "140-150" (not a year)
_TO = r"\s+to\s+|\s?[-–]\s?"  # "and" only after "between": "at 146.17 and 3 analysts"
_EITHER = f"(?:{_EU_AMOUNT}|{_AMOUNT})"  # a decimal comma first, as near_eu is tried first
# (money after "between" marks it, m_between, so "and" can follow: "between $140 and 150")
_MONEY_TO = (
    rf"(?:(?P<m_gap>{_TO}|(?(m_between)\s+and\s+|(?!)))(?!{_YEAR}\b)(?P<m_hi>{_AMOUNT})"
    rf"(?P<m_hi_scale>{_SCALE})?{_NO_RATIO})?"
)
# and of money with a decimal comma ("€30,21 to 31,50", "$30,21-31,50", "between €30,21
# and 31,50"), its second figure with one too (a figure without is a date's as often:
# "€45,50-4 mars 2016", "€45,50-2016年3月4日")
_EU_MONEY_TO = (
    rf"(?:(?P<eu_gap>{_TO}|(?(eu_between)\s+and\s+|(?!)))(?P<eu_hi>{_EU_AMOUNT}){_NO_RATIO})?"
)
# (nor a number whose thousands are spaces, "$21 900", "$21\u2009900": it is left whole)
_NOT_SPACED = r"(?![ \u00a0\u2009\u202f]\d{3}(?!\d))"
# what a price per share and a strike need after their figures, looked for first: most
# numbers are followed by neither
_PER_SHARE_FIRST = r"(?=[\d,.]++\s?(?:/|per\s|a\s))"
_STRIKE_FIRST = r"(?=[\d,.]++\s?(?:calls?\b|puts?\b|strike\b|(?-i:[CP])\b))"
# an option's month, before its strike: "Jan 150 calls", "March 150 puts"
_EXPIRY = "|".join(rf"(?<=\b{m} )" for m in sorted({*MONTHS, *(m[:3] for m in MONTHS), "sept"}))
# What a part can start with, in any case: its first characters
_MONEY_FIRST = f"[{SIGNS}{''.join(sorted({w[0] for w in CURRENCY_STARTS}))}]"
# not a range's second figure, the first left bare ("140 to 150 dollars"): a range is
# scaled whole or not at all
_NOT_SECOND = r"(?<!\d-)(?<!\d–)(?<!\d - )(?<!\d to )"
# where a figure with cents is a price or its move: after "hit", "around" or "near", a
# price and "from" ("rose to 150.37 from 146.17"), "vs", "up" or "down" ("up 2.10")
_CENTS_AFTER = ("hit", "around", "near", "vs", "versus", "up", "down")
_HIT = "|".join((*(f"(?<=\\b{before} )" for before in _CENTS_AFTER), r"(?<=\d from )"))

# the money parts written with a decimal comma, tried before a date no day places
# (so "45,50 €" is read whole)
EUROPEAN_PARTS: tuple[tuple[str, str], ...] = (
    # money written with a decimal comma, the currency before or after it: € 45,50,
    # 1.234,50 EUR, 45,50 €
    (
        _MONEY_FIRST,
        rf"(?P<eu_money>(?:(?<=\bbetween )(?P<eu_between>))?(?P<eu_currency>{_CURRENCY})\s?"
        rf"{_EU_FIRST}(?P<eu_amount>{_EU_AMOUNT}){_EU_MONEY_TO})",
    ),
    (
        r"\d",
        rf"(?P<eu_worded>{_NOT_SECOND}{_NOT_INSIDE_EU}{_EU_FIRST}(?P<euw_amount>{_EU_AMOUNT})(?P<euw_gap>\s?)"
        rf"(?P<euw_unit>[{SIGNS}]|(?:{_CURRENCY_WORD})\b))",
    ),
)
# the other money parts, volumes and bare prices, tried after every date
PRICE_PARTS: tuple[tuple[str, str], ...] = (
    (
        _MONEY_FIRST,
        rf"(?P<money>(?:(?<=\bbetween )(?P<m_between>))?(?P<currency>{_CURRENCY})\s?"
        rf"(?P<amount>{_AMOUNT}){_NOT_SPACED}(?P<scale>{_SCALE})?{_MONEY_TO})",
    ),
    (
        r"\d",
        rf"(?P<worded>{_NOT_SECOND}{_NOT_INSIDE}{_THEN_WORD}(?P<w_amount>{_AMOUNT})(?P<w_scale>{_SCALE})?(?P<w_gap>\s?)"
        rf"(?P<w_unit>(?:{_CURRENCY_WORD})\b|{_SIGN_AFTER}))",
    ),
    # volumes: what the volume factor would scale, which the text's mask does not hold
    (
        r"[\do]",
        rf"(?P<volume>{_NOT_INSIDE}{_THEN_WORDS}{_AMOUNT}(?:{_SCALE})?(?=\s+shares\b)"
        rf"|(?<=volume )(?:of )?{_AMOUNT}(?:{_SCALE})?)",
    ),
    # a range after a price phrase, both its figures ("fell from 150.37 to 146.17",
    # "traded between 140 and 150"), and one after "from" or "between" alone, written
    # as prices are (two decimals)
    (
        r"\d",
        rf"(?P<range>{_AFTER_VERB}(?:{_PRICE_VERBS})(?P<r_lo>{_EITHER})(?P<r_gap>{_TO})"
        rf"(?P<r_hi>{_EITHER}){_NO_RATIO})",
    ),
    (
        r"\d",
        rf"(?P<range_and>{_AFTER_VERB}(?:{_BETWEEN})(?P<ra_lo>{_EITHER})(?P<ra_gap>\s+and\s+)"
        rf"(?P<ra_hi>{_EITHER}){_NO_RATIO})",
    ),
    (
        r"\d",
        rf"(?P<range_c>(?:(?<=\bfrom )|(?<=\bbetween ))(?P<rc_lo>{_CENTS})"
        rf"(?P<rc_gap>{_TO}|\s+and\s+)(?P<rc_hi>{_CENTS}){_NO_RATIO})",
    ),
    # a bare price after a price verb or a price's name, with a decimal comma first
    # ("closed at 45,50", "closed at 1 234,50"), then "closed at 123.45", "up from 120",
    # "target price 150"
    (
        r"\d",
        rf"(?P<near_eu>{_AFTER_VERB}(?:{_PRICE_VERBS}))(?P<bare_eu>{_EU_AMOUNT}){_NO_RATIO}",
    ),
    (
        r"\d",
        rf"(?P<near>{_AFTER_VERB}(?:{_PRICE_VERBS}))(?P<bare>{_AMOUNT}){_NO_RATIO}",
    ),
    # "hit 123.45", "around 146.17", "near 146.17", "up 2.10": with two decimals only
    (r"\d", rf"(?P<hit>(?:{_HIT}){_CENTS}){_NO_RATIO}(?!{_SCALE})"),
    # a price in brackets after a word ("the stock (146.17)") or a move ("(+2.10)"),
    # with two decimals
    (r"\d", rf"(?P<paren>(?:(?<=[^\W_] \()|(?<=\([+−-])){_CENTS})(?=\))"),
    # a price per share: "146.17/share", "146.17 per share", "146.17 a share"
    (
        r"\d",
        rf"(?P<per_share>{_NOT_INSIDE}{_PER_SHARE_FIRST}{_AMOUNT})"
        r"(?=\s?(?:/|per\s|a\s)\s?share\b)",
    ),
    # an option's strike: "Jan 150 calls" (after its month: "3 calls to investors" is
    # none), "the 150 strike", "150C", "150P"
    (
        r"\d",
        rf"(?P<strike>{_NOT_INSIDE}{_STRIKE_FIRST}(?:{_EXPIRY}){_AMOUNT}(?=\s?(?:calls?|puts?)\b)"
        rf"|{_NOT_INSIDE}{_STRIKE_FIRST}{_AMOUNT}(?=\s?strike\b|(?-i:[CP])\b))",
    ),
)
# what a part looks for first, which the reference (``TextMask.text_by_pattern``) leaves out
GUARDS = (_THEN_WORD, _THEN_WORDS, _AFTER_VERB, _EU_FIRST, _PER_SHARE_FIRST, _STRIKE_FIRST)
# the kinds of match that are a figure in money (a volume too), and those whose whole
# group is the figure
AMOUNTS = (
    *("money", "eu_money", "worded", "eu_worded", "volume", "bare", "bare_eu", "hit"),
    *("paren", "per_share", "strike", "range", "range_and", "range_c"),
)
_WHOLE = ("bare", "hit", "paren", "per_share", "strike")
# the words a part reads right before a space and its first digit (reversed)
_BEFORE_A_NUMBER = ("volume", "from", "between", *_CENTS_AFTER, *(w for _, w in _PHRASES))
PHRASE_ENDS = tuple(sorted({w[::-1] for w in _BEFORE_A_NUMBER}))


def digit_parts(length: int, after: str, phrase: bool) -> dict[str, bool]:
    """Which price parts can match at a digit no digit precedes and no word character,
    as ``textmask._digit_parts`` asks: its run of digits ``length`` long, ``after``
    following it, ``phrase`` when a word a part reads before a number stands before it."""
    space = after.isspace()
    amount = after in (",", ".") or space or after.isalpha()  # digits, then a word
    return {
        "eu_worded": after in (".", " ", ","),
        "worded": amount or (after != "" and after in SIGNS),
        "volume": amount or phrase,  # "1,000 shares", or after "volume "
        "near_eu": phrase,
        "near": phrase,
        "hit": phrase,
        "range": phrase,
        "range_and": phrase,
        "range_c": phrase,
        "paren": after in (".", ","),
        "per_share": amount or after == "/",
        "strike": amount,
    }


def volume_mark(match: re.Match[str]) -> str:
    return "[amount]"


def amount_mark(match: re.Match[str]) -> str:
    """An amount no single price factor scales (or a volume) as ``[amount]``, its currency
    and scale kept."""
    kind = match.lastgroup
    if kind == "money":
        return f"{_currency(match)}[amount]{match.group('scale') or ''}{_to(match, _marked)}"
    if kind in _RANGES:
        return f"[amount]{match.group(_RANGES[kind][1])}[amount]"
    if kind == "worded":
        return f"[amount]{match.group('w_scale') or ''}{_unit(match)}"
    if kind == "eu_money":
        high = "" if match.group("eu_hi") is None else f"{match.group('eu_gap')}[amount]"
        return f"{_currency(match, 'eu_currency')}[amount]{high}"
    if kind == "eu_worded":
        return f"[amount]{match.group('euw_gap')}{match.group('euw_unit')}"
    return "[amount]"


def scaled_by(factor: float, match: re.Match[str]) -> str:
    return scaled(match, factor)


def scaled_money(factor: float, match: re.Match[str]) -> str:
    currency, amount, scale, high = match.group("currency", "amount", "scale", "m_hi")
    value = f"{float(amount.replace(',', '')) * factor:,.2f}{scale or ''}"
    if high is not None:
        value += _to(match, partial(_times, factor=factor))
    return f"{currency}{value}" if currency[-1] in SIGNS else f"{currency} {value}"


def _to(match: re.Match[str], written: Callable[[str], str]) -> str:
    """The second figure of a range of money ("$150 to 160"), written by ``written``."""
    high = match.group("m_hi")
    if high is None:
        return ""
    return f"{match.group('m_gap')}{written(high)}{match.group('m_hi_scale') or ''}"


def _marked(amount: str) -> str:
    return "[amount]"


def _times(amount: str, factor: float) -> str:
    """An amount as written (a decimal comma or not) times ``factor``, written the same way."""
    if _DECIMAL_COMMA.search(amount):
        value = float(amount.replace(".", "").replace(" ", "").replace(",", "."))
        return f"{value * factor:,.2f}".translate(_EUROPEAN)
    return f"{float(amount.replace(',', '')) * factor:,.2f}"


_DECIMAL_COMMA = re.compile(r",\d{1,2}$")
# each range's groups: its figures and what stands between them
_RANGES = {
    "range": ("r_lo", "r_gap", "r_hi"),
    "range_and": ("ra_lo", "ra_gap", "ra_hi"),
    "range_c": ("rc_lo", "rc_gap", "rc_hi"),
}


def scaled(match: re.Match[str], factor: float) -> str:
    kind = match.lastgroup
    if kind in ("eu_money", "eu_worded", "bare_eu"):
        return _scaled_european(match, factor)
    if kind == "money":
        return scaled_money(factor, match)
    if kind in _RANGES:
        low, gap, high = match.group(*_RANGES[kind])
        return f"{_times(low, factor)}{gap}{_times(high, factor)}"
    amount = match.group(kind if kind in _WHOLE else "w_amount")
    value = f"{float(amount.replace(',', '')) * factor:,.2f}"
    if kind == "worded":
        return f"{value}{match.group('w_scale') or ''}{_unit(match)}"
    return value


def _unit(match: re.Match[str]) -> str:
    """A unit after the amount: a word after one space, a sign as it was written."""
    unit = match.group("w_unit")
    return f"{match.group('w_gap')}{unit}" if unit[0] in SIGNS else f" {unit}"


def _scaled_european(match: re.Match[str], factor: float) -> str:
    """Money with a decimal comma, scaled and written back the same way."""
    kind = match.lastgroup or ""
    group = {"eu_money": "eu_amount", "eu_worded": "euw_amount", "bare_eu": "bare_eu"}[kind]
    amount = match.group(group).replace(".", "").replace(" ", "").replace(",", ".")
    value = f"{float(amount) * factor:,.2f}".translate(_EUROPEAN)
    if kind == "eu_money":
        return f"{_currency(match, 'eu_currency')}{value}{_eu_to(match, factor)}"
    if kind == "eu_worded":
        return f"{value}{match.group('euw_gap')}{match.group('euw_unit')}"
    return value


_EUROPEAN = str.maketrans(",.", ".,")


def _eu_to(match: re.Match[str], factor: float) -> str:
    """The second figure of a range of money with a decimal comma ("€30,21 to 31,50"),
    scaled and written with a decimal comma as the first is."""
    high = match.group("eu_hi")
    if high is None:
        return ""
    value = float(high.replace(".", "").replace(" ", "").replace(",", ".")) * factor
    return f"{match.group('eu_gap')}{f'{value:,.2f}'.translate(_EUROPEAN)}"


def _currency(match: re.Match[str], group: str = "currency") -> str:
    """The currency before an amount, as it is written back: a space after a code, none
    after a sign."""
    currency = match.group(group)
    return currency if currency[-1] in SIGNS else f"{currency} "


# where a sentence or a clause ends: a price after it is no longer about the name before
_SENTENCE_END = re.compile(r"[.!?;](?=\s)|[\n\0]")

Writer = Callable[[re.Match[str]], str]


class ByName:
    """What writes one pass's matches in an item about one name (price factor ``factor``),
    when the text names other masked names: a price takes the factor of the masked name
    written last before it in its sentence (``_SENTENCE_END``), the item's where none
    stands there ("Acme closed at $146.17 while rival Bolt closed at $20.30": the second
    price by Bolt's factor). Names of two factors written one after another with no
    price between them ("Acme and Bolt closed at $146 and $20") leave the price no one
    factor: it becomes ``[amount]``. ``writers`` gives what writes a match for a factor
    (None: no factor), ``factors`` each alias's factor. The names are learnt as the
    pass writes them, in order, or given first (``known``) when another pass finds
    them; the prices are met in order."""

    def __init__(
        self,
        writers: Callable[[float | None], Writer],
        factor: float,
        factors: Mapping[str, float],
    ) -> None:
        self.writers, self.factor, self.factors = writers, factor, factors
        self.write = writers(factor)
        self.ends: list[int] = []  # where each name written so far ends, and its factor
        self.by: list[float] = []
        self.prices: list[int] = []  # where each price written so far ends

    def known(self, names: Iterable[tuple[int, int, str]]) -> ByName:
        """The names another pass found (start, end, what it wrote), in order."""
        for _, end, written in names:
            self._note(end, written)
        return self

    def __call__(self, match: re.Match[str]) -> str:
        if match.lastgroup in AMOUNTS:
            return self._amount(match)
        written = self.write(match)
        self._note(match.end(), written)
        return written

    def _note(self, end: int, written: str) -> None:
        factor = self.factors.get(written)
        if factor is not None:
            self.ends.append(end)
            self.by.append(factor)

    def _amount(self, match: re.Match[str]) -> str:
        self.prices.append(match.end())
        last = bisect.bisect_right(self.ends, match.start()) - 1
        if last < 0 or _SENTENCE_END.search(match.string, self.ends[last], match.start()):
            return self.write(match)
        factors = self._named_together(match.string, last)
        if len(factors) > 1:
            return self.writers(None)(match)
        return (
            self.write(match)
            if self.by[last] == self.factor
            else self.writers(self.by[last])(match)
        )

    def _named_together(self, text: str, last: int) -> set[float]:
        """The factors of the ``last`` name and of those written right before it in its
        sentence, no price between them."""
        factors = {self.by[last]}
        while last > 0:
            start, end = self.ends[last - 1], self.ends[last]
            between = bisect.bisect_right(self.prices, end) - bisect.bisect_right(
                self.prices, start
            )
            if between or _SENTENCE_END.search(text, start, end):
                break
            last -= 1
            factors.add(self.by[last])
        return factors


def names_other(
    names: Iterable[tuple[int, int, str]], factor: float, factors: Mapping[str, float]
) -> bool:
    """Whether ``names`` (start, end, what was written) hold a masked name whose factor is
    not ``factor``."""
    return any(factors.get(written, factor) != factor for _, _, written in names)


def factors_by_alias(aliases: Mapping[str, str], factors: Mapping[str, float]) -> dict[str, float]:
    """Each alias → the price factor of its name; none where the names' factors are all
    one (a price is then the item's, whatever name it follows)."""
    by_alias = {alias: factors[symbol] for symbol, alias in aliases.items() if symbol in factors}
    return by_alias if len(set(by_alias.values())) > 1 else {}


def crossing(
    names: Sequence[tuple[int, int, str]],
    ends: Sequence[int],
    own: Sequence[float | None],
    factors: Mapping[str, float],
) -> list[int]:
    """The texts, joined one after another (the k-th ending before ``ends[k]``, of price
    factor ``own[k]``), whose ``names`` (start, end, what was written; in order) hold a
    masked name of another factor than their own."""
    out: list[int] = []
    k, bound, mine = 0, ends[0], own[0]
    for start, _, written in names:
        if start >= bound:
            while start >= ends[k]:
                k += 1
            bound, mine = ends[k], own[k]
        if mine is not None and factors.get(written, mine) != mine and k not in out[-1:]:
            out.append(k)
    return out


def names_of(
    names: Sequence[tuple[int, int, str]], ends: Sequence[int], k: int
) -> list[tuple[int, int, str]]:
    """The ``names`` of the k-th of texts joined one after another (``crossing``)."""
    first = ends[k - 1] if k else 0
    return [name for name in names if first <= name[0] < ends[k]]
