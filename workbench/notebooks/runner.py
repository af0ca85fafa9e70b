"""Run parameterised notebooks with papermill's Python API: one at a time or several at once.

Every run gets its own output folder (passed to the notebook as ``out_dir``) and
leaves the executed notebook there. A batch runs up to ``workers`` kernels at
once in one process (threads; each papermill run drives its own kernel process),
shows a progress bar, keeps going when a run fails, and collects every run's
``scorecard.csv`` into one table. A failure is reported with its cell and error:
``PapermillExecutionError`` (an exception in a cell) and nbclient's
``CellTimeoutError`` (a cell ran past ``timeout``) both become a failed
``RunOutcome``, and so does a kernel that will not start: an unknown kernel name, a
kernel command that does not exist, a kernel that does not answer within
``start_timeout``, or one that dies at both its starts (no cell, the error naming the
kernel and how to check it); anything else is a bug and propagates.
"""

from __future__ import annotations

import json
import re
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from workbench._checks import count, did_you_mean, is_whole
from workbench.errors import ConfigError

DEFAULT_KERNEL = "python3"
DEFAULT_TIMEOUT_S = 600.0
# whole seconds a started kernel has to answer (papermill's default; nbclient takes an int)
DEFAULT_START_TIMEOUT_S = 60
# the files a run wrote into its out_dir, so the next run into it can remove exactly those
OUTPUTS_LEDGER = ".workbench-outputs.json"
# the kernel log stays quiet (a local TCP warning, the interrupt at shutdown); failures
# still reach the caller as PapermillExecutionError with the cell and the error
_KERNEL_ARGUMENTS = ["--IPKernelApp.log_level=CRITICAL"]
# A kernel that dies before it answers is started once more: jupyter_client picks its
# ports free, then the kernel binds them, and a process starting beside it can take one
# in between ("Address already in use"). No cell has run then, so nothing is repeated.
_KERNEL_STARTS = 2
_DIED_STARTING = "Kernel died before replying to kernel_info"
# jupyter_client's words for a kernel process that is alive but silent past start_timeout
_NO_ANSWER = "Kernel didn't respond"


class _KernelWillNotStart(RuntimeError):
    """The kernel is unknown, cannot be launched, never answers or died at every start:
    the run fails before any cell ran."""


@dataclass(frozen=True)
class NotebookJob:
    """One notebook with its parameters and the folder its results go to."""

    notebook: Path
    parameters: Mapping[str, Any]
    out_dir: Path
    name: str

    @property
    def output_notebook(self) -> Path:
        return self.out_dir / self.notebook.name


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended; ``cell`` is the index of the failing cell (``None`` when it passed)."""

    job: NotebookJob
    status: str  # "ok", "error" or "timeout"
    seconds: float
    cell: int | None = None
    error: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def describe(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.job.parameters.items())
        if self.ok:
            return f"{self.job.name}: ok in {self.seconds:.1f}s ({params})"
        where = "" if self.cell is None else f" at cell {self.cell}"
        return (
            f"{self.job.name}: {self.status}{where} after {self.seconds:.1f}s "
            f"({params}): {self.error}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.job.name,
            "notebook": str(self.job.notebook),
            "parameters": dict(self.job.parameters),
            "out_dir": str(self.job.out_dir),
            "status": self.status,
            "seconds": round(self.seconds, 3),
            "cell": self.cell,
            "error": self.error,
        }


@dataclass
class BatchResult:
    """Every run's outcome, and all scorecards in one table (run and parameters first)."""

    outcomes: list[RunOutcome]
    scorecards: pd.DataFrame
    seconds: float
    summary_path: Path | None = None
    failures: list[RunOutcome] = field(init=False)

    def __post_init__(self) -> None:
        self.failures = [o for o in self.outcomes if not o.ok]

    def summary(self) -> str:
        lines = [o.describe() for o in self.outcomes]
        done = len(self.outcomes) - len(self.failures)
        lines.append(f"{done}/{len(self.outcomes)} runs ok in {self.seconds:.1f}s")
        return "\n".join(lines)


def run_notebook(
    notebook: str | Path,
    out_dir: str | Path,
    parameters: Mapping[str, Any] | None = None,
    *,
    kernel_name: str = DEFAULT_KERNEL,
    timeout: float | None = DEFAULT_TIMEOUT_S,
    name: str | None = None,
    start_timeout: int = DEFAULT_START_TIMEOUT_S,
) -> RunOutcome:
    """Execute one notebook into ``out_dir`` (given to it as the ``out_dir`` parameter).

    ``start_timeout`` is how many whole seconds a started kernel has to answer."""
    count("start_timeout", start_timeout, minimum=1)
    job = make_job(notebook, out_dir, parameters or {}, name=name)
    return execute(job, kernel_name=kernel_name, timeout=timeout, start_timeout=start_timeout)


def make_job(
    notebook: str | Path, out_dir: str | Path, parameters: Mapping[str, Any], name: str | None
) -> NotebookJob:
    path = Path(notebook)
    if not path.is_file():
        raise ConfigError(f"notebook {str(path)!r} not found; pass the path of an .ipynb file")
    if "out_dir" in parameters:
        raise ConfigError("pass the output folder as out_dir=/--out, not as a notebook parameter")
    _refuse_unknown_parameters(path, parameters)
    return NotebookJob(
        notebook=path.resolve(),
        parameters=dict(parameters),
        out_dir=Path(out_dir).resolve(),
        name=name or path.stem,
    )


def _refuse_unknown_parameters(path: Path, parameters: Mapping[str, Any]) -> None:
    """papermill only warns about a parameter the notebook does not declare, and the run
    then goes on with the default: refuse it by name instead."""
    import papermill

    declared = list(dict.fromkeys([*papermill.inspect_notebook(str(path)), "out_dir"]))
    for given in parameters:
        if given not in declared:
            raise ConfigError(
                f"{given!r} is not a parameter of {path.name}.{did_you_mean(given, declared)} "
                f"Its parameters: {', '.join(declared)}."
            )


def execute(
    job: NotebookJob,
    *,
    kernel_name: str,
    timeout: float | None,
    start_timeout: int = DEFAULT_START_TIMEOUT_S,
) -> RunOutcome:
    job.out_dir.mkdir(parents=True, exist_ok=True)
    _clear_previous_outputs(job.out_dir)
    kept = _files(job.out_dir)
    try:
        return _execute(job, kernel_name=kernel_name, timeout=timeout, start_timeout=start_timeout)
    finally:
        _note_outputs(job.out_dir, _files(job.out_dir) - kept)


def _files(folder: Path) -> set[Path]:
    return {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()}


def _clear_previous_outputs(folder: Path) -> None:
    """Remove what the last run into ``folder`` wrote (and only that), so a failed run
    cannot leave an earlier run's results beside its own error."""
    ledger = folder / OUTPUTS_LEDGER
    if not ledger.is_file():
        return
    for name in json.loads(ledger.read_text(encoding="utf-8")):
        path = (folder / name).resolve()
        if path.is_relative_to(folder.resolve()) and path.is_file():
            path.unlink()
    ledger.unlink()


def _note_outputs(folder: Path, written: set[Path]) -> None:
    names = sorted(str(p) for p in written if str(p) != OUTPUTS_LEDGER)
    (folder / OUTPUTS_LEDGER).write_text(json.dumps(names, indent=1) + "\n", encoding="utf-8")


def _execute(
    job: NotebookJob, *, kernel_name: str, timeout: float | None, start_timeout: int
) -> RunOutcome:
    from nbclient.exceptions import CellTimeoutError
    from papermill.exceptions import PapermillExecutionError

    started = time.perf_counter()
    try:
        _papermill(job, kernel_name=kernel_name, timeout=timeout, start_timeout=start_timeout)
    except PapermillExecutionError as exc:
        error = f"{exc.ename}: {exc.evalue}"
        return RunOutcome(job, "error", time.perf_counter() - started, exc.cell_index, error)
    except CellTimeoutError as exc:
        cell = _running_cell(job.output_notebook)
        error = f"CellTimeoutError: {str(exc).splitlines()[0]}"
        return RunOutcome(job, "timeout", time.perf_counter() - started, cell, error)
    except _KernelWillNotStart as exc:
        # the output notebook papermill wrote marks every cell completed, though none ran
        job.output_notebook.unlink(missing_ok=True)
        error = f"RuntimeError: {exc}"
        return RunOutcome(job, "error", time.perf_counter() - started, None, error)
    return RunOutcome(job, "ok", time.perf_counter() - started)


def _papermill(
    job: NotebookJob, *, kernel_name: str, timeout: float | None, start_timeout: int
) -> None:
    """``job`` executed by papermill, its kernel started again if it died starting."""
    import papermill

    command = _kernel_command(kernel_name)
    for start in range(1, _KERNEL_STARTS + 1):
        try:
            papermill.execute_notebook(
                str(job.notebook),
                str(job.output_notebook),
                parameters={**job.parameters, "out_dir": str(job.out_dir)},
                kernel_name=kernel_name,
                execution_timeout=timeout,
                start_timeout=start_timeout,
                progress_bar=False,
                cwd=None,  # the caller's folder: relative paths in parameters mean what they say
                extra_arguments=_KERNEL_ARGUMENTS,
            )
            return
        except FileNotFoundError as exc:
            if exc.filename != command:
                raise
            raise _KernelWillNotStart(
                f"kernel {kernel_name!r} cannot start: its command {command!r} was not found. "
                "Install it, or fix the argv of the kernel's kernel.json "
                "(`jupyter kernelspec list` shows where it is)"
            ) from exc
        except RuntimeError as exc:
            if str(exc).startswith(_NO_ANSWER):
                raise _KernelWillNotStart(
                    f"kernel {kernel_name!r} started but did not answer within "
                    f"{start_timeout}s. Run its command (`jupyter kernelspec list` "
                    "shows where it is) by hand to see whether it hangs, or pass a larger "
                    "start_timeout= if it is only slow to start"
                ) from exc
            if not str(exc).startswith(_DIED_STARTING):
                raise
            if start == _KERNEL_STARTS:
                raise _KernelWillNotStart(
                    f"{_DIED_STARTING}, {start} times: kernel {kernel_name!r} does not start. "
                    "Find its command with `jupyter kernelspec list` and run it by hand to see why"
                ) from exc


def _kernel_command(kernel_name: str) -> str:
    """The program kernel ``kernel_name`` starts, or ``_KernelWillNotStart`` when no kernel
    has that name."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    specs = KernelSpecManager()
    try:
        argv = specs.get_kernel_spec(kernel_name).argv
    except NoSuchKernel:
        names = sorted(specs.find_kernel_specs())
        raise _KernelWillNotStart(
            f"no kernel is named {kernel_name!r}.{did_you_mean(kernel_name, names)} "
            f"Kernels here: {', '.join(names) or 'none'} (`jupyter kernelspec list` shows "
            "them); pass one of them as the kernel name, or install the kernel"
        ) from None
    return str(argv[0]) if argv else ""


def _running_cell(output: Path) -> int | None:
    """The last cell that started before the run stopped (the one that timed out)."""
    try:
        cells = json.loads(output.read_text(encoding="utf-8"))["cells"]
    except (OSError, ValueError, KeyError):
        return None
    started = [
        index
        for index, cell in enumerate(cells)
        if cell.get("metadata", {}).get("papermill", {}).get("start_time")
    ]
    return started[-1] if started else None


def run_batch(
    jobs: Sequence[NotebookJob],
    *,
    workers: int = 2,
    kernel_name: str = DEFAULT_KERNEL,
    timeout: float | None = DEFAULT_TIMEOUT_S,
    progress: bool = True,
    summary_dir: str | Path | None = None,
    start_timeout: int = DEFAULT_START_TIMEOUT_S,
) -> BatchResult:
    """Run ``jobs`` with up to ``workers`` kernels at once; failed runs do not stop the rest.

    A run fails by a cell's error, a cell's timeout or a kernel that will not start
    (unknown, not found, silent for ``start_timeout`` seconds, or dying at both starts).
    Any other error is a bug and stops the batch: the runs not yet started never
    start, those running finish, and the error propagates.

    With ``summary_dir``, writes ``scorecards.csv`` (every run's scorecard, with
    the run name and its parameters) and ``batch.json`` (every outcome) there.
    """
    if not is_whole(workers) or workers < 1:
        raise ConfigError(f"workers must be a whole number >= 1, got {workers!r}")
    count("start_timeout", start_timeout, minimum=1)
    _refuse_shared_folders(jobs)
    started = time.perf_counter()
    outcomes: dict[str, RunOutcome] = {}
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="notebook") as pool:
        futures = {
            pool.submit(
                _execute_in_worker,
                job,
                kernel_name=kernel_name,
                timeout=timeout,
                start_timeout=start_timeout,
            ): job
            for job in jobs
        }
        with _progress(len(jobs), progress) as bar:
            try:
                for future in as_completed(futures):
                    outcome = future.result()
                    outcomes[outcome.job.name] = outcome
                    bar.update(1)
                    bar.set_postfix(failed=sum(not o.ok for o in outcomes.values()))
            except BaseException:
                pool.shutdown(cancel_futures=True)  # the runs not yet started never start
                raise
    ordered = [outcomes[job.name] for job in jobs]
    result = BatchResult(ordered, collect_scorecards(ordered), time.perf_counter() - started)
    if summary_dir is not None:
        result.summary_path = write_summary(result, Path(summary_dir))
    return result


def _execute_in_worker(
    job: NotebookJob, *, kernel_name: str, timeout: float | None, start_timeout: int
) -> RunOutcome:
    """``execute`` on a worker thread, closing the event loop the run left on it.

    papermill (through jupyter_core) creates an event loop for the thread and sets
    it as current; it is closed here so no loop is left behind per run.
    """
    import asyncio

    try:
        return execute(job, kernel_name=kernel_name, timeout=timeout, start_timeout=start_timeout)
    finally:
        try:
            loop = asyncio.get_event_loop_policy().get_event_loop()
        except RuntimeError:  # no loop was left on this thread
            pass
        else:
            asyncio.set_event_loop(None)
            loop.close()


def _progress(total: int, enabled: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="notebooks", unit="run", disable=not enabled, file=sys.stderr)


def _refuse_shared_folders(jobs: Sequence[NotebookJob]) -> None:
    seen: dict[Path, str] = {}
    for job in jobs:
        if job.out_dir in seen or job.name in seen.values():
            raise ConfigError(
                f"runs {seen.get(job.out_dir, job.name)!r} and {job.name!r} would share a "
                "name or output folder; give every run its own"
            )
        seen[job.out_dir] = job.name


def collect_scorecards(outcomes: Sequence[RunOutcome]) -> pd.DataFrame:
    """Each successful run's ``scorecard.csv`` with run name and parameters in front."""
    frames = []
    for outcome in outcomes:
        card_path = outcome.job.out_dir / "scorecard.csv"
        if not outcome.ok or not card_path.is_file():
            continue
        card = pd.read_csv(card_path)
        front = {
            "run": outcome.job.name,
            **{k: _cell(v) for k, v in outcome.job.parameters.items()},
        }
        for i, (column, value) in enumerate(front.items()):
            card.insert(i, column if column not in card.columns else f"param_{column}", value)
        frames.append(card)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _cell(value: Any) -> Any:
    return value if isinstance(value, int | float | str | bool) else json.dumps(value)


def write_summary(result: BatchResult, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    result.scorecards.to_csv(folder / "scorecards.csv", index=False, lineterminator="\n")
    summary = {
        "seconds": round(result.seconds, 3),
        "runs": [o.to_dict() for o in result.outcomes],
        "failed": [o.job.name for o in result.failures],
    }
    path = folder / "batch.json"
    path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return path


def run_name(notebook: Path, index: int, parameters: Mapping[str, Any]) -> str:
    """A readable, filesystem-safe run name: ``evaluate-03-seed=3-preset=calm-v1``."""
    parts = [f"{notebook.stem}-{index:02d}"]
    parts += [f"{k}={v}" for k, v in parameters.items()]
    return re.sub(r"[^A-Za-z0-9_.=,+-]+", "_", "-".join(parts))[:120]
