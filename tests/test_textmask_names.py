"""Names glued, decorated or in the plural are masked as the name; prose stays as written."""

from __future__ import annotations

import pandas as pd
import pytest
from mask_routes import every_route, text_mask

from workbench.engine.textmask import TextMask
from workbench.engine.textnames import names_map
from workbench.errors import ConfigError

MASK = text_mask(
    aliases={"ACME": "ASSET001", "BOLT": "ASSET002", "BRK.B": "ASSET003", "IT": "ASSET004"},
    price_factor={"ACME": 0.5, "BOLT": 2.0, "BRK.B": 1.0, "IT": 1.0},
    names={"ACME": ("Acme Industries",), "BOLT": ("Bolt Systems", "Bolt")},
)


def _every_route(text: str) -> str:
    return every_route(MASK, text, ["ACME"])


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("AcmeIndustries and Acme_Industries", "ASSET001 and ASSET001"),
        ("Acme-Industries, ACME INDUSTRIES", "ASSET001, ASSET001"),
        ("www.acmeindustries.com, acme-industries.com", "www.ASSET001.com, ASSET001.com"),
        ("https://acme.com/ir and ir@acme.com", "https://ASSET001.com/ir and ir@ASSET001.com"),
        ("ACMEs fell; ACME's and ACME’s plan", "ASSET001s fell; ASSET001's and ASSET001’s plan"),
        ("ACME.N, ACME.O, #ACME", "ASSET001.N, ASSET001.O, #ASSET001"),
        ("$acme, NASDAQ:acme and $it", "ASSET001, ASSET001 and ASSET004"),  # any case there
        ("BRK-B, BRK.B, BRK/B, $BRK/B, NYSE:BRK-B", "ASSET003, " * 4 + "ASSET003"),
        ("ＡＣＭＥ and ＡｃｍｅＩｎｄｕｓｔｒｉｅｓ", "ASSET001 and ASSET001"),
    ],
)
def test_a_name_glued_or_decorated_is_masked(text: str, shown: str) -> None:
    assert _every_route(text) == shown


@pytest.mark.parametrize(
    "text",
    [
        "Bolts and bolts held; the bolt",  # a name that is a word: a plural in prose
        "Its ITs, It said; BRK and BRKB",  # a ticker that reads as a word; no share class
        "acmes and Acmes",  # a plural is a ticker's, written in capitals
    ],
)
def test_prose_near_a_name_stays_as_written(text: str) -> None:
    kept = {"Bolts and bolts held; the bolt": "Bolts and bolts held; the ASSET002"}
    assert _every_route(text) == kept.get(text, text)


def test_a_ticker_written_with_another_share_class_mark_in_the_bars() -> None:
    mask = TextMask(
        aliases={"BRK-B": "ASSET001"},
        price_factor={"BRK-B": 1.0},
        dates=list(MASK.dates),
        warmup_days=20,
    )
    text = "BRK.B and BRK/B and BRK-B"
    assert mask.text(text, []) == mask.text_by_pattern(text, []) == "ASSET001 and " * 2 + "ASSET001"


def test_a_name_two_symbols_claim_joined_differently_is_refused() -> None:
    bars = pd.DataFrame({"symbol": ["ACME", "BOLT"], "date": ["2016-01-04"] * 2})
    with pytest.raises(ConfigError, match=r"'Acme_Corp' to both 'ACME' and 'BOLT'"):
        names_map({"ACME": ["Acme Corp"], "BOLT": ["Acme_Corp"]}, bars)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("ＡＣＭＥ, 𝐀𝐂𝐌𝐄 and ＡｃｍｅＩｎｄｕｓｔｒｉｅｓ", "ASSET001, ASSET001 and ASSET001"),
        ("Acme\u00a0Industries and Acme\u3000Industries", "ASSET001 and ASSET001"),
        ("the ﬁnance unit of ＡＣＭＥ", "the finance unit of ASSET001"),
    ],
)
def test_compatibility_forms_of_a_name_are_read_as_it(text: str, shown: str) -> None:
    assert _every_route(text) == shown


def test_superscripts_fractions_and_numerals_stay_as_written() -> None:
    text = "Area of 10 m², 5², CO₂, a ½ point, the Ⅳ quarter, item ① — ACME’s café"
    assert _every_route(text) == text.replace("ACME", "ASSET001")


@pytest.mark.parametrize(
    "text",
    [
        "Acme  Industries",  # two spaces
        "Acme\r\nIndustries",  # a Windows line break, as a quoted CSV body holds it
        "Acme \n Industries",
        "Acme\t \tIndustries",
        "Acme-\nIndustries",  # a line broken after a hyphen
    ],
)
def test_a_name_whose_words_any_run_of_white_space_joins_is_masked(text: str) -> None:
    assert _every_route(f"Shares of {text} rose") == "Shares of ASSET001 rose"


FEED_MASK = text_mask(
    aliases={"ACME": "ASSET001", "PG": "ASSET002", "MCD": "ASSET003"},
    price_factor={"ACME": 0.5, "PG": 2.0, "MCD": 1.0},
    names={"ACME": ("Acme Industries",), "PG": ("Procter & Gamble",), "MCD": ("McDonald's",)},
)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Procter &amp; Gamble and Acme&nbsp;Industries", "ASSET002 and ASSET001"),
        ("Procter &#38; Gamble, &#x41;CME", "ASSET002, ASSET001"),
        ("Tom &amp; Jerry &lt;3", "Tom & Jerry <3"),  # the agent reads the text decoded
        ("AT&T, R&D, &copy and &bogus; stay", "AT&T, R&D, &copy and &bogus; stay"),
        # markup escaped again by a feed
        ("Procter &amp;amp; Gamble, &amp;#65;CME", "ASSET002, ASSET001"),
        ("closed at &amp;#36;146.17", "closed at $73.08"),
    ],
)
def test_html_character_references_are_read_decoded(text: str, shown: str) -> None:
    assert every_route(FEED_MASK, text, ["ACME"]) == shown


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (
            "McDonald’s, McDonaldʼs, McDonald‘s and MCDONALD'S",
            ", ".join(["ASSET003"] * 3) + " and ASSET003",
        ),
        ("McDonald&#8217;s menu", "ASSET003 menu"),
        ("ACMEʼs plan and Acme Industriesʼ rival", "ASSET001ʼs plan and ASSET001ʼ rival"),
    ],
)
def test_any_apostrophe_reads_as_one_in_a_name_and_a_possessive(text: str, shown: str) -> None:
    assert every_route(FEED_MASK, text, ["MCD"]) == shown


def test_a_name_mapped_with_a_typographic_apostrophe_masks_the_plain_one() -> None:
    mask = text_mask({"MCD": "ASSET001"}, {"MCD": 1.0}, {"MCD": ("McDonald’s",)})
    assert every_route(mask, "McDonald's and MCDONALD’S", []) == "ASSET001 and ASSET001"


def test_a_name_two_symbols_claim_with_different_apostrophes_is_refused() -> None:
    bars = pd.DataFrame({"symbol": ["MCD", "BOLT"], "date": ["2016-01-04"] * 2})
    with pytest.raises(ConfigError, match=r"to both 'BOLT' and 'MCD'"):
        names_map({"MCD": ["McDonald's"], "BOLT": ["McDonald’s"]}, bars)
