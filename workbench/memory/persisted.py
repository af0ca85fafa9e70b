"""A memory store kept in a file across runs, with the runs it learnt from.

The file is JSON (``format: workbench-memory``): ``runs``, one entry per run
that wrote to it (its market path fingerprint, preset, seed, arm, days and
whether the run reached its last step, ``complete``), and ``lessons``, each
naming the run it came from by its index in ``runs``. A run on a market path
the store already learnt from is refused (``MemoryLeak``): the store holds
lessons about that path's future. One exception: a run that stopped before the
market's last step (an error, an interrupt) may be run again by the same arm on
the same preset and seed — resumed with ``prior=`` — and it replaces the stopped
run and its lessons, which it learns again point in time, starting from the
lessons the stopped run started with.

A file that is not a store, or whose entries are not what this version writes,
is refused with the entry at fault; nothing is coerced. The file is written
when the run ends, under a lock, merged with what other runs wrote to it
meanwhile, and atomically (a crash leaves the old file or the new, never half).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench._checks import is_whole
from workbench.agents import RunInfo
from workbench.errors import ConfigError, MemoryLeak
from workbench.memory.store import Lesson
from workbench.transcript import atomic_write, canonical_json

FORMAT, VERSION = "workbench-memory", 1
RUN_TEXT, RUN_WHOLE = ("market_path", "preset", "arm"), ("seed", "days")
LESSON_WHOLE, LESSON_TEXT = ("day", "step", "horizon", "run"), ("situation", "lesson")
Stored = tuple[list[dict[str, Any]], list[Lesson]]


def run_entry(run: RunInfo, *, complete: bool = False) -> dict[str, Any]:
    return {
        "market_path": run.market_path,
        "preset": run.preset.name,
        "seed": run.seed,
        "arm": run.arm,
        "days": run.days,
        "complete": complete,
    }


# --- reading -------------------------------------------------------------------------------
def read(path: Path) -> Stored:
    """The file's runs and lessons (each lesson tagged with its run's index)."""
    if path.is_dir():
        raise ConfigError(f"memory store {path} is a folder; pass the path of a file in it")
    if not path.exists():
        return [], []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
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
    runs = [_checked_run(path, i, item) for i, item in enumerate(_listed(path, data, "runs"))]
    lessons = _listed(path, data, "lessons")
    return runs, [_checked_lesson(path, i, item, len(runs)) for i, item in enumerate(lessons)]


def _listed(path: Path, data: dict[str, Any], key: str) -> list[Any]:
    if not isinstance(data.get(key), list):
        raise _damaged(path, f"has no list of {key}")
    items: list[Any] = data[key]
    return items


def _checked_run(path: Path, i: int, item: Any) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise _damaged(path, f"run {i} is not an object")
    for key in RUN_TEXT:
        if not isinstance(item.get(key), str) or not item[key]:
            raise _damaged(path, f"run {i} has no {key} (text)")
    for key in RUN_WHOLE:
        if not is_whole(item.get(key)):
            raise _damaged(path, f"run {i} has no {key} (a whole number)")
    if not isinstance(item.get("complete", True), bool):
        raise _damaged(path, f"run {i}: complete is not true or false")
    return item


def _checked_lesson(path: Path, i: int, item: Any, runs: int) -> Lesson:
    """A lesson exactly as written: whole numbers, text, and a run the file lists."""
    if not isinstance(item, dict):
        raise _damaged(path, f"lesson {i} is not an object")
    for key in LESSON_WHOLE:
        least = 1 if key == "horizon" else 0
        if not is_whole(item.get(key)) or item[key] < least:
            raise _damaged(path, f"lesson {i}: {key} is {item.get(key)!r}, not a whole number")
    for key in LESSON_TEXT:
        if not isinstance(item.get(key), str):
            raise _damaged(path, f"lesson {i}: {key} is not text")
    if item["run"] >= runs:
        raise _damaged(path, f"lesson {i} names run {item['run']}, which the file does not list")
    visible = item.get("visible", [0, 0])
    if not (isinstance(visible, list) and len(visible) == 2 and all(map(is_whole, visible))):
        raise _damaged(path, f"lesson {i}: visible is not [day, step]")
    if not isinstance(item.get("role", ""), str) or not isinstance(item.get("outcome", {}), dict):
        raise _damaged(path, f"lesson {i}: role is not text or outcome is not an object")
    return Lesson.from_json(item, run=item["run"])


def _damaged(path: Path, problem: str) -> ConfigError:
    return ConfigError(
        f"memory store {path} {problem}: it was edited or damaged. Restore it, or pass another "
        "path (a fresh store)"
    )


# --- the runs a new run meets --------------------------------------------------------------
def claim(path: Path, runs: list[dict[str, Any]], run: RunInfo) -> list[dict[str, Any]]:
    """The stopped runs of this same run that it replaces; a learnt path is refused."""
    replaced = []
    for earlier in runs:
        if earlier["market_path"] != run.market_path:
            continue
        if earlier.get("complete", True) or not _same_run(earlier, run):
            raise MemoryLeak(_leak_message(path, earlier, run))
        replaced.append(earlier)
    return replaced


def _same_run(earlier: dict[str, Any], run: RunInfo) -> bool:
    ours = run_entry(run)
    return all(earlier[key] == ours[key] for key in ("arm", "preset", "seed"))


def _leak_message(path: Path, earlier: dict[str, Any], run: RunInfo) -> str:
    said = (
        f"arm {run.arm!r}: memory store {path} already learnt from this market path "
        f"(preset {earlier['preset']!r}, seed {earlier['seed']}, {earlier['days']} days, "
        f"arm {earlier['arm']!r}); evaluating on it again would remember the future. "
    )
    if not earlier.get("complete", True):
        said += (
            "That run stopped before its end: only it may run here again (the same arm, "
            "preset and seed, resumed with prior=). Otherwise run "
        )
    else:
        said += "Run "
    return said + "on another seed or market, or give the arm a fresh store (another path, or none)"


def without(stored: Stored, replaced: list[dict[str, Any]]) -> Stored:
    """``stored`` without the ``replaced`` runs and their lessons (the others renumbered)."""
    runs, lessons = stored
    kept = [i for i, entry in enumerate(runs) if entry not in replaced]
    number = {old: new for new, old in enumerate(kept)}
    return [runs[i] for i in kept], [
        dataclasses.replace(lesson, run=number[lesson.run])
        for lesson in lessons
        if lesson.run in number
    ]


def carried_into(
    stored: Stored,
    replaced: list[dict[str, Any]],
    resumed: Sequence[Mapping[str, Any]] | None = None,
) -> list[Lesson]:
    """The lessons a run starts with: every one in the store; or, for a run taking a
    stopped run's place, what that run started with — ``resumed``, from its transcript,
    when known (so its prompts, and the answers ``prior=`` holds for them, are the same);
    otherwise the lessons of the runs listed before it."""
    lessons = without(stored, replaced)[1]
    if not replaced:
        return lessons
    if resumed is not None:
        return [Lesson.from_json(item, run=int(item["run"])) for item in resumed]
    first = next(i for i, entry in enumerate(stored[0]) if entry in replaced)
    return [lesson for lesson in lessons if lesson.run is not None and lesson.run < first]


# --- writing -------------------------------------------------------------------------------
def save(
    path: Path, entry: dict[str, Any], learnt: list[Lesson], replaced: list[dict[str, Any]]
) -> None:
    """Add this run (``entry``) and the lessons it ``learnt`` to the file as it is now."""
    try:
        with _locked(path):
            runs, lessons = without(read(path), replaced)
            written = [{**lesson.to_json(), "run": lesson.run} for lesson in lessons]
            written += [{**lesson.to_json(), "run": len(runs)} for lesson in learnt]
            runs.append(entry)
            data = {"format": FORMAT, "version": VERSION, "runs": runs, "lessons": written}
            atomic_write(path, canonical_json(data, indent=1) + "\n")
    except OSError as exc:
        raise ConfigError(
            f"memory store {path} could not be written ({exc}); the run's lessons are in its "
            "transcript: make the folder writable and resume the run with prior= to keep them"
        ) from None


def check_writable(path: Path) -> None:
    """Refuse, before a run pays for anything, a store that could not be written at its end."""
    try:
        with _locked(path):
            pass
    except OSError as exc:
        raise ConfigError(
            f"memory store {path} cannot be written ({exc}); pass a path in a folder you can "
            "write, or none (a fresh memory for this run)"
        ) from None


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Runs sharing a store write it one at a time (an advisory lock; POSIX, none elsewhere)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows
            yield
            return
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


__all__ = [
    "FORMAT",
    "VERSION",
    "carried_into",
    "check_writable",
    "claim",
    "read",
    "run_entry",
    "save",
    "without",
]
