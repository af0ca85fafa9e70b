"""A kernel that dies before it answers is started once more, never more, by the runner.

Two kernels starting at once can be handed the same free port by jupyter_client (it
picks the port, then the kernel binds it); the kernel that loses dies before replying
to kernel_info. The kernels here die so on purpose: a real ipykernel behind a launcher
that exits first, the way a kernel that lost its port does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from workbench.notebooks import runner

# exits (as a kernel that cannot bind its port does) until it has been started `dies` times
_LAUNCHER = """
import pathlib, runpy, sys
starts = pathlib.Path(sys.argv[1])
count = int(starts.read_text()) + 1 if starts.exists() else 1
starts.write_text(str(count))
if count <= int(sys.argv[2]):
    sys.exit(1)
sys.argv = ["ipykernel_launcher", *sys.argv[3:]]
runpy.run_module("ipykernel_launcher", run_name="__main__")
"""


def _kernel_dying(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dies: int) -> Path:
    """A kernel spec, ``dying``, whose first ``dies`` starts exit; its count of starts."""
    launcher, starts = tmp_path / "launcher.py", tmp_path / "starts.txt"
    launcher.write_text(_LAUNCHER)
    spec = tmp_path / "jupyter" / "kernels" / "dying"
    spec.mkdir(parents=True)
    argv = [sys.executable, str(launcher), str(starts), str(dies), "-f", "{connection_file}"]
    kernel = {"argv": argv, "display_name": "dying", "language": "python"}
    (spec / "kernel.json").write_text(json.dumps(kernel))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    return starts


def _notebook(tmp_path: Path) -> Path:
    params = new_code_cell('out_dir = "."')
    params.metadata["tags"] = ["parameters"]
    work = new_code_cell('import pathlib\npathlib.Path(out_dir, "ran.txt").write_text("ran")')
    book = new_notebook(cells=[params, work])
    book.metadata["kernelspec"] = {"name": "dying", "display_name": "dying", "language": "python"}
    path = tmp_path / "book.ipynb"
    nbformat.write(book, path)
    return path


@pytest.mark.slow
def test_a_kernel_that_dies_starting_is_started_again_and_the_notebook_runs_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = _kernel_dying(tmp_path, monkeypatch, dies=1)
    out = tmp_path / "out"
    outcome = runner.run_notebook(_notebook(tmp_path), out, kernel_name="dying", timeout=60)
    assert outcome.status == "ok", outcome.error
    assert starts.read_text() == "2"  # died once, then ran
    assert (out / "ran.txt").read_text() == "ran"


@pytest.mark.slow
def test_a_kernel_that_keeps_dying_fails_the_run_after_the_second_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    starts = _kernel_dying(tmp_path, monkeypatch, dies=5)
    outcome = runner.run_notebook(
        _notebook(tmp_path), tmp_path / "out", kernel_name="dying", timeout=60
    )
    assert (outcome.status, outcome.cell) == ("error", None)
    assert outcome.error.startswith("RuntimeError: Kernel died before replying to kernel_info")
    assert "2 times: kernel 'dying' does not start" in outcome.error
    assert "jupyter kernelspec list" in outcome.error  # how to see why
    assert starts.read_text() == "2"
    assert not (tmp_path / "out" / "ran.txt").exists()
    assert not (tmp_path / "out" / "book.ipynb").exists()  # no notebook claims its cells ran


@pytest.mark.slow
def test_a_kernel_that_keeps_dying_fails_its_run_and_the_batch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # one worker runs them in turn: "bad" gets the two starts that die, "good" the third
    starts = _kernel_dying(tmp_path, monkeypatch, dies=2)
    book = _notebook(tmp_path)
    jobs = [
        runner.make_job(book, tmp_path / "out-bad", {}, name="bad"),
        runner.make_job(book, tmp_path / "out-good", {}, name="good"),
    ]
    result = runner.run_batch(
        jobs, workers=1, kernel_name="dying", timeout=60, progress=False, summary_dir=tmp_path
    )
    assert starts.read_text() == "3"
    outcomes = {o.job.name: o for o in result.outcomes}
    assert outcomes["good"].ok, outcomes["good"].describe()
    assert (tmp_path / "out-good" / "ran.txt").read_text() == "ran"
    assert outcomes["bad"].status == "error"
    assert "kernel 'dying' does not start" in outcomes["bad"].error
    assert "bad: error after" in outcomes["bad"].describe()
    assert not (tmp_path / "out-bad" / "book.ipynb").exists()
    assert result.failures == [outcomes["bad"]]
    summary = json.loads((tmp_path / "batch.json").read_text())
    assert summary["failed"] == ["bad"]


@pytest.mark.slow
def test_the_cli_batch_lists_a_kernel_that_will_not_start_as_a_failed_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.cli import main

    _kernel_dying(tmp_path, monkeypatch, dies=50)
    argv = ["notebook", "batch", str(_notebook(tmp_path)), "--out", str(tmp_path / "out")]
    assert main([*argv, "--kernel", "dying", "--no-progress"]) == 1
    printed = capsys.readouterr().out
    assert "kernel 'dying' does not start" in printed
    assert "0/1 runs ok" in printed
