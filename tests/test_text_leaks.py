"""The leak report finds the words left in masked text that still point at one name."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.variants import Variant
from workbench.evaluation.textleaks import leak_report, leak_section, shown_items
from workbench.evaluation.world import World
from workbench.schema import HISTORY_STEPS

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

BARS = sample_bars(days=120, names=4, seed=9)  # ACME, BOLT, CRUX, DUNE
DATES = sorted(BARS["date"].unique())
DECIDED = DATES[HISTORY_STEPS:-1]  # the dates a run decides on: each item reaches a payload
GENERIC = ("raises outlook on demand", "cuts costs as orders slow", "names new finance chief")


def planted_news(product_items: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(4)
    rows = []
    for k in range(240):
        symbol = ("ACME", "BOLT", "CRUX", "DUNE")[k % 4]
        date = DECIDED[int(rng.integers(0, len(DECIDED)))]
        headline = f"{symbol} {GENERIC[k % 3]}"
        if symbol == "ACME" and k // 4 < product_items:
            headline += " with Zephyrix"  # a product only Acme makes
        morning = pd.Timestamp(f"{date} 08:00") + pd.Timedelta(seconds=k)  # no two alike
        published = morning.tz_localize("America/New_York").isoformat()
        rows.append((published, symbol, headline, "Analysts were divided."))
    return pd.DataFrame(rows, columns=["published", "symbols", "headline", "body"])


def test_a_planted_product_name_is_found_with_its_company() -> None:
    data = Historical.load(BARS, news=planted_news(), secret="leak-secret-0123456789")
    table = leak_report(data)
    assert table["token"].tolist() == ["Zephyrix"]
    row = table.iloc[0]
    assert row["symbol"] == "ACME" and data.mapping[row["alias"]] == "ACME"
    assert row["with_name"] == row["items"] == 12 and row["p_value"] < 1e-6
    assert "Text leak report" in leak_section(table)


def test_naming_the_product_empties_the_report() -> None:
    names = {"ACME": ["Zephyrix"]}
    data = Historical.load(BARS, news=planted_news(), names=names, secret="leak-secret-0123456789")
    assert leak_report(data).empty


def test_a_product_a_rival_mentions_a_quarter_of_the_time_is_still_found() -> None:
    news = planted_news(product_items=30)
    rival = news["symbols"].eq("BOLT") & (news.index < 40)  # 10 BOLT items name it too
    news.loc[rival, "headline"] += " against Zephyrix"
    data = Historical.load(BARS, news=news, secret="leak-secret-0123456789")
    table = leak_report(data)
    row = table[table["token"] == "Zephyrix"].iloc[0]
    assert (row["symbol"], row["with_name"], row["items"]) == ("ACME", 30, 40)


def test_a_product_in_items_that_name_the_company_only_in_their_text_is_found() -> None:
    news = planted_news()
    product = news["headline"].str.contains("Zephyrix")
    news.loc[product, "symbols"] = ""  # untagged: only the text says ACME
    data = Historical.load(BARS, news=news, secret="leak-secret-0123456789")
    row = leak_report(data).set_index("token").loc["Zephyrix"]
    assert (row["symbol"], row["with_name"], row["items"]) == ("ACME", 12, 12)


def test_a_round_up_naming_every_name_lists_none_of_its_words() -> None:
    news = planted_news(product_items=0)
    round_ups = [
        (f"{DECIDED[k * 5]}T17:30:00-05:00", "", "Evening wrapup: stocks mixed",
         "Movers today: ACME, BOLT, CRUX, DUNE. Preview of tomorrow.")
        for k in range(15)
    ]  # fmt: skip
    news = pd.concat([news, pd.DataFrame(round_ups, columns=news.columns)], ignore_index=True)
    data = Historical.load(BARS, news=news, secret="leak-secret-0123456789")
    assert leak_report(data).empty


def test_a_rival_named_in_passing_does_not_take_the_products_owner() -> None:
    news = planted_news()
    product = news["headline"].str.contains("Zephyrix")
    news.loc[product, "body"] = "It competes with BOLT."
    data = Historical.load(BARS, news=news, secret="leak-secret-0123456789")
    row = leak_report(data).set_index("token").loc["Zephyrix"]
    assert (row["symbol"], row["with_name"], row["items"]) == ("ACME", 12, 12)


def test_a_word_seen_a_few_times_is_not_evidence() -> None:
    data = Historical.load(BARS, news=planted_news(product_items=3), secret="leak-secret-01234567")
    assert leak_report(data).empty


def test_bars_without_news_have_an_empty_report() -> None:
    assert leak_report(Historical.load(BARS)).empty


@pytest.mark.slow
def test_the_audit_prints_the_leak_report(capsys: pytest.CaptureFixture[str]) -> None:
    from workbench.cli import main

    folder = Path(__file__).resolve().parents[1] / "notebooks" / "data"
    argv = ["audit", str(folder / "example_bars.csv"), "--trials", "2", "--days", "30"]
    argv += ["--news", str(folder / "example_news.csv")]
    argv += ["--company-names", str(folder / "example_names.csv")]
    argv += ["--mask-secret", "example-secret-0123456789"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "text leak report: 6 words still point at one name" in out
    bars = Historical.load(folder / "example_bars.csv", secret="example-secret-0123456789")
    alias = {real: alias for alias, real in bars.mapping.items()}["ACME"]
    assert re.search(rf"Roadrunner {alias} +ACME", out)


@pytest.mark.parametrize("flag", ["--company-names", "--mask-secret"])
def test_the_audit_refuses_a_text_option_without_news_before_it_runs(
    flag: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.cli import main
    from workbench.evaluation import contamination

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the audit ran before its options were checked")

    monkeypatch.setattr(contamination, "audit", never)
    assert main(["audit", str(Path(__file__)), flag, "names.csv"]) != 0
    assert f"{flag} needs --news" in capsys.readouterr().err


def test_evaluate_out_writes_the_leak_report_beside_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.cli import main

    folder = Path(__file__).resolve().parents[1] / "notebooks" / "data"
    argv = ["evaluate", "--data", str(folder / "example_bars.csv"), "--days", "120"]
    argv += ["--news", str(folder / "example_news.csv"), "--arms", "buy_and_hold"]
    argv += ["--company-names", str(folder / "example_names.csv"), "--out", str(tmp_path / "run")]
    assert main(argv) == 0
    leaks = pd.read_csv(tmp_path / "run" / "text_leaks.csv")
    assert "Roadrunner" in set(leaks["token"])
    assert f"text leak report: {len(leaks)} words" in capsys.readouterr().out


def product_news_from(first_row: int) -> pd.DataFrame:
    """The planted news with the product named only in items dated from ``first_row`` on."""
    news = planted_news(product_items=60)
    dates = pd.to_datetime(news["published"], utc=True).dt.strftime("%Y-%m-%d")
    early = dates < DATES[first_row]
    news.loc[early, "headline"] = news.loc[early, "headline"].str.replace(" with Zephyrix", "")
    return news


def test_the_report_reads_only_the_days_the_run_traded() -> None:
    data = Historical.load(BARS, news=product_news_from(90), secret="leak-secret-0123456789")
    assert leak_report(data)["token"].tolist() == ["Zephyrix"]
    # a run of 40 days ends on row 59: no payload carried the product, so nothing leaked
    assert leak_report(data, days=40).empty


def test_a_comparisons_report_reads_the_variants_its_seeds_traded() -> None:
    data = Historical.load(BARS, news=product_news_from(90), secret="leak-secret-0123456789")
    rows = len(DATES)
    # a bootstrap seed whose path draws no bar from row 90 on never shows the product
    blind = next(s for s in range(1, 400) if Variant("bootstrap", s).source_rows(rows).max() < 90)
    assert leak_report(data, variants=[f"bootstrap:{blind}"]).empty
    seeing = [f"bootstrap:{s}" for s in (1, 2)]
    table = leak_report(data, variants=seeing)
    assert table["token"].tolist() == ["Zephyrix"]
    # the alias the report names is the one every variant's payload shows with the product,
    # and each item counts once however many rows or variants show it
    shown = {}
    for label in seeing:
        feed = World(data=data.with_variant(label)).path.text
        for i in range(len(feed.news_rows)):
            item = feed.item(i)
            if "Zephyrix" in item["headline"]:
                shown[feed.source(i)] = item["symbols"]
    assert {tuple(s) for s in shown.values()} == {(table["alias"].iloc[0],)}
    assert table["items"].iloc[0] == table["with_name"].iloc[0] == len(shown)


def test_compare_notebooks_leak_table_follows_its_runs() -> None:
    from workbench import evaluate
    from workbench.notebooks.parameters import leak_table, seed_runs

    data = Historical.load(BARS, news=planted_news(), secret="leak-secret-0123456789")
    market = {"data": data, "days": 60}
    runs = seed_runs(["buy_and_hold"], [3, 4], market)
    variants = ["bootstrap:3", "bootstrap:4"]
    expected = leak_report(data, days=60, variants=variants)
    pd.testing.assert_frame_equal(leak_table(market, runs), expected)
    real = evaluate(["buy_and_hold"], data=data, days=60)
    pd.testing.assert_frame_equal(leak_table(market, [real]), leak_report(data, days=60))


def test_the_runs_canaries_are_not_read_as_the_researchers_text() -> None:
    plain = Historical.load(BARS, news=planted_news(), secret="leak-secret-0123456789")
    planted = Historical.load(
        BARS, news=planted_news(), canaries=5, secret="leak-secret-0123456789"
    )
    items = shown_items(planted)
    assert len(World(data=planted).path.text.news_rows) == len(items) + 5
    assert not any("Vexlor" in item["headline"] for item in items)
    pd.testing.assert_frame_equal(leak_report(planted), leak_report(plain))
