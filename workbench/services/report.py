"""Render a run in the store as one self-contained HTML report, returned by path."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, RecordingError
from workbench.services.store import RunStore

REPORT = "report.html"


def render_report(store: RunStore | str | Path, run_id: str) -> dict[str, Any]:
    """Write ``report.html`` into the run's directory (once) and return its path.

    An evaluation or replay run is drawn from its results; a comparison run from
    the evaluation run of every seed, with the paired comparison as a table.
    """
    runs = RunStore.open(store)
    manifest = runs.manifest(run_id)
    target = runs.run_dir(run_id) / REPORT
    if target.is_symlink():
        raise ConfigError(f"{run_id}/{REPORT} is a symbolic link; refused (links are not followed)")
    if not target.is_file():
        _render(runs, manifest, target)
    return {
        "run_id": run_id,
        "kind": manifest["kind"],
        "report": runs.relative(target),
        "bytes": target.stat().st_size,
        "store_root": str(runs.root),
    }


def _render(runs: RunStore, manifest: dict[str, Any], target: Path) -> None:
    import pandas as pd

    from workbench._jsonio import atomic_write
    from workbench.report import render_report as draw

    run_id, outcome = manifest["run_id"], manifest["outcome"]
    handle, name = tempfile.mkstemp(prefix=f".{REPORT}.", suffix=".partial", dir=target.parent)
    os.close(handle)
    staging = Path(name)
    try:
        about = _about(manifest)
        if manifest["kind"] == "comparison":
            seeds = [_results(runs, rid) for rid in outcome["evaluation_runs"].values()]
            table = pd.DataFrame(outcome["comparison"]).set_index("arm")
            draw(seeds, staging, title=f"Comparison {run_id}", comparison=table, about=about)
        else:
            title = f"{manifest['kind'].title()} {run_id}"
            draw(_results(runs, run_id), staging, title=title, about=about)
        atomic_write(target, staging.read_text(encoding="utf-8"))
    finally:
        staging.unlink(missing_ok=True)


def _about(manifest: dict[str, Any]) -> dict[str, str]:
    """Provenance lines for the report's header: the run, and for a replay its recording."""
    about = {"run": str(manifest["run_id"])}
    outcome = manifest.get("outcome") or {}
    if manifest["kind"] == "replay":
        about["mode"] = "replay"
        about["recording"] = str(outcome.get("recording", ""))
        about["recording digest"] = str(outcome.get("expected_digest", ""))
        about["replay matched"] = "yes" if outcome.get("matched") else "NO"
    return about


def _results(runs: RunStore, run_id: str) -> dict[str, Any]:
    path = runs.artefact(run_id, "results.json")
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RecordingError(f"results of run {run_id!r} are unreadable ({path}): {exc}") from None
    return data
