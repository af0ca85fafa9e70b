"""Where the text mask's pattern can match, found by a cheap first pass.

The mask (``textmask``) reads a text with one pattern of a dozen alternatives,
tried at every word start. Python's regular-expression engine passes over an
alternative at the cost of one comparison when the alternative opens with a
case-sensitive character or class, and tries a case-insensitive one in full, so
a text of plain words costs the mask as much as one full of dates and prices.

This module writes a second pattern, the *starts*, whose alternatives each open
with such a class: the characters the mask's alternatives can start with (a
digit, a currency sign, a month's first three letters in English or French, a
currency code, FY or CY, Q1 to H4, "of" after "volume", an apostrophe before a year
of two digits ('16), an exchange prefix before a colon, each name present's first
letter; a date written year first, or a Japanese date, glued to the word before).
It opens with one class of all those characters,
which the engine looks for in C, and reads the rest only there. The mask's pattern
is then tried only where the starts match, and a text comes out exactly as the
mask's pattern alone would write it (``substitute``).

That holds where a letter matches, case aside, only its two ASCII cases. Four
characters match an ASCII letter besides: İ and ı match i, ſ matches s and K
(the Kelvin sign) matches k. The mask brings a text that is not ASCII to its
composed form (NFC) first, ſ to its compatibility form, which turns ſ and K into s
and K; a text that still holds İ or ı is masked by the mask's pattern alone
(``scannable``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

MONTHS = (
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
)
# each French month as written: in full, unaccented, and abbreviated (a full stop after)
MOIS_WRITTEN = (
    ("janvier", "janv"),
    ("février", "fevrier", "févr", "fevr"),
    ("mars",),
    ("avril", "avr"),
    ("mai",),
    ("juin",),
    ("juillet", "juil"),
    ("août", "aout"),
    ("septembre", "sept"),
    ("octobre", "oct"),
    ("novembre", "nov"),
    ("décembre", "decembre", "déc", "dec"),
)
SIGNS = "$€£¥₹₩"
# a hyphen as dates write it: ASCII's, or Unicode's hyphens, dashes and minus (‐ ‑ ‒ – — −)
DASHES = "\\-\u2010\u2011\u2012\u2013\u2014\u2212"
# where a name ends: no word character after it, an apostrophe that is a letter (ACMEʼs:
# U+02BC, a word character), or a date written year first glued to it (ACME2016-03-04,
# read as the alias and the day)
NAME_END = (
    "(?:(?!\\w)|(?=\u02bc)|(?="
    + "|".join(rf"(?:19|20)\d{{2}}{s}[01]?\d{s}[0-3]?\d" for s in (f"[{DASHES}]", "/", r"\."))
    + "))"
)  # currency signs written before or after an amount
_CASE_ALIKE = frozenset("\u0130\u0131\u017f\u212a")  # İ ı ſ K
# a ticker written all in capitals, then a plural's lower-case s (ACMEs)
PLURAL = r"(?=(?-i:(?<=[A-Z])s)\b)"
# what ends a web or e-mail address's name (acme.com)
ADDRESS_END = r"\.(?:com|net|org|io|co|biz|info)\b"
# a ticker in any case as a web or e-mail address's name (acme.com, https://acme.com,
# ir@acme.com), after no word character or hyphen (my-acme.com is another's)
IN_ADDRESS = r"(?<![\w-]){}(?=" + ADDRESS_END + ")"
# the exchanges a ticker is written after, with a colon (NYSE:ACME): only these, since
# "re:", "mailto:" or "Note:" before a ticker are prose, kept as written
EXCHANGES = (
    *("NYSE", "NYSEARCA", "NASDAQ", "AMEX", "ARCA", "BATS", "CBOE", "OTC"),
    *("OTCMKTS", "LSE", "LON", "TSX", "TSXV", "TSE", "TYO", "ASX", "HKEX", "HKG", "SEHK"),
    *("XETRA", "ETR", "FRA", "EPA", "AMS", "EBR", "BIT", "BME", "SIX", "SWX", "STO"),
    *("NSE", "BSE", "SGX", "KRX", "JSE", "NZX", "XNYS", "XNAS"),
)
_JOINERS = re.compile(r"[\s_-]+")  # between a company name's words
_CLASS_MARKS = re.compile(r"[-./]")  # between a ticker and its share class
# the apostrophes a company name is written with, each read as any other (McDonald’s)
APOSTROPHES = "'\u2019\u02bc\u2018"  # ' ’ ʼ ‘
# the marks a year of two digits is written after ('16, ’16, ‘16, ʼ16, ʻ16, ´16, ′16, `16,
# ׳16): one class for every form of a date that holds one
YEAR_MARKS = APOSTROPHES + "\u02bb\u00b4\u2032`\u05f3"
_APOSTROPHE = re.compile(f"[{APOSTROPHES}]")
_ONE_APOSTROPHE = str.maketrans(dict.fromkeys(APOSTROPHES[1:], "'"))


def name_pattern(name: str, *, ticker: bool) -> str:
    """``name`` as a pattern: a company name's words joined by any run of white space
    (``Acme\\r\\nIndustries``), a hyphen or an underscore (white space after it too: a
    line broken after a hyphen) or nothing (``Acme-Industries``, ``AcmeIndustries``,
    ``acmeindustries.com``), its apostrophes by any of ``APOSTROPHES``
    (``McDonald’s``); a ticker's share class after a hyphen, a full stop or a slash
    (``BRK-B``, ``BRK.B``, ``BRK/B``)."""
    if ticker:
        return "[-./]".join(map(re.escape, _CLASS_MARKS.split(name)))
    return r"[\s_-]?\s*".join(map(_word_pattern, _JOINERS.split(name)))


def _word_pattern(word: str) -> str:
    return f"[{APOSTROPHES}]".join(map(re.escape, _APOSTROPHE.split(word)))


def name_key(name: str) -> str:
    """A company name as the mask looks it up: casefolded, without what joins its words,
    its apostrophes as one."""
    return _JOINERS.sub("", name.casefold()).translate(_ONE_APOSTROPHE)


def name_words(name: str) -> list[str]:
    """A company name's words, apart from what joins them."""
    return _JOINERS.split(name)


def ticker_forms(ticker: str) -> set[str]:
    """A ticker as written with each share-class mark (``BRK.B``, ``BRK-B``, ``BRK/B``)."""
    parts = _CLASS_MARKS.split(ticker)
    return {mark.join(parts) for mark in "-./"}


def glued_forms(name: str) -> set[str]:
    """A company name's first words written glued, by nothing or an underscore
    (``acmeindustries``, ``acme_industries``), casefolded: the words a text writes it by."""
    words = _JOINERS.split(name.casefold())
    return {glue.join(words[:k]) for glue in ("", "_") for k in range(2, len(words) + 1)}


def scannable(text: str) -> bool:
    """Whether the starts find every place the mask's pattern can match in ``text``."""
    return text.isascii() or _CASE_ALIKE.isdisjoint(text)


def _either_case(word: str) -> str:
    """``word`` as a pattern matching it in any case: its ASCII letters case-sensitively,
    any other letter case-insensitively."""
    return "".join(
        f"[{c.upper()}{c.lower()}]"
        if c.isascii() and c.isalpha()
        else f"(?i:{c})"
        if c.isalpha()
        else re.escape(c)
        for c in word
    )


MONTHS_SHORT = frozenset(month[:3] for month in MONTHS)
# a month as a part starting with it writes it (Mar, March, Sept; mars, févr.), which a
# space, a hyphen or an apostrophe (Dec'16) follows, after a full stop or not: "margins"
# or "declined" start none
_MONTH_WORDS = sorted({*MONTHS_SHORT, *MONTHS, "sept", *(m for ms in MOIS_WRITTEN for m in ms)})
_MONTH_END = rf"\.?[\s{DASHES}{YEAR_MARKS}]"
_WORDS = (*_MONTH_WORDS, *("us", "eur", "gbp", "jpy", "chf", "fy", "cy"))
_FIXED_STARTS = (
    r"\d",  # dates, years, amounts
    f"[{SIGNS}]",  # money, $SYM
    "[QqHh](?=[1-4])",  # quarters and halves
    rf"(?<={_either_case('volume ')}){_either_case('o')}(?={_either_case('f ')})",
    f"[{YEAR_MARKS}](?=\\d\\d)",  # a year of two digits after an apostrophe ('16)
)
_FIXED_GATE = f"\\d{SIGNS}QqHh{YEAR_MARKS}" + "".join(
    sorted({c for w in _WORDS for c in w[0] + w[0].upper()})
)
_EXCHANGE = "[A-Za-z](?=[A-Za-z]{1,7}:)"  # NYSE:SYM
# a Japanese date's year or month, after no digit, or an era's name
_GLUED_JA = r"(?<!\d)[12](?=[09]\d\d年)|(?<!\d)\d(?=\d?月)|[昭平令](?=[和成])"
# a date written year first glued to the word before (report_2016-03-04.pdf)
_GLUED_ISO = rf"(?<=[^\W\d])[12](?=[09]\d\d[{DASHES}/.]\d)"


def starts(names: Iterable[str], *, exchange: bool, glued: bool = True) -> re.Pattern[str]:
    """The starts for a text holding ``names`` (and an exchange prefix when ``exchange``;
    a Japanese date glued to the word before when ``glued``).

    The pattern opens with one character class, every character a part can start with,
    which ``re`` looks for in C; only there does it read, one character back, whether a
    word starts and which part can (each start written as one character, the rest
    looked ahead)."""
    named = [name for name in names if name]
    words = [*_WORDS, *named]
    by_first: dict[str, list[str]] = {}
    for k, word in enumerate(words):
        # a name by its first word's rest, the mask's pattern telling how it is joined on
        rest = word[1:] if k < len(_WORDS) else _FIRST_WORD_END.split(word[1:])[0]
        ahead = f"(?i:{re.escape(rest)})" if rest else ""
        ahead += _MONTH_END if k < len(_MONTH_WORDS) else ""  # a name is looked for as is
        by_first.setdefault(_first_of(word[0]), []).append(ahead)
    alternatives = [_start(first, rests) for first, rests in sorted(by_first.items())]
    alternatives += [*_FIXED_STARTS, *([_EXCHANGE] if exchange else [])]
    gate = _FIXED_GATE + "".join(_gate(w[0]) for w in words) + "A-Za-z" * exchange
    at_word = rf"(?<!\w)(?:{'|'.join(alternatives)})|{_GLUED_ISO}"
    if glued:
        return re.compile(f"[{gate}昭平令](?<={at_word}|{_GLUED_JA})")
    return re.compile(f"[{gate}](?<={at_word})")


def _first_of(char: str) -> str:
    return char.lower() if char.isascii() and char.isalpha() else char


def _start(first: str, rests: list[str]) -> str:
    """A start of one character, what follows it in any of ``rests`` (patterns) looked
    ahead."""
    if first.isascii() and first.isalpha():
        opening = _either_case(first)
    elif first.isalpha():  # a letter whose other cases are not ASCII
        opening = f"(?i:{re.escape(first)})"
    else:
        opening = re.escape(first)
    ahead = sorted({r for r in rests if r})
    if not ahead or "" in rests:
        return opening
    return f"{opening}(?={'|'.join(ahead)})"


def _gate(char: str) -> str:
    """The characters in a class a text's character can be to match ``char`` in any case:
    its ASCII cases, and any character not ASCII when it is not."""
    if char.isascii():
        return re.escape(char + char.swapcase())
    alike = "".join(c for c in _ASCII_LETTERS if re.fullmatch(f"(?i:{re.escape(char)})", c))
    return alike + "\\x80-\\U0010ffff"


_FIRST_WORD_END = re.compile("[^\\w]|_|\u02bc")  # where a name's first word ends
_ASCII_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


Matcher = Callable[[str, int], "re.Match[str] | None"]  # a pattern's match(text, at)


def substitute(
    match_at: Mapping[str, Matcher],
    found_at: re.Pattern[str],
    text: str,
    replace: Callable[[re.Match[str]], str],
) -> str:
    """``pattern.sub(replace, text)``, trying the pattern only where ``found_at`` matches
    (every place it can match must be one of those) and, at each place, by the matcher
    ``match_at`` holds for the character there (which must match there exactly as the
    whole pattern does)."""
    pieces: list[str] = []
    end = 0
    search = found_at.search
    start = search(text)
    while start is not None:
        at = start.start()
        found = match_at[text[at]](text, at)
        if found is None:
            start = search(text, at + 1)
            continue
        pieces += (text[end:at], replace(found))
        end = found.end()
        start = search(text, end)
    if not pieces:
        return text
    pieces.append(text[end:])
    return "".join(pieces)
