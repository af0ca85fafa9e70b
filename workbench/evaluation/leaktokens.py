"""How the leak report reads the words of an item: one token however a word is spelt.

A feed writes one product many ways: ``Roadrunner``, ``Roadrunner's``,
``Roadrunner’s``, ``Roadrunner-branded``, ``ROADRUNNER``, ``roadrunners``. Each counts
as the token ``roadrunner``:

- the text is read in its compatibility form (NFKC: full-width letters as ASCII) and
  in any case (casefold);
- a word's parts joined by a hyphen are tokens of their own (``Roadrunner-branded``
  gives ``roadrunner`` and ``branded``), and a possessive is dropped (``'s`` or ``’s``,
  or the apostrophe after a plural), as is a trade mark sign (``Roadrunner™``);
- a letter's combining marks (a Devanagari vowel sign, an Arabic vowel) belong to its
  word, so ``रोडरनर`` is read whole, not broken at each mark;
- a word ending in ``s`` (or ``es``) whose stem is a token of the same items read is
  that stem (``roadrunners`` is ``roadrunner`` once ``roadrunner`` is seen; ``news`` is
  not ``new`` unless ``new`` is a token, which as a stop word it never is).

Text written without spaces (Japanese, Chinese, Thai) is read in runs of one script:
a run of katakana (``ロードランナー``, where Japanese writes most product names) or of
kanji (``出荷``) is a token, hiragana runs (particles, endings) are not, and a run longer
than ``LONGEST_RUN`` characters (a Chinese or Thai sentence; ``LONGEST_KANA`` for
katakana, which writes words, not sentences) gives its overlapping pairs of characters
instead (a Thai letter with its vowel and tone marks counts as one). No token is longer
than ``LONGEST_WORD`` characters: a longer "word" is a code, a link or a hash, not a name.

The report shows each token as its spelling seen in most items (``spellings`` lists
them all, most seen first), the one to add to the names map.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable

LONGEST_WORD = 30
LONGEST_RUN, LONGEST_KANA = 6, 16
SHORTEST_WORD, SHORTEST_RUN = 3, 2

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u0e00-\u0e7f\u3005"
_LETTER = rf"[^\W\d_{_CJK}]"


def _combining_marks() -> str:
    """The combining marks of alphabets read by their spaces (a vowel sign of Devanagari, an
    Arabic vowel, an accent NFKC cannot join), as a character class's ranges: ``\\w`` has
    none of them, so without them a word would break at each."""
    marks = [
        c
        for c in (*range(0x300, 0x2000), *range(0x20D0, 0x2100), *range(0xFE20, 0xFE30))
        if unicodedata.category(chr(c)).startswith("M") and not 0xE00 <= c < 0xE80
    ]
    starts = [c for c in marks if c - 1 not in marks]
    ends = [c for c in marks if c + 1 not in marks]
    return "".join(f"{chr(a)}-{chr(b)}" for a, b in zip(starts, ends, strict=True))


_JOINED = f"['\u2019\u2010\u2011{_combining_marks()}-]"  # an apostrophe, a hyphen, a mark
ASCII_WORDS = re.compile(r"[A-Za-z][A-Za-z0-9'-]*")  # the same, for text in ASCII
WORDS = re.compile(
    rf"{_LETTER}(?:[^\W_{_CJK}]|{_JOINED})*"
    r"|[\u30a1-\u30fa\u30fc-\u30ff]+"  # katakana, with its long-vowel mark
    r"|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3005]+"  # kanji
    r"|[\u0e00-\u0e7f]+"  # Thai
    r"|[\u3041-\u309f]+"  # hiragana: matched, so it never joins a word, and not counted
)
_PARTS = re.compile("[\u2010\u2011-]+")
_MARKS = re.compile(r"^(asset\d+|day|date|amount)$")
STOP = frozenset((
    "the", "and", "for", "that", "with", "this", "from", "were", "was", "are", "has", "have",
    "had", "its", "his", "her", "their", "they", "said", "says", "say", "will", "would",
    "could", "should", "not", "but", "than", "then", "into", "over", "under", "after",
    "before", "about", "more", "most", "less", "also", "company", "companies", "shares",
    "share", "orders", "percent", "per", "which", "while", "when", "where", "who", "whom",
    "what", "been", "being", "our", "out", "off", "new", "year", "years", "quarter",
))  # fmt: skip

Token = tuple[str, str]  # (the token, as it was written)


def item_words(text: str) -> set[str]:
    """The distinct words of an item's text as written (``tokens`` reads each once)."""
    if text.isascii():
        return set(ASCII_WORDS.findall(text))
    text = text.translate(_MARKS_APART)  # NFKC would glue a trade mark on: RoadrunnerTM
    return set(WORDS.findall(unicodedata.normalize("NFKC", text)))


_MARKS_APART = str.maketrans({"\u2122": " ", "\u2120": " "})


def tokens(word: str) -> tuple[Token, ...]:
    """The tokens of one word as ``WORDS`` finds it, each with its spelling."""
    first = word[0]
    if "\u3041" <= first <= "\u309f":
        return ()  # hiragana: particles and endings
    if not _LETTER_ONE.match(first):
        return _run(word)
    out = []
    for part in _PARTS.split(word):
        written = _unpossessed(part)
        token = written.casefold()
        short = len(token) < SHORTEST_WORD or len(token) > LONGEST_WORD
        if not short and token not in STOP and not _MARKS.match(token):
            out.append((token, written))
    return tuple(out)


_LETTER_ONE = re.compile(_LETTER)


def _unpossessed(part: str) -> str:
    """A part without its possessive: Roadrunner's, Roadrunner’s, analysts'."""
    part = part.replace("\u2019", "'")
    if part[-2:] in ("'s", "'S"):
        part = part[:-2]
    elif _GLUED_MARK.search(part):
        part = part[:-2]  # the mask's NFKC wrote Roadrunner™ as RoadrunnerTM
    return part.strip("'")


_GLUED_MARK = re.compile(r"[^\W\dA-Z_]TM$")


def _run(run: str) -> tuple[Token, ...]:
    """A run of one script written without spaces: whole when short, else its pairs."""
    if len(run) < SHORTEST_RUN:
        return ()
    katakana = "\u30a1" <= run[0] <= "\u30ff"
    if len(run) <= (LONGEST_KANA if katakana else LONGEST_RUN):
        return ((run, run),)
    signs = _SIGNED.findall(run)  # a Thai letter with its vowel and tone marks is one sign
    pairs = dict.fromkeys(signs[k] + signs[k + 1] for k in range(len(signs) - 1))
    return tuple((pair, pair) for pair in pairs)


_THAI_MARKS = "\u0e31\u0e34-\u0e3a\u0e47-\u0e4e"
_SIGNED = re.compile(f"[^{_THAI_MARKS}][{_THAI_MARKS}]*|[{_THAI_MARKS}]+")


def stems(vocabulary: Iterable[str]) -> dict[str, str]:
    """Each token ending in s or es whose stem is also a token → that stem."""
    seen = set(vocabulary)
    out = {}
    for token in seen:
        if len(token) <= SHORTEST_WORD or not token.endswith("s") or token.endswith("ss"):
            continue
        if token[:-1] in seen:
            out[token] = token[:-1]
        elif token.endswith("es") and token[:-2] in seen:
            out[token] = token[:-2]
    return out


def most_seen(spellings: Counter[str]) -> list[str]:
    """The spellings of a token, seen in most items first (then in code point order)."""
    return sorted(spellings, key=lambda s: (-spellings[s], s))
