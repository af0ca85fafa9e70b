"""Prices, volumes and dates in the forms real text writes them: scaled, placed or marked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.engine.textmask import TextMask

MASK = TextMask(
    aliases={"ACME": "ASSET001", "BOLT": "ASSET002"},
    price_factor={"ACME": 0.5, "BOLT": 2.0},
    dates=[str(d.date()) for d in pd.bdate_range("2016-01-04", periods=300)],
    warmup_days=20,
    names={"ACME": ("Acme Industries",)},
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ACME closed at 123.45, up from 120.", "ASSET001 closed at 61.73, up from 60.00."),
        ("It rose to 3 percent.", "It rose to 3 percent."),
        ("45 dollars, 12.5 USD, 3.4 bn dollars", "22.50 dollars, 6.25 USD, 1.70 bn dollars"),
        ("US$ 50, $ 12, €45.10, £12, $1.2k", "US$25.00, $6.00, €22.55, £6.00, $0.60k"),
        ("USD 12.50 and $1,234.50", "USD 6.25 and $617.25"),
        ("traded 1,864,600 shares, volume 1.86M", "traded [amount] shares, volume [amount]"),
        ("traded 1,000  shares, 2 m\tshares", "traded [amount]  shares, [amount]\tshares"),
    ],
)
def test_prices_are_scaled_and_volumes_marked(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown


def test_amounts_in_an_item_about_two_names_are_marked() -> None:
    shown = MASK.text("45 dollars, $12 and €3 on 1,000 shares", ["ACME", "BOLT"])
    assert shown == "[amount] dollars, $[amount] and €[amount] on [amount] shares"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("2016-02-03T09:30:00Z and 3-Feb-2016", "day 2 and day 2"),
        ("02/03/2016 or 3.2.16", "[date] or [date]"),
        ("Feb 3; Friday, March 4; 4th March", "[date]; Friday, [date]; [date]"),
        ("20160203, FY2016, 2016Q1, CY16, H1'16", "[date], [date], [date], [date], [date]"),
        ("It may 3 times", "It may 3 times"),
    ],
)
def test_dates_are_placed_or_marked(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("2016/02/03, 2016.02.03 and 2016-02-03", "day 2, day 2 and day 2"),
        (
            "2016-09-05: Sept. 5, 2016; Sept 5 2016; 5 Sept 2016",
            "day 155: day 155; day 155; day 155",
        ),
        ("Sept 2016 and Sept 5", "[date] and [date]"),
        ("2016/02/31 and 2016-02/03", "[date] and [date]-02/03"),
    ],
)
def test_dates_written_year_first_or_sept_are_placed_whole(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ACME up 3.5% to 175.72", "ASSET001 up 3.5% to 87.86"),
        ("down 2 percent at 80, then 5% to 9%", "down 2 percent at 40.00, then 5% to 9%"),
        ("USD12.5, usd 12.5, CHF 12 and 12 CHF", "USD 6.25, usd 6.25, CHF 6.00 and 6.00 CHF"),
    ],
)
def test_a_price_after_a_percent_move_and_glued_codes_are_scaled(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown
    assert MASK.text(text, ["ACME"]) == MASK.text_by_pattern(text, ["ACME"])


def test_full_width_names_and_prices_are_masked() -> None:
    shown = MASK.text("ＡＣＭＥ at ＄１２ on ２０１６-０２-０３", ["ACME"])
    assert shown == "ASSET001 at $6.00 on day 2"


def test_every_calendar_date_is_placed_as_relative_day_places_it() -> None:
    """Dates before, among and after the bars (weekends, holidays, leap days) read the day
    numpy's search and business days give."""
    mask = TextMask(
        aliases={},
        price_factor={},
        dates=[str(d.date()) for d in pd.bdate_range("2016-01-04", periods=300)],
        warmup_days=20,
    )
    for when in pd.date_range("2015-11-01", "2017-06-30"):
        written = mask.text(f"{when:%Y-%m-%d} and {when:%B} {when.day}, {when.year}", [])
        day = f"day {mask.relative_day(np.datetime64(when.date(), 'D'))}"
        assert written == f"{day} and {day}", when


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ACME hit a 52-week high 999.99", "ASSET001 hit a 52-week high 500.00"),
        ("a high of 120.5 and a low of 80", "a high of 60.25 and a low of 40.00"),
        ("target price 150, price target 90", "target price 75.00, price target 45.00"),
        ("a high of 3% and a 52-week low 2 percent", "a high of 3% and a 52-week low 2 percent"),
        ("the high 120 and the price 150", "the high 120 and the price 150"),
        (
            "target price of 150, ended at 12, jumped to 14",
            "target price of 75.00, ended at 6.00, jumped to 7.00",
        ),
        ("trading at 20 times, surged to 3 percent", "trading at 20 times, surged to 3 percent"),
    ],
)
def test_a_bare_price_after_its_name_is_scaled(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown
    assert MASK.text(text, ["ACME"]) == MASK.text_by_pattern(text, ["ACME"])


def test_a_bare_price_after_its_name_in_an_item_about_two_names_is_marked() -> None:
    shown = MASK.text("a 52-week high 999.99, target price 150", ["ACME", "BOLT"])
    assert shown == "a 52-week high [amount], target price [amount]"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("le 4 mars 2016 et le 1er février 2016", "le day 24 et le day 0"),
        ("4 Septembre 2016, 5 DÉCEMBRE 2016", "day 155, day 220"),
        ("mars 2016, août 2016", "[date], [date]"),
        ("le 2016年3月4日 et 2016年9月5日に", "le day 24 et day 155に"),
        ("Mars rover and 4 mars", "Mars rover and 4 mars"),
        ("アクメは2016年3月4日に発表、株価は2016年に", "アクメはday 24に発表、株価は[date]に"),
        ("決算2016年3月期, 12016年3月4日", "決算[date]期, 12016年[date]"),
    ],
)
def test_dates_in_french_and_japanese_are_placed_or_marked(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown
    assert MASK.text(text, ["ACME"]) == MASK.text_by_pattern(text, ["ACME"])


@pytest.mark.parametrize(
    ("text", "shown", "about_two"),
    [
        ("45,50 € and 1.234,50 EUR", "22,75 € and 617,25 EUR", "[amount] € and [amount] EUR"),
        ("€ 45,50, EUR 2.000,5", "€22,75, EUR 1.000,25", "€[amount], EUR [amount]"),
        ("12,5 euros, 45,5€", "6,25 euros, 22,75€", "[amount] euros, [amount]€"),
        ("3,4 and 5; 1,234 units; $1,234.50", "3,4 and 5; 1,234 units; $617.25", None),
    ],
)
def test_money_with_a_decimal_comma_is_scaled_as_written(
    text: str, shown: str, about_two: str | None
) -> None:
    assert MASK.text(text, ["ACME"]) == shown
    assert MASK.text(text, ["ACME"]) == MASK.text_by_pattern(text, ["ACME"])
    if about_two is not None:
        assert MASK.text(text, ["ACME", "BOLT"]) == about_two


@pytest.mark.parametrize(
    ("text", "shown", "about_two"),
    [
        ("closed at 45,50 today", "closed at 22,75 today", "closed at [amount] today"),
        ("rose to 1.234,50", "rose to 617,25", "rose to [amount]"),
        ("closed at 1 234,50; 1 234,50 €", "closed at 617,25; 617,25 €", None),
        ("€ 12 345 678,90", "€6.172.839,45", "€[amount]"),
        ("closed at 12.34,5 and 1,2345", "closed at 12.34,5 and 1,2345", None),
        ("rose to 3,4 percent", "rose to 3,4 percent", None),
    ],
)
def test_a_price_is_scaled_whole_or_left_never_cut(
    text: str, shown: str, about_two: str | None
) -> None:
    # "45,50" after a price verb once lost its "4" alone to the factor: "closed at 2.005,50";
    # "1 234,50 €" its "234,50" alone: "1 117,25 €"
    assert MASK.text(text, ["ACME"]) == shown
    assert MASK.texts([(text, ["ACME"])]) == [MASK.text_by_pattern(text, ["ACME"])]
    if about_two is not None:
        assert MASK.text(text, ["ACME", "BOLT"]) == about_two


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("2016-3-4, 2016/3/4 and 2016-03-04", "day 24, day 24 and day 24"),
        ("in 2016-03 or 2016/3, then", "in [date] or [date], then"),
        ("report_2016-03-04.pdf and 2016-03-04_v2", "report_day 24.pdf and day 24_v2"),
        ("4 avr. 2016, 1er févr. 2016, 4 juil 2016", "day 45, day 0, day 110"),
        ("fevrier 2016, 4 fevrier 2016, AOUT 2016", "[date], day 3, [date]"),
        ("アクメは3月4日に", "アクメは[date]に"),
        ("平成28年3月4日, 令和元年5月1日", "day 24, [over 2 years after day 279]"),
        ("平成28年, 平成28年3月", "[date], [date]"),
        # a day its era did not hold (Heisei ended on 30 April 2019) names no day for sure
        ("平成31年5月1日 and 昭和64年1月8日", "[date] and [date]"),
    ],
)
def test_dates_in_the_forms_once_missed_are_placed_or_marked(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("a price target of 150", "a price target of 75.00"),
        ("52-week high: 999.99, 52-week low: 12", "52-week high: 500.00, 52-week low: 6.00"),
        ("closing price 123.45; closing price: 12", "closing price 61.73; closing price: 6.00"),
        ("ACME hit 123.45", "ASSET001 hit 61.73"),
        ("₹ 1,200 and ₩50,000, 45,50 ₹", "₹600.00 and ₩25,000.00, 22,75 ₹"),
    ],
)
def test_prices_in_the_forms_once_missed_are_scaled(text: str, shown: str) -> None:
    assert MASK.text(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Chapter 3-4 of the 2.3-4 manual",
        "he hit 3 home runs and hit 12.5% more",
        "a target of 5 stores; the price target was raised",
        "his 3月 plans, 3月期",
        "version_2016-13-45",
    ],
)
def test_ordinary_text_near_the_new_forms_is_left_as_written(text: str) -> None:
    assert MASK.text(text, ["ACME"]) == text
