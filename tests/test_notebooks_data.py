"""The evaluate and compare notebooks on historical bars (the ``data`` parameter)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from workbench.notebooks.runner import make_job, run_batch

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
EXAMPLE = str(ROOT / "notebooks" / "data" / "example_bars.csv")


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
            {**base, "seeds": "1,2,3"},
            name="compare",
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
