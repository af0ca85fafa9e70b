"""notebooks/news.ipynb on a real kernel: items beside prices, each arm's capture, its outputs.

Its run with the defaults is part of ``test_notebooks.py``'s batch; these runs use
other parameters: a small market with injected instructions, executed by papermill
itself into an output folder that does not exist yet, and two bad parameters.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pandas as pd
import papermill
import pytest

from workbench.engine.presets import preset
from workbench.evaluation import evaluate
from workbench.notebooks.runner import OUTPUTS_LEDGER, make_job, run_batch
from workbench.report.information import capture_table, item_counts

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "news.ipynb"
ARMS = ["buy_and_hold", "momentum", "headline_sentiment", "earnings_drift"]
SMALL = {"universe": 8, "days": 30, "seed": 3, "injection_rate": 0.3}
VALIDATION_CELL = 3  # title, parameters, injected parameters, then the checks
BAD = {
    "rate": ({"injection_rate": 1.5}, "dial 'injection_rate' must be between 0 and 1"),
    "price-only": ({"preset": "standard-v1"}, "'standard-v1' publishes no news"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("news")
    jobs = [
        make_job(NOTEBOOK, root / label, params, name=label) for label, (params, _) in BAD.items()
    ]
    outcomes = {
        o.job.name: o for o in run_batch(jobs, workers=2, progress=False, timeout=300).outcomes
    }
    out = root / "nested" / "not" / "made"
    papermill.execute_notebook(
        str(NOTEBOOK), str(root / "small.ipynb"), parameters={**SMALL, "out_dir": str(out)},
        kernel_name="python3", progress_bar=False, execution_timeout=300,
    )  # fmt: skip
    return outcomes, out, root / "small.ipynb"


@pytest.mark.slow
def test_the_news_notebook_writes_items_capture_and_plots_into_a_folder_it_creates(runs):
    _, out, _ = runs
    here = evaluate(
        ARMS, preset=preset("standard-v2").with_dials(injection_rate=SMALL["injection_rate"]),
        seed=SMALL["seed"], universe=SMALL["universe"], days=SMALL["days"],
    )  # fmt: skip
    assert (out / "scorecard.json").read_text() == here.scorecard_json()
    items = pd.read_parquet(out / "information.parquet")
    pd.testing.assert_frame_equal(items, here.information)
    capture = pd.read_csv(out / "capture.csv", index_col="arm")
    pd.testing.assert_frame_equal(capture, capture_table([here]), check_dtype=False)
    counts = pd.read_csv(out / "item_counts.csv", index_col="kind")
    assert counts.loc["all kinds", "total"] == len(items)
    assert (
        counts.loc["all kinds", "injected"]
        == item_counts([here.information]).loc["all kinds", "injected"]
        > 0
    )
    for png in ("news.png", "capture.png", "equity.png"):
        assert (out / png).read_bytes().startswith(b"\x89PNG"), png
    assert '<h2 id="information">' in (out / "report.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_news_notebook_shows_the_items_the_capture_and_ends_with_what_next(runs):
    _, _, executed = runs
    book = nbformat.read(executed, as_version=4)
    images = [o for c in book.cells if c.cell_type == "code" for o in c.outputs
              if "image/png" in o.get("data", {})]  # fmt: skip
    assert len(images) == 2  # the items beside a price, and each arm's capture
    shown = "".join(
        o.get("data", {}).get("text/html", "") for c in book.cells if c.cell_type == "code"
        for o in c.outputs
    )  # fmt: skip
    for arm in ARMS:
        assert arm in shown
    assert book.cells[-1].cell_type == "markdown"
    assert book.cells[-1].source.startswith("## What next")


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BAD))
def test_a_bad_news_parameter_stops_at_the_checks_and_writes_nothing(runs, label):
    outcome = runs[0][label]
    assert outcome.status == "error" and outcome.cell == VALIDATION_CELL
    assert outcome.error.startswith("ConfigError: ") and BAD[label][1] in outcome.error
    left = sorted(p.name for p in outcome.job.out_dir.iterdir() if p.name != OUTPUTS_LEDGER)
    assert left == ["news.ipynb"]
