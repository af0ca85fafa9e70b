"""Fundamentals that would date the bars under names the mask does not place: refused,
naming the column or the row and the name that masks it; counts and ratios kept."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.textdata import check_figure_names, read_fundamentals
from workbench.errors import ConfigError

BARS = sample_bars(days=40, names=3, seed=8)
SYMBOLS = sorted(BARS["symbol"].unique())
SECRET = "review-secret-0123456789"


def reports(**figures: list[Any]) -> pd.DataFrame:
    published = ["2016-02-16T07:30:00-05:00", "2016-05-13T07:30:00-04:00"]
    return pd.DataFrame({"published": published, "symbol": ["ACME", "BOLT"], **figures})


@pytest.mark.parametrize(
    ("column", "values", "message"),
    [
        ("yr", [2015, 2016], r"column 'yr' holds years \(first 2015\).*fiscal_year"),
        ("report_yr", [2015.0, 2016.0], r"column 'report_yr' holds years"),
        ("period", [201512, 201603], r"column 'period' holds months .*YYYYMM .*period_end"),
        ("quarter_id", [201601, 201602], r"column 'quarter_id' holds months"),
        ("filed_ts", [1450000001, 1458000000], r"'filed_ts' holds times counted since 1970"),
        ("filed_ms", [1.4516064e12, 1.459e12], r"'filed_ms' holds times .*filed_ms_date"),
        ("as_of", [1450000001, 1458000000], r"'as_of' holds times counted since 1970"),
    ],
)
def test_years_months_and_times_since_1970_under_other_names_are_refused(
    column: str, values: list[Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        read_fundamentals(reports(eps=[1.0, 2.0], **{column: values}), SYMBOLS)


@pytest.mark.parametrize(
    ("column", "value", "fix"),
    [
        (
            "filed",
            "2016-02-12",
            r"row 1 has filed '2016-02-12', a date; .*\(filed_date",
        ),
        ("as_of", "2016-02-12T16:00:00Z", r"row 1 has as_of .*, a date; .*as_of_date"),
        ("periodEnding", "2015-12-31", r"row 1 has periodending .*, a date; "),
        (
            "quarter",
            "2016Q1",
            r"row 1 has quarter '2016Q1', a period .*fiscal_year",
        ),
        ("fiscal_period", "FY2016", r"row 1 has fiscal_period 'FY2016', a period .*period_end"),
        ("period", "Q4'15", r"a period written as text"),
    ],
)
def test_a_date_or_a_period_written_as_text_names_the_column_that_masks_it(
    column: str, value: str, fix: str
) -> None:
    with pytest.raises(ConfigError, match=fix) as refused:
        read_fundamentals(reports(eps=[1.0, 2.0], **{column: [value, value]}), SYMBOLS)
    assert "drop that column" not in str(refused.value)


@pytest.mark.parametrize(
    ("column", "values"),
    [
        ("shares_outstanding", [1.45e9, 1.46e9]),  # a count in the range of seconds since 1970
        ("fiscal_quarter", [1, 2]),
        ("period_months", [3, 12]),
        ("units", [201601, 201602]),  # a count that only looks like a month, under no period
        ("revenue", [2015.0, 2016.0]),
    ],
)
def test_counts_that_only_look_like_a_time_are_kept(column: str, values: list[float]) -> None:
    table = read_fundamentals(reports(**{column: values}), SYMBOLS)
    assert table[column].tolist() == [float(v) for v in values]


def test_a_ticker_that_names_a_figure_does_not_refuse_the_figure() -> None:
    """Costco is COST and Cloudflare NET: cost_of_sales and net_income are still figures."""
    bars = BARS.replace({"symbol": {"ACME": "COST", "BOLT": "NET"}})
    figures = reports(cost_of_sales=[1.0, 2.0], net_income=[3.0, 4.0]).assign(
        symbol=["COST", "NET"]
    )
    data = Historical.load(bars, fundamentals=figures, secret=SECRET)
    assert data.text is not None
    check_figure_names(["cost_of_sales", "net_cash", "fcf_ttm"], ["COST", "NET", "FCF", "TTM"], {})


def test_a_ticker_that_is_no_figure_word_still_refuses_the_figure() -> None:
    with pytest.raises(ConfigError, match=r"'road_units' holds 'road', the ticker of ROAD"):
        check_figure_names(["net_income", "road_units"], ["NET", "ROAD"], {})


@pytest.mark.parametrize("column", ["fiscal_year_revenue", "revenue_yr", "period_sales"])
def test_a_money_figure_under_a_periods_name_is_kept_since_it_is_shown_scaled(
    column: str,
) -> None:
    table = read_fundamentals(reports(**{column: [1990.0, 2050.0]}), SYMBOLS)
    assert table[column].tolist() == [1990.0, 2050.0]
