"""Issue 27's review: prose the text mask must keep, names it must still find."""

from __future__ import annotations

import pandas as pd
import pytest
from mask_routes import every_route, text_mask

from workbench.engine.textmask import TextMask

MASK = text_mask(
    aliases={"ACME": "ASSET001", "A": "ASSET002", "ALL": "ASSET003", "THND": "ASSET004"},
    price_factor={"ACME": 0.5, "A": 1.0, "ALL": 1.0, "THND": 1.0},
    names={"ACME": ("Acme Industries",), "THND": ("Thunder Holdings Inc.",)},
)


def _every_route(text: str, mask: TextMask = MASK) -> str:
    return every_route(mask, text, ["ACME"], beside=("ACME", ["ACME"]))


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("re:acme and RE:ACME", "re:acme and RE:ASSET001"),
        ("mailto:ACME@example.com", "mailto:ASSET001@example.com"),
        ("Note:ALL of it; Series:A; Grade:A", "Note:ALL of it; Series:A; Grade:A"),
    ],
)
def test_a_word_and_a_colon_before_a_ticker_are_prose_kept_as_written(
    text: str, shown: str
) -> None:
    assert _every_route(text) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("NYSE:A, nasdaq:acme, LSE:ACME", "ASSET002, ASSET001, ASSET001"),
        ("NYSEARCA:ALL and XNYS:ACME", "ASSET003 and ASSET001"),
    ],
)
def test_an_exchange_before_a_ticker_goes_with_it(text: str, shown: str) -> None:
    assert _every_route(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Thunder Holdings said",
        "Thunder Holdings Inc. said",
        "THUNDER HOLDINGS said",
        "Thunder-Holdings said",
    ],
)
def test_a_company_name_given_with_its_legal_form_is_masked_without_it(text: str) -> None:
    assert _every_route(text) == "ASSET004 said"


def test_a_company_name_given_without_its_legal_form_is_masked_before_it() -> None:
    assert _every_route("Acme Industries, Inc. and Acme Industries Corp") == (
        "ASSET001, Inc. and ASSET001 Corp"
    )


def test_a_legal_form_stays_needed_where_one_word_remains_or_two_names_meet() -> None:
    mask = TextMask(
        aliases={"ACME": "ASSET001", "AAPL": "ASSET002", "HOLD": "ASSET003"},
        price_factor={"ACME": 1.0, "AAPL": 1.0, "HOLD": 1.0},
        dates=[str(d.date()) for d in pd.bdate_range("2016-01-04", periods=30)],
        warmup_days=5,
        names={
            "AAPL": ("Apple Inc.",),
            "ACME": ("Acme Holdings Inc.",),
            "HOLD": ("Acme Holdings Ltd",),
        },
    )
    text = "Apple Inc. sells apples; Acme Holdings Inc., Acme Holdings Ltd and Acme Holdings"
    shown = "ASSET002 sells apples; ASSET001, ASSET003 and Acme Holdings"
    assert _every_route(text, mask) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Visit acme.com or ACME.COM", "Visit ASSET001.com or ASSET001.COM"),
        ("acme.net/ir, (acme.io)", "ASSET001.net/ir, (ASSET001.io)"),
        ("my-acme.com and acme.", "my-acme.com and acme."),  # another's address; no address
    ],
)
def test_a_ticker_naming_an_address_with_no_scheme_before_it_is_masked(
    text: str, shown: str
) -> None:
    assert _every_route(text) == shown
