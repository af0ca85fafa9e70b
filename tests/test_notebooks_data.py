"""The evaluate and compare notebooks on historical bars (the ``data`` parameter)."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from workbench.notebooks.runner import make_job, run_batch

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXAMPLE = str(ROOT / "notebooks" / "data" / "example_bars.csv")
NEWS = str(ROOT / "notebooks" / "data" / "example_news.csv")
FUNDAMENTALS = str(ROOT / "notebooks" / "data" / "example_fundamentals.csv")
NAMES = str(ROOT / "notebooks" / "data" / "example_names.csv")
# runs of a few days on a year of news: the items after their last decision are unseen, as
# they say
pytestmark = pytest.mark.filterwarnings("ignore::workbench.engine.textfeed.UnseenTextWarning")

TEXT_OPTIONS = {
    "company_names": NAMES, "embargo": "15min", "canaries": 1, "close_time": "15:30",
    "timezone": "America/Chicago",
}  # fmt: skip
CUTOFF = "momentum=2016-02-04"  # the middle of the 8 dates traded (2016-02-01 .. 02-10)


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("notebooks-data")
    base = {"data": EXAMPLE, "days": 8}
    jobs = [
        make_job(
            NOTEBOOKS / "evaluate.ipynb",
            root / "evaluate",
            {**base, "arms": "buy_and_hold,momentum,trend", "include_shipped": False},
            name="evaluate",
        ),
        make_job(
            NOTEBOOKS / "compare.ipynb",
            root / "compare",
            {**base, "seeds": "1,2,3", "model_cutoff": CUTOFF, "news": NEWS},
            name="compare",
        ),
        make_job(
            NOTEBOOKS / "evaluate.ipynb",
            root / "news",
            {
                **base,
                "days": 14,  # the first report (ACME's, 2016-02-16) is out by the last decision
                "news": NEWS,
                "fundamentals": FUNDAMENTALS,
                "arms": "buy_and_hold,headline_sentiment",
                "include_shipped": False,
                **TEXT_OPTIONS,
                "model_cutoff": "headline_sentiment=2016-02-04",
            },
            name="news",
        ),
        make_job(
            NOTEBOOKS / "evaluate.ipynb",
            root / "bad-cutoff",
            {**base, "model_cutoff": "momentum", "include_shipped": False},
            name="bad-cutoff",
        ),
        make_job(
            NOTEBOOKS / "evaluate.ipynb",
            root / "news-without-bars",
            {"news": NEWS, "include_shipped": False},
            name="news-without-bars",
        ),
        make_job(
            NOTEBOOKS / "compare.ipynb",
            root / "compare-canaries",
            {**base, "news": NEWS, "seeds": "1,2", "canaries": 2},
            name="compare-canaries",
        ),
        make_job(
            NOTEBOOKS / "evaluate.ipynb",
            root / "missing",
            {"data": "no/such/bars.csv", "include_shipped": False},
            name="missing",
        ),
    ]
    result = run_batch(jobs, workers=2, progress=False, timeout=300)
    return {o.job.name: o for o in result.outcomes}


@pytest.mark.slow
def test_the_evaluate_notebook_trades_the_bars(runs) -> None:
    outcome = runs["evaluate"]
    assert outcome.ok, outcome.describe()
    card = pd.read_csv(outcome.job.out_dir / "scorecard.csv", index_col="arm")
    assert list(card.index) == ["buy_and_hold", "momentum", "trend"]
    assert (card.loc[["buy_and_hold", "momentum"], "decisions"] == 7).all()  # one per date
    assert card.loc["trend", "model_calls"] >= 1
    assert "historical-" in (outcome.job.out_dir / "report.html").read_text()


@pytest.mark.slow
def test_the_compare_notebook_compares_over_bootstrap_variants_of_the_bars(runs) -> None:
    outcome = runs["compare"]
    assert outcome.ok, outcome.describe()
    by_seed = pd.read_csv(outcome.job.out_dir / "returns_by_seed.csv")
    assert by_seed.shape[0] == 3
    assert by_seed["buy_and_hold"].nunique() == 3  # three different paths, not one path thrice


@pytest.mark.slow
def test_a_missing_bars_file_stops_at_the_checks(runs) -> None:
    outcome = runs["missing"]
    assert outcome.status == "error" and outcome.cell == 3
    assert "parameter 'data': no file at 'no/such/bars.csv'" in outcome.error


@pytest.mark.slow
def test_the_evaluate_notebook_joins_news_and_fundamentals_to_the_bars(runs) -> None:
    outcome = runs["news"]
    assert outcome.ok, outcome.describe()
    meta = json.loads((outcome.job.out_dir / "results.json").read_text())["meta"]
    text = meta["data"]["text"]
    assert text["news_items"] > 0 and text["fundamentals_reports"] > 0
    card = pd.read_csv(outcome.job.out_dir / "scorecard.csv", index_col="arm")
    assert card.loc["headline_sentiment", "trades"] > 0  # it traded on the headlines it read


@pytest.mark.slow
def test_news_without_bars_stops_at_the_checks(runs) -> None:
    outcome = runs["news-without-bars"]
    assert outcome.status == "error" and outcome.cell == 3
    assert "parameter 'news': joins text to historical bars" in outcome.error


@pytest.mark.slow
def test_the_evaluate_notebook_takes_the_clis_text_options_and_a_model_cutoff(runs) -> None:
    outcome = runs["news"]
    assert outcome.ok, outcome.describe()
    meta = json.loads((outcome.job.out_dir / "results.json").read_text())["meta"]
    text = meta["data"]["text"]
    assert (text["embargo"], text["close_time"], text["timezone"]) == (
        "0 days 00:15:00", "15:30", "America/Chicago"
    )  # fmt: skip
    assert text["canaries"] == 1 and meta["canaries"]
    assert meta["model_cutoff"] == {"headline_sentiment": "2016-02-04"}
    page = (outcome.job.out_dir / "report.html").read_text(encoding="utf-8")
    assert "Before and after the model cutoff" in page and "Text leak report" in page
    leaks = pd.read_csv(outcome.job.out_dir / "text_leaks.csv")
    assert "acme" not in set(leaks["token"].str.casefold())  # the company names were masked


@pytest.mark.slow
def test_the_compare_notebook_splits_the_real_path_at_the_cutoff(runs) -> None:
    outcome = runs["compare"]
    assert outcome.ok, outcome.describe()
    split = pd.read_csv(outcome.job.out_dir / "cutoff_split.csv", index_col=["arm", "period"])
    assert list(split.index) == [("momentum", p) for p in ("before", "after", "gap")]
    assert split.loc[("momentum", "before"), "return_pct"] == pytest.approx(
        split.loc[("momentum", "after"), "return_pct"]
        - split.loc[("momentum", "gap"), "return_pct"]
    )
    page = (outcome.job.out_dir / "report.html").read_text(encoding="utf-8")
    assert "Before and after the model cutoff (the real path)" in page


@pytest.mark.slow
def test_the_compare_notebooks_leak_report_reads_the_variants_its_seeds_traded(runs) -> None:
    from workbench.services.evaluation import load_bars, text_leaks

    outcome = runs["compare"]
    assert outcome.ok, outcome.describe()
    written = pd.read_csv(outcome.job.out_dir / "text_leaks.csv", keep_default_na=False)
    variants = [f"bootstrap:{s}" for s in (1, 2, 3)]
    expected = text_leaks(load_bars(EXAMPLE, news=NEWS), days=8, variants=variants)
    assert written.columns.tolist() == expected.columns.tolist()
    assert written["token"].tolist() == expected["token"].tolist()
    assert written["items"].tolist() == expected["items"].tolist()


@pytest.mark.slow
def test_a_malformed_model_cutoff_stops_at_the_checks(runs) -> None:
    outcome = runs["bad-cutoff"]
    assert outcome.status == "error" and outcome.cell == 3
    assert "parameter 'model_cutoff': item 'momentum' is not ARM=DATE" in outcome.error


@pytest.mark.slow
def test_canaries_in_the_compare_notebook_stop_at_the_checks(runs) -> None:
    outcome = runs["compare-canaries"]
    assert outcome.status == "error" and outcome.cell == 3
    assert "parameter 'canaries': canaries are planted on the real path only" in outcome.error


@pytest.mark.slow
def test_a_replay_in_the_evaluate_notebook_refuses_another_cutoff(tmp_path: Path) -> None:
    from workbench import recordings
    from workbench.notebooks import parameters as check

    recording = tmp_path / "recording"
    market = check.market(Path(EXAMPLE), universe=4, days=8, preset="", news=Path(NEWS))
    roster = check.recording_roster(["trend", "momentum"])
    recordings.record(recording, roster, seed=7, **market, model_cutoff={"trend": "2016-02-04"})
    given = {"data": EXAMPLE, "days": 8, "arms": "trend,momentum", "include_shipped": False}
    given |= {"mode": "replay", "recording": str(recording), "news": NEWS}
    jobs = [
        make_job(
            NOTEBOOKS / "evaluate.ipynb", tmp_path / name, {**given, "model_cutoff": cut}, name=name
        )
        for name, cut in (("other", "trend=2016-02-05"), ("same", "trend=2016-02-04"))
    ]
    outcomes = {
        o.job.name: o for o in run_batch(jobs, workers=2, progress=False, timeout=300).outcomes
    }
    assert outcomes["other"].status == "error"
    assert "'trend' was recorded with 2016-02-04, not 2016-02-05" in outcomes["other"].error
    assert outcomes["same"].ok, outcomes["same"].describe()
    assert (tmp_path / "same" / "text_leaks.csv").is_file()  # the leak report kept in a replay
