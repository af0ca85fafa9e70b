"""The notebook batch runner and ``workbench notebook``: grids, kernels at once, failures."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from workbench.cli import main
from workbench.errors import ConfigError
from workbench.notebooks import runner
from workbench.notebooks.grid import expand_grid, jobs_from_file, plan_jobs

# value 1 and 4 pass, 2 raises in cell 2, 3 sleeps past the timeout
_WORK = """
import pathlib, time
if value == 2:
    raise ValueError(f"no good value {value}")
if value == 3:
    time.sleep(60)
pathlib.Path(out_dir, "scorecard.csv").write_text(f"arm,return_pct\\n{label},{value * 1.5}\\n")
pathlib.Path(out_dir, "cwd.txt").write_text(str(pathlib.Path.cwd()))
"""


@pytest.fixture
def toy_notebook(tmp_path: Path) -> Path:
    params = new_code_cell('label: str = "x"  # a label\nvalue: int = 1  # a number\nout_dir = "."')
    params.metadata["tags"] = ["parameters"]
    book = new_notebook(cells=[params, new_code_cell(_WORK.strip())])
    book.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    path = tmp_path / "toy.ipynb"
    nbformat.write(book, path)
    return path


def test_grid_is_every_combination_first_parameter_slowest():
    combos = expand_grid({"seed": [1, 2], "preset": ["a", "b"]})
    assert combos == [
        {"seed": 1, "preset": "a"},
        {"seed": 1, "preset": "b"},
        {"seed": 2, "preset": "a"},
        {"seed": 2, "preset": "b"},
    ]
    assert expand_grid({}) == [{}]
    with pytest.raises(ConfigError, match="'seed' needs a non-empty list"):
        expand_grid({"seed": []})


def test_jobs_get_their_own_folders_and_merged_parameters(toy_notebook, tmp_path):
    jobs = plan_jobs(
        [toy_notebook], tmp_path / "out", parameters={"label": "L"}, grid={"value": [1, 4]}
    )
    assert [j.parameters for j in jobs] == [{"label": "L", "value": 1}, {"label": "L", "value": 4}]
    assert len({j.out_dir for j in jobs}) == 2
    assert all(j.out_dir.parent == (tmp_path / "out").resolve() for j in jobs)
    with pytest.raises(ConfigError, match="not found"):
        plan_jobs([tmp_path / "missing.ipynb"], tmp_path)
    with pytest.raises(ConfigError, match="out_dir"):
        plan_jobs([toy_notebook], tmp_path, parameters={"out_dir": "x"})


def test_yaml_batch_file(toy_notebook, tmp_path):
    spec = tmp_path / "batch.yaml"
    spec.write_text(
        "notebook: toy.ipynb\nparameters: {label: y}\ngrid: {value: [1, 2]}\n"
        "runs: [{value: 4, label: z}]\nworkers: 3\n"
    )
    jobs, workers = jobs_from_file(spec, tmp_path / "out")
    assert workers == 3
    assert [dict(j.parameters) for j in jobs] == [
        {"label": "y", "value": 1},
        {"label": "y", "value": 2},
        {"label": "z", "value": 4},
    ]
    spec.write_text("notebook: toy.ipynb\ngird: {value: [1]}\n")
    with pytest.raises(ConfigError, match="unknown key"):
        jobs_from_file(spec, tmp_path / "out")


@pytest.mark.slow
def test_batch_runs_kernels_at_once_and_reports_failures_with_their_cell(toy_notebook, tmp_path):
    jobs = plan_jobs([toy_notebook], tmp_path / "out", grid={"value": [1, 2, 3, 4]})
    result = runner.run_batch(
        jobs, workers=2, timeout=4, progress=False, summary_dir=tmp_path / "out"
    )
    statuses = [o.status for o in result.outcomes]
    assert statuses == ["ok", "error", "timeout", "ok"]
    error, timeout = result.outcomes[1], result.outcomes[2]
    assert error.cell == 2 and error.error == "ValueError: no good value 2"
    assert timeout.cell == 2 and timeout.error.startswith("CellTimeoutError")
    assert [f.job.name for f in result.failures] == [jobs[1].name, jobs[2].name]
    card = result.scorecards
    assert list(card["value"]) == [1, 4] and list(card["return_pct"]) == [1.5, 6.0]
    assert list(card.columns[:3]) == ["run", "value", "arm"]
    summary = json.loads((tmp_path / "out" / "batch.json").read_text())
    assert summary["failed"] == [jobs[1].name, jobs[2].name]
    assert (jobs[1].out_dir / "toy.ipynb").is_file()  # the failed notebook is kept to read


@pytest.mark.slow
def test_cli_run_executes_one_notebook(toy_notebook, tmp_path, capsys, monkeypatch):
    caller = tmp_path / "caller"
    caller.mkdir()
    monkeypatch.chdir(caller)
    code = main(["notebook", "run", str(toy_notebook), "-p", "value", "4", "--out", "result"])
    assert code == 0
    out = caller / "result"
    assert (out / "scorecard.csv").read_text() == "arm,return_pct\nx,6.0\n"
    assert (out / "cwd.txt").read_text() == str(caller)  # relative parameters mean the caller's
    assert "toy: ok" in capsys.readouterr().out


def test_cli_batch_hands_the_grid_to_the_runner(toy_notebook, tmp_path, monkeypatch, capsys):
    seen = {}

    def fake_run_batch(jobs, **options):
        seen.update(jobs=jobs, **options)
        return runner.BatchResult([], runner.collect_scorecards([]), 0.0)

    monkeypatch.setattr(runner, "run_batch", fake_run_batch)
    argv = ["notebook", "batch", str(toy_notebook), "-g", "value", "1", "2", "-p", "label", "q"]
    assert main([*argv, "--out", str(tmp_path), "--workers", "3", "--no-progress"]) == 0
    assert [dict(j.parameters) for j in seen["jobs"]] == [
        {"label": "q", "value": 1},
        {"label": "q", "value": 2},
    ]
    assert seen["workers"] == 3 and seen["progress"] is False
    assert seen["summary_dir"] == tmp_path


def test_cli_values_are_read_as_yaml():
    from workbench.cli.notebook import parse_value

    assert parse_value("5") == 5 and parse_value("0.5") == 0.5 and parse_value("true") is True
    assert parse_value("1,2,3") == "1,2,3" and parse_value("[1, 2]") == [1, 2]
    assert parse_value("calm-v1") == "calm-v1" and parse_value("") == ""
