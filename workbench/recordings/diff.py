"""The decision diff of two recordings on one market path (``workbench.evaluation.divergence``).

Both recordings are replayed offline with the compared arm taped, and each replay
must match its recording (its results digest), so the decisions compared are the
recorded ones. Recordings on different paths are refused, naming every field that
differs. The hybrids are then played back on the first recording's market.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, RecordingError
from workbench.evaluation import Results, evaluate
from workbench.evaluation.divergence import DecisionDiff, Taped, final_equity, split_gap
from workbench.recordings import manifest as mf
from workbench.recordings.service import replay_setup

# What makes a recording's market path: the same values here, the same prices and books.
PATH_FIELDS = ("seed", "universe", "days", "steps_per_day", "ticks_per_step", "preset", "options")


def diff_recordings(
    a: str | Path, b: str | Path, *, arm: str | None = None, arm_b: str | None = None
) -> DecisionDiff:
    """Where the compared arm of recording ``b`` parted from that of ``a``, and the split of
    B's P&L minus A's over the partings. ``arm`` names the arm when it is not the one
    model-backed arm of each roster; ``arm_b`` names B's when it is another (two arms of
    one recording: ``diff_recordings(r, r, arm="x", arm_b="y")``)."""
    folders = (Path(a), Path(b))
    manifests = (mf.load_manifest(folders[0]), mf.load_manifest(folders[1]))
    refuse_other_paths(manifests, folders)
    arms = compared_arms(manifests, arm, arm_b)
    taped = [_taped(f, m, name) for f, m, name in zip(folders, manifests, arms, strict=True)]
    keywords = replay_setup(folders[0], manifests[0])[1]
    (tape_a, results_a), (tape_b, results_b) = taped
    equities = (final_equity(results_a, arms[0]), final_equity(results_b, arms[1]))
    return split_gap(
        lambda agents: evaluate(agents, **keywords),
        (tape_a, tape_b),
        equities,
        labels=(str(folders[0]), str(folders[1])),
        capital=float(results_a.meta["capital"]),
        runs=(results_a, results_b),
    )


def refuse_other_paths(manifests: tuple[Mapping[str, Any], ...], folders: tuple[Path, ...]) -> None:
    """A ``ConfigError`` naming every path field on which the two recordings differ."""
    left, right = (_path(m) for m in manifests)
    moved = [
        f"{key} {_shown(key, left.get(key))} vs {_shown(key, right.get(key))}"
        for key in sorted(set(left) | set(right))
        if left.get(key) != right.get(key)
    ]
    if moved:
        raise ConfigError(
            f"{folders[0]} and {folders[1]} are not on the same market path, so their decisions "
            f"cannot be compared step by step; they differ in: {'; '.join(moved)}"
        )


def compared_arms(
    manifests: tuple[Mapping[str, Any], ...], arm: str | None, arm_b: str | None = None
) -> tuple[str, str]:
    """The arm compared in each recording: ``arm`` (and ``arm_b`` in B, if given), else
    each roster's one model-backed (recorded) arm."""
    rosters = [[spec["name"] for spec in m["roster"]] for m in manifests]
    if arm is not None:
        chosen = (arm, arm_b or arm)
        for name, names, which in zip(chosen, rosters, "AB", strict=True):
            if name not in names:
                raise ConfigError(f"arm {name!r} is not in {which}'s roster {names}")
        return chosen
    if arm_b is not None:
        raise ConfigError("arm_b (--arm-b) names B's arm beside arm (--arm); pass both")
    recorded = [[s["name"] for s in m["roster"] if "transcript" in s] for m in manifests]
    if all(len(names) == 1 for names in recorded):
        return recorded[0][0], recorded[1][0]
    raise ConfigError(
        f"name the arm to compare with arm=... (--arm): the rosters are {rosters[0]} and "
        f"{rosters[1]}, and each does not hold exactly one recorded arm"
    )


def _taped(folder: Path, manifest: Mapping[str, Any], arm: str) -> tuple[Taped, Results]:
    arms, keywords = replay_setup(folder, manifest)
    taped = Taped(next(a for a in arms if a.name == arm))
    results = evaluate([taped if a.name == arm else a for a in arms], **keywords)
    if results.digest() != manifest["expected"]["digest"]:
        raise RecordingError(
            f"recording {folder} does not replay to its recorded results, so its decisions "
            f"cannot be trusted here; run `workbench replay {folder}` to see what differs"
        )
    return taped, results


def _path(manifest: Mapping[str, Any]) -> dict[str, Any]:
    fields = {key: manifest.get(key) for key in PATH_FIELDS}
    if "data" in manifest:
        fields["data"] = {k: v for k, v in manifest["data"].items() if k != "path"}
    return fields


def _shown(key: str, value: Any) -> str:
    """A path field as ``runs list`` says it: no preset is a run on historical data."""
    if key == "preset" and value is None:
        return "(historical data)"
    return repr(value)
