"""The text leak report in the HTML report: the words per alias and how to extend the map."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from test_text_leaks import BARS, planted_news

from workbench import evaluate
from workbench.engine.historical import Historical
from workbench.errors import ConfigError
from workbench.evaluation.textleaks import leak_report
from workbench.report.html import render_report
from workbench.report.leaks import TITLE, leak_report_section, per_alias

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

SECRET = "leak-secret-0123456789"


@pytest.fixture(scope="module")
def data() -> Historical:
    return Historical.load(BARS, news=planted_news(), secret=SECRET)


def test_the_report_lists_the_tokens_per_alias_and_how_to_extend_the_map(
    data: Historical, tmp_path: Path
) -> None:
    table = leak_report(data)
    results = evaluate(["cash"], data=data, days=5)
    page = render_report(results, tmp_path / "r.html", leaks=table).read_text(encoding="utf-8")
    assert f">{TITLE}</h2>" in page
    alias = table.loc[table["token"] == "Zephyrix", "alias"].iloc[0]
    listed = per_alias(table)
    assert listed.loc[alias, "symbol"] == "ACME"
    assert listed.loc[alias, "tokens"] == "Zephyrix (12 of 12 items)"
    assert f">{alias}<" in page and ">Zephyrix<" in page
    assert "add it to the names map" in page and "--company-names" in page


def test_text_without_leaks_says_so_and_no_table_means_no_section(data: Historical) -> None:
    clean = Historical.load(BARS, news=planted_news(), names={"ACME": ["Zephyrix"]}, secret=SECRET)
    title, body = leak_report_section(leak_report(clean)) or ("", "")
    assert title == TITLE and "No word left in the masked text" in body
    assert leak_report_section(None) is None


def test_write_outputs_keeps_the_leak_report_beside_the_report(
    data: Historical, tmp_path: Path
) -> None:
    from workbench.report import write_outputs

    results = evaluate(["cash"], data=data, days=5)
    paths = write_outputs(results, tmp_path, leaks=leak_report(data))
    assert paths["text_leaks"].read_text(encoding="utf-8").startswith("token,alias,symbol")
    assert TITLE in paths["report"].read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("leaks", "message"),
    [
        ([1, 2], "leaks= is a table of words, got list"),
        ({"a": 1}, "leaks= is a table of words, got dict"),
        ("text_leaks.csv", "leaks= is a table of words, got str"),
        (pd.DataFrame({"x": [1]}), "leaks= lacks the column.s. token, alias, symbol"),
    ],
)
def test_a_leak_table_of_the_wrong_shape_is_refused(
    leaks: object, message: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=rf"{message}.*leaks=text_leaks\(data\)"):
        leak_report_section(leaks)  # type: ignore[arg-type]
    from workbench.report import write_outputs

    with pytest.raises(ConfigError, match=message):
        write_outputs(evaluate(["cash"], data=BARS, days=3), tmp_path, leaks=leaks)  # type: ignore[arg-type]
    assert not any(tmp_path.iterdir())  # refused before anything is written


def test_text_leaks_refuses_bars_without_news_and_a_bare_table() -> None:
    from workbench.services.evaluation import text_leaks

    with pytest.raises(ConfigError, match="no news, so there is no text to scan"):
        text_leaks(Historical.load(BARS, secret=SECRET))
    with pytest.raises(ConfigError, match="got DataFrame: pass load_bars"):
        text_leaks(BARS)  # type: ignore[arg-type]


def test_html_in_the_news_and_the_leak_table_stays_text_in_the_report(tmp_path: Path) -> None:
    from workbench.integrations import CallableAgentAdapter

    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    news = planted_news()
    news["headline"] += " " + evil
    data = Historical.load(BARS, news=news, secret=SECRET)

    def quoting(payload: dict) -> dict:  # its rationale quotes what it read
        heads = [item["headline"] for item in payload["news"]]
        return {"actions": [], "rationale": " | ".join(heads[:2]) or "nothing"}

    results = evaluate([CallableAgentAdapter(quoting, name="quoter")], data=data, days=20)
    table = leak_report(data)
    table.loc[0, ["token", "symbol"]] = ["<script>alert(2)</script>", "<b>ACME</b>"]
    page = render_report(results, tmp_path / "r.html", leaks=table).read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(2)&lt;/script&gt;" in page and "&lt;b&gt;ACME" in page
    assert "<script>alert" not in page and "<img src=x" not in page and "<b>ACME" not in page


def test_the_aliases_come_most_telling_first_each_word_with_its_items() -> None:
    table = pd.DataFrame(
        [
            ("Keystone", "ASSET002", "CRUX", 10, 10, 1.6, 1e-8, "Keystone"),
            ("Roadrunner", "ASSET006", "ACME", 10, 10, 0.7, 1e-12, "Roadrunner"),
            ("quarry", "ASSET002", "CRUX", 7, 8, 1.3, 1e-6, "quarry, Quarry"),
        ],
        columns=["token", "alias", "symbol", "with_name", "items", "expected", "p_value",
                 "spellings"],
    )  # fmt: skip
    listed = per_alias(table)
    assert listed.index.tolist() == ["ASSET006", "ASSET002"]
    assert listed.loc["ASSET002", "tokens"] == "Keystone (10 of 10 items), quarry (7 of 8 items)"
