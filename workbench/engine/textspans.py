"""The mask's matches in a text in ASCII, found in two cheap passes instead of one scan.

Every part of the mask's pattern but the names reads a digit, and reads at most
one word and one run of spaces before its first digit (``March 4``, ``US$ 50``,
``FY '16``, ``volume of 12``). So those parts can start only at a digit that no
digit precedes, or in the two tokens before it, and the parts are tried there alone
(``amounts_and_dates``): at a token of letters only when it is a word a part reads
there (a month, a currency's code, FY, CY, "of" after "volume"), at another token
at each word start; at the digit itself, only the parts that can match there, chosen
by what stands around its run of digits (``DigitParts.digit_forms``: a number that
ends a headline, after a word no part reads before a number, is not tried at all).
Only the runs after the end of the match before are read (a search in C finds the
next), their two tokens read in the reversed text; what stands around a run decides
where its parts are tried, so that is learnt once for each surrounding met
(``DigitParts.to_try``) and looked up after. The
names are literal words, found by one search of the text in lower case
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
import string
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from workbench.engine.textprices import CURRENCY_STARTS
from workbench.engine.textscan import (
    ADDRESS_END,
    MOIS_WRITTEN,
    MONTHS,
    NAME_END,
    Matcher,
    name_key,
    name_pattern,
)

Span = tuple[int, int, str]  # where a match starts and ends, and what replaces it
_ADDRESS_END = re.compile(ADDRESS_END)

# currency codes in letters (USD, Rs, kr), FY and CY
_CODES = (*(c for c in CURRENCY_STARTS if c.isalpha()), "fy", "cy")
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


# A run of digits from its first (no digit before it); and, in the reversed text from
# right before such a digit, what may stand before it in a part: a token, a run of
# spaces, another token, none holding a digit (each may be empty: it matches anywhere)
_RUN = re.compile(r"[0-9](?<![0-9]{2})[0-9]*")
_BEFORE_RUN = re.compile(r"([^\s0-9]*)(\s*)([^\s0-9]*)")


@dataclass(frozen=True)
class DigitParts:
    """The parts of the pattern that read a digit, as ``amounts_and_dates`` tries them:
    ``match_at``, a character → the parts that can start with it; ``digit_forms``, what
    stands around a run of digits (``_LENGTHS``) → the parts that can match at its first
    digit (None: none can); ``startable``, the characters a part can start with; and
    ``phrase_ends``, the words a part reads right before a space and a number ("closed
    at", "volume", "hit"), reversed."""

    match_at: Mapping[str, Matcher]
    digit_forms: Mapping[tuple[int, str, bool, bool], Matcher | None]
    startable: frozenset[str]
    phrase_ends: tuple[str, ...]
    # what stands around a run (``_Around``) → where a part can start before it, as
    # offsets from its first digit, and the number of the matcher to try at the digit in
    # ``matchers`` (0: none; numbers and offsets, not the matcher itself, so the
    # collector need not track what is kept)
    tried: dict[_Around, tuple[tuple[int, ...], int]] = field(default_factory=dict, compare=False)
    matchers: list[Matcher | None] = field(default_factory=lambda: [None], compare=False)

    def to_try(
        self, around: _Around, tokens: re.Match[str], text: str, at: int
    ) -> tuple[tuple[int, ...], int]:
        """Where to try the parts around the run of digits at ``at``, whose tokens before
        it are ``tokens`` (the near one, the spaces, the far one, read in the reversed
        text): the same wherever the same stands around a run, so learnt once (but after
        "of", where "volume" before it counts too)."""
        near, gap, far = tokens.groups()
        _, length, after = around
        start = at - len(around[0]) + 1  # where the far token starts
        places: list[int] = []
        if near or (far and (not far.isalpha() or far.lower() in _BEFORE_SPACES)):
            places = _places_before(text, start, at, far, near, self.startable)
        matcher = self.digit_forms[  # only the parts that can match at the run
            _LENGTHS[length] if length < 9 else 0,
            after,
            near[:1] in _WORD_CHARS,
            not near and gap == " " and far.lower().startswith(self.phrase_ends),
        ]
        if matcher not in self.matchers:
            self.matchers.append(matcher)
        found = (tuple(place - at for place in places), self.matchers.index(matcher))
        if far.lower() != "fo":
            if len(self.tried) >= _TRIED_AT_MOST:
                self.tried.clear()
            self.tried[around] = found
        return found


# what stands around a run of digits, all that decides where its parts are tried but
# "volume" before "of": the character before the far token (a space, a digit, or the
# text's start, read as a space) and the two tokens (a token, a run of spaces, a token,
# none holding a digit), the run's length and the character after it
_Around = tuple[str, int, str]
_TRIED_AT_MOST = 50_000  # surroundings kept; a text's words make most of them alike


def amounts_and_dates(
    text: str,
    parts: DigitParts,
    replacers: Sequence[Callable[[re.Match[str]], str]],
    ends: Sequence[int],
) -> list[Span]:
    """The matches of the parts that read a digit, as the pattern without names finds
    them: tried, after the end of the match before, only at each digit no digit precedes
    and where a part can start in the two tokens before it (``_starts_in``), read in the
    reversed text; at the digit, only the parts that can match there. ``text`` holds
    texts one after another, the k-th ending before ``ends[k]`` and written by
    ``replacers[k]``."""
    found: list[tuple[int, re.Match[str]]] = []
    backwards, size = text[::-1], len(text)
    match_at, tried, to_try, matchers = parts.match_at, parts.tried, parts.to_try, parts.matchers
    next_run, before_run = _RUN.search, _BEFORE_RUN.match
    end = 0
    run = next_run(text)
    while run is not None:
        at, stop = run.span()
        tokens: re.Match[str] = before_run(backwards, size - at)  # type: ignore[assignment]
        start = size - tokens.end()  # where the far token starts
        # (a text's start reads as a space before it)
        before = text[start - 1 : at] if start else " " + text[:at]
        around = (before, stop - at, text[stop : stop + 1])
        offsets, form = tried.get(around) or to_try(around, tokens, text, at)
        for offset in offsets:
            if at + offset >= end:
                match = match_at[text[at + offset]](text, at + offset)
                if match is not None:
                    end = match.end()
                    found.append((at + offset, match))
        if form and at >= end:
            match = matchers[form](text, at)  # type: ignore[misc]  # only form 0 is none
            if match is not None:
                end = match.end()
                found.append((at, match))
        run = next_run(text, stop if stop > end else end)
    return _written(found, replacers, ends)


def _places_before(
    text: str, start: int, at: int, far: str, near: str, startable: frozenset[str]
) -> list[int]:
    """Where a part can start in the far token at ``start`` and the near one glued to the
    digit at ``at`` (both as the reversed text holds them, ``_starts_in``)."""
    places: list[int] = []
    if far:
        if not far.isalpha():
            _starts_in(text, start, far, _BEFORE_SPACES, startable, places)
        elif far.lower() in _BEFORE_SPACES and _reads_before(text, start, far):
            places.append(start)
    if len(near) == 1:  # a sign or a bracket glued to the number, most often
        if near in startable and text[at - 2 : at - 1] not in _WORD_CHARS:
            places.append(at - 1)
    elif near:
        _starts_in(text, at - len(near), near, _GLUED_TO_IT, startable, places)
    return places


def _written(
    found: list[tuple[int, re.Match[str]]],
    replacers: Sequence[Callable[[re.Match[str]], str]],
    ends: Sequence[int],
) -> list[Span]:
    """Each match where it starts and ends, and what replaces it: written by the replacer
    of the text it is in (the k-th ending before ``ends[k]``)."""
    out: list[Span] = []
    index, bound = 0, ends[0]
    for place, match in found:
        while place >= bound:
            index += 1
            bound = ends[index]
        out.append((place, match.end(), replacers[index](match)))
    return out


# What stands around a run of digits, as ``digit_forms`` is looked up by: the run's length
# as the parts read it (1, 2, 4, 8, or 0 for any other), the character after it ("" at
# the end), whether a word character stands right before it, and whether one of
# ``phrase_ends`` and one space do.
_LENGTHS = (0, 1, 2, 0, 4, 0, 0, 0, 8)
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")  # in ASCII


def _reads_before(text: str, start: int, backwards: str) -> bool:
    """Whether a part can start at the word at ``start`` (a month, a code, "of") before
    spaces and a number: no digit stands before it, and "of" follows "volume "."""
    if start and text[start - 1].isdigit():
        return False
    return backwards.lower() != "fo" or text[start - 7 : start].lower() == "volume "


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
        words, tickers = list(words), list(tickers)
        self.words = _whole_words(words, frozenset(tickers))
        self.dollar = _quoted(tickers, r"\$")
        self.colon = _quoted(tickers, ":")
        self.lookup = lookup
        self.aliases = _Aliases(lookup)

    @staticmethod
    def usable(names: Iterable[str]) -> bool:
        """Whether names can be looked for so: in ASCII, each starting with a word
        character (a text in ASCII then holds a name in any case where its lower case
        holds the name in lower case)."""
        return all(n.isascii() and n and _is_word(n[0]) for n in names)

    def spans(self, text: str) -> list[Span] | None:
        """Each name standing as a whole word in ``text`` (ASCII), as the pattern finds
        them (at each place, the longest name that ends a word), or None when a ticker
        follows ``$`` or a colon, a name is followed by an address's ending (``.com``:
        it can name an address), or a plural's s follows a name not in capitals: the pattern
        must read the text."""
        lower = text.lower()
        if self._quoted(lower):
            return None
        if self.words is None:
            return []
        out: list[Span] = []
        pieces, at, aliases = self.words.split(lower), 0, self.aliases
        for before, name in zip(pieces[::2], pieces[1::2], strict=False):  # the last: no name
            at += len(before)
            end = at + len(name)
            if text.startswith("s", end) and not text[end - 1].isupper():
                return None  # a plural's s after a name not in capitals: no name there
            if lower.startswith(".", end) and _ADDRESS_END.match(lower, end):
                return None  # a ticker in any case can name an address there
            out.append((at, end, aliases[text[at:end]]))
            at = end
        return out

    def _quoted(self, lower: str) -> bool:
        """Whether a ticker follows ``$`` or a colon in ``lower``."""
        if self.dollar is None or self.colon is None:
            return False
        return bool(self.dollar.search(lower) or (":" in lower and self.colon.search(lower)))


class _Aliases(dict[str, str]):
    """A name as the text writes it → its alias (a symbol as written, prefixed by a NUL in
    ``lookup``, or a company name casefolded), learnt the first time it is met."""

    def __init__(self, lookup: Mapping[str, str]) -> None:
        super().__init__()
        self.lookup = lookup

    def __missing__(self, word: str) -> str:
        exact = self.lookup.get("\0" + word)
        self[word] = exact if exact is not None else self.lookup.get(name_key(word), word)
        return self[word]


def _whole_words(names: Iterable[str], tickers: frozenset[str]) -> re.Pattern[str] | None:
    """The names in lower case, each a whole word: where no word character or ``$``
    stands before it, ending as a name ends, or before a plural's s (``spans`` reads
    whether in capitals: in lower case it cannot). The names that start with one character
    are tried after it and one look behind, longest first as the pattern tries them (the
    search looks for the names' first characters in C; names that start with different
    characters cannot both match at one place, so their order is free)."""
    by_first: dict[str, list[str]] = {}
    lowered = {n.lower(): n in tickers for n in names}
    for name in sorted(lowered, key=lambda n: (-len(n), n)):
        rest = name_pattern(name, ticker=lowered[name])[len(re.escape(name[0])) :]
        by_first.setdefault(name[0], []).append(f"{rest}(?:{NAME_END}|(?=s\\b))")
    if not by_first:
        return None
    each = (
        f"{re.escape(first)}(?<![\\w$]{re.escape(first)})(?:{'|'.join(rests)})"
        for first, rests in sorted(by_first.items())
    )
    return re.compile(f"({'|'.join(each)})")


def _quoted(tickers: Sequence[str], mark: str) -> re.Pattern[str] | None:
    """The tickers in lower case after ``mark`` (a pattern), with any share-class mark."""
    if not tickers:
        return None
    written = (name_pattern(t.lower(), ticker=True) for t in tickers)
    return re.compile(f"{mark}(?:{'|'.join(written)})")


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
