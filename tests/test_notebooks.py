"""Every notebook executed by papermill on a real kernel, with defaults and with bad parameters.

The runs share two batches (two kernels at once) so the suite pays for each once: the
evaluate notebook's defaults are the ones `workbench demo` runs, beside the first batch;
the second batch replays what the first recorded and reruns, with a bad parameter, into a
copy of the demo's folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
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
    RunOutcome,
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
RERUN = "negative-days"  # run into a folder holding an earlier run's results and a user's file
SMALL = {"universe": 10, "days": 3, "include_shipped": False}
LEARNER_SEEDS = list(range(1, 13))
# the scripted learner without and with memory on standard-v2, where twelve seeds show
# memory's effect on turnover (p 0.001); on standard-v4 the same seeds do not (p 0.10)
LEARNER = {
    "arms": "learner,learner_memory",
    "benchmark": "learner",
    "seeds": ",".join(map(str, LEARNER_SEEDS)),
    "preset": "standard-v2",
}


ROOT = NOTEBOOKS.parent


def _tampered_recording(folder: Path) -> Path:
    """A shipped recording whose manifest says the run ended differently."""
    source = next(p for p in shipped_recordings() if p.name == "callable-sync-trend")
    shutil.copytree(source, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["expected"]["digest"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))
    return folder


def _first_jobs(root: Path) -> list[NotebookJob]:
    names = [name for name in NAMES if name != "evaluate"]  # the demo runs its defaults
    jobs = [make_job(NOTEBOOKS / f"{name}.ipynb", root / name, {}, name=name) for name in names]
    record = {**SMALL, "arms": "trend,contrarian,committee,momentum", "mode": "record", "seed": 11}
    jobs.append(make_job(NOTEBOOKS / "evaluate.ipynb", root / "record", record, name="record"))
    for label, (params, _) in BAD.items():
        if label != RERUN:
            jobs.append(make_job(NOTEBOOKS / "evaluate.ipynb", root / label, params, name=label))
    for metric in ("return_pct", "turnover"):  # their own run store, beside root/learner
        out, params = root / "learner" / metric, {**LEARNER, "metric": metric}
        jobs.append(make_job(NOTEBOOKS / "compare.ipynb", out, params, name=f"learner-{metric}"))
    tampered = {"recording": str(_tampered_recording(root / "tampered-recording"))}
    jobs.append(make_job(NOTEBOOKS / "replay.ipynb", root / "tampered", tampered, name="tampered"))
    return jobs


def _second_jobs(root: Path) -> list[NotebookJob]:
    recorded = {"mode": "replay", "recording": str(root / "record" / "recording")}
    again = {**recorded, "include_shipped": False}
    rerun = root / RERUN  # the demo's results and the user's own file, then a failed rerun
    shutil.copytree(root / "evaluate", rerun)
    assert (rerun / "scorecard.csv").is_file()
    (rerun / "notes.txt").write_text("mine")
    return [
        make_job(NOTEBOOKS / "evaluate.ipynb", root / "replayed", again, name="replayed"),
        make_job(NOTEBOOKS / "evaluate.ipynb", rerun, BAD[RERUN][0], name=RERUN),
    ]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("notebooks")


@pytest.fixture(scope="module")
def demo(root: Path) -> Iterator[subprocess.Popen]:
    """`workbench demo` into root/evaluate, started first and running beside the first batch."""
    command = [sys.executable, "-m", "workbench", "demo", "--out", str(root / "evaluate")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ["PYTHONPATH"]])}
    with (root / "demo.out").open("w") as out, (root / "demo.err").open("w") as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
    yield process
    if process.poll() is None:  # a test stopped the module early
        process.kill()
    process.wait()


@pytest.fixture(scope="module")
def demo_printed(root: Path, demo: subprocess.Popen) -> str:
    """What the demo printed, once it ended well."""
    demo.wait(timeout=600)
    printed = (root / "demo.out").read_text()
    assert demo.returncode == 0, printed + (root / "demo.err").read_text()
    return printed


@pytest.fixture(scope="module")
def runs(root: Path, demo: subprocess.Popen) -> dict[str, RunOutcome]:
    first = run_batch(_first_jobs(root), workers=2, progress=False, timeout=300)
    demo.wait(timeout=600)  # its folder is copied for the rerun
    second = run_batch(_second_jobs(root), workers=2, progress=False, timeout=300)
    return {o.job.name: o for o in (*first.outcomes, *second.outcomes)}


def _defaults_folder(runs: dict[str, RunOutcome], root: Path, name: str) -> Path:
    if name == "evaluate":
        return root / "evaluate"
    assert runs[name].ok, runs[name].describe()
    return runs[name].job.out_dir


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_notebook_runs_top_to_bottom_with_its_defaults(runs, root, demo_printed, name):
    out = _defaults_folder(runs, root, name)
    folders = [out] if name != "replay" else [out / p.name for p in shipped_recordings()]
    for folder in folders:
        for file in ("scorecard.csv", "scorecard.parquet", "equity.parquet", "report.html"):
            assert (folder / file).is_file(), f"{name}: {folder / file} missing"
        assert (folder / "equity.png").read_bytes().startswith(b"\x89PNG")
    assert pd.read_csv(out / "scorecard.csv").shape[0] >= 1


@pytest.mark.slow
def test_evaluate_notebook_reproduces_the_in_process_run(root, demo_printed):
    out = root / "evaluate"
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

    market = check.market(None, universe=20, days=10, preset=LEARNER["preset"])
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
def test_a_recording_made_by_the_notebook_replays_in_the_notebook(runs):
    recorded = runs["record"]
    assert recorded.ok, recorded.describe()
    folder = recorded.job.out_dir / "recording"
    assert sorted(p.name for p in (folder / "transcripts").iterdir()) == [
        "committee.json",
        "contrarian.json",
        "trend.json",
    ]
    again = runs["replayed"]  # the evaluate notebook in replay mode on that folder
    assert again.ok, again.describe()
    before = json.loads((recorded.job.out_dir / "results.json").read_text())
    after = json.loads((again.job.out_dir / "results.json").read_text())
    assert after == before


@pytest.mark.slow
@pytest.mark.parametrize("label", list(BAD))
def test_a_bad_parameter_stops_at_the_checks_and_writes_nothing(runs, label):
    outcome = runs[label]
    assert outcome.status == "error"
    assert outcome.cell == VALIDATION_CELL
    assert outcome.error.startswith("ConfigError: ") and BAD[label][1] in outcome.error
    left = sorted(p.name for p in outcome.job.out_dir.iterdir() if p.name != OUTPUTS_LEDGER)
    mine = ["notes.txt"] if label == RERUN else []  # the user's own file is left alone
    assert left == ["evaluate.ipynb", *mine]  # the executed notebook, showing the error


def test_a_misspelled_parameter_is_refused_by_name_before_any_kernel_starts(tmp_path):
    with pytest.raises(
        ConfigError, match=r"'dayz' is not a parameter of evaluate\.ipynb\. Did you"
    ):
        run_notebook(NOTEBOOKS / "evaluate.ipynb", tmp_path / "out", {"dayz": 2})
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_a_failed_rerun_into_the_same_folder_leaves_no_earlier_results(runs, root):
    failed = runs[RERUN]  # into a copy of the demo's folder, its ledger included
    assert failed.status == "error" and failed.job.out_dir == root / RERUN
    left = sorted(p.name for p in failed.job.out_dir.rglob("*") if p.name != OUTPUTS_LEDGER)
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
def test_replay_notebook_fails_loudly_on_a_difference(runs):
    outcome = runs["tampered"]  # its manifest says the recorded run ended differently
    assert outcome.status == "error" and outcome.cell == VALIDATION_CELL + 1
    assert outcome.error.startswith("RecordingError: ") and "differs" in outcome.error
    assert not (outcome.job.out_dir / "scorecard.csv").exists()


@pytest.mark.slow
def test_demo_runs_the_evaluate_notebook_and_says_where_the_report_is(root, demo_printed):
    assert f"report: {root / 'evaluate' / 'report.html'}" in demo_printed
    assert "shipped recordings replayed and matched" in demo_printed
    assert (root / "evaluate" / "evaluate.ipynb").is_file()
    assert pd.read_csv(root / "evaluate" / "shipped_recordings.csv")["matched"].all()
