"""The mask's two passes over a text in ASCII (``textspans``) write what its pattern writes."""

from __future__ import annotations

import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from workbench.engine.textmask import TextMask
from workbench.engine.textspans import NameFinder, merged

DATES = [str(d.date()) for d in pd.bdate_range("2016-01-04", periods=300)]
LOOKUP = {"\0ACME": "ASSET001", "acme industries": "ASSET001", "acme": "ASSET001"}
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
