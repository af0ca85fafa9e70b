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

from workbench.errors import ConfigError
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


def _kernel_spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, argv: list[str]):
    spec = tmp_path / "jupyter" / "kernels" / name
    spec.mkdir(parents=True)
    kernel = {
        "argv": [*argv, "-f", "{connection_file}"],
        "display_name": name,
        "language": "python",
    }
    (spec / "kernel.json").write_text(json.dumps(kernel))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))


def _batch_of_two(tmp_path: Path, kernel_name: str, **options: int) -> runner.BatchResult:
    book = _notebook(tmp_path)
    jobs = [runner.make_job(book, tmp_path / f"out-{n}", {}, name=n) for n in ("one", "two")]
    return runner.run_batch(
        jobs, workers=1, kernel_name=kernel_name, timeout=60, progress=False, **options
    )


def _assert_every_run_failed_unstarted(tmp_path: Path, result: runner.BatchResult) -> str:
    """Both runs failed before any cell ran, and left no notebook; their error."""
    assert [(o.status, o.cell) for o in result.outcomes] == [("error", None)] * 2
    assert result.failures == result.outcomes
    for name in ("one", "two"):
        assert not (tmp_path / f"out-{name}" / "book.ipynb").exists()
        assert not (tmp_path / f"out-{name}" / "ran.txt").exists()
    return result.outcomes[0].error


def test_an_unknown_kernel_name_fails_every_run_naming_the_kernels_there_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _kernel_spec(tmp_path, monkeypatch, "dying", [sys.executable, "-c", "pass"])
    result = _batch_of_two(tmp_path, "dyin")
    error = _assert_every_run_failed_unstarted(tmp_path, result)
    assert "no kernel is named 'dyin'. Did you mean 'dying'?" in error
    assert "Kernels here: " in error and "dying" in error.split("Kernels here: ")[1]
    assert "`jupyter kernelspec list`" in error


@pytest.mark.slow
def test_a_kernel_whose_command_does_not_exist_fails_every_run_naming_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = str(tmp_path / "no-such-python")
    _kernel_spec(tmp_path, monkeypatch, "dying", [command])
    result = _batch_of_two(tmp_path, "dying")
    error = _assert_every_run_failed_unstarted(tmp_path, result)
    assert f"kernel 'dying' cannot start: its command {command!r} was not found" in error
    assert "`jupyter kernelspec list`" in error


@pytest.mark.slow
def test_a_kernel_that_never_answers_fails_every_run_after_start_timeout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    silent = [sys.executable, "-c", "import time; time.sleep(600)"]
    _kernel_spec(tmp_path, monkeypatch, "dying", silent)
    result = _batch_of_two(tmp_path, "dying", start_timeout=1)
    error = _assert_every_run_failed_unstarted(tmp_path, result)
    assert "kernel 'dying' started but did not answer within 1s" in error
    assert "`jupyter kernelspec list`" in error and "start_timeout=" in error


@pytest.mark.parametrize("start_timeout", [0, -1, 1.5, float("nan"), True, "60"])
def test_start_timeout_must_be_a_number_of_seconds(tmp_path: Path, start_timeout: object) -> None:
    book = _notebook(tmp_path)
    with pytest.raises(ConfigError, match="start_timeout must be a whole number >= 1"):
        runner.run_notebook(book, tmp_path / "out", start_timeout=start_timeout)  # type: ignore[arg-type]
    job = runner.make_job(book, tmp_path / "out", {}, name="one")
    with pytest.raises(ConfigError, match="start_timeout must be a whole number >= 1"):
        runner.run_batch([job], start_timeout=start_timeout, progress=False)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "error",
    [
        FileNotFoundError(2, "No such file or directory", "/elsewhere/data.csv"),
        RuntimeError("Kernel's event loop is closed"),
    ],
)
def test_an_error_that_is_not_the_kernel_starting_still_propagates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    import papermill

    def fails(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(papermill, "execute_notebook", fails)
    job = runner.make_job(_notebook(tmp_path), tmp_path / "out", {}, name="one")
    with pytest.raises(type(error), match=str(error.args[-1])):
        runner.run_batch([job], kernel_name="python3", progress=False)
