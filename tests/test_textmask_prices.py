"""Prices in news text (``textprices``): every ordinary way of writing one is scaled by the
factor of its name, and the mask's fast routes write what its pattern writes."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mask_routes import acme_and_bolt, every_route

from workbench.engine.textmask import _BARE, _DIGIT_PARTS, TextMask
from workbench.engine.textprices import PHRASE_ENDS

MASK = acme_and_bolt()


def _every_route(text: str, about: list[str]) -> str:
    return every_route(MASK, text, about, beside=("Acme said", about))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("then 146.17$, then 146.17 $.", "then 73.08$, then 73.08 $."),
        ("then $ 146.17 and USD146.17", "then $73.08 and USD 73.08"),
        ("Last at 146.17, settled at 146.17", "Last at 73.08, settled at 73.08"),
        ("shares at 146.17; it now stands at 146.17", "shares at 73.08; it now stands at 73.08"),
        ("Priced at 146.17 per share", "Priced at 73.08 per share"),
        ("$146.17/share and 146.17/share", "$73.08/share and 73.08/share"),
        ("146.17 dollars a share, 146.17 a share", "73.08 dollars a share, 73.08 a share"),
        ("trading around 146.17, near 146.17", "trading around 73.08, near 73.08"),
        (
            "a 52-week low of 120.5, an all-time high of 160.25",
            "a 52-week low of 60.25, an all-time high of 80.12",
        ),
        ("The stock (146.17) rose", "The stock (73.08) rose"),
        ("bid 146.10 ask 146.20, VWAP 146.15", "bid 73.05 ask 73.10, VWAP 73.08"),
        (
            "Jan 150 calls, the 150 strike, 150C and 140P",
            "Jan 75.00 calls, the 75.00 strike, 75.00C and 70.00P",
        ),
        ("March 150 puts, Sept 140 call", "March 75.00 puts, Sept 70.00 call"),
        ("The price was 146.17", "The price was 73.08"),
    ],
)
def test_a_price_written_any_ordinary_way_is_scaled(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


# the forms a hostile review found left as written, each beside the masked bars
FOUND_UNSCALED = [
    ("closing at 146.17", "closing at 73.08"),
    ("shares were 146.17", "shares were 73.08"),
    ("peaked at 147.10", "peaked at 73.55"),
    ("bottomed at 144.90", "bottomed at 72.45"),
    ("traded as high as 147.10", "traded as high as 73.55"),
    ("last trade 146.17", "last trade 73.08"),
    ("price: 146.17", "price: 73.08"),
    ("Close: 146.17", "Close: 73.08"),
    ("ACME @ 146.17", "ASSET001 @ 73.08"),
    ("market value 146.17", "market value 73.08"),
    ("NAV of 146.17", "NAV of 73.08"),
    ("the 200-day moving average of 140.5", "the 200-day moving average of 70.25"),
    ("down 2.10, or 1.4%, to 146.17", "down 1.05, or 1.4%, to 73.08"),
    ("146.17 US dollars", "73.08 US dollars"),
    ("CA$146.17", "CA$73.08"),
    ("146.17$US", "73.08$US"),
]


@pytest.mark.parametrize(("text", "shown"), FOUND_UNSCALED)
def test_a_price_the_review_found_unscaled_is_scaled(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize(("text", "shown"), FOUND_UNSCALED)
def test_a_price_the_review_found_unscaled_is_marked_about_two_names(text: str, shown: str) -> None:
    marked = re.sub(r"\d[\d,]*\.\d\d(?![\d%])|70\.25", "[amount]", shown)
    assert _every_route(text, ["ACME", "BOLT"]) == marked


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ACME @ 146.17 and BOLT @ 20.30", "ASSET001 @ 73.08 and ASSET002 @ 40.60"),
        ("AU$146.17, 146.17$USD", "AU$73.08, 73.08$USD"),
        ("Close: 146.17 High: 147.10 Low: 144.90", "Close: 73.08 High: 73.55 Low: 72.45"),
    ],
)
def test_those_forms_together_and_beside_another_name(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    "text",
    [
        "P/E of 23.45, P/E 23.45, PE 23.45, ROE: 15.20, GDP 2.10",
        "rose 3.5%, rose 3.50%, up 1.20 percent, 3.50-4.00%",
        "2,000 employees, 2,000.50 points, up 12 points",
        "ACME 3 analysts, closed 3 stores, reached 3 deals, last 12 months",
        "fell 2 to 146 stores",  # a move with no cents is a count as often as a price
        "between 10.15-10.30 a.m.",
        "146.17 $US",  # a sign apart from the figure may be a ticker's ($US)
    ],
)
def test_ratios_percentages_counts_and_times_stay_as_written(text: str) -> None:
    named = text.replace("ACME", "ASSET001")
    assert _every_route(text, ["ACME"]) == named


# a figure is not read as a price by its shape alone: each of these is written as a quote
# may be, and none is one (scaling some of a quote's figures and not the others would
# give the factor away as surely as scaling none)
@pytest.mark.parametrize(
    "text",
    [
        "FTSE 6,100.20, VIX 15.30, SOFR 5.30, WTI 45.20",
        "CEO 52.30 years old, COVID 19.50, US 10.30",
        "ACME sold 1,234.50 tons of steel",
        "Opening hours 09.30-17.30, scores 6.50-7.25, odds 2.50/1.80/3.20",
        "unemployment fell 0.20 to 4.90, the ratio fell 0.20 to 1.10",
        "ACME traded 146.17 to 150.37, target raised 150.00 to 160.00",
        "OHLC: 145.20, 147.10, 144.90, 146.17",
    ],
)
def test_a_figure_is_not_a_price_by_its_shape(text: str) -> None:
    assert _every_route(text, ["ACME"]) == text.replace("ACME", "ASSET001")


def test_a_year_stays_a_date_after_a_ticker() -> None:
    assert _every_route("in 2016, ACME 2016", ["ACME"]) == "in [date], ASSET001 [date]"


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("then 146.17$, bid 146.10", "then [amount]$, bid [amount]"),
        ("The stock (146.17), 150 strike", "The stock ([amount]), [amount] strike"),
    ],
)
def test_those_prices_in_an_item_about_two_names_are_marked(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME", "BOLT"]) == shown


@pytest.mark.parametrize(
    "text",
    [
        "around 500 jobs, near 12 stores",  # a count, not a price: two decimals are needed
        "forbid 12 and task 3",  # a phrase's word inside another word
        "heated to (12) and (3.5)",
        "12 $ACME and 12 $BOLT",
        "calls 150, strike 3 of them, 150c, made 3 calls to investors, 2 puts",
    ],
)
def test_ordinary_numbers_near_those_forms_are_left_as_written(text: str) -> None:
    named = text.replace("$ACME", "ASSET001").replace("$BOLT", "ASSET002")
    assert _every_route(text, ["ACME"]) == named


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("C$146.17, A$146.17, HK$146.17", "C$73.08, A$73.08, HK$73.08"),
        ("NZ$146.17, R$146.17, S$146.17", "NZ$73.08, R$73.08, S$73.08"),
        ("¥15,000, JPY 15,000, 15,000 yen", "¥7,500.00, JPY 7,500.00, 7,500.00 yen"),
        (
            "Rs. 1,200, Rs 1,200, Rs1,200, 1,200 rupees",
            "Rs. 600.00, Rs 600.00, Rs 600.00, 600.00 rupees",
        ),
        ("₹1,200 and INR 1,200", "₹600.00 and INR 600.00"),
        ("£12, 146 pence, GBP 12", "£6.00, 73.00 pence, GBP 6.00"),
        ("€45.10, 45.10 euros, EUR 45.10, 45,10 €", "€22.55, 22.55 euros, EUR 22.55, 22,55 €"),
        ("CHF12, SFr. 12, 12 francs", "CHF 6.00, SFr. 6.00, 6.00 francs"),
        ("kr 12, 12 kr, SEK 12, 12,50 kr", "kr 6.00, 6.00 kr, SEK 6.00, 6,25 kr"),
        ("zł 12 and 12 zł, PLN 12", "zł 6.00 and 6.00 zł, PLN 6.00"),
        ("14617 cents, 146.17 bucks", "7,308.50 cents, 73.08 bucks"),
    ],
)
def test_money_in_any_currency_is_scaled_by_the_names_factor(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


def test_money_in_another_currency_about_two_names_is_marked() -> None:
    text = "C$146.17, Rs. 1,200, 12 kr, zł 12"
    assert (
        _every_route(text, ["ACME", "BOLT"]) == "C$[amount], Rs. [amount], [amount] kr, zł [amount]"
    )


@pytest.mark.parametrize(
    "text",
    [
        "1080p video at 720p",  # a glued p is a resolution or a page as often as pence
        "Crs 12, Krona-like, ars 3, us 4",
    ],
)
def test_what_only_looks_like_a_currency_is_left_as_written(text: str) -> None:
    assert _every_route(text, ["ACME"]) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Fell from 150.37 to 146.17", "Fell from 75.19 to 73.08"),
        (
            "traded between 140 and 150, up from 45,50 to 46,10",
            "traded between 70.00 and 75.00, up from 22,75 to 23,05",
        ),
        (
            "then from 146.10 to 146.20, between 146.10 and 146.20",
            "then from 73.05 to 73.10, between 73.05 and 73.10",
        ),
        ("from $150 to 160, $150-$160, $12-15", "from $75.00 to 80.00, $75.00-$80.00, $6.00-7.50"),
        ("from $5 to 10 million", "from $2.50 to 5.00 million"),
        (
            "between $140 and 150, between €140 and €150",
            "between $70.00 and 75.00, between €70.00 and €75.00",
        ),
    ],
)
def test_both_figures_of_a_range_are_scaled(text: str, shown: str) -> None:
    """Scaling one figure of a range alone would give away the real ratio."""
    assert _every_route(text, ["ACME"]) == shown


def test_a_range_about_two_names_is_marked_whole() -> None:
    text = "Fell from 150.37 to 146.17 and from $150 to 160"
    shown = "Fell from [amount] to [amount] and from $[amount] to [amount]"
    assert _every_route(text, ["ACME", "BOLT"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("rose from 3% to 5%", "rose from 3% to 5%"),
        ("from 2 to 3 stores", "from 2 to 3 stores"),
        ("between 10 and 20 jobs", "between 10 and 20 jobs"),
        ("$150-2016 plan", "$75.00-[date] plan"),
        ("closed at 146 and 3 analysts", "closed at 73.00 and 3 analysts"),
        ("$150 and 3 analysts", "$75.00 and 3 analysts"),
    ],
)
def test_counts_and_years_after_a_range_word_are_not_prices(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Acme closed at $146.17 while rival Bolt Systems closed at $20.30.",
            "ASSET001 closed at $73.08 while rival ASSET002 closed at $40.60.",
        ),
        (
            "Bolt Systems fell to 20.30; Acme hit 146.17, BOLT from 20.10 to 20.30.",
            "ASSET002 fell to 40.60; ASSET001 hit 73.08, ASSET002 from 40.20 to 40.60.",
        ),
        # a sentence's end: the price after it is the item's again
        ("Bolt Systems slid. It closed at 146.17", "ASSET002 slid. It closed at 73.08"),
        ("Bolt Systems slid\nclosed at 146.17", "ASSET002 slid\nclosed at 73.08"),
        ("Shares at 146.17, says Bolt Systems", "Shares at 73.08, says ASSET002"),
        # not ASCII: the pattern alone reads it
        (
            "Bolt Systems’ stock (20.30), Acme’s (146.17)",
            "ASSET002’ stock (40.60), ASSET001’s (73.08)",
        ),
    ],
)
def test_a_price_is_scaled_by_the_factor_of_the_name_it_follows(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


def test_the_name_before_a_price_decides_in_an_item_about_either_name() -> None:
    text = "Acme at $146.17 and Bolt Systems at $20.30"
    shown = "ASSET001 at $73.08 and ASSET002 at $40.60"
    assert _every_route(text, ["ACME"]) == _every_route(text, ["BOLT"]) == shown
    assert _every_route(text, ["ACME", "BOLT"]) == "ASSET001 at $[amount] and ASSET002 at $[amount]"


def test_in_a_counterfactual_path_every_price_is_marked() -> None:
    mask = TextMask(
        aliases=MASK.aliases,
        price_factor=MASK.price_factor,
        dates=MASK.dates,
        warmup_days=20,
        names=MASK.names,
        counterfactual=True,
    )
    text = "Acme at $146.17 and Bolt Systems at $20.30"
    assert mask.text(text, ["ACME"]) == mask.text_by_pattern(text, ["ACME"])
    assert mask.text(text, ["ACME"]) == "ASSET001 at $[amount] and ASSET002 at $[amount]"


# pieces of the price forms above, joined by every kind of gap, for the routes to agree on
PIECES = (
    *("146.17", "150", "1,234.50", "45,10", "12", "2016", "146.17$", "$", "€", "USD", "(", ")"),
    *("last at", "settled at", "shares at", "stands at", "around", "near", "bid", "ask"),
    *("VWAP", "per share", "/share", "a share", "dollars", "calls", "puts", "strike", "C", "P"),
    *("Jan", "March", "Sept"),
    *("price was", "down to", "from", "to", "Acme", "ACME", "Bolt Systems", "$ACME", "x"),
    *("C$", "HK$", "Rs.", "Rs", "SFr.", "kr", "zł", "¥", "₹", "£", "JPY", "SEK", "yen", "pence"),
    *("stock (1,146.17)", "x (12.50)", "traded between 1,140 and", "1,500C", "1,234$"),
    *("Bolt Systems", "BOLT", "$BOLT", "Acme Industries", "é", "İ", "’s", "NYSE:BOLT"),
    *("rupees", "euros", "cents", "1200p", "between", "and", "-", "traded between", "million"),
    *("up", "down", "vs", "(+", "(-", "falls to", "EPS", "146-1/4", "4 p.m.", "to close at"),
    *("closed", "shares were", "as high as", "reached", "last trade", "Close:", "ACME:", "@"),
    *("ACME last", "145.20/147.10", "(-1.2%)", "146.17-150.37", "NAV of", "moving average of"),
    *("fell 2.10 to", "US dollars", "CA$", "$US", "P/E", "PE", "ROE:", "points", "1,461.70"),
)
GAPS = ("", " ", "  ", ".", ",", "/", "(", ")", "\n", ";", "$", "%", ". ", "\0")


@st.composite
def price_texts(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=10))
    gaps = draw(st.lists(st.sampled_from(GAPS), min_size=len(pieces), max_size=len(pieces)))
    return "".join(p + g for p, g in zip(pieces, gaps, strict=True))


ABOUT = st.sampled_from([["ACME"], ["BOLT"], ["ACME", "BOLT"], []])


@given(text=price_texts(), about=ABOUT)
def test_the_routes_write_prices_alike(text: str, about: list[str]) -> None:
    _every_route(text, about)


@given(items=st.lists(st.tuples(price_texts(), ABOUT), min_size=1, max_size=6))
def test_texts_masked_together_write_prices_as_each_alone(
    items: list[tuple[str, list[str]]],
) -> None:
    """Texts of several price factors masked in one pass (``texts``), each price by the
    factor of its own text and its own names, as the pattern writes each alone."""
    together = MASK.texts(items)
    assert together == [MASK.text_by_pattern(text, about) for text, about in items]


@given(text=price_texts())
def test_at_a_digit_the_parts_left_out_cannot_match_there(text: str) -> None:
    """The parts ``textspans`` tries at a run of digits match what every part that can
    start with a digit matches there."""
    for at in (k for k, c in enumerate(text) if c.isdigit() and not text[k - 1 : k].isdigit()):
        every = _BARE.match_at[text[at]](text, at)  # type: ignore[attr-defined]
        chosen = _DIGIT_PARTS.digit_forms[_around(text, at)]
        found = None if chosen is None else chosen(text, at)
        assert (None if every is None else every.span()) == (found and found.span()), text


def _around(text: str, at: int) -> tuple[int, str, bool, bool]:
    """What stands around the run of digits at ``at``, read from the text itself."""
    run = re.match(r"\d+", text[at:])
    assert run is not None
    stop = at + run.end()
    length = run.end() if run.end() in (1, 2, 4, 8) else 0
    before = text[:at]
    word = bool(before) and (before[-1].isalnum() or before[-1] == "_")
    last = before[:-1].split()[-1].lower() if before.endswith(" ") and before[:-1].split() else ""
    phrase = (
        before.endswith(" ")
        and not before[:-1][-1:].isspace()
        and any(last.endswith(e[::-1]) for e in PHRASE_ENDS)
    )
    return length, text[stop] if stop < len(text) else "", word, phrase


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("$1" + ",000" * 21 + " USD 146.17", "$1" + ",000" * 21 + " USD 73.08"),
        ("1" + ",000" * 21 + " dollars and $146.17", "1" + ",000" * 21 + " dollars and $73.08"),
        ("1" + ".000" * 21 + ",50 € and 146,17 €", "1" + ".000" * 21 + ",50 € and 73,08 €"),
        ("1" + " 000" * 21 + ",50 € and 146,17 €", "1" + " 000" * 21 + ",50 € and 73,08 €"),
        ("12,3" * 50 + " dollars", "12,3" * 50 + " dollars"),
        ("1.2.3.4 dollars, 1,2,3 shares, 1.2.3/share",) * 2,
        ("$1,000,000 and 146.17 dollars", "$500,000.00 and 73.08 dollars"),
    ],
)
def test_a_number_is_read_from_its_first_digit_or_left_whole(text: str, shown: str) -> None:
    """A part is tried at each run of digits, so reading on from each to the end of a long
    run ("12,3" written thousands of times) would cost the square of its length; an amount
    starts at a number's first digit alone, and a number of more than 20 groups of
    thousands is no amount: it is left whole, not cut with its tail read as one (which
    took the next price's currency and left that price unscaled)."""
    assert _every_route(text, ["ACME"]) == shown
    assert MASK.text_by_pattern(text, ["ACME"]) == shown


@pytest.mark.parametrize("unit", ["1.", "12,3", "12.3", "1 ", "12 ", "1.2", "12,34", "1,2 shares "])
def test_a_long_run_of_figures_is_read_alike_by_every_route(unit: str) -> None:
    text = unit * 300
    assert _every_route(text, ["ACME"]) == MASK.text_by_pattern(text, ["ACME"])


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("from €30,21 to 31,50", "from €15,11 to 15,75"),
        ("€30,21-31,50", "€15,11-15,75"),
        ("$30,21 to 31,50", "$15,11 to 15,75"),
        ("between €30,21 and 31,50", "between €15,11 and 15,75"),
        ("€ 1.234,50 - 1.300,00", "€617,25 - 650,00"),
        ("€ 45,50-4 mars 2016, € 45,50-2016年3月4日", "€22,75-day 24, €22,75-day 24"),
        ("€ 1 234,50 to 1 300,00", "€617,25 to 650,00"),
    ],
)
def test_both_figures_of_a_range_with_a_decimal_comma_are_scaled(text: str, shown: str) -> None:
    """Its second figure left as written beside the first scaled gives the factor away."""
    assert _every_route(text, ["ACME"]) == shown
    assert _every_route(text, ["ACME", "BOLT"]).count("[amount]") == 2


@pytest.mark.parametrize("space", [" ", "\u2009", "\u202f", "\xa0"])
def test_money_whose_thousands_are_spaces_is_left_whole(space: str) -> None:
    """Money read as $21 in "$21 900" left its thousands beside it as written ("$31.84 900")."""
    text = f"paid $21{space}900 and $150"
    assert _every_route(text, ["ACME"]) == "paid $21 900 and $75.00"
