"""The mask's two passes over a text in ASCII (``textspans``) write what its pattern writes."""

from __future__ import annotations

import gc
import re

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from workbench.engine.textmask import _BARE, _DIGIT_PARTS, TextMask
from workbench.engine.textspans import NameFinder, merged

DATES = [str(d.date()) for d in pd.bdate_range("2016-01-04", periods=300)]
LOOKUP = {"\0ACME": "ASSET001", "acmeindustries": "ASSET001", "acme": "ASSET001"}  # name_key
MASK = TextMask(
    aliases={"ACME": "ASSET001", "BOLT": "ASSET002", "IT": "ASSET003"},
    price_factor={"ACME": 0.5, "BOLT": 2.0, "IT": 3.0},
    dates=DATES,
    warmup_days=20,
    names={"ACME": ("Acme Industries", "Acme"), "BOLT": ("Bolt 2016 Fund",)},
)


def test_names_are_found_as_whole_words_with_their_aliases() -> None:
    finder = NameFinder(["ACME", "Acme Industries", "Acme"], ["ACME"], LOOKUP)
    text = "ACME and ACME INDUSTRIES, not acmex or xacme; Acme."
    spans = finder.spans(text)
    assert spans == [(0, 4, "ASSET001"), (9, 24, "ASSET001"), (46, 50, "ASSET001")]


def test_the_longest_name_that_ends_a_word_is_taken() -> None:
    finder = NameFinder(["Acme Industries", "Acme"], [], LOOKUP)
    assert finder.spans("Acme Industriesx") == [(0, 4, "ASSET001")]


def test_a_ticker_after_a_dollar_or_a_colon_is_left_to_the_pattern() -> None:
    finder = NameFinder(["ACME"], ["ACME", "IT"], LOOKUP)
    assert finder.spans("$ACME rose") is None
    assert finder.spans("NYSE:it rose") is None
    assert finder.spans("$12 for ACME: up") == [(8, 12, "ASSET001")]


def test_names_not_in_ascii_or_not_starting_a_word_are_not_looked_for_so() -> None:
    assert NameFinder.usable(["Acme", "3D Info Tech"])
    assert not NameFinder.usable(["Élan Bolt"])
    assert not NameFinder.usable(["(Acme)"])


def test_overlapping_matches_of_the_two_passes_are_refused() -> None:
    assert merged("abcdef", [(0, 3, "X")], [(2, 5, "Y")]) is None
    assert merged("abcdef", [(0, 2, "X")], [(2, 5, "Y")]) == "XYf"
    assert merged("abc", [], []) == "abc"


def test_a_name_holding_a_year_is_masked_as_the_pattern_masks_it() -> None:
    """The year inside "Bolt 2016 Fund" is a match of the first pass inside a name of
    the second: the text is read the long way."""
    for text in ("Bolt 2016 Fund rose on 2016-02-03", "bolt 2016 fund: $12", "Bolt 2016"):
        for about in (["BOLT"], ["ACME", "BOLT"], []):
            assert MASK.text(text, about) == MASK.text_by_pattern(text, about)


# what a part reads before and after its first digit, and what stands between
WORDS = (
    *("March", "Mar", "Sept.", "sept", "mars", "févr.", "Feb", "may", "of", "volume", "FY"),
    *("CY", "Q", "H", "USD", "usd", "US$", "$", "€", "EUR", "shares", "dollars", "bn"),
    *("closed at", "up", "to", "hit", "price target", "week high:", "ACME", "Acme", "IT"),
    *("Acme Industries", "Bolt 2016 Fund", "th", "st", "er", "x", "_", "a"),
    *("Jan.", "Dec", "Acme  Industries", "Acme\r\nIndustries", "&amp;", "'16", "01-05-"),
)
NUMBERS = ("4", "12", "2016", "1,234", "45,50", "3.5", "20160203", "2016-03-04", "1", "02/03")
GAPS = ("", " ", "\n", "-", ".", ",", "'", "/", "(", ":", "$", "\0", "%")


@st.composite
def ascii_texts(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from((*WORDS, *NUMBERS)), min_size=1, max_size=10))
    gaps = draw(st.lists(st.sampled_from(GAPS), min_size=len(pieces), max_size=len(pieces)))
    return "".join(p + g for p, g in zip(pieces, gaps, strict=True))


@given(text=ascii_texts(), about=st.sampled_from([["ACME"], ["BOLT"], ["ACME", "IT"], []]))
def test_words_and_numbers_in_any_order_are_masked_as_the_pattern_masks_them(
    text: str, about: list[str]
) -> None:
    assert MASK.text(text, about) == MASK.text_by_pattern(text, about)
    assert MASK.texts([(text, about), (text, ["IT"])]) == [
        MASK.text_by_pattern(text, about),
        MASK.text_by_pattern(text, ["IT"]),
    ]


def test_a_ticker_glued_to_a_date_becomes_its_alias_and_the_day() -> None:
    """ACME2016-03-04 names the company and the day: both are masked, as with a space."""
    spaced = MASK.text("ACME 2016-03-04 rose", ["ACME"])
    assert spaced == "ASSET001 day 24 rose"
    for glued, shown in (
        ("ACME2016-03-04 rose", "ASSET001day 24 rose"),
        ("report_ACME2016.03.04.pdf", "report_ACMEday 24.pdf"),
        ("ACME INDUSTRIES2016/3/4", "ASSET001day 24"),
        ("ACMEX2016-03-04", "ACMEXday 24"),
        ("ACME2016 and ACME20160304", "ACME2016 and ACME20160304"),
    ):
        assert MASK.text(glued, ["ACME"]) == shown
        assert MASK.text_by_pattern(glued, ["ACME"]) == shown


PHRASES = ("closed at", "up from", "rose to", "5% to", "week high:", "volume", "hit", "a price of")


@st.composite
def around_numbers(draw: st.DrawFn) -> str:
    """A number with what can stand around it: a word or a phrase before, a gap, what
    follows (a gap and a word, or nothing)."""
    before = draw(st.sampled_from((*WORDS, *PHRASES, "", "x", "FY", "update")))
    after = draw(st.sampled_from((*WORDS, *NUMBERS, "", "shares", "Q1", "th", "er", "bn")))
    number = draw(st.sampled_from((*NUMBERS, "123", "12345", "2016", "1999", "7", "31")))
    gaps = st.sampled_from(GAPS)
    return f"{before}{draw(gaps)}{number}{draw(gaps)}{after}{draw(gaps)}"


def _at_digits(text: str) -> list[int]:
    return [k for k, c in enumerate(text) if c.isdigit() and not (k and text[k - 1].isdigit())]


def _around(text: str, at: int) -> tuple[int, str, bool, bool]:
    """What stands around the run of digits at ``at``, read from the text itself."""
    stop = at
    while stop < len(text) and text[stop].isdigit():
        stop += 1
    length = stop - at if stop - at in (1, 2, 4, 8) else 0
    before = text[:at]
    word = bool(before) and (before[-1].isalnum() or before[-1] == "_")
    words = before[:-1].split() if before.endswith(" ") else []
    last = words[-1] if words else ""
    ends = ("at", "from", "to", "high", "low", "of", "price", "target", "volume", "hit")
    phrase = (
        before.endswith(" ")
        and not before[:-1][-1:].isspace()
        and any(last.lower().endswith(e) or last.lower().endswith(e + ":") for e in ends)
    )
    return length, text[stop] if stop < len(text) else "", word, phrase


@given(text=st.one_of(around_numbers(), ascii_texts()))
def test_at_a_digit_the_parts_that_cannot_match_are_left_out_alike(text: str) -> None:
    """The parts tried at a run of digits, chosen by what stands around it, match what
    every part that can start with a digit matches there."""
    for at in _at_digits(text):
        every = _BARE.match_at[text[at]](text, at)  # type: ignore[attr-defined]
        chosen = _DIGIT_PARTS.digit_forms[_around(text, at)]
        found = None if chosen is None else chosen(text, at)
        if every is None:
            assert found is None, (text, at)
        else:
            assert found is not None, (text, at)
            assert (found.span(), found.lastgroup) == (every.span(), every.lastgroup)
            assert _groups(found) == _groups(every)


def _groups(match: re.Match[str]) -> dict[str, str]:
    return {name: text for name, text in match.groupdict().items() if text is not None}


def test_digits_nothing_can_match_at_are_not_read() -> None:
    """A number ending a headline, after a word no part reads before a number, has no
    parts to try; one after "closed at" or before "shares" has a few."""
    forms = _DIGIT_PARTS.digit_forms
    assert forms[_around("demand update 12345", 14)] is None
    assert forms[_around("closed at 12345", 10)] is not None
    assert forms[_around("moved 1,234 shares", 6)] is not None
    assert forms[_around("x1999-03-04", 1)] is not None  # a date year first, glued


def test_what_stands_around_a_run_is_learnt_with_all_that_decides_it() -> None:
    """Where the parts are tried around a run is learnt once per surrounding: the same
    token after another word ("volume of 12", "lots of 12"), after a digit or not
    ("5March 4, 2016"), before another character, at the text's start, is told apart."""
    texts = (
        "volume of 12 and lots of 12 and Volume of 12",
        "in March 4, 2016 and 5March 4, 2016 and March 4, 2016",
        "closed at 12 and closed at 12% and closed at 12",
        "ACME rose 3 and ACME rose 3.5 and ACME rose 3",
        "of 12 shares, x of 12 shares",  # a text's start reads as a space before it
        "12 shares and 12 shares",
        " 12 shares",
    )
    for text in texts:
        for about in (["ACME"], []):
            assert MASK.text(text, about) == MASK.text_by_pattern(text, about)
            assert MASK.texts([(text, about), (text[::-1], about)]) == [
                MASK.text_by_pattern(text, about),
                MASK.text_by_pattern(text[::-1], about),
            ]
    assert _DIGIT_PARTS.tried  # learnt


def test_a_run_after_the_match_before_is_read_as_its_own() -> None:
    """A run of digits a match ends inside is passed over; the next is read."""
    assert MASK.text("$12.50 12 shares", ["ACME"]) == MASK.text_by_pattern(
        "$12.50 12 shares", ["ACME"]
    )


def test_the_surroundings_learnt_hold_no_object_the_collector_tracks() -> None:
    """What is learnt per surrounding (offsets and a matcher's number) is left alone by
    the collector, however many surroundings a run's text holds."""
    MASK.texts([(f"closed at {k} and March {k % 28 + 1}, 2016", ["ACME"]) for k in range(50)])
    gc.collect()
    gc.collect()  # a pair holding a tuple is let go the pass after that tuple is
    assert _DIGIT_PARTS.tried
    assert not any(gc.is_tracked(learnt) for learnt in _DIGIT_PARTS.tried.values())
