"""The mask's matches in a text in ASCII, found in two cheap passes instead of one scan.

Every part of the mask's pattern but the names reads a digit, and reads at most
one word and one run of spaces before its first digit (``March 4``, ``US$ 50``,
``FY '16``, ``volume of 12``). So those parts can start only at a digit that no
digit precedes, or in the two tokens before it: one search of the reversed text
finds each such digit and its two tokens in C, and the parts are tried there alone
(``amounts_and_dates``): at a token of letters only when it is a word a part reads
there (a month, a currency's code, FY, CY, "of"), at another token at each word
start. The names are literal words, found by one search of the text in lower case
(``NameFinder``), each where no word character or ``$`` stands before it and it
ends as a name ends (``textscan.NAME_END``), the longest first, as the pattern
tries them.

The pattern tries the names after every other part, at each place, so when no
match of one pass overlaps a match of the other, the two together are what the
pattern writes in one scan. When they overlap, or a ticker follows ``$`` or an
exchange's colon, the passes say they cannot tell, and the mask reads the text the
long way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from workbench.engine.textscan import MOIS_WRITTEN, MONTHS, NAME_END, Matcher

Span = tuple[int, int, str]  # where a match starts and ends, and what replaces it

# A digit no digit precedes, then what may stand before it in a part: a token and a run
# of spaces, then another token, none holding a digit (matched in the reversed text)
_BEFORE_DIGIT = re.compile(r"[0-9](?![0-9])([^\s0-9]*)(\s*)([^\s0-9]*)")


_CODES = ("usd", "eur", "gbp", "jpy", "chf", "fy", "cy")
# a word a part reads before the spaces before its first digit (a month, a currency's
# code, FY or CY, "of" after "volume"), and one it reads right before it (a code, Q, H)
# (each reversed, as the reversed text holds it)
_BEFORE_SPACES = frozenset(
    w[::-1]
    for w in (
        *(m[:3] for m in MONTHS),
        *MONTHS,
        "sept",
        *(m for ms in MOIS_WRITTEN for m in ms),
        *_CODES,
        "of",
    )
)
_GLUED_TO_IT = frozenset(w[::-1] for w in (*_CODES, "q", "h"))


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def amounts_and_dates(
    text: str,
    startable: frozenset[str],
    match_at: Mapping[str, Matcher],
    replace: Callable[[re.Match[str]], str],
) -> list[Span]:
    """The matches of the parts that read a digit, as the pattern without names finds
    them: tried, after the end of the match before, only at each digit no digit precedes
    and where a part can start in the two tokens before it (``_starts_in``), found in C
    in the reversed text and read here in the text's order."""
    out: list[Span] = []
    end = 0
    pieces = _BEFORE_DIGIT.split(text[::-1])  # tokens reversed, as they are read
    at = len(pieces[-1])
    for k in range(len(pieces) - 5, -1, -4):
        far, gap, near = pieces[k + 3], pieces[k + 2], pieces[k + 1]
        start = at
        at += len(far) + len(gap) + len(near)  # the digit
        if at < end:
            at += 1 + len(pieces[k])
            continue
        places: list[int] = []
        if far:
            if not far.isalpha():
                _starts_in(text, start, far, _BEFORE_SPACES, startable, places)
            elif far.lower() in _BEFORE_SPACES and not (start and text[start - 1].isdigit()):
                places.append(start)
        if near:
            _starts_in(text, at - len(near), near, _GLUED_TO_IT, startable, places)
        places.append(at)
        for place in places:
            if place < end:
                continue
            found = match_at[text[place]](text, place)
            if found is not None:
                end = found.end()
                out.append((place, end, replace(found)))
        at += 1 + len(pieces[k])
    return out


def _starts_in(
    text: str,
    start: int,
    backwards: str,
    words: frozenset[str],
    startable: frozenset[str],
    out: list[int],
) -> None:
    """The places in the token at ``start`` (``backwards``: as the reversed text holds
    it) where a part can start: a token of letters only where it is one of ``words``
    (reversed), and no digit stands before it (nothing but a space or a digit can); in
    another token, each word start of a character in ``startable``."""
    if backwards.isalpha():
        if backwards.lower() in words and not (start and text[start - 1].isdigit()):
            out.append(start)
        return
    before = text[start - 1] if start else " "
    for k, char in enumerate(backwards[::-1], start):
        if char in startable and not _is_word(before):
            out.append(k)
        before = char


class NameFinder:
    """The names of one pattern looked for as literal words in lower case: ``words``, the
    names matched as they stand, and ``tickers``, matched after ``$`` or an exchange's
    colon; ``lookup`` gives each its alias (a symbol as written, prefixed by a NUL, or a
    company name casefolded)."""

    def __init__(
        self, words: Iterable[str], tickers: Iterable[str], lookup: Mapping[str, str]
    ) -> None:
        self.words = _literals(words, "({})", _WHOLE_WORD, NAME_END)
        self.dollar = _literals(tickers, r"\$(?:{})", "{first}{rest}", "")
        self.colon = _literals(tickers, ":(?:{})", "{first}{rest}", "")
        self.lookup = lookup

    @staticmethod
    def usable(names: Iterable[str]) -> bool:
        """Whether names can be looked for so: in ASCII, each starting with a word
        character (a text in ASCII then holds a name in any case where its lower case
        holds the name in lower case)."""
        return all(n.isascii() and n and _is_word(n[0]) for n in names)

    def spans(self, text: str) -> list[Span] | None:
        """Each name standing as a whole word in ``text`` (ASCII), as the pattern finds
        them (at each place, the longest name that ends a word), or None when a ticker
        follows ``$`` or a colon: the pattern must read the text."""
        lower = text.lower()
        if self._quoted(lower):
            return None
        if self.words is None:
            return []
        out: list[Span] = []
        pieces, at = self.words.split(lower), 0
        for k in range(1, len(pieces), 2):
            at += len(pieces[k - 1])
            end = at + len(pieces[k])
            out.append((at, end, self._alias(text[at:end])))
            at = end
        return out

    def _quoted(self, lower: str) -> bool:
        """Whether a ticker follows ``$`` or a colon in ``lower``."""
        if self.dollar is None or self.colon is None:
            return False
        return bool(self.dollar.search(lower) or (":" in lower and self.colon.search(lower)))

    def _alias(self, word: str) -> str:
        exact = self.lookup.get("\0" + word)
        return exact if exact is not None else self.lookup.get(word.casefold(), word)


# a name as a whole word, where no word character or $ stands before it: its first
# character matched first, so the search looks for the names' first characters in C
_WHOLE_WORD = r"{first}(?<![\w$]{first}){rest}"


def _literals(names: Iterable[str], form: str, each: str, end: str) -> re.Pattern[str] | None:
    """The names in lower case, longest first as the pattern tries them, each written as
    ``each`` (its first character and the rest) then ``end``, in ``form``."""
    ordered = [n.lower() for n in sorted(names, key=lambda n: (-len(n), n))]
    if not ordered:
        return None
    written = (each.format(first=re.escape(n[0]), rest=re.escape(n[1:])) + end for n in ordered)
    return re.compile(form.format("|".join(written)))


def merged(text: str, first: list[Span], second: list[Span]) -> str | None:
    """``text`` with both passes' matches replaced, or None where two overlap."""
    pieces: list[str] = []
    end = 0
    for start, stop, written in sorted(first + second):
        if start < end:
            return None
        pieces += (text[end:start], written)
        end = stop
    if not pieces:
        return text
    pieces.append(text[end:])
    return "".join(pieces)
