"""Every metric split at an arm's training cutoff, on dated bars, in the results and the report."""

from __future__ import annotations

import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.evaluation.cutoff import (
    METRICS,
    cutoff_notes,
    cutoff_over_seeds,
    cutoff_section,
    cutoff_split,
)
from workbench.evaluation.tearsheet import tearsheet

EXAMPLE = Path(__file__).resolve().parents[1] / "notebooks" / "data" / "example_bars.csv"
CUTOFF = {"momentum": "2016-09-01"}  # the example bars trade 2016-02-01 .. 2017-02-24


@pytest.fixture(scope="module")
def results():
    return evaluate(["buy_and_hold", "momentum"], data=EXAMPLE, model_cutoff=CUTOFF)


@pytest.mark.slow
def test_the_cutoff_is_recorded_in_the_meta(results) -> None:
    assert results.meta["model_cutoff"] == {"momentum": "2016-09-01"}
    assert "model_cutoff" not in evaluate(["cash"], data=EXAMPLE, days=3).meta


def test_before_and_after_compound_to_the_whole_run(results) -> None:
    split = cutoff_split(results)
    assert list(split.index) == [("momentum", p) for p in ("before", "after", "gap")]
    assert list(split.columns) == list(METRICS)
    whole = tearsheet(results.equity, 1).loc["momentum", "return_pct"]
    before, after = (
        split.loc[("momentum", "before"), "return_pct"],
        split.loc[("momentum", "after"), "return_pct"],
    )
    assert (1 + before / 100) * (1 + after / 100) == pytest.approx(1 + whole / 100, rel=1e-12)
    gap = split.loc[("momentum", "gap")]
    assert gap["sharpe"] == pytest.approx(
        split.loc[("momentum", "after"), "sharpe"] - split.loc[("momentum", "before"), "sharpe"]
    )


def test_the_split_is_at_the_last_close_on_or_before_the_cutoff(results) -> None:
    dates = results.meta["dates"]
    last = max(i for i, d in enumerate(dates) if d <= "2016-09-01")
    curve = results.equity["momentum"].to_numpy()
    before = cutoff_split(results).loc[("momentum", "before"), "return_pct"]
    assert before == pytest.approx((curve[last] / curve[0] - 1) * 100)


@pytest.mark.slow
def test_the_report_shows_each_metric_before_and_after_the_cutoff(results, tmp_path: Path) -> None:
    from workbench.report.html import render_report

    page = render_report(results, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Before and after the model cutoff" in page
    for column in ("momentum before", "momentum after", "momentum gap"):
        assert column in page
    for metric in METRICS:
        assert f">{metric}<" in page
    assert "Before and after the model cutoff" in cutoff_section(results)


@pytest.mark.slow
def test_the_split_as_a_section_of_ones_own_has_readable_headers(results, tmp_path: Path) -> None:
    """``cutoff_section`` (and compare.ipynb's section) hand the report the split with its
    (arm, period) columns: each is one header, never a tuple."""
    from workbench.report.html import render_report

    sections = cutoff_section(results)
    page = render_report(results, tmp_path / "report.html", sections=sections)
    text = page.read_text(encoding="utf-8")
    assert ">momentum before<" in text.replace("<wbr>", "")
    assert "(&#x27;momentum&#x27;" not in text and "('momentum'" not in text


@pytest.mark.slow
def test_a_report_without_a_cutoff_has_no_such_section(tmp_path: Path) -> None:
    from workbench.report.html import render_report

    written = render_report(evaluate(["cash"], data=EXAMPLE, days=5), tmp_path / "report.html")
    page = written.read_text(encoding="utf-8")
    assert "model cutoff" not in page


@pytest.mark.parametrize(
    ("cutoff", "message"),
    [
        ({"nobody": "2016-09-01"}, "model_cutoff names 'nobody', which is no arm of this run"),
        ({"cash": "someday"}, "model_cutoff of 'cash' is 'someday', which is no date"),
        ("2016-09-01", "model_cutoff is a date per arm"),
    ],
)
@pytest.mark.slow
def test_bad_cutoffs_are_refused(cutoff: object, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        evaluate(["cash"], data=EXAMPLE, days=3, model_cutoff=cutoff)


def test_the_simulated_market_has_no_dates_to_split_at() -> None:
    with pytest.raises(ConfigError, match="calendar dates, which the simulated market has not"):
        evaluate(["cash"], universe=3, days=3, model_cutoff={"cash": "2020-01-01"})
    with pytest.raises(ConfigError, match="needs dated bars"):
        cutoff_split(evaluate(["cash"], universe=3, days=3), cutoffs={"cash": "2020-01-01"})


def test_a_run_on_a_counterfactual_variant_is_not_split_at_a_date(tmp_path: Path) -> None:
    from workbench.engine.historical import Historical
    from workbench.report.html import render_report

    shuffled = Historical.load(EXAMPLE, variant="bootstrap:3")
    results = evaluate(["buy_and_hold", "momentum"], data=shuffled, days=60, model_cutoff=CUTOFF)
    with pytest.raises(ConfigError, match=r"traded the bootstrap.* variant.*no date splits it"):
        cutoff_split(results)
    page = render_report(results, tmp_path / "report.html").read_text(encoding="utf-8")
    assert "Before and after the model cutoff" not in page


def test_the_cli_takes_a_model_cutoff_and_prints_the_split(capsys) -> None:
    from workbench.cli import main

    argv = ["evaluate", "--data", str(EXAMPLE), "--days", "120", "--arms", "buy_and_hold,momentum"]
    assert main([*argv, "--model-cutoff", "momentum=2016-05-02"]) == 0
    out = capsys.readouterr().out
    assert "before and after the model cutoff" in out and "gap" in out
    assert main([*argv, "--model-cutoff", "momentum"]) != 0
    assert "--model-cutoff 'momentum' is not ARM=DATE" in capsys.readouterr().err


def test_the_tearsheet_splits_every_metric_at_the_cutoff(results) -> None:
    split = results.tearsheet(split="cutoff")
    assert split.index.names == ["arm", "period"]
    assert list(split.index) == [
        ("buy_and_hold", "all"),
        *[("momentum", p) for p in ("all", "before", "after", "gap")],
    ]
    assert split.xs("all", level="period").equals(results.tearsheet())
    by_period = cutoff_split(results)
    for period in ("before", "after", "gap"):
        expected = by_period.loc[("momentum", period), list(METRICS)].astype(float)
        got = split.loc[("momentum", period), list(METRICS)].astype(float)
        assert got.equals(expected), period
    assert split.loc[("momentum", "after"), "benchmark"] == "buy_and_hold"


def test_a_split_tearsheet_needs_a_recorded_cutoff() -> None:
    plain = evaluate(["cash"], universe=3, days=3)
    with pytest.raises(ConfigError, match=r"recorded no model_cutoff.*leave split= out"):
        plain.tearsheet(split="cutoff")
    with pytest.raises(ConfigError, match="split must be None or 'cutoff'"):
        plain.tearsheet(split="date")  # type: ignore[arg-type]


@pytest.mark.slow
def test_the_comparison_shows_each_metric_before_and_after_the_cutoff(tmp_path: Path) -> None:
    from workbench.evaluation.compare import compare
    from workbench.report.html import render_report

    compared = compare(
        ["buy_and_hold", "momentum"], "buy_and_hold", [1, 2], data=EXAMPLE, model_cutoff=CUTOFF
    )
    split = compared.cutoff_split()
    assert list(split.index) == [("momentum", p) for p in ("before", "after", "gap")]
    assert (split["seeds"] == 2).all()
    alone = cutoff_split(compared.runs[0])  # the bars are one path: both seeds agree
    assert split[list(METRICS)].to_numpy() == pytest.approx(alone.to_numpy(), nan_ok=True)
    page = render_report(compared.runs, tmp_path / "r.html", comparison=compared.table)
    text = page.read_text(encoding="utf-8")
    assert "momentum: 2016-09-01, mean over 2 seeds" in text
    for column in ("momentum before", "momentum after", "momentum gap"):
        assert column in text


PARTIAL_DATES = [20160901, "2016", "2016-09", "2016-9-1", "Sept 1 2016", "2016-02-30", None]
PARTIAL_DATES += [np.datetime64("2016-09"), np.datetime64("NaT"), np.datetime64("2016-09-01T10:00")]
# a year no calendar date is written with, and a unit too fine to read as a day
PARTIAL_DATES += [np.datetime64("12016-01-01"), np.datetime64("-001-01-01"), np.datetime64(0, "ps")]


@pytest.mark.slow
@pytest.mark.parametrize("date", PARTIAL_DATES)
def test_only_a_full_calendar_date_is_a_cutoff(results, date: object) -> None:
    with pytest.raises(ConfigError, match=r"model_cutoff of 'momentum' is .* write YYYY-MM-DD"):
        evaluate(["momentum"], data=EXAMPLE, days=3, model_cutoff={"momentum": date})
    with pytest.raises(ConfigError, match=r"model_cutoff of 'momentum' is .* write YYYY-MM-DD"):
        cutoff_split(results, cutoffs={"momentum": date})


@pytest.mark.parametrize(
    "date",
    [
        datetime.date(2016, 9, 1),
        pd.Timestamp("2016-09-01"),
        " 2016-09-01 ",
        np.datetime64("2016-09-01"),
        np.datetime64("2016-09-01T00:00:00.000000000"),
    ],
)
def test_a_date_or_a_timestamp_at_midnight_is_the_same_cutoff(results, date: object) -> None:
    split = cutoff_split(results, cutoffs={"momentum": date})
    assert split.equals(cutoff_split(results))


def test_a_time_of_day_is_no_cutoff(results) -> None:
    with pytest.raises(ConfigError, match="a time of day has no place"):
        cutoff_split(results, cutoffs={"momentum": pd.Timestamp("2016-09-01 10:00")})


def test_a_benchmark_that_is_no_arm_is_refused_naming_the_arms(results) -> None:
    with pytest.raises(ConfigError, match=r"'nope' is no arm.*buy_and_hold, momentum"):
        cutoff_split(results, benchmark="nope")


@pytest.mark.slow
def test_a_cutoff_outside_the_run_says_which_part_is_missing(tmp_path: Path, capsys) -> None:
    from workbench.cli import main
    from workbench.report.html import render_report

    cutoffs = {"momentum": "2016-09-01", "buy_and_hold": "2015-01-01"}
    short = evaluate(["buy_and_hold", "momentum"], data=EXAMPLE, days=30, model_cutoff=cutoffs)
    last = short.meta["dates"][len(short.equity) - 1]
    assert cutoff_notes(short) == [
        "buy_and_hold's cutoff 2015-01-01 falls before the run's first date 2016-02-01: no "
        "'before' part",
        f"momentum's cutoff 2016-09-01 falls on or after the run's last date {last}: no 'after' "
        "part",
    ]
    page = render_report(short, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "no &#x27;after&#x27; part" in page
    argv = ["evaluate", "--data", str(EXAMPLE), "--days", "30", "--arms", "buy_and_hold,momentum"]
    assert main([*argv, "--model-cutoff", "momentum=2016-09-01"]) == 0
    assert f"note: momentum's cutoff 2016-09-01 falls on or after the run's last date {last}" in (
        capsys.readouterr().out
    )


@pytest.mark.slow
def test_seeds_are_counted_per_arm_and_each_arms_cutoff_is_named(results, tmp_path: Path) -> None:
    from workbench.report.html import render_report

    other = evaluate(
        ["buy_and_hold", "momentum"], data=EXAMPLE, model_cutoff={"buy_and_hold": "2016-12-01"}
    )
    split = cutoff_over_seeds([results, other])
    assert split["seeds"].to_dict() == {
        **{("momentum", p): 1 for p in ("before", "after", "gap")},
        **{("buy_and_hold", p): 1 for p in ("before", "after", "gap")},
    }
    text = render_report([results, other], tmp_path / "r.html").read_text(encoding="utf-8")
    assert "momentum: 2016-09-01; buy_and_hold: 2016-12-01" in text


@pytest.mark.slow
def test_runs_that_cut_one_arm_at_different_dates_are_refused(results) -> None:
    later = evaluate(
        ["buy_and_hold", "momentum"], data=EXAMPLE, model_cutoff={"momentum": "2016-12-01"}
    )
    with pytest.raises(ConfigError, match="'momentum' two cutoffs, 2016-09-01 and 2016-12-01"):
        cutoff_over_seeds([results, later])


@pytest.mark.slow
def test_the_cli_takes_the_comma_form_and_refuses_a_repeated_arm(capsys) -> None:
    from workbench.services.evaluation import cutoffs_from

    both = cutoffs_from(["momentum=2016-09-01,cash=2017-01-02"], where="x", example="y")
    assert both == {"cash": "2017-01-02", "momentum": "2016-09-01"}
    with pytest.raises(
        ConfigError, match="gives 'momentum' two cutoffs, 2016-09-01 and 2016-10-03"
    ):
        cutoffs_from(["momentum=2016-09-01", "momentum=2016-10-03"], where="x", example="y")
    from workbench.cli import main

    argv = ["evaluate", "--arms", "cash", "--days", "3", "--model-cutoff", "cash=2016-09-01"]
    assert main(argv) != 0
    assert "--model-cutoff splits results at calendar dates" in capsys.readouterr().err


SHORT = ("annual_return_pct", "annual_volatility_pct", "sharpe", "sortino", "calmar", "beta")


@pytest.mark.parametrize("part", ["before", "after"])
def test_a_part_of_one_return_has_nan_for_what_one_return_cannot_measure(
    results, part: str
) -> None:
    dates = results.meta["dates"][: len(results.equity)]
    cutoff = dates[1] if part == "before" else dates[-2]  # one return on that side
    split = cutoff_split(results, cutoffs={"momentum": cutoff})
    short, gap = split.loc[("momentum", part)], split.loc[("momentum", "gap")]
    assert short[list(SHORT)].isna().all() and gap[list(SHORT)].isna().all()
    curve = results.equity["momentum"].to_numpy()
    one = curve[1] / curve[0] if part == "before" else curve[-1] / curve[-2]
    assert short["return_pct"] == pytest.approx((one - 1) * 100)
    assert short["best_day_pct"] == short["worst_day_pct"] == pytest.approx((one - 1) * 100)
    to = dates[1] if part == "before" else dates[-1]
    assert cutoff_notes(results, {"momentum": cutoff}) == [
        f"momentum's cutoff {cutoff} leaves one return {part} it, to {to}: the '{part}' part "
        "is too short to measure: its Sharpe, volatility, annual figures and beta are NaN"
    ]
