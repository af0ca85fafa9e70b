"""The leak report reads a product as one token however the feed spells it, and reads text
written without spaces in tokens of a sensible length."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest
from test_text_leaks import BARS, planted_news

from workbench.engine.historical import Historical
from workbench.evaluation.leaktokens import (
    LONGEST_KANA,
    LONGEST_RUN,
    LONGEST_WORD,
    item_words,
    stems,
    tokens,
)
from workbench.evaluation.textleaks import leak_report

pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

SECRET = "leak-secret-0123456789"
FORMS = ("Zephyrix's", "Zephyrix\u2019s", "Zephyrix-branded", "ZEPHYRIX", "zephyrixes", "Zephyrix")


def read(text: str) -> set[str]:
    return {token for word in item_words(text) for token, _ in tokens(word)}


def rewritten(write: Callable[[int], str]) -> pd.DataFrame:
    """The planted news with the k-th item naming the product written ``write(k)``."""
    news = planted_news()
    named = news.index[news["headline"].str.contains("Zephyrix")]
    for k, row in enumerate(named):
        news.loc[row, "headline"] = news.loc[row, "headline"].replace("Zephyrix", write(k))
    return news


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Roadrunner's launch", {"roadrunner", "launch"}),
        ("Roadrunner\u2019s launch", {"roadrunner", "launch"}),
        ("Roadrunner-branded kit", {"roadrunner", "branded", "kit"}),
        ("ROADRUNNER kit", {"roadrunner", "kit"}),
        ("ROADRUNNER'S kit", {"roadrunner", "kit"}),
        ("Roadrunner\u2122 kit", {"roadrunner", "kit"}),
        ("RoadrunnerTM kit, an ATM", {"roadrunner", "kit", "atm"}),  # as the mask writes ™
        ("\uff32\uff4f\uff41\uff44\uff52\uff55\uff4e\uff4e\uff45\uff52 kit", {"roadrunner", "kit"}),
        ("the analysts' view", {"analysts", "view"}),
        ("ASSET004 closed on day 3 at [amount]", {"closed"}),
    ],
)
def test_a_word_is_read_whatever_its_case_possessive_hyphen_or_width(
    text: str, expected: set[str]
) -> None:
    assert read(text) == expected


def test_a_plural_is_its_stem_only_when_the_stem_is_seen() -> None:
    folded = stems(["roadrunner", "roadrunners", "box", "boxes", "sales", "news", "glass"])
    assert folded == {"roadrunners": "roadrunner", "boxes": "box"}


def test_every_spelling_of_a_product_counts_as_one_token_shown_as_most_seen() -> None:
    """Each form alone is in too few items to stand out; together they are one product."""
    news = rewritten(lambda k: FORMS[k % len(FORMS)] if k < 10 else "Zephyrix")
    table = leak_report(Historical.load(BARS, news=news, secret=SECRET))
    assert table["token"].tolist() == ["Zephyrix"]
    row = table.iloc[0]
    assert (row["symbol"], row["with_name"], row["items"]) == ("ACME", 12, 12)
    spellings = row["spellings"].split(", ")
    assert spellings[0] == "Zephyrix" and set(spellings) == {
        "Zephyrix",
        "ZEPHYRIX",
        "zephyrixes",  # as written: the names map needs each spelling the mask should catch
    }


def test_the_most_seen_spelling_is_shown() -> None:
    news = rewritten(lambda k: "ZEPHYRIX" if k < 7 else "Zephyrix's")
    table = leak_report(Historical.load(BARS, news=news, secret=SECRET))
    assert table["token"].tolist() == ["ZEPHYRIX"]
    assert table["spellings"].tolist() == ["ZEPHYRIX, Zephyrix"]


JAPANESE = (
    "{who}はロードランナーの出荷を延期した",
    "ロードランナーの受注が好調だと{who}は述べた",
    "{who}の新製品ロードランナーは計画を上回った",
)
CHINESE = "{who}今天宣布路跑者系列产品的出货计划推迟到下个季度"


def sentences(template: Callable[[int], str]) -> pd.DataFrame:
    """Every item written without spaces: ACME's product items name its product."""
    news = planted_news()
    for k, row in enumerate(news.index):
        symbol = news.loc[row, "symbols"]
        product = "Zephyrix" in news.loc[row, "headline"]
        news.loc[row, "headline"] = template(k).format(who=symbol) if product else symbol + "は"
    return news


def test_japanese_text_is_read_in_runs_of_one_script_and_the_product_found() -> None:
    news = sentences(lambda k: JAPANESE[k % 3])
    table = leak_report(Historical.load(BARS, news=news, secret=SECRET))
    assert "ロードランナー" in set(table["token"])
    assert not any(len(token) > LONGEST_KANA for token in table["token"])
    assert not any("は" in token or "の" in token for token in table["token"])  # particles


def test_a_chinese_sentence_is_read_as_pairs_of_characters_never_whole() -> None:
    assert max(map(len, read(CHINESE.format(who="")))) == 2
    table = leak_report(Historical.load(BARS, news=sentences(lambda k: CHINESE), secret=SECRET))
    assert {"路跑", "跑者"} <= set(table["token"])
    assert table["token"].str.len().max() <= LONGEST_RUN


def test_no_token_is_longer_than_the_bound() -> None:
    long = "x" * (LONGEST_WORD + 1)
    assert read(f"{long} roadrunner") == {"roadrunner"}
    assert read("ロードランナー" * 3) == {"ロー", "ード", "ドラ", "ラン", "ンナ", "ナー", "ーロ"}
