"""A memory store kept in a file across runs, with the runs it learnt from.

The file is JSON (``format: workbench-memory``): ``runs``, one entry per run
that wrote to it (its market path fingerprint, preset, seed, arm and days), and
``lessons``, each naming the run it came from. A run on a market path the store
already learnt from is refused (``MemoryLeak``): the store holds lessons about
that path's future. The file is written atomically when the run ends.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.agents import RunInfo
from workbench.errors import ConfigError, MemoryLeak
from workbench.memory.store import Lesson, MemoryStore
from workbench.transcript import atomic_write, canonical_json

FORMAT, VERSION = "workbench-memory", 1


def run_entry(run: RunInfo) -> dict[str, Any]:
    return {
        "market_path": run.market_path,
        "preset": run.preset.name,
        "seed": run.seed,
        "arm": run.arm,
        "days": run.days,
    }


def load(path: Path, store: MemoryStore) -> list[dict[str, Any]]:
    """Fill ``store`` with the file's lessons (as carried ones); return its runs."""
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(
            f"memory store {path} cannot be read ({exc}); restore it or pass another path"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ConfigError(f"{path} is not a workbench memory store; pass another path")
    if data.get("version") != VERSION:
        raise ConfigError(
            f"memory store {path} has version {data.get('version')!r}; this workbench reads "
            f"version {VERSION}"
        )
    runs = list(data.get("runs", []))
    store.carry([Lesson.from_json(item, run=int(item["run"])) for item in data["lessons"]])
    return runs


def refuse_a_learnt_path(path: Path, runs: list[dict[str, Any]], run: RunInfo) -> None:
    for earlier in runs:
        if earlier.get("market_path") == run.market_path:
            raise MemoryLeak(
                f"arm {run.arm!r}: memory store {path} already learnt from this market path "
                f"(preset {earlier.get('preset')!r}, seed {earlier.get('seed')}, "
                f"{earlier.get('days')} days, arm {earlier.get('arm')!r}); evaluating on it "
                "again would remember the future. Run on another seed or market, or give "
                "the arm a fresh store (another path, or none)"
            )


def save(path: Path, store: MemoryStore, runs: list[dict[str, Any]]) -> None:
    """Write every lesson, this run's tagged with its index in ``runs`` (the last)."""
    current = len(runs) - 1
    lessons = [
        {**entry.to_json(), "run": current if entry.run is None else entry.run} for entry in store
    ]
    data = {"format": FORMAT, "version": VERSION, "runs": runs, "lessons": lessons}
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, canonical_json(data, indent=1) + "\n")


__all__ = ["FORMAT", "VERSION", "load", "refuse_a_learnt_path", "run_entry", "save"]
