"""The leak report reads a word of an alphabet with combining marks (a Devanagari vowel
sign, an Arabic vowel) whole, so it lists the product, not a piece of it."""

from __future__ import annotations

import pytest
from test_text_leaks import BARS, planted_news

from workbench.engine.historical import Historical
from workbench.evaluation.leaktokens import item_words, tokens
from workbench.evaluation.textleaks import leak_report

pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")


def read(text: str) -> set[str]:
    return {token for word in item_words(text) for token, _ in tokens(word)}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("कंपनी ने रोडरनर की बिक्री बढ़ाई", {"कंपनी", "रोडरनर", "बिक्री", "बढ़ाई"}),
        ("شَرِكَة رودرنر تُعلن", {"شَرِكَة", "رودرنر", "تُعلن"}),
        ("שָׁלוֹם עוֹלָם", {"שָׁלוֹם", "עוֹלָם"}),
    ],
)
def test_a_word_with_combining_marks_is_one_token(text: str, words: set[str]) -> None:
    assert read(text) == words


@pytest.mark.parametrize("product", ["रोडरनर", "رودرنر"])
def test_a_product_written_with_vowel_signs_is_found_whole(product: str) -> None:
    news = planted_news()
    named = news["headline"].str.contains("Zephyrix")
    news.loc[named, "headline"] = news.loc[named, "headline"].str.replace("Zephyrix", product)
    table = leak_report(Historical.load(BARS, news=news, secret="leak-secret-0123456789"))
    assert table["token"].tolist() == [product]
    assert (table.iloc[0]["symbol"], table.iloc[0]["with_name"]) == ("ACME", 12)


def test_a_thai_sentence_is_read_in_pairs_of_letters_with_their_marks() -> None:
    pairs = read("เปิดตัวโรดรันเนอร์ใหม่")
    assert {"ตัว", "รัน", "ปิด", "อร์"} <= pairs
    assert not [p for p in pairs if "\u0e31" <= p[0] <= "\u0e3a" or "\u0e47" <= p[0] <= "\u0e4e"]
