"""Where the text mask's pattern can match, found by a cheap first pass.

The mask (``textmask``) reads a text with one pattern of a dozen alternatives,
tried at every word start. Python's regular-expression engine passes over an
alternative at the cost of one comparison when the alternative opens with a
case-sensitive character or class, and tries a case-insensitive one in full, so
a text of plain words costs the mask as much as one full of dates and prices.

This module writes a second pattern, the *starts*, whose alternatives each open
with such a class: the characters the mask's alternatives can start with (a
digit, a currency sign, a month's first three letters in English or French, a currency code, FY or
CY, Q1 to H4, "of" after "volume", an exchange prefix before a colon, each name
present's first letter). The mask's pattern is then tried only where the starts
match, and a text comes out exactly as the mask's pattern alone would write it
(``substitute``).

That holds where a letter matches, case aside, only its two ASCII cases. Four
characters match an ASCII letter besides: İ and ı match i, ſ matches s and K
(the Kelvin sign) matches k. The mask brings a text that is not ASCII to its
compatibility form (NFKC) first, which turns ſ and K into s and K; a text that
still holds İ or ı is masked by the mask's pattern alone (``scannable``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

MONTHS = (
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
)
MOIS = (
    *("janvier", "février", "mars", "avril", "mai", "juin"),
    *("juillet", "août", "septembre", "octobre", "novembre", "décembre"),
)
_CASE_ALIKE = frozenset("\u0130\u0131\u017f\u212a")  # İ ı ſ K


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
_FIXED_STARTS = (
    r"\d",  # dates, years, amounts
    "[$€£¥]",  # money, $SYM
    *(_either_case(month[:3]) for month in MONTHS),
    *(_either_case(mois[:3]) for mois in MOIS if mois[:3] not in MONTHS_SHORT),
    *(_either_case(code) for code in ("us", "eur", "gbp", "jpy", "chf", "fy", "cy")),
    "[QqHh][1-4]",  # quarters and halves
    rf"{_either_case('of ')}(?<={_either_case('volume of ')})",
)
_EXCHANGE = "[A-Za-z]{2,8}:"  # NYSE:SYM
_GLUED_YEAR = r"[12](?=[09]\d\d年)(?<!\d[12])"  # a Japanese date's year, after no digit


def starts(names: Iterable[str], *, exchange: bool, glued: bool = True) -> re.Pattern[str]:
    """The starts for a text holding ``names`` (and an exchange prefix when ``exchange``;
    a Japanese date's year glued to the word before when ``glued``)."""
    named = sorted({_name_start(name) for name in names if name})
    parts = (*_FIXED_STARTS, *named, *([_EXCHANGE] if exchange else []))
    words = rf"(?<!\w)(?:{'|'.join(parts)})"
    return re.compile(f"{words}|{_GLUED_YEAR}" if glued else words)


def _name_start(name: str) -> str:
    """A name's first letter in either case, the rest of it looked ahead."""
    first, rest = name[0], name[1:]
    if first.isascii() and first.isalpha():
        opening = _either_case(first)
    else:  # a letter whose other cases are not ASCII: compared case-insensitively
        opening = f"(?i:{re.escape(first)})"
    return opening + (f"(?=(?i:{re.escape(rest)}))" if rest else "")


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
