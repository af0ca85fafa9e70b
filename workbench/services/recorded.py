"""Recordings as services: list the shipped ones, replay one and report every difference.

Recordings are read from one folder (the ``recordings`` argument, bound by the
MCP server at start-up), and a recording is named by its path inside it; a name
that resolves outside the folder is refused. Nothing here writes to a recording:
a replay's results go to a run directory in the run store.

A recording is data: its roster may name only trusted arms and files inside its
own folder (``workbench.recordings.trust`` is given in Python, never here), and a
symbolic link out of the folder is refused, not followed.

The wall against spending model money is checked on the roster before the market
opens: every model-backed arm must be rebuilt in replay mode from a transcript,
and every other arm must be a shipped baseline. A recording whose roster would
build anything else is refused, naming the arm.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path
from typing import Any

from workbench.agents import Agent
from workbench.errors import ConfigError, RecordingError
from workbench.services._answers import finish
from workbench.services._summary import ranking, summarise
from workbench.services.store import RunStore

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)*$")


def default_recordings() -> Path | None:
    """``$WORKBENCH_RECORDINGS``, else the ``recordings/`` folder of a checkout, else None."""
    configured = os.environ.get("WORKBENCH_RECORDINGS")
    if configured:
        return Path(configured)
    checkout = Path(__file__).resolve().parents[2] / "recordings"
    return checkout if checkout.is_dir() else None


def list_recordings(recordings: str | Path | None = None) -> dict[str, Any]:
    """Every recording in the folder: its name, market, arms and expected results digest."""
    from workbench.recordings import find_recordings
    from workbench.recordings.manifest import load_manifest

    root = _root(recordings)
    rows: list[dict[str, Any]] = []
    for folder in find_recordings(root) if root is not None else []:
        name = folder.relative_to(root).as_posix() if root else folder.name
        try:
            manifest = load_manifest(folder)
        except RecordingError as exc:
            rows.append({"name": name, "error": str(exc)})
            continue
        rows.append(
            {
                "name": name,
                "seed": manifest["seed"],
                "preset": manifest["preset"]["name"],
                "days": manifest["days"],
                "arms": [_arm_row(spec) for spec in manifest["roster"]],
                "expected_digest": manifest["expected"]["digest"],
            }
        )
    return {"recordings": rows, "folder": str(root) if root else None}


def replay_recording(
    store: RunStore | str | Path, name: str, *, recordings: str | Path | None = None
) -> dict[str, Any]:
    """Re-execute a recording offline into a run directory and report every difference from
    the results it recorded (``matched`` is true only when the results digest is identical)."""
    from workbench.recordings import replay

    runs = RunStore.open(store)
    folder = recording_folder(name, recordings)
    sources = refuse_live_arms(folder)
    request = {"recording": name, "recording_sha256": _folder_digest(folder)}

    def build(target: Path) -> dict[str, Any]:
        report = replay(folder, check=False)
        outcome = summarise(report.results, target)
        outcome["ranking"] = {
            **ranking(outcome["scorecard"], sources),
            "evidence": "replayed: the recorded experiment, re-executed offline (in-sample)",
        }
        outcome.update(
            recording=name,
            matched=report.matched,
            expected_digest=report.expected_digest,
            differences=list(report.differences),
        )
        return outcome

    run_id, manifest, reused = runs.create("replay", request, build)
    return finish(runs, run_id, manifest, reused)


def _folder_digest(folder: Path) -> str:
    """SHA-256 over every file of the recording: a changed transcript is a new request.

    A symbolic link leading out of the folder is refused, never followed.
    """
    total = hashlib.sha256()
    for path in sorted(_files(folder)):
        total.update(path.relative_to(folder).as_posix().encode() + b"\0")
        total.update(hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()


def _files(folder: Path) -> list[Path]:
    from workbench.recordings.manifest import recording_file

    found = []
    for top, dirs, names in os.walk(folder):  # does not descend into linked folders
        for name in [*names, *dirs]:
            path = Path(top, name)
            recording_file(folder, path.relative_to(folder).as_posix(), "the file")
            if path.is_file():
                found.append(path)
    return found


def recordings_under(root: str | Path) -> list[Path]:
    """Every recording folder under ``root`` (itself included), in a stable order."""
    from workbench.recordings import find_recordings

    return find_recordings(root)


def manifest_of(folder: str | Path) -> Path:
    """Where the manifest of a recording in ``folder`` is (it may not exist)."""
    from workbench.recordings.manifest import MANIFEST

    return Path(folder) / MANIFEST


def recording_folder(name: str, recordings: str | Path | None = None) -> Path:
    """The folder of recording ``name``, confined to the recordings folder."""
    root = _root(recordings)
    if root is None:
        raise ConfigError(
            "no recordings folder is configured; set WORKBENCH_RECORDINGS or pass --recordings"
        )
    if not isinstance(name, str) or not _NAME.match(name) or ".." in name.split("/"):
        raise ConfigError(
            f"recording name {name!r} is not a recording name (see list_agents); "
            "paths outside the recordings folder are refused"
        )
    folder = (root / name).resolve()
    if not folder.is_relative_to(root) or not (folder / "manifest.json").is_file():
        listed = list_recordings(root)["recordings"]
        known = ", ".join(row["name"] for row in listed if "error" not in row) or "none"
        raise ConfigError(f"no recording {name!r} in {root}; recordings: {known}")
    return folder


def refuse_live_arms(folder: Path) -> dict[str, str]:
    """Build every arm of the roster and refuse any that could call a model.

    Returns arm name -> "replayed" (answers from a transcript) or "baseline".
    """
    from workbench.baselines import BASELINES
    from workbench.integrations.base import BaseAdapter
    from workbench.recordings.manifest import build_arm, load_manifest

    sources = {}
    for spec in load_manifest(folder)["roster"]:
        arm: Agent = build_arm(spec, folder)
        if isinstance(arm, BaseAdapter):
            if arm.mode != "replay":
                raise RecordingError(_live(folder, arm.name, f"builds in {arm.mode!r} mode"))
            sources[arm.name] = "replayed"
        elif type(arm) in BASELINES.values():
            sources[arm.name] = "baseline"
        else:
            raise RecordingError(_live(folder, arm.name, f"is a {type(arm).__name__}"))
    return sources


def _live(folder: Path, arm: str, why: str) -> str:
    return (
        f"recording {folder.name}: arm {arm!r} {why}, not a replayed adapter or a shipped "
        "baseline; these tools never run an arm that could call a model"
    )


def _arm_row(spec: dict[str, Any]) -> dict[str, Any]:
    recorded = "factory" in spec or "adapter" in spec
    return {"name": spec["name"], "source": "replayed" if recorded else "baseline"}


def _root(recordings: str | Path | None) -> Path | None:
    chosen = Path(recordings) if recordings is not None else default_recordings()
    if chosen is None:
        return None
    if not chosen.is_dir():
        raise ConfigError(f"recordings folder {chosen} does not exist")
    return chosen.resolve()
