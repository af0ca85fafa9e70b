"""Every metric split at an arm's training cutoff, on dated bars, in the results and the report."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.evaluation.cutoff import METRICS, cutoff_section, cutoff_split
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
    results = evaluate(["cash"], universe=3, days=3, model_cutoff={"cash": "2020-01-01"})
    with pytest.raises(ConfigError, match="needs dated bars"):
        cutoff_split(results)


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
    assert "Each figure is the mean over 2 seeds" in text
    for column in ("momentum before", "momentum after", "momentum gap"):
        assert column in text
