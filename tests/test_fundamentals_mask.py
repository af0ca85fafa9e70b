"""Fundamentals on historical bars: dates and years placed on the run's calendar, and figure
names that would identify a company or a date refused."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
import pytest
from test_text_leaks import BARS as NEWS_BARS
from test_text_leaks import planted_news

from workbench import Agent, World, evaluate
from workbench.engine.canaries import figure_column
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textdata import read_fundamentals
from workbench.engine.textmask import figure_kind
from workbench.errors import ConfigError
from workbench.evaluation.canaries import canary_audit
from workbench.evaluation.textleaks import leak_report

pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

BARS = sample_bars(days=80, names=3, seed=8)
DATES = sorted(BARS["date"].unique())
SYMBOLS = sorted(BARS["symbol"].unique())
SECRET = "fundamentals-secret-0123456789"


def stamp(row: int) -> str:
    return pd.Timestamp(f"{DATES[row]} 07:30").tz_localize("America/New_York").isoformat()


def reports(**figures: list[Any]) -> pd.DataFrame:
    published = [stamp(30), stamp(40)]
    return pd.DataFrame({"published": published, "symbol": ["ACME", "BOLT"], **figures})


DATED = reports(
    eps=[1.5, 2.5],
    fiscal_year=[int(DATES[0][:4]) - 1, int(DATES[0][:4])],
    period_end=[DATES[20], "20" + DATES[25][2:].replace("-", "")],
    roe=[0.1, 0.2],
)


def shown(data: Historical, symbol: str, row: int = 50) -> dict[str, Any]:
    feed = World(data=data).path.text
    assert feed is not None
    return feed.fundamentals(row)[{r: a for a, r in data.mapping.items()}[symbol]]


def test_a_period_end_reads_as_its_day_number_and_a_fiscal_year_from_day_0s_year() -> None:
    data = Historical.load(BARS, fundamentals=DATED, secret=SECRET)
    warmup = World(data=data).warmup_days
    acme, bolt = shown(data, "ACME"), shown(data, "BOLT")
    first_year = int(DATES[warmup][:4])
    assert (acme["period_end"], bolt["period_end"]) == (20 - warmup, 25 - warmup)
    assert acme["fiscal_year"] == int(DATES[0][:4]) - 1 - first_year
    assert bolt["fiscal_year"] == int(DATES[0][:4]) - first_year
    assert acme["roe"] == 0.1 and acme["eps"] != 1.5
    text = json.dumps([acme, bolt])
    assert not any(year in text for year in ("2015", "2016", "2017"))


def test_a_period_end_after_the_close_that_shows_it_counts_business_days_only() -> None:
    """As a date in a news item: the bars' later dates cannot show through the figure."""
    late = pd.Timestamp(DATES[35]) + pd.Timedelta(days=10)  # a Saturday or not: counted
    data = Historical.load(
        BARS, fundamentals=reports(eps=[1.0, 2.0], period_end=[str(late.date()), ""]), secret=SECRET
    )
    warmup = World(data=data).warmup_days
    business = int(np.busday_count(DATES[30], late.date()))
    assert shown(data, "ACME")["period_end"] == 30 + max(1, business) - warmup
    thinned = BARS[BARS["date"] != DATES[32]]  # a later closed day changes nothing shown
    data = Historical.load(
        thinned,
        fundamentals=reports(eps=[1.0, 2.0], period_end=[str(late.date()), ""]),
        secret=SECRET,
    )
    assert shown(data, "ACME")["period_end"] == 30 + max(1, business) - warmup


def test_an_unmasked_run_shows_dates_and_years_as_written() -> None:
    data = Historical.load(BARS, fundamentals=DATED, mask=False)
    acme = shown(data, "ACME")
    assert (acme["period_end"], acme["fiscal_year"]) == (DATES[20], int(DATES[0][:4]) - 1)


def test_a_counterfactual_path_leaves_dates_and_years_out() -> None:
    data = Historical.load(BARS, fundamentals=DATED, secret=SECRET, variant="bootstrap:1")
    feed = World(data=data).path.text
    assert feed is not None
    for report in feed.filings(len(feed.report_rows) and feed.report_rows[-1]):
        assert "period_end" not in report and "fiscal_year" not in report and "roe" in report


def test_exported_tables_write_dates_back_and_read_in_again() -> None:
    frames = World(data=Historical.load(BARS, fundamentals=DATED, secret=SECRET)).path.text
    assert frames is not None
    table = frames.frames()["fundamentals"]
    assert table["period_end"].tolist()[:2] == [DATES[20], DATES[25]]
    again = read_fundamentals(table, SYMBOLS)
    assert again["period_end"].equals(read_fundamentals(DATED, SYMBOLS)["period_end"])


@pytest.mark.parametrize(
    ("column", "value", "fix"),
    [
        ("period_end", "12/31/2015", "which is no date; write it year first"),
        ("period_end", 20151399, "which is no date"),
        ("fiscal_year", 15, "which is no year; write the year in full"),
        ("fiscal_year", 2015.5, "which is no year"),
        ("report_date", "soon", "rename it if it holds another figure"),
    ],
)
def test_a_date_or_year_written_otherwise_is_refused_naming_the_row(
    column: str, value: Any, fix: str
) -> None:
    with pytest.raises(ConfigError, match=rf"fundamentals row 2 has {column} .*{fix}"):
        read_fundamentals(reports(eps=[1.0, 2.0], **{column: [None, value]}), SYMBOLS)


@pytest.mark.parametrize(
    ("column", "why", "fix"),
    [
        ("acme_segment_revenue", "holds 'acme', the ticker of ACME", r"\(segment_revenue\)"),
        ("segment_revenue_bolt", "holds 'bolt', the ticker of BOLT", r"\(segment_revenue\)"),
        ("acme_corp_units", "holds 'acme corp', a company name of ACME", r"\(units\)"),
        ("rev_2016", "holds '2016', a year or a date", r"\(rev\).*fiscal_year or period_end"),
        ("eps_201603", "holds '201603', a year or a date", r"\(eps\)"),
        ("eps_fy16", "holds '16', a year or a date", r"\(eps\)"),
    ],
)
def test_a_figure_named_after_a_company_or_a_date_is_refused_with_a_neutral_name(
    column: str, why: str, fix: str
) -> None:
    frame = reports(eps=[1.0, 2.0], **{column: [3.0, 4.0]})
    with pytest.raises(ConfigError, match=rf"column '{column}' {why}: agents read .*{fix}"):
        Historical.load(BARS, fundamentals=frame, names={"ACME": "Acme Corp"})


def test_a_ticker_that_reads_as_a_word_does_not_refuse_a_figure_name() -> None:
    bars = BARS.replace({"symbol": {"CRUX": "ON"}})
    frame = reports(eps=[1.0, 2.0], cash_on_hand=[3.0, 4.0])
    assert Historical.load(bars, fundamentals=frame).text is not None


def test_figures_are_told_apart_by_their_names() -> None:
    kinds = ["period_end", "fiscal_year_end", "report_date", "fiscal_year", "fy", "eps", "roe"]
    assert [figure_kind(c) for c in kinds] == [
        "date",
        "date",
        "date",
        "year",
        "year",
        "money",
        "figure",
    ]


def test_the_fundamentals_canary_skips_dates_and_years_and_is_still_caught() -> None:
    assert figure_column(DATED) == "roe"
    assert figure_column(reports(eps=[1.0, 2.0], fiscal_year=[2015, 2016])) == "guidance_ratio"
    data = Historical.load(BARS, fundamentals=DATED, secret=SECRET, canaries=2)
    feed = World(data=data).path.text
    assert feed is not None

    class LooksAhead(Agent):
        def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
            row = payload["day"] + feed.warmup_days
            return {"actions": [], "rationale": json.dumps(feed.filings(row + 1))}

    hits = canary_audit(evaluate([LooksAhead("ahead")], data=data))
    assert set(hits["channel"]) == {"fundamentals"}


def test_a_figure_named_after_a_product_is_found_by_the_leak_report_then_refused() -> None:
    """A product is not known to the mask: the leak report reads the figures' names of the
    reports the run sees, and once the product is in the names map the load refuses it."""
    dates = sorted(NEWS_BARS["date"].unique())[30:90:6]
    rows = [
        (f"{d}T07:30:00-05:00", s, 1.0, 10.0 if s == "ACME" else None)
        for d in dates
        for s in ("ACME", "BOLT", "CRUX", "DUNE")
    ]
    frame = pd.DataFrame(rows, columns=["published", "symbol", "eps", "zephyrix_units"])
    news = planted_news(product_items=0)
    data = Historical.load(NEWS_BARS, news=news, fundamentals=frame, secret=SECRET)
    row = leak_report(data).set_index("token").loc["zephyrix"]
    assert (row["symbol"], row["with_name"], row["items"]) == ("ACME", 10, 10)
    with pytest.raises(ConfigError, match=r"'zephyrix', a company name of ACME.*rename it"):
        Historical.load(NEWS_BARS, news=news, fundamentals=frame, names={"ACME": ["Zephyrix"]})


@pytest.mark.parametrize(
    ("column", "values", "fix"),
    [
        ("fiscal_period", [20151231, 20160331], r"holds dates written as numbers \(first 20151231"),
        ("reported", [20151231.0, None], r"holds dates .*name it so it ends in date or end"),
        ("fiscal_period", [2015, 2016], r"holds years \(first 2015\).*fiscal_year"),
    ],
)
def test_a_date_or_a_year_under_another_name_is_refused(
    column: str, values: list[Any], fix: str
) -> None:
    with pytest.raises(ConfigError, match=rf"column '{column}' {fix}"):
        read_fundamentals(reports(eps=[1.0, 2.0], **{column: values}), SYMBOLS)


def test_a_count_that_only_looks_like_a_year_is_kept() -> None:
    table = read_fundamentals(reports(eps=[1.0, 2.0], employees=[2015, 1990]), SYMBOLS)
    assert table["employees"].tolist() == [2015.0, 1990.0]
