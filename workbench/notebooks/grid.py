"""Batch specifications: a YAML file or CLI options, expanded into notebook jobs.

A YAML batch file::

    notebook: notebooks/evaluate.ipynb     # or notebooks: [a.ipynb, b.ipynb]
    parameters: {days: 5}                  # the same for every run
    grid: {seed: [1, 2, 3], preset: [standard-v1, calm-v1]}   # every combination
    runs: [{seed: 9, arms: trend}]         # extra runs, each on top of parameters
    workers: 2

gives one run per (notebook × grid combination) plus one per entry of ``runs``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.notebooks.runner import NotebookJob, make_job, run_name

_KEYS = {"notebook", "notebooks", "parameters", "grid", "runs", "workers"}


def expand_grid(grid: Mapping[str, Sequence[Any]]) -> list[dict[str, Any]]:
    """Every combination of the grid's values, first parameter slowest; {} gives one run."""
    for name, values in grid.items():
        if isinstance(values, str | bytes) or not isinstance(values, Sequence) or not values:
            raise ConfigError(f"grid parameter {name!r} needs a non-empty list of values")
    names = list(grid)
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*grid.values())]


def load_batch_file(path: str | Path) -> dict[str, Any]:
    import yaml

    try:
        spec = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"batch file {str(path)!r} not found") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"batch file {str(path)!r} is not valid YAML: {exc}") from None
    if not isinstance(spec, dict):
        raise ConfigError(f"batch file {str(path)!r} must be a mapping (notebook, grid, ...)")
    unknown = sorted(set(spec) - _KEYS)
    if unknown:
        raise ConfigError(
            f"batch file {str(path)!r}: unknown key(s) {unknown}; use {sorted(_KEYS)}"
        )
    return spec


def plan_jobs(
    notebooks: Sequence[str | Path],
    out_root: str | Path,
    *,
    parameters: Mapping[str, Any] | None = None,
    grid: Mapping[str, Sequence[Any]] | None = None,
    runs: Sequence[Mapping[str, Any]] = (),
) -> list[NotebookJob]:
    """One job per notebook × grid combination (+ one per extra run), each in its own folder."""
    if not notebooks:
        raise ConfigError("a batch needs at least one notebook")
    fixed = dict(parameters or {})
    combos = expand_grid(grid or {}) if grid or not runs else []
    variants = [*combos, *(dict(r) for r in runs)]
    jobs: list[NotebookJob] = []
    for notebook in notebooks:
        for variant in variants:
            merged = {**fixed, **variant}
            name = run_name(Path(notebook), len(jobs), variant)
            jobs.append(make_job(notebook, Path(out_root) / name, merged, name=name))
    return jobs


def jobs_from_file(path: str | Path, out_root: str | Path) -> tuple[list[NotebookJob], int | None]:
    """The jobs a YAML batch file describes (notebook paths relative to the file or cwd)."""
    spec = load_batch_file(path)
    names = spec.get("notebooks") or ([spec["notebook"]] if spec.get("notebook") else [])
    if not names:
        raise ConfigError(f"batch file {str(path)!r} names no notebook (notebook: or notebooks:)")
    notebooks = [_locate(Path(n), Path(path).parent) for n in names]
    jobs = plan_jobs(
        notebooks,
        out_root,
        parameters=spec.get("parameters"),
        grid=spec.get("grid"),
        runs=spec.get("runs") or (),
    )
    return jobs, spec.get("workers")


def _locate(notebook: Path, base: Path) -> Path:
    if notebook.is_absolute() or notebook.exists():
        return notebook
    return base / notebook
