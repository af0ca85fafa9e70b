"""Prices in a text: the parts of the mask's pattern that read money, a bare price or a
volume, and what writes each match (``textmask`` reads them with its dates and names).

A price is multiplied by the price factor of the one name the item concerns and written
back as it was written (its currency, scale and decimal comma kept); where no single
factor applies, and for a volume always, the figure becomes ``[amount]``.
"""

from __future__ import annotations

import re

from workbench.engine.textscan import SIGNS

_AMOUNT = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?!\d|[.,]\d)"
# a decimal comma, thousands by dots or spaces: 45,50, 1.234,50 and 1 234,50
_EU_AMOUNT = r"(?:\d{1,3}(?:\.\d{3})+|\d{1,3}(?: \d{3})+|\d+),\d{1,2}(?!\d|[.,]\d)"
_EU_FIRST = r"(?=[\d. ]+,\d)"  # what such an amount needs, looked for first
_SCALE = r"\s?(?:billion|million|thousand|bn|mn|[mbk])\b"
# a currency code before the amount, glued to it or not (USD12.50, CHF 12)
_CURRENCY = r"US\$|\$|€|£|¥|₹|₩|\b(?:USD|EUR|GBP|JPY|CHF)"
_CURRENCY_WORD = r"dollars?|USD|EUR|euros?|GBP|pounds?|yen|CHF|francs?"
_PHRASES = (
    (("closed", "opened", "traded", "priced", "ended", "finished", "trading"), "at"),
    (("rose", "fell", "up", "down"), "from"),
    (("rose", "fell", "climbed", "dropped", "jumped", "rallied", "slipped", "surged"), "to"),
    # a move in percent, then the price it moved to: "up 3.5% to 175.72"
    (("%", "percent"), "to"),
    (("%", "percent"), "at"),
    # a price named by what it is: "52-week high 999.99", "a high of 120.5"
    (("week",), "high"),
    (("week",), "low"),
    (("high", "low"), "of"),
    (("target", "closing"), "price"),
    (("price",), "target"),
    (("price",), "of"),  # "a price of 150", "target price of 150"
    (("price target",), "of"),
    # the name, a colon, the price: "52-week high: 999.99", "closing price: 12"
    (("week",), "high:"),
    (("week",), "low:"),
    (("target", "closing"), "price:"),
    (("price",), "target:"),
)


def _price_phrases() -> str:
    """Each phrase's lookbehind, grouped by its last word, looked for first: a number
    after any other word is passed over at the cost of one lookbehind a word."""
    by_word: dict[str, list[str]] = {}
    for verbs, word in _PHRASES:
        by_word.setdefault(word, []).extend(verbs)
    return "|".join(
        f"(?<={word} )(?:{'|'.join(f'(?<={verb} {word} )' for verb in verbs)})"
        for word, verbs in by_word.items()
    )


_PRICE_VERBS = _price_phrases()
# What an amount in a currency's word, or of shares, needs, looked for first: it spares
# the amount's backtracking where neither follows (the headline's "update 123").
# (an amount is followed by a space or a letter, so its digits are never given back)
_A_WORD = r"(?=[\d,.]++\s?[^\W\d_])"
_THEN_WORD = rf"{_A_WORD}(?=[\d,.]++(?:{_SCALE})?\s?(?:{_CURRENCY_WORD})\b)"
_THEN_WORDS = rf"(?=[\d,.]++\s*[^\W\d_])(?=[\d,.]++(?:{_SCALE})?\s+shares\b)"
# each price phrase ends "at", "from", "to", "high", "low", "of", "price" or "target",
# or a colon
_AFTER_VERB = "(?<=[tmohwfe:] )"
_NO_RATIO = r"(?!\s?(?:%|percent|per\s?cent|bps|basis|times|x\b|shares))"
# What a part can start with, in any case: its first characters
_MONEY_FIRST = f"[{SIGNS}uegjc]"  # a currency sign or code

# the money parts written with a decimal comma, tried before a date no day places
# (so "45,50 €" is read whole)
EUROPEAN_PARTS: tuple[tuple[str, str], ...] = (
    # money written with a decimal comma, the currency before or after it: € 45,50,
    # 1.234,50 EUR, 45,50 €
    (
        _MONEY_FIRST,
        rf"(?P<eu_money>(?P<eu_currency>{_CURRENCY})\s?{_EU_FIRST}(?P<eu_amount>{_EU_AMOUNT}))",
    ),
    (
        r"\d",
        rf"(?P<eu_worded>{_EU_FIRST}(?P<euw_amount>{_EU_AMOUNT})(?P<euw_gap>\s?)"
        rf"(?P<euw_unit>[{SIGNS}]|(?:{_CURRENCY_WORD})\b))",
    ),
)
# the other money parts, volumes and bare prices, tried after every date
PRICE_PARTS: tuple[tuple[str, str], ...] = (
    (
        _MONEY_FIRST,
        rf"(?P<money>(?P<currency>{_CURRENCY})\s?(?P<amount>{_AMOUNT})(?P<scale>{_SCALE})?)",
    ),
    (
        r"\d",
        rf"(?P<worded>{_THEN_WORD}(?P<w_amount>{_AMOUNT})(?P<w_scale>{_SCALE})?\s?(?P<w_unit>{_CURRENCY_WORD})\b)",
    ),
    # volumes: what the volume factor would scale, which the text's mask does not hold
    (
        r"[\do]",
        rf"(?P<volume>{_THEN_WORDS}{_AMOUNT}(?:{_SCALE})?(?=\s+shares\b)"
        rf"|(?<=volume )(?:of )?{_AMOUNT}(?:{_SCALE})?)",
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
    # "hit 123.45": a price only as a price is written, with two decimals ("hit 3 home
    # runs" is no price)
    (
        r"\d",
        rf"(?P<hit>(?<=\bhit )(?:\d{{1,3}}(?:,\d{{3}})+|\d+)\.\d{{2}}(?!\d|[.,]\d)){_NO_RATIO}",
    ),
)
# what a part looks for first, which the reference (``TextMask.text_by_pattern``) leaves out
GUARDS = (_THEN_WORD, _THEN_WORDS, _AFTER_VERB, _EU_FIRST)
AMOUNTS = ("money", "eu_money", "worded", "eu_worded", "volume", "bare", "bare_eu", "hit")
# the words a part reads right before a space and its first digit (reversed)
PHRASE_ENDS = tuple(sorted({w[::-1] for w in ("volume", "hit", *(w for _, w in _PHRASES))}))


def digit_parts(length: int, after: str, phrase: bool) -> dict[str, bool]:
    """Which price parts can match at a digit no digit precedes and no word character,
    as ``textmask._digit_parts`` asks: its run of digits ``length`` long, ``after``
    following it, ``phrase`` when a word a part reads before a number stands before it."""
    space = after.isspace()
    amount = after in (",", ".") or space or after.isalpha()  # digits, then a word
    return {
        "eu_worded": after in (".", " ", ","),
        "worded": amount,
        "volume": amount or phrase,  # "1,000 shares", or after "volume "
        "near_eu": phrase,
        "near": phrase,
        "hit": phrase,
    }


def volume_mark(match: re.Match[str]) -> str:
    return "[amount]"


def amount_mark(match: re.Match[str]) -> str:
    """An amount no single price factor scales (or a volume) as ``[amount]``, its currency
    and scale kept."""
    kind = match.lastgroup
    if kind == "money":
        return f"{_currency(match)}[amount]{match.group('scale') or ''}"
    if kind == "worded":
        return f"[amount]{match.group('w_scale') or ''} {match.group('w_unit')}"
    if kind == "eu_money":
        return f"{_currency(match, 'eu_currency')}[amount]"
    if kind == "eu_worded":
        return f"[amount]{match.group('euw_gap')}{match.group('euw_unit')}"
    return "[amount]"


def scaled_by(factor: float, match: re.Match[str]) -> str:
    return scaled(match, factor)


def scaled_money(factor: float, match: re.Match[str]) -> str:
    currency, amount, scale = match.group("currency", "amount", "scale")
    value = f"{float(amount.replace(',', '')) * factor:,.2f}{scale or ''}"
    return f"{currency} {value}" if currency.isalpha() else f"{currency}{value}"


def scaled(match: re.Match[str], factor: float) -> str:
    kind = match.lastgroup
    if kind in ("eu_money", "eu_worded", "bare_eu"):
        return _scaled_european(match, factor)
    if kind == "money":
        return scaled_money(factor, match)
    prefix = "w_" if kind == "worded" else ""
    amount = match.group(kind if kind in ("bare", "hit") else f"{prefix}amount")
    value = f"{float(amount.replace(',', '')) * factor:,.2f}"
    if kind == "worded":
        return f"{value}{match.group('w_scale') or ''} {match.group('w_unit')}"
    return value


def _scaled_european(match: re.Match[str], factor: float) -> str:
    """Money with a decimal comma, scaled and written back the same way."""
    kind = match.lastgroup or ""
    group = {"eu_money": "eu_amount", "eu_worded": "euw_amount", "bare_eu": "bare_eu"}[kind]
    amount = match.group(group).replace(".", "").replace(" ", "").replace(",", ".")
    value = f"{float(amount) * factor:,.2f}".translate(_EUROPEAN)
    if kind == "eu_money":
        return f"{_currency(match, 'eu_currency')}{value}"
    if kind == "eu_worded":
        return f"{value}{match.group('euw_gap')}{match.group('euw_unit')}"
    return value


_EUROPEAN = str.maketrans(",.", ".,")


def _currency(match: re.Match[str], group: str = "currency") -> str:
    currency = match.group(group)
    return f"{currency} " if currency.isalpha() else currency
