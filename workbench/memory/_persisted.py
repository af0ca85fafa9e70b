"""A memory store kept in a file across runs, with the runs it learnt from.

The file is JSON (``format: workbench-memory``): ``runs``, one entry per run
that wrote to it (its market path fingerprint, preset, seed, arm, days, the
evaluation's roster and whether the run reached its last step, ``complete``),
and ``lessons``, each
naming the run it came from by its index in ``runs``. A run on a market path
the store already learnt from is refused (``MemoryLeak``): the store holds
lessons about that path's future. One exception: a run that stopped before the
market's last step (an error, an interrupt) may be run again by the same arm on
the same preset and seed — resumed with ``prior=`` — and it replaces the stopped
run and its lessons, which it learns again point in time, starting from the
lessons the stopped run started with.

A file that is not a store, or whose entries are not what this version writes, is
refused with the entry at fault; nothing is coerced. That includes text UTF-8 cannot
write (an escaped unpaired surrogate such as ``"\\ud800"``): found when the store is
opened, before the run pays for anything, not when it is saved.

The file is written when the run ends, under a lock, merged with what other runs
wrote to it meanwhile, and atomically (a crash leaves the old file or the new, never
half). A run holds its market path while it goes (``workbench.memory._running``), so
a second run on that path, from another evaluation or process, is refused as it
opens, before it pays. As the backstop (no locks on this system, a store shared over
a network), the leak check runs again under the save's lock: a run on the same
market path saved while this one was going (two notebooks on one seed, two resumes
of one stopped run) makes this one's save refused (``MemoryLeak`` naming that run),
so one run owns a path. The refused run's answers and lessons are in its transcript;
a resume with ``prior=`` on a fresh store keeps them without paying again. The other
arms of the same evaluation (the same roster, preset, seed and days) save beside
each other: they opened the store together and read none of each other's lessons.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench._checks import is_whole
from workbench._jsonio import atomic_write, canonical_json, printable
from workbench.agents import RunInfo
from workbench.errors import ConfigError, MemoryLeak
from workbench.memory.store import Lesson

FORMAT, VERSION = "workbench-memory", 1
RUN_TEXT, RUN_WHOLE = ("market_path", "preset", "arm"), ("seed", "days")
LESSON_WHOLE, LESSON_TEXT = ("day", "step", "horizon", "run"), ("situation", "lesson")
Stored = tuple[list[dict[str, Any]], list[Lesson]]


def run_entry(run: RunInfo, *, complete: bool = False) -> dict[str, Any]:
    """This run as the store lists it; refused before the run when UTF-8 cannot write it."""
    entry = {
        "market_path": run.market_path,
        "preset": run.preset.name,
        "seed": run.seed,
        "arm": run.arm,
        "days": run.days,
        "roster": list(run.roster),
        "complete": complete,
    }
    found = unwritable_text(entry)
    if found is not None:
        raise ConfigError(
            f"arm {printable(run.arm)!r}: its {found[0]} holds {printable(found[1])!r}, an "
            "unpaired surrogate a memory store cannot write; rename it before the run"
        )
    return entry


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
    _refuse_unwritable(path, f"run {i}", item)
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
    _refuse_unwritable(path, f"lesson {i}", item)
    return Lesson.from_json(item, run=item["run"])


def _refuse_unwritable(path: Path, entry: str, item: dict[str, Any]) -> None:
    found = unwritable_text(item)
    if found is not None:
        where, text = found
        raise _damaged(
            path,
            f"{entry}: {where} holds {printable(text)!r}, an unpaired surrogate that is not "
            "text (UTF-8 cannot write it back)",
        )


def unwritable_text(value: Any, where: str = "") -> tuple[str, str] | None:
    """The first text in ``value`` (keys included) that UTF-8 cannot encode, and where."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return where or "the text", value
        return None
    if not isinstance(value, dict | list):
        return None
    for key, inner in value.items() if isinstance(value, dict) else enumerate(value):
        named = f"{where}.{key}" if where else str(key)
        found = unwritable_text(key, named) if isinstance(key, str) else None
        found = found or unwritable_text(inner, named)
        if found is not None:
            return found
    return None


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


# --- the runs saved while this one ran ----------------------------------------------------
def refuse_a_rival(
    path: Path, runs: list[dict[str, Any]], met: list[dict[str, Any]], entry: dict[str, Any]
) -> None:
    """At save, under the lock: a run on this market path saved since this one opened the
    store (not among the runs it ``met``) is a rival, unless it is another arm of the same
    evaluation (same roster, preset, seed and days, another arm). Two runs of one arm on
    one path, or two evaluations learning one path at once, would both own it."""
    for other in runs:
        if other["market_path"] != entry["market_path"] or other in met:
            continue
        if not _sibling(other, entry):
            raise MemoryLeak(_rival_message(path, other, entry))


def _sibling(other: dict[str, Any], entry: dict[str, Any]) -> bool:
    same = ("roster", "preset", "seed", "days")
    return other["arm"] != entry["arm"] and all(other.get(k) == entry[k] for k in same)


def _rival_message(path: Path, other: dict[str, Any], entry: dict[str, Any]) -> str:
    return (
        f"arm {entry['arm']!r}: memory store {path} was written, while this run was going, by "
        f"another run on this market path (arm {other['arm']!r}, preset {other['preset']!r}, "
        f"seed {other['seed']}, {other['days']} days); two runs cannot both learn one path, "
        "so this run's lessons were not added. Nothing paid is lost: its answers and lessons "
        "are in its transcript, so resume it with prior=<its transcript> on a fresh store "
        "(Memory(path=<another file>)) to keep them without paying again"
    )


# --- writing -------------------------------------------------------------------------------
def save(
    path: Path,
    entry: dict[str, Any],
    learnt: list[Lesson],
    replaced: list[dict[str, Any]],
    met: list[dict[str, Any]],
) -> None:
    """Add this run (``entry``) and the lessons it ``learnt`` to the file as it is now;
    ``met`` are the runs the file listed when this run opened it (see ``refuse_a_rival``)."""
    try:
        with _locked(path):
            stored = read(path)
            refuse_a_rival(path, stored[0], met, entry)
            runs, lessons = without(stored, replaced)
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
    "refuse_a_rival",
    "run_entry",
    "save",
    "unwritable_text",
    "without",
]
