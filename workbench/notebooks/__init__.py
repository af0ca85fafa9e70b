"""Papermill-parameterised notebooks: parameter checks and the batch runner.

``run_notebook`` executes one notebook into an output folder; ``plan_jobs`` /
``jobs_from_file`` turn a grid (or a YAML batch file) into jobs and
``run_batch`` runs them with several kernels at once. ``parameters`` holds the
checks the notebooks call right after their ``parameters`` cell.
"""

from workbench.notebooks.grid import expand_grid, jobs_from_file, plan_jobs
from workbench.notebooks.runner import (
    BatchResult,
    NotebookJob,
    RunOutcome,
    run_batch,
    run_notebook,
)

__all__ = [
    "BatchResult",
    "NotebookJob",
    "RunOutcome",
    "expand_grid",
    "jobs_from_file",
    "plan_jobs",
    "run_batch",
    "run_notebook",
]
