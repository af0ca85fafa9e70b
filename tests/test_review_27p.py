"""Review of the text mask's prices (issue 27): the forms a hostile reader found left
as written or scaled wrongly, each written as the mask's routes all write it."""

from __future__ import annotations

import pytest
from mask_routes import acme_and_bolt, every_route

MASK = acme_and_bolt()


def _every_route(text: str, about: list[str]) -> str:
    return every_route(MASK, text, about, beside=("Bolt Systems said", about))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Acme and Bolt Systems closed at $146 and $20",
            "ASSET001 and ASSET002 closed at $[amount] and $[amount]",
        ),
        (
            "Acme's rival Bolt Systems closed at $20.30",
            "ASSET001's rival ASSET002 closed at $[amount]",
        ),
        (
            "Bolt Systems buys Acme for $146.17 a share",
            "ASSET002 buys ASSET001 for $[amount] a share",
        ),
    ],
)
def test_names_of_two_factors_with_no_price_between_leave_a_price_no_factor(
    text: str, shown: str
) -> None:
    """The last name alone would give Acme's price Bolt's factor in a list."""
    assert _every_route(text, ["ACME"]) == _every_route(text, ["BOLT"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Acme closed at $146.17 while rival Bolt Systems closed at $20.30.",
            "ASSET001 closed at $73.08 while rival ASSET002 closed at $40.60.",
        ),
        ("Bolt Systems rose. Acme closed at $146.17", "ASSET002 rose. ASSET001 closed at $73.08"),
    ],
)
def test_a_price_or_a_sentence_between_two_names_keeps_each_its_factor(
    text: str, shown: str
) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("rose 3.5% to close at 146.17", "rose 3.5% to close at 73.08"),
        ("shares close at $146.17", "shares close at $73.08"),
    ],
)
def test_a_price_after_close_at_is_scaled(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    "text",
    [
        "closed at 146-1/4",  # a fraction: scaled in part it read "73.00-0.50/4"
        "closed at 146 3/8, $146-1/4",
        "markets closed at 4 p.m., closed at 4pm, closed at 4:00",  # a time of day
    ],
)
def test_a_fraction_or_a_time_is_never_scaled_in_part(text: str) -> None:
    assert _every_route(text, ["ACME"]) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "Acme shares fall to 146.17 Bolt Systems rises to 20.30",
            "ASSET001 shares fall to 73.08 ASSET002 rises to 40.60",
        ),
        ("Acme closes at 146.17, support at 140.00", "ASSET001 closes at 73.08, support at 70.00"),
        ("share price 146.17, stock price 146.17", "share price 73.08, stock price 73.08"),
        (
            "EPS of 1.46, EPS 1.46, earnings per share of 1.46",
            "EPS of 0.73, EPS 0.73, earnings per share of 0.73",
        ),
    ],
)
def test_a_headlines_present_tense_a_share_price_and_eps_are_scaled(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize("text", ["sales rise to 12%", "EPS of 3 percent", "stock price 3 times"])
def test_a_ratio_after_those_phrases_is_left_as_written(text: str) -> None:
    assert _every_route(text, ["ACME"]) == text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        # a real figure beside a scaled one gives the factor away
        ("rose to 150.37 from 146.17", "rose to 75.19 from 73.08"),
        ("closed at 146.17 vs 150.37", "closed at 73.08 vs 75.19"),
        ("closed at 146.17, up 2.10", "closed at 73.08, up 1.05"),
        ("closed at 146.17 (+2.10), then (-0.40)", "closed at 73.08 (+1.05), then (-0.20)"),
    ],
)
def test_a_second_figure_with_cents_beside_a_price_is_scaled_too(text: str, shown: str) -> None:
    assert _every_route(text, ["ACME"]) == shown


@pytest.mark.parametrize(
    "text",
    [
        "140 to 150 dollars, 140-150 USD",  # the second figure alone was scaled
        "up 3 spots, up 2.10% and up 1.50 million",  # a count, a ratio, an unknown unit
    ],
)
def test_a_range_in_a_unit_after_it_and_a_count_are_left_whole(text: str) -> None:
    assert _every_route(text, ["ACME"]) == text
