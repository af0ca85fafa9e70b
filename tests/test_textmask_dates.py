"""Dates in the forms still written around the mask's: placed on their day, or marked."""

from __future__ import annotations

import pytest
from mask_routes import every_route, text_mask

from workbench.engine.textmask import TextMask

MASK = text_mask(
    aliases={"ACME": "ASSET001"},
    price_factor={"ACME": 0.5},
    names={"ACME": ("Acme Industries",)},
)


def _every_route(text: str) -> str:
    return every_route(MASK, text, ["ACME"])


@pytest.mark.parametrize(
    "text",
    [
        "05JAN2016",
        "05-JAN-16",
        "5-Jan-16",
        "05jan16",
        "Jan-05-2016",
        "2016‐01‐05",  # Unicode's hyphen
        "2016‑01‑05",  # a hyphen that does not break
        "2016–01–05",  # an en dash
        "2016—01—05",  # an em dash
        "2016−01−05",  # a minus
        "5–Jan–2016",
        "5 January 2016",
    ],
)
def test_a_day_written_in_any_of_these_forms_is_placed(text: str) -> None:
    assert _every_route(f"On {text}, shares rose") == "On day -19, shares rose"


@pytest.mark.parametrize("text", ["Dec-16", "Dec-2016", "2016–03", "Dec 16"])
def test_a_month_with_a_short_year_or_a_dash_is_marked(text: str) -> None:
    assert _every_route(f"Seen {text}.") == "Seen [date]."


@pytest.mark.parametrize("text", ["2016-02-30", "2016-13-01", "31 February 2016", "30-FEB-16"])
def test_a_date_no_calendar_holds_is_marked_not_left(text: str) -> None:
    assert _every_route(f"Filed {text}.") == "Filed [date]."


def test_a_two_digit_year_reads_in_the_century_it_names() -> None:
    first, late = MASK.text("5-Jan-99", []), MASK.text("5-Jan-69", [])
    assert first == MASK.text("5 Jan 1999", []) and late == MASK.text("5 Jan 2069", [])


@pytest.mark.parametrize("text", ["3D printers", "10am", "2nd place", "ACME-2 and 4x4s"])
def test_numbers_glued_to_letters_that_are_no_month_stay(text: str) -> None:
    assert _every_route(text) == text.replace("ACME", "ASSET001")


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("1999-12-31", "[over 16 years before day -20]"),
        ("3 January 2015", "[over 1 year before day -20]"),
        ("4 January 2015", "day -280"),  # within a year of the first date: its day
        ("2030-01-01", "[over 12 years after day 279]"),
    ],
)
def test_a_date_far_from_the_bars_reads_in_whole_years(text: str, shown: str) -> None:
    assert _every_route(f"Since {text}.") == f"Since {shown}."


def test_a_far_date_after_an_item_reads_from_the_last_date_it_knows() -> None:
    dates = list(MASK.dates)
    other = TextMask(
        aliases=MASK.aliases,
        price_factor=MASK.price_factor,
        dates=[*dates[:60], *dates[61:]],  # a date after the item's close left out
        warmup_days=20,
    )
    text = "Due 2018-06-01 and 2016-05-02."
    for mask in (MASK, other):
        with mask.known_until(40):
            assert mask.texts([(text, ["ACME"])]) == ["Due [over 2 years after day 20] and day 65."]


@pytest.mark.parametrize("text", ["01-05-2016", "1-5-2016", "01–05–2016", "01-05-16"])
def test_a_numeric_date_by_hyphens_is_marked_whole(text: str) -> None:
    assert _every_route(f"Filed {text}.") == "Filed [date]."


@pytest.mark.parametrize(
    "text",
    [
        *("Jan. 5, '16", "Jan. 5, ’16", "Jan 5 '16", "5 Jan '16", "Dec. '16", "2015/16"),
        *("2015-16", "Dec ‘16", "Jan. 5, ‘16"),  # ‘ as a word processor turns the apostrophe
        *("Dec ʼ16", "Decʼ16", "Jan. 5, ʼ16", "5 Jan ʼ16"),  # ʼ, the modifier letter apostrophe
    ],
)
def test_a_date_with_a_short_year_or_a_season_is_marked_whole(text: str) -> None:
    assert _every_route(f"Seen {text} by ACME.") == "Seen [date] by ASSET001."


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("the '16 season", "the [date] season"),
        ("the ’16 season, ('17)", "the [date] season, ([date])"),
        ("in ‘16", "in [date]"),
        ("in ʼ16, ACMEʼs ʼ17", "in [date], ASSET001ʼs [date]"),
        ("rated '15.5' and it's 16 stores", "rated '15.5' and it's 16 stores"),
    ],
)
def test_a_year_of_two_digits_after_an_apostrophe_is_marked(text: str, shown: str) -> None:
    assert _every_route(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        *("FY’16", "Q3’16", "FYʼ16", "FY‘16", "1Q’16", "CY´16"),
        *("Dec ʻ16", "Dec ´16", "Dec ′16", "Dec `16", "Dec ׳16", "the ′16 season"),
    ],
)
def test_a_year_of_two_digits_after_any_mark_written_for_an_apostrophe_is_a_date(
    text: str,
) -> None:
    """FY'16 was a date and FY’16 not, Dec '16 a date and Dec ´16 not: every form of a date
    that holds such a year reads one class of marks."""
    assert "16" not in _every_route(text)
