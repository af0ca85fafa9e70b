"""Every notebook executed by papermill on a real kernel, with defaults and with bad parameters.

The runs share one batch (two kernels at once) so the suite pays for them once.
"""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pandas as pd
import papermill
import pytest

from workbench.baselines import BASELINES
from workbench.errors import ConfigError
from workbench.evaluation import evaluate
from workbench.notebooks.grid import plan_jobs
from workbench.notebooks.parameters import shipped_recordings
from workbench.notebooks.runner import (
    OUTPUTS_LEDGER,
    NotebookJob,
    make_job,
    run_batch,
    run_notebook,
)

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
NAMES = ("evaluate", "replay", "compare", "committee", "explore", "news")
VALIDATION_CELL = 3  # title, parameters, injected parameters, then the checks
BAD = {
    "unknown-arm": ({"arms": "buy_and_hold,gpt9"}, "parameter 'arms': unknown arm 'gpt9'"),
    "negative-days": ({"days": -3}, "parameter 'days'"),
    "missing-recording": (
        {"mode": "replay", "recording": "no/such/recording"},
        "parameter 'recording': no recording at",
    ),
}
SMALL = {"universe": 10, "days": 3, "include_shipped": False}
LEARNER_SEEDS = list(range(1, 13))
LEARNER = {  # the scripted learner without and with memory, on the notebook's default market
    "arms": "learner,learner_memory",
    "benchmark": "learner",
    "seeds": ",".join(map(str, LEARNER_SEEDS)),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("notebooks")
    jobs: list[NotebookJob] = [
        make_job(NOTEBOOKS / f"{name}.ipynb", root / name, {}, name=name) for name in NAMES
    ]
    jobs.append(
        make_job(
            NOTEBOOKS / "evaluate.ipynb",
            root / "record",
            {**SMALL, "arms": "trend,contrarian,committee,momentum", "mode": "record", "seed": 11},
            name="record",
        )
    )
    for label, (params, _) in BAD.items():
        jobs.append(make_job(NOTEBOOKS / "evaluate.ipynb", root / label, params, name=label))
    for metric in ("return_pct", "turnover"):  # their own run store, beside root/learner
        out, params = root / "learner" / metric, {**LEARNER, "metric": metric}
        jobs.append(make_job(NOTEBOOKS / "compare.ipynb", out, params, name=f"learner-{metric}"))
    result = run_batch(jobs, workers=2, progress=False, timeout=300)
    return {o.job.name: o for o in result.outcomes}


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_top_to_bottom_with_its_defaults(runs, name):
    outcome = runs[name]
    assert outcome.ok, outcome.describe()
    out = outcome.job.out_dir
    folders = [out] if name != "replay" else [out / p.name for p in shipped_recordings()]
    for folder in folders:
        for file in ("scorecard.csv", "scorecard.parquet", "equity.parquet", "report.html"):
            assert (folder / file).is_file(), f"{name}: {folder / file} missing"
        assert (folder / "equity.png").read_bytes().startswith(b"\x89PNG")
    assert pd.read_csv(out / "scorecard.csv").shape[0] >= 1


@pytest.mark.slow
def test_evaluate_notebook_reproduces_the_in_process_run(runs):
    out = runs["evaluate"].job.out_dir
    here = evaluate(list(BASELINES), seed=7, universe=40, days=10)  # the default: news on
    assert (out / "scorecard.json").read_text() == here.scorecard_json()
    shipped = pd.read_csv(out / "shipped_recordings.csv")
    assert set(shipped["recording"]) == {p.name for p in shipped_recordings()}
    assert shipped["matched"].all()


@pytest.mark.slow
def test_compare_notebook_writes_the_paired_comparison(runs):
    out = runs["compare"].job.out_dir
    table = pd.read_csv(out / "comparison.csv", index_col="arm")
    assert "buy_and_hold" not in table.index and set(table["benchmark"]) == {"buy_and_hold"}
    assert (table["ci_low"] <= table["mean_diff"]).all()
    assert (table["p_holm"] >= table["p_value"]).all()
    assert pd.read_csv(out / "returns_by_seed.csv").shape[0] == 6
    # one trial in the run store beside out_dir; eight arms, so the DSR deflates by eight
    assert len((out.parent / "runs" / "trials.jsonl").read_text().splitlines()) == 1
    assert set(table["trials"]) == {8} and (table["dsr"].dropna() <= table["psr"].dropna()).all()
    # the paired difference of selection P&L, seed by seed, with its interval
    selection = pd.read_csv(out / "selection_by_seed.csv", index_col="seed")
    paired = pd.read_csv(out / "selection_comparison.csv", index_col="arm")
    diff = selection["momentum"] - selection["buy_and_hold"]
    assert paired.loc["momentum", "mean_diff"] == pytest.approx(diff.mean())
    assert (paired["ci_low"] <= paired["mean_diff"]).all()
    assert (paired["mean_diff"] <= paired["ci_high"]).all()
    assert "Selection P&amp;L, paired against the benchmark" in (out / "report.html").read_text()


@pytest.mark.slow
def test_compare_notebook_shows_the_paired_effect_of_memory_on_the_learner(runs):
    from workbench.evaluation.compare import paired_comparison
    from workbench.notebooks import parameters as check

    market = check.market(None, universe=20, days=10, preset="")
    here = check.seed_runs(check.build_arms(["learner", "learner_memory"]), LEARNER_SEEDS, market)
    for metric in ("return_pct", "turnover"):
        outcome = runs[f"learner-{metric}"]
        assert outcome.ok, outcome.describe()
        table = pd.read_csv(outcome.job.out_dir / "comparison.csv", index_col="arm")
        assert list(table.index) == ["learner_memory"] and table["seeds"].item() == 12
        expected = paired_comparison(here, "learner", metric=metric).loc["learner_memory"]
        for column in ("mean_diff", "ci_low", "ci_high", "p_value"):
            assert table.loc["learner_memory", column] == pytest.approx(expected[column], rel=1e-9)
    turnover = pd.read_csv(runs["learner-turnover"].job.out_dir / "comparison.csv")
    assert turnover["ci_low"].item() > 0, "memory changes what the learner does, measurably"


@pytest.mark.slow
def test_committee_notebook_shows_and_writes_the_memos(runs):
    outcome = runs["committee"]
    memos = json.loads((outcome.job.out_dir / "committee_memos.json").read_text())
    assert memos and "[analysts]" in memos[0]["memo"]
    book = nbformat.read(outcome.job.output_notebook, as_version=4)
    shown = "".join(
        "".join(o.get("text", "")) for c in book.cells if c.cell_type == "code" for o in c.outputs
    )
    assert "market_analyst" in shown


@pytest.mark.slow
def test_a_recording_made_by_the_notebook_replays_in_the_notebook(runs, tmp_path):
    recorded = runs["record"]
    assert recorded.ok, recorded.describe()
    folder = recorded.job.out_dir / "recording"
    assert sorted(p.name for p in (folder / "transcripts").iterdir()) == [
        "committee.json",
        "contrarian.json",
        "trend.json",
    ]
    again = run_notebook(
        NOTEBOOKS / "evaluate.ipynb",
        tmp_path / "replayed",
        {"mode": "replay", "recording": str(folder), "include_shipped": False},
    )
    assert again.ok, again.describe()
    before = json.loads((recorded.job.out_dir / "results.json").read_text())
    after = json.loads((tmp_path / "replayed" / "results.json").read_text())
    assert after == before


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BAD))
def test_a_bad_parameter_stops_at_the_checks_and_writes_nothing(runs, label):
    outcome = runs[label]
    assert outcome.status == "error"
    assert outcome.cell == VALIDATION_CELL
    assert outcome.error.startswith("ConfigError: ") and BAD[label][1] in outcome.error
    left = sorted(p.name for p in outcome.job.out_dir.iterdir() if p.name != OUTPUTS_LEDGER)
    assert left == ["evaluate.ipynb"]  # the executed notebook, showing the error; no results


def test_a_misspelled_parameter_is_refused_by_name_before_any_kernel_starts(tmp_path):
    with pytest.raises(
        ConfigError, match=r"'dayz' is not a parameter of evaluate\.ipynb\. Did you"
    ):
        run_notebook(NOTEBOOKS / "evaluate.ipynb", tmp_path / "out", {"dayz": 2})
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_failed_rerun_into_the_same_folder_leaves_no_earlier_results(tmp_path):
    out = tmp_path / "run"
    (out / "notes.txt").parent.mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    quick = {"arms": "cash", "universe": 3, "days": 2, "include_shipped": False}
    assert run_notebook(NOTEBOOKS / "evaluate.ipynb", out, quick).ok
    assert (out / "scorecard.csv").is_file()
    failed = run_notebook(NOTEBOOKS / "evaluate.ipynb", out, {**quick, "days": -2})
    assert failed.status == "error"
    left = sorted(p.name for p in out.iterdir() if p.name != OUTPUTS_LEDGER)
    assert left == ["evaluate.ipynb", "notes.txt"]  # the user's own file is left alone


@pytest.mark.parametrize("name", NAMES)
def test_every_parameter_is_typed_and_documented(name):
    book = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    tagged = [c for c in book.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(tagged) == 1
    lines = [line for line in tagged[0].source.splitlines() if line.strip()]
    documented = papermill.inspect_notebook(str(NOTEBOOKS / f"{name}.ipynb"))
    assert len(documented) == len(lines), "a parameter line papermill cannot parse"
    assert "out_dir" in documented
    for parameter in documented.values():
        assert parameter["inferred_type_name"] in {"str", "int", "float", "bool"}, parameter
        assert parameter["help"], f"{name}: {parameter['name']} has no comment"


def test_notebooks_ship_without_outputs():
    for name in NAMES:
        book = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        assert all(not c.get("outputs") for c in book.cells if c.cell_type == "code"), name


def test_plan_jobs_matches_what_the_notebooks_expect(tmp_path):
    jobs = plan_jobs([NOTEBOOKS / "evaluate.ipynb"], tmp_path, grid={"seed": [1, 2]})
    assert [j.parameters for j in jobs] == [{"seed": 1}, {"seed": 2}]


@pytest.mark.slow
def test_replay_notebook_fails_loudly_on_a_difference(tmp_path):
    import shutil

    source = next(p for p in shipped_recordings() if p.name == "callable-sync-trend")
    tampered = tmp_path / "tampered"
    shutil.copytree(source, tampered)
    manifest = json.loads((tampered / "manifest.json").read_text())
    manifest["expected"]["digest"] = "0" * 64  # as if the recorded run had ended differently
    (tampered / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    outcome = run_notebook(
        NOTEBOOKS / "replay.ipynb", tmp_path / "out", {"recording": str(tampered)}
    )
    assert outcome.status == "error" and outcome.cell == VALIDATION_CELL + 1
    assert outcome.error.startswith("RecordingError: ") and "differs" in outcome.error
    assert not (tmp_path / "out" / "scorecard.csv").exists()


@pytest.mark.slow
def test_demo_runs_the_evaluate_notebook_and_says_where_the_report_is(tmp_path, capsys):
    from workbench.cli import main

    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    printed = capsys.readouterr().out
    assert f"report: {tmp_path / 'demo' / 'report.html'}" in printed
    assert "shipped recordings replayed and matched" in printed
    assert (tmp_path / "demo" / "evaluate.ipynb").is_file()
    assert pd.read_csv(tmp_path / "demo" / "shipped_recordings.csv")["matched"].all()
