"""The mask's matches in a text in ASCII, found in two cheap passes instead of one scan.

Every part of the mask's pattern but the names reads a digit, and reads at most
one word and one run of spaces before its first digit (``March 4``, ``US$ 50``,
``FY '16``, ``volume of 12``). So those parts can start only at a digit that no
digit precedes, or at a word start in the two tokens before it: one search of the
reversed text for digits finds every such place in C, and the parts are tried
there alone (``amounts_and_dates``). The names are literal words, found by one
search of the text in lower case (``NameFinder``): each occurrence is a name's
match when it stands alone as a word.

The pattern tries the names after every other part, at each place, so when no
match of one pass overlaps a match of the other, the two together are what the
pattern writes in one scan. When they overlap, or a name's occurrence is not plainly
a whole word (glued to a word, after ``$`` or an exchange's colon), the passes say
they cannot tell, and the mask reads the text the long way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from workbench.engine.textscan import MONTHS, MOIS_WRITTEN, Matcher

Span = tuple[int, int, str]  # where a match starts and ends, and what replaces it

# A digit no digit precedes, then what may stand before it in a part: a token and a run
# of spaces, then another token, none holding a digit (matched in the reversed text)
_BEFORE_DIGIT = re.compile(r"[0-9](?![0-9])([^\s0-9]*)(\s*)([^\s0-9]*)")


_CODES = ("usd", "eur", "gbp", "jpy", "chf", "fy", "cy")
# a word a part reads before the spaces before its first digit (a month, a currency's
# code, FY or CY, "of" after "volume"), and one it reads right before it (a code, Q, H)
_BEFORE_SPACES = frozenset(
    (
        *(m[:3] for m in MONTHS),
        *MONTHS,
        "sept",
        *(m for ms in MOIS_WRITTEN for m in ms),
        *_CODES,
        "of",
    )
)
_GLUED_TO_IT = frozenset((*_CODES, "q", "h"))


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def digit_starts(text: str, startable: frozenset[str]) -> list[int]:
    """Each place of ``text`` (ASCII) where a part that reads a digit can start, in
    order: each digit no digit precedes, and each word start of a character in
    ``startable`` in the two tokens before it."""
    size, out = len(text), []
    pieces = _BEFORE_DIGIT.split(text[::-1])
    back = 0  # how far into the reversed text
    for k in range(0, len(pieces) - 1, 4):
        back += len(pieces[k])
        digit = size - 1 - back
        near, gap, far = pieces[k + 1], pieces[k + 2], pieces[k + 3]
        back += 1 + len(near) + len(gap) + len(far)
        out.append(digit)
        if near:
            _word_starts(text, digit - len(near), near, _GLUED_TO_IT, startable, out)
        if far:
            start = digit - len(near) - len(gap) - len(far)
            _word_starts(text, start, far, _BEFORE_SPACES, startable, out)
    out.sort()
    return out


def _word_starts(
    text: str,
    start: int,
    token: str,
    words: frozenset[str],
    startable: frozenset[str],
    out: list[int],
) -> None:
    """The word starts in ``token`` (reversed) at ``start`` where a part can start: a
    token of letters alone only when it is one of ``words``."""
    token = token[::-1]
    before = text[start - 1] if start else " "
    if token.isalpha():
        if token.lower() in words and not _is_word(before):
            out.append(start)
        return
    for k, char in enumerate(token):
        if char in startable and not _is_word(before):
            out.append(start + k)
        before = char


def amounts_and_dates(
    text: str,
    startable: frozenset[str],
    match_at: Mapping[str, Matcher],
    replace: Callable[[re.Match[str]], str],
) -> list[Span]:
    """The matches of the parts that read a digit, as the pattern without names finds
    them: tried at ``digit_starts`` only, each after the end of the one before."""
    out: list[Span] = []
    end = 0
    for at in digit_starts(text, startable):
        if at < end:
            continue
        found = match_at[text[at]](text, at)
        if found is not None:
            end = found.end()
            out.append((at, end, replace(found)))
    return out


class NameFinder:
    """The names of one pattern looked for as literal words in lower case: ``words``, the
    names matched as they stand, and ``tickers``, matched after ``$`` or an exchange's
    colon; ``lookup`` gives each its alias (a symbol as written, prefixed by a NUL, or a
    company name casefolded)."""

    def __init__(
        self, words: Iterable[str], tickers: Iterable[str], lookup: Mapping[str, str]
    ) -> None:
        self.words = sorted({w.lower() for w in words})
        self.quoted = _literals(tickers, "[$:](?:{})")
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
        if self.quoted is not None and self.quoted.search(lower):
            return None
        out: list[Span] = []
        end = 0
        for at, stop in sorted(self._occurrences(lower)):
            stop = -stop
            if at < end:
                continue
            before, after = text[at - 1 : at], text[stop : stop + 1]
            if before and (before == "$" or _is_word(before)):
                continue  # no name starts here
            if after and _is_word(after):
                continue  # a shorter one may: it comes next
            out.append((at, stop, self._alias(text[at:stop])))
            end = stop
        return out

    def _occurrences(self, lower: str) -> list[tuple[int, int]]:
        """Where each name stands in ``lower``, and where it ends (negated: the longest
        first where several start)."""
        out = []
        for word in self.words:
            find, size = lower.find, len(word)
            at = find(word)
            while at >= 0:
                out.append((at, -at - size))
                at = find(word, at + 1)
        return out

    def _alias(self, word: str) -> str:
        exact = self.lookup.get("\0" + word)
        return exact if exact is not None else self.lookup.get(word.casefold(), word)


def _literals(names: Iterable[str], form: str) -> re.Pattern[str] | None:
    """The names in lower case, longest first as the pattern tries them, in ``form``."""
    ordered = sorted(names, key=lambda n: (-len(n), n))
    return (
        re.compile(form.format("|".join(re.escape(n.lower()) for n in ordered)))
        if ordered
        else None
    )


def merged(text: str, first: list[Span], second: list[Span]) -> str | None:
    """``text`` with both passes' matches replaced, or None where two overlap."""
    pieces, end = [], 0
    for start, stop, written in sorted(first + second):
        if start < end:
            return None
        pieces += (text[end:start], written)
        end = stop
    if not pieces:
        return text
    pieces.append(text[end:])
    return "".join(pieces)
