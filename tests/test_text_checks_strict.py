"""The stricter checks on text: units, years, duplicates, figure columns, names, messages."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from workbench import World, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textdata import read_fundamentals, read_news
from workbench.engine.textmask import is_money
from workbench.errors import ConfigError

# runs shorter than the feed: the items after their last decision are unseen, as they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

SYMBOLS = ["ACME", "BOLT", "CRUX"]
BARS = sample_bars(days=40, names=3, seed=5)
SECRET = "strict-secret-0123456789"


def news(*published: str, headline: str = "Acme wins order") -> pd.DataFrame:
    rows = [(p, "ACME", headline, "Body.") for p in published]
    return pd.DataFrame(rows, columns=["published", "symbols", "headline", "body"])


def reports(**figures: list[Any]) -> pd.DataFrame:
    published = ["2016-01-05T07:30:00-05:00", "2016-01-07T07:30:00-05:00"]
    return pd.DataFrame({"published": published, "symbol": ["ACME", "BOLT"], **figures})


@pytest.mark.parametrize("embargo", [900, "15", 1.5, " 30 "])
def test_an_embargo_without_a_unit_is_refused(embargo: Any) -> None:
    with pytest.raises(ConfigError, match=r"has no unit .*pass e\.g\. '15min', '1h' or '2D'"):
        Historical.load(BARS, news=news("2016-01-05T09:00:00Z"), embargo=embargo)


def test_a_nat_embargo_is_no_duration() -> None:
    with pytest.raises(ConfigError, match="embargo 'NaT' is not a duration"):
        Historical.load(BARS, news=news("2016-01-05T09:00:00Z"), embargo="NaT")


@pytest.mark.parametrize("year", ["1500", "2300", "2600", "2999"])
def test_a_year_no_timestamp_holds_is_refused(year: str) -> None:
    stamps = ("2016-01-05T09:00:00Z", f"{year}-09-01T00:00:00Z")
    with pytest.raises(ConfigError, match=rf"news row 2 .*{year}.*outside the years.*fix the year"):
        read_news(news(*stamps), SYMBOLS)


@pytest.mark.parametrize(
    "stamp", ["2016-01-05 14:00 UTC", "2016-01-05 14:00UTC", "2016-01-05 09:00 -05:00"]
)
def test_utc_written_out_or_a_spaced_offset_is_read(stamp: str) -> None:
    expected = pd.Timestamp("2016-01-05T14:00:00Z").value
    assert read_news(news(stamp), SYMBOLS)["published"].tolist() == [expected]


def test_the_same_item_twice_is_refused_naming_both_rows() -> None:
    stamps = ("2016-01-05T09:00:00Z", "2016-01-06T09:00:00Z", "2016-01-05T09:00:00Z")
    with pytest.raises(ConfigError, match="news rows 1 and 3 are the same item at the same time"):
        read_news(news(*stamps), SYMBOLS)


def test_two_reports_on_one_name_at_one_time_are_refused() -> None:
    table = pd.concat([reports(eps=[1.0, 2.0]), reports(eps=[1.5, 2.5]).iloc[:1]])
    with pytest.raises(ConfigError, match="fundamentals rows 1 and 3 are a report on the same"):
        read_fundamentals(table.reset_index(drop=True), SYMBOLS)


@pytest.mark.parametrize(
    ("column", "values"), [("currency", ["USD", "USD"]), ("auditor", ["KPMG", ""])]
)
def test_a_column_of_no_figures_is_refused_once_saying_drop_it(column: str, values: list) -> None:
    with pytest.raises(ConfigError, match=f"column '{column}' holds no figure .*drop that column"):
        read_fundamentals(reports(eps=[1.0, 2.0], **{column: values}), SYMBOLS)


def test_only_money_figures_are_scaled_with_the_prices() -> None:
    figures = {"eps": [2.0, 1.0], "pe": [20.0, 9.0], "roe": [0.15, 0.1], "employees": [2015, 1]}
    data = Historical.load(BARS, fundamentals=reports(**figures), secret=SECRET)
    feed = World(data=data).path.text
    alias = {real: alias for alias, real in data.mapping.items()}["ACME"]
    shown = feed.fundamentals(feed.warmup_days + 5)[alias]
    assert (shown["pe"], shown["roe"], shown["employees"]) == (20.0, 0.15, 2015.0)
    assert shown["eps"] != 2.0
    assert [is_money(c) for c in ("revenue", "net_margin", "price_to_book", "dividend_yield")] == [
        True,
        False,
        False,
        False,
    ]


@pytest.mark.parametrize("option", ["canaries", "embargo", "names", "company_names"])
def test_a_text_option_given_to_evaluate_names_historical_load(option: str) -> None:
    with pytest.raises(ConfigError, match=rf"{option}= belongs to the historical data.*Historical"):
        evaluate(["cash"], data=BARS, **{option: 3})  # type: ignore[misc]


def test_a_counterfactual_gap_with_canaries_names_the_gap() -> None:
    with pytest.raises(ConfigError, match="without canaries= for a variant or a counterfactual"):
        Historical.load(BARS, news=news("2016-01-05T09:00:00Z"), canaries=1, variant="bootstrap:1")


def test_an_unknown_ticker_in_symbols_says_drop_the_row() -> None:
    table = news("2016-01-05T09:00:00Z").assign(symbols="MSFT")
    with pytest.raises(ConfigError, match="add that name's bars or drop the row"):
        read_news(table, SYMBOLS)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ({"ACME": "a"}, "company name 'a': blank or two letters"),
        ({"ACME": ["Acme", " "]}, "company name ' ': blank"),
        ({"MSFT": "Microsoft"}, "names= has company names for 'MSFT', which the bars do not hold"),
    ],
)
def test_bad_company_names_are_refused(names: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        Historical.load(BARS, news=news("2016-01-05T09:00:00Z"), names=names)


def test_word_like_tickers_are_masked_only_when_quoted() -> None:
    bars = BARS.replace({"symbol": {"ACME": "A", "BOLT": "IT", "CRUX": "ON"}})
    text = "A rally in IT spending; $IT and NYSE:ON rose. Apple Inc. is ON track."
    item = pd.DataFrame(
        [("2016-01-05T09:00:00Z", "IT", text, "")],
        columns=["published", "symbols", "headline", "body"],
    )
    data = Historical.load(bars, news=item, names={"ON": "Apple Inc."}, secret=SECRET)
    alias = {real: alias for alias, real in data.mapping.items()}
    shown = World(data=data).path.text.item(0)["headline"]
    assert shown == (
        f"A rally in IT spending; {alias['IT']} and {alias['ON']} rose. {alias['ON']} is ON track."
    )


def test_the_mask_finds_any_of_many_names_by_their_words() -> None:
    from workbench.engine.textmask import TextMask

    symbols = [f"S{i:04d}" for i in range(600)]
    mask = TextMask(
        aliases={s: f"ASSET{i:04d}" for i, s in enumerate(symbols)},
        price_factor=dict.fromkeys(symbols, 2.0),
        dates=["2016-03-04"],
        warmup_days=0,
        names={s: (f"Company{i} Holdings", f"Brand{i}") for i, s in enumerate(symbols)},
    )
    text = "company599 holdings and Brand3 (S0007, $S0042) beat Company12 on 2016-03-04 at $5."
    assert mask.text(text, ["S0599"]) == (
        "ASSET0599 and ASSET0003 (ASSET0007, ASSET0042) beat Company12 on day 0 at $10.00."
    )


def test_the_cli_sets_the_close_time_and_zone(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    import json as json_module
    from pathlib import Path

    from workbench.cli import main

    folder = Path(__file__).resolve().parents[1] / "notebooks" / "data"
    argv = ["evaluate", "--data", str(folder / "example_bars.csv"), "--days", "5"]
    argv += ["--arms", "cash", "--close-time", "15:30", "--timezone", "Europe/London"]
    assert main(argv) != 0
    assert "close_time, timezone apply to news and fundamentals" in capsys.readouterr().err
    argv += ["--news", str(folder / "example_news.csv"), "--out", str(tmp_path / "run")]
    assert main(argv) == 0
    saved = json_module.loads((tmp_path / "run" / "results.json").read_text())
    text = saved["meta"]["data"]["text"]
    assert (text["close_time"], text["timezone"]) == ("15:30", "Europe/London")


@pytest.mark.parametrize("symbols", [("ACME,BOLT", "BOLT;ACME"), ("ACME|BOLT", "BOLT, ACME")])
def test_an_item_repeated_with_its_symbols_reordered_is_the_same_item(symbols: tuple) -> None:
    table = news("2016-01-05T09:00:00Z", "2016-01-05T09:00:00Z").assign(symbols=list(symbols))
    with pytest.raises(ConfigError, match="news rows 1 and 2 are the same item at the same time"):
        read_news(table, SYMBOLS)


@pytest.mark.parametrize(("column", "value"), [("headline", 1.5), ("body", 7)])
def test_a_headline_or_body_that_is_not_text_is_refused(column: str, value: Any) -> None:
    table = news("2016-01-05T09:00:00Z", "2016-01-06T09:00:00Z")
    table[column] = table[column].astype(object)
    table.loc[1, column] = value
    with pytest.raises(ConfigError, match=rf"news row 2 has the {column} {value} .*not text"):
        read_news(table, SYMBOLS)


def test_a_blank_body_is_still_no_text_to_refuse() -> None:
    table = news("2016-01-05T09:00:00Z").assign(body=float("nan"))
    assert read_news(table, SYMBOLS)["body"].tolist() == [""]


@pytest.mark.parametrize("source", [[1, 2], 3, {"published": []}])
def test_news_in_no_table_form_names_the_forms_taken(source: Any) -> None:
    with pytest.raises(ConfigError, match=r"news= is a \w+; pass the path of a \.csv or \.parquet"):
        Historical.load(BARS, news=source)


@pytest.mark.parametrize(
    ("stamp", "problem"),
    [
        ("2016-01-07 10:00 EST", r"row 2 .*'2016-01-07 10:00 EST'.* abbreviation 'EST'"),
        ("2016-01-07T10:00:00 CST", r"row 2 .* abbreviation 'CST', which names no offset"),
    ],
)
def test_a_zone_written_as_an_abbreviation_is_refused_with_the_offset_to_write(
    stamp: str, problem: str
) -> None:
    with pytest.raises(ConfigError, match=problem) as refused:
        read_news(news("2016-01-06T10:00:00Z", stamp), SYMBOLS)
    assert "write the offset instead" in str(refused.value)
    assert "+00:00 for UTC" in str(refused.value)


@pytest.mark.parametrize("stamp", [1452178800, "1452178800", "1452178800000", "1452178800.5"])
def test_a_count_since_1970_is_refused_as_seconds_or_milliseconds(stamp: Any) -> None:
    frame = news("2016-01-06T10:00:00Z", "2016-01-07T10:00:00Z")
    frame["published"] = frame["published"].astype(object)
    frame.loc[1, "published"] = stamp
    with pytest.raises(ConfigError, match=r"row 2 .* a bare number, which could count seconds"):
        read_news(frame, SYMBOLS)


def test_an_integer_column_of_counts_since_1970_is_refused_at_its_first_row() -> None:
    frame = news("x", "y")
    frame["published"] = [1452092400, 1452178800]
    with pytest.raises(ConfigError, match=r"row 1 has the publication time '1452092400', a bare"):
        read_news(frame, SYMBOLS)
