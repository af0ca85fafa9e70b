"""The compare notebook on a fresh checkout, run top to bottom as JupyterLab's Run All does
(no papermill, so nothing makes its output folder first), and what it shows."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("nbclient")

REPO = Path(__file__).resolve().parents[1]
NOTEBOOK = REPO / "notebooks" / "compare.ipynb"
SMALL = {"universe: int = 20": "universe: int = 6", "days: int = 10": "days: int = 5",
         'seeds: str = "1,2,3,4,5,6"': 'seeds: str = "1,2,3"'}  # fmt: skip


def run_all(notebook: Path, cwd: Path, **changes: str) -> None:
    """Execute every cell in order in a kernel started in ``cwd``, with smaller defaults
    and ``changes`` (a parameter's default line -> its new line)."""
    import nbformat
    from nbclient import NotebookClient

    book = nbformat.read(notebook, as_version=4)
    (parameters,) = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    for default, small in {**SMALL, **changes}.items():
        assert default in parameters.source, default
        parameters.source = parameters.source.replace(default, small)
    client = NotebookClient(book, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(cwd)}})  # fmt: skip
    client.execute()


@pytest.mark.slow
def test_run_all_on_a_fresh_checkout_makes_its_folder_and_shows_every_figure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO), prepend=os.pathsep)
    checkout = tmp_path / "notebooks"
    checkout.mkdir()  # nothing in it: no out/ folder yet
    run_all(NOTEBOOK, checkout)
    out = checkout / "out" / "notebooks" / "compare"
    table = pd.read_csv(out / "many_arms.csv", index_col="arm")
    assert "buy_and_hold" not in table.index and len(table) == 7  # every baseline but the benchmark
    for column in ("spa_p", "in_mcs", "mcs_p", "seeds_needed", "min_track_record_days"):
        assert column in table.columns
    snooping = json.loads((out / "snooping.json").read_text())
    assert snooping["paired_days"] == 3 * 5 and snooping["benchmark"] == "buy_and_hold"
    assert set(snooping["model_confidence_set"]) <= {"buy_and_hold", *table.index}
    overfitting = json.loads((out / "overfitting.json").read_text())
    assert overfitting["trials"] == 8 and 0.0 <= overfitting["pbo"] <= 1.0
    assert (out / "report.html").is_file() and (out / "selection_comparison.csv").is_file()
    cost = pd.read_csv(out / "cost.csv", index_col="arm")
    assert list(cost.columns) == ["model_calls", "tokens", "cost_usd"] and len(cost) == 8
    assert (cost["cost_usd"] == 0).all() and (cost["model_calls"] == 0).all()  # no model called


@pytest.mark.slow
def test_stop_when_settled_runs_fewer_seeds_and_says_what_it_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO), prepend=os.pathsep)
    changes = {
        'arms: str = "baselines"': 'arms: str = "cash,buy_and_hold"',
        'benchmark: str = "buy_and_hold"': 'benchmark: str = "cash"',
        'seeds: str = "1,2,3,4,5,6"': 'seeds: str = "1,2,3,4,5,6,7,8,9,10,11,12"',
        'metric: str = "return_pct"': 'metric: str = "turnover"',
        'stop: str = "never"': 'stop: str = "settled"',
    }
    run_all(NOTEBOOK, tmp_path, **changes)
    out = tmp_path / "out" / "notebooks" / "compare"
    stopping = json.loads((out / "stopping.json").read_text())
    assert stopping["settled"] and stopping["verdicts"] == {"buy_and_hold": "differs"}
    assert stopping["seeds_used"] + stopping["seeds_not_spent"] == 12
    assert stopping["seeds_not_spent"] > 0
    table = pd.read_csv(out / "comparison.csv", index_col="arm")
    assert table.loc["buy_and_hold", "seeds"] == stopping["seeds_used"]


def test_papermill_reads_every_parameter_line() -> None:
    import papermill

    names = set(papermill.inspect_notebook(str(NOTEBOOK)))
    assert {"stop", "margin", "metric", "confidence", "seeds", "out_dir"} <= names
