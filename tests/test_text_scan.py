"""The mask's fast path (``textscan``) writes exactly what its pattern alone writes."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.engine.textmask import TextMask
from workbench.engine.textscan import scannable

DATES = [str(d.date()) for d in pd.bdate_range("2016-01-04", periods=300)]
FEW = TextMask(
    aliases={"ACME": "ASSET001", "BOLT": "ASSET002", "IT": "ASSET003", "ON": "ASSET004"},
    price_factor={"ACME": 0.5, "BOLT": 2.0, "IT": 3.0, "ON": 1.5},
    dates=DATES,
    warmup_days=20,
    names={
        "ACME": ("Acme Industries", "Acme"),
        "BOLT": ("Élan Bolt Systems",),
        "IT": ("3D Info Tech",),
        "ON": ("İnci Holding", "Straße AG"),
    },
)
# more first words than are looked for one by one: the text's words are read instead
MANY = TextMask(
    aliases={**FEW.aliases, **{f"Z{i:03d}": f"ASSET{100 + i}" for i in range(30)}},
    price_factor={**FEW.price_factor, **{f"Z{i:03d}": 1.25 for i in range(30)}},
    dates=DATES,
    warmup_days=20,
    names={**FEW.names, **{f"Z{i:03d}": (f"Zeta{i} Holdings",) for i in range(30)}},
)
# names all in ASCII, and few: a text in ASCII is masked with every name at once
PLAIN = TextMask(
    aliases=FEW.aliases,
    price_factor=FEW.price_factor,
    dates=DATES,
    warmup_days=20,
    names={"ACME": ("Acme Industries", "Acme"), "BOLT": ("Bolt Systems",), "IT": ("3D Info Tech",)},
)

FRAGMENTS = (
    *("ACME", "acme", "Acme", "$ACME", "NYSE:ACME", "nasdaq:BOLT", "ACMEX", "BOLT", "IT", "$IT"),
    *("ON", "on", "NYSE:ON", "Acme Industries", "ACME INDUSTRIES", "acme industries", "Z001"),
    *("Élan Bolt Systems", "élan bolt systems", "3D Info Tech", "3d info tech", "Zeta7 Holdings"),
    *("İnci Holding", "inci holding", "INCI HOLDING", "Straße AG", "STRASSE AG", "ıt", "İT"),
    *("2016-02-03", "2016-02-03T09:30:00Z", "2016-02-31", "March 4, 2016", "Mar 4 2016"),
    *("4 March 2016", "4-Mar-2016", "Sept. 5, 2016", "sep 5 2016", "ſep 5, 2016", "Feb 3"),
    *("4th March", "3rd of May", "May", "may", "02/03/2016", "3.2.16", "20160203", "FY2016"),
    *("fy16", "CY16", "2016Q1", "Q1 FY16", "H1'16", "1Q16", "2016", "1999", "March 2016"),
    *("$12.50", "US$ 50", "€45.10", "£12", "¥300", "USD 12.50", "eur 3", "GBP 12", "jpy 300"),
    *("45 dollars", "2016/02/03", "2016.02.03", "2016/02-03", "Sept. 3, 2015", "Sept 3 2015"),
    *("sept 3", "Sept", "up 3.5% to 175.72", "3 percent at 12", "USD12.5", "CHF 12", "chf12"),
    *("12.5 USD", "3.4 bn dollars", "$3.4 billion", "$1.2k", "1,234,567", "1,234.50"),
    *("1,864,600 shares", "volume 1.86M", "Volume of 2,000", "VOLUME OF 12", "of 12"),
    *("closed at 123.45", "closed at 12.5%", "up from 120", "rose to 3 percent", "fell to 7x"),
    *("traded at 45 times", "opened at 1,2345", "ＡＣＭＥ", "＄１２", "２０１６-０２-０３", "٣٤"),
    *("K", "Kelvin", "ſ", "naïve", "’s", "—", "(", ")", "'", "the", "said", "a", "Marg"),
    *("52-week high 999.99", "week low 3", "a high of 120.5", "target price 150", "price target"),
    *("4 mars 2016", "1er MAI 2016", "FÉVRIER 2016", "août", "2016年3月4日", "年", "3月"),
    *("アクメは2016年3月4日に", "決算2016年3月期", "2016年", "12016年", "x1999年12月"),
    *("45,50 €", "1.234,50 EUR", "€ 45,50", "eur 3,5", "3,4 and 5", "12,5 euros", "2016,50 $"),
    *("1 234,50 €", "closed at 1 234,50", "12 345 678,90 EUR", "top 10 45,50 €"),
    *("2016-3-4", "2016-03", "2016/3", "report_2016-03-04.pdf", "x2016-03-04", "2016-03-04_v2"),
    *("4 avr. 2016", "fevrier 2016", "1er févr. 2016", "DÉC. 2016", "3月4日", "12月31日"),
    *("平成28年3月4日", "令和元年5月1日", "平成31年5月1日", "昭和64年", "price target of 150"),
    *("52-week high: 999.99", "closing price 123.45", "hit 123.45", "hit 3", "₹1,200"),
    *("₩ 50000", "45,50 ₹", "target price: 12", "Bolt Systems", "BOLT SYSTEMS", "bolt"),
    *("AcmeIndustries", "Acme_Industries", "acme-industries.com", "ir@acme.com", "ACMEs"),
    *("Acmes", "ACME’s", "www.", ".com", "https://", "@", "ACME.N", "#ACME", "ＡｃｍｅＩｎｄ"),
    *("BoltSystems", "bolt_systems", "BOLTs", "ITs", "it.com", "Acme  Industries", "s"),
    *("05JAN2016", "05-JAN-16", "5-Jan-16", "Jan-05-2016", "Dec-16", "2016–01–05", "‐", "–"),
    *("2016—01—05", "2016‑01‑05", "2016-13-01", "30-FEB-16", "12mar16", "3D", "10am", "—"),
    *("5²", "½", "Ⅳ", "①", "𝐀𝐂𝐌𝐄", "ﬁ", "㍻28年3月4日", "\u3000", "1999-12-31", "2030-01-01"),
    *("$acme", "nyse:acme", "/ACME", "x.acme", "BRK-B", "BRK.B", "brk/b"),
    *("01-05-2016", "1–5–16", "Jan. 5, '16", "5 Jan ’16", "Dec. '16", "'16", "’16", "‘16", "'15.5"),
    *("2015/16", "Acme\r\nIndustries", "Acme \n Industries", "Acme&nbsp;Industries", "&amp;"),
    *("&#65;CME", "&copy", "ACMEʼs", "Acme Industriesʼ", "‘"),
)
SEPARATORS = ("", " ", " ", ", ", "-", ".", "\n", "$", ":", "/", "'", "\u00a0")


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=12))
    gaps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
    return "".join(p + g for p, g in zip(parts, gaps, strict=True))


ABOUT = st.sampled_from([["ACME"], ["BOLT"], ["IT"], ["ACME", "BOLT"], []])


@given(text=texts(), symbols=ABOUT)
def test_the_fast_path_writes_what_the_pattern_writes(text: str, symbols: list[str]) -> None:
    for mask in (FEW, MANY, PLAIN):
        assert mask.text(text, symbols) == mask.text_by_pattern(text, symbols)
        assert mask.texts([(text, symbols)]) == [mask.text_by_pattern(text, symbols)]


def test_every_fragment_after_every_separator_is_masked_alike() -> None:
    for fragment in FRAGMENTS:
        for gap in SEPARATORS:
            text = f"x{gap}{fragment}{gap}{fragment}."
            for mask, symbols in ((FEW, ["ACME"]), (MANY, ["ACME", "BOLT"]), (FEW, [])):
                assert mask.text(text, symbols) == mask.text_by_pattern(text, symbols), text
            assert PLAIN.texts([(text, ["ACME"]), (text, [])]) == [
                PLAIN.text_by_pattern(text, about) for about in (["ACME"], [])
            ], text


@given(text=st.text(alphabet=st.sampled_from("aAcCeEmMsS1$:. İıſK\u212a0-,%"), max_size=40))
def test_any_text_of_the_tricky_characters_is_masked_alike(text: str) -> None:
    assert FEW.text(text, ["ACME"]) == FEW.text_by_pattern(text, ["ACME"])


def test_generated_news_bodies_are_masked_alike() -> None:
    """Bodies like the bench's, many numbers each: the two paths agree on every one."""
    rng = np.random.default_rng(7)
    for _ in range(400):
        price, volume = rng.uniform(1, 900), int(rng.integers(1_000, 9_000_000))
        day = pd.Timestamp("2016-01-04") + pd.Timedelta(days=int(rng.integers(0, 500)))
        body = (
            f"Shares of ACME closed at ${price:.2f} on {day:%B} {day.day}, {day.year}, Acme "
            f"Industries said; volume reached {volume:,} shares ({day:%Y-%m-%d}, Q{day.quarter})."
        )
        symbols = [["ACME"], ["ACME", "BOLT"]][int(rng.integers(2))]
        assert FEW.text(body, symbols) == FEW.text_by_pattern(body, symbols)


@pytest.mark.parametrize(
    ("text", "fast"),
    [
        ("ACME on 2016-02-03", True),
        ("naïve ＡＣＭＥ", True),
        ("İnci Holding", False),
        ("ıt", False),
    ],
)
def test_text_holding_i_with_a_dot_or_dotless_is_left_to_the_pattern(text: str, fast: bool) -> None:
    """İ and ı match i whatever the case; the starts spell letters in their ASCII cases."""
    assert scannable(text) is fast


@given(
    items=st.lists(
        st.tuples(st.one_of(texts(), st.sampled_from(("a\0b $12", "\0", "ıt ACME $3"))), ABOUT),
        min_size=1,
        max_size=8,
    )
)
def test_texts_masked_together_are_masked_as_each_alone(items: list[tuple[str, list[str]]]) -> None:
    """One pass over many texts (joined, grouped by pattern and price factor) writes what
    the long way writes for each, whatever the texts around it."""
    for mask in (FEW, MANY, PLAIN):
        together = mask.texts(items)
        assert together == [mask.text_by_pattern(text, about) for text, about in items]


def test_generated_news_masked_in_blocks_as_each_alone() -> None:
    """Bodies like the bench's, about one name, two or none, masked twenty at a time."""
    rng = np.random.default_rng(11)
    items = []
    for k in range(300):
        price, volume = rng.uniform(1, 900), int(rng.integers(1_000, 9_000_000))
        day = pd.Timestamp("2016-01-04") + pd.Timedelta(days=int(rng.integers(0, 500)))
        name = ("ACME", "Acme Industries", "BOLT", "Élan Bolt Systems", "3D Info Tech")[k % 5]
        body = (
            f"{name} closed at ${price:.2f} on {day:%B} {day.day}, {day.year}; volume "
            f"{volume:,} shares, {volume // 7} CHF, up {price / 9:.1f}% to {price:.1f} "
            f"(NYSE:{name}, {day:%d %b %Y}, update {k})"
        )
        items.append((body, [["ACME"], ["BOLT"], ["IT"], ["ACME", "BOLT"], []][k % 5]))
    for start in range(0, len(items), 20):
        block = items[start : start + 20]
        for mask in (FEW, PLAIN):
            assert mask.texts(block) == [mask.text_by_pattern(t, about) for t, about in block]


_IN_A_PROCESS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from test_text_scan import FEW, MANY, FRAGMENTS, SEPARATORS
items = [(f"{a}{g}{b} {c}", about) for a, b, c, g, about in json.loads(sys.stdin.read())]
print(json.dumps([FEW.texts(items), MANY.texts(items)]))
"""


def test_texts_masked_together_alike_across_processes() -> None:
    """Another process, another string hash seed: the same texts come out."""
    rng = np.random.default_rng(5)
    about = [["ACME"], ["BOLT"], ["ACME", "BOLT"], []]
    rows = [
        [*(FRAGMENTS[int(k)] for k in rng.integers(len(FRAGMENTS), size=3)),
         SEPARATORS[int(rng.integers(len(SEPARATORS)))], about[int(rng.integers(4))]]
        for _ in range(300)
    ]  # fmt: skip
    outputs = []
    for seed in ("1", "2"):
        done = subprocess.run(
            [sys.executable, "-c", _IN_A_PROCESS, os.path.dirname(__file__)],
            input=json.dumps(rows),
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        )
        outputs.append(json.loads(done.stdout))
    items = [(f"{a}{g}{b} {c}", who) for a, b, c, g, who in rows]
    assert outputs[0] == outputs[1] == [FEW.texts(items), MANY.texts(items)]


def test_a_text_met_again_is_masked_by_its_own_price_factor() -> None:
    """Texts are masked once a run, by their text and price factor: the same text about
    another name is scaled by that name's factor, the same text again comes out alike."""
    mask = TextMask(FEW.aliases, FEW.price_factor, DATES, 20, FEW.names)
    text = "closed at $12.00 on 2016-02-03, ACME said"  # no name before the price
    first = mask.texts([(text, ["ACME"]), (text, ["BOLT"]), (text, ["ACME"])])
    again = mask.texts([(text, ["BOLT"]), (text, [])])
    expected = [FEW.text_by_pattern(text, about) for about in (["ACME"], ["BOLT"], ["ACME"])]
    assert first == expected and first[0] != first[1]
    assert again == [expected[1], FEW.text_by_pattern(text, [])]


def test_the_texts_kept_for_the_run_add_no_object_the_collector_tracks() -> None:
    """A run keeps every text it masked, by price factor and text: no pair per text,
    which the collector would track as a new object each until it passes (and it passes
    over every object the run holds the more often, the more new ones it tracks)."""
    mask = TextMask(FEW.aliases, FEW.price_factor, DATES, 20, FEW.names)
    words = ["".join(chr(97 + int(d)) for d in str(k)) for k in range(400)]
    texts = [(f"ACME rose on word {w}, BOLT said", ["ACME"]) for w in words]
    mask.texts(texts[:200])  # the patterns built, the names' aliases learnt
    enabled = gc.isenabled()
    gc.disable()
    try:
        before = len(gc.get_objects())
        mask.texts(texts[200:])
        added = len(gc.get_objects()) - before
    finally:
        if enabled:
            gc.enable()
    assert added < 20, added  # 200 texts kept
