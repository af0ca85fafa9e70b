"""Past runs in the run store: list them, read one back (its summary, never its big frames)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.services._answers import finish
from workbench.services.store import MANIFEST, RunStore, capped

KINDS = ("evaluation", "replay", "comparison")


def list_runs(store: RunStore | str | Path, *, kind: str | None = None, limit: int = 20) -> dict:
    """Runs newest first, at most ``limit``, with how many were left off, and the folders
    skipped (symbolic links, unreadable manifests) with the reason."""
    runs = RunStore.open(store)
    if kind is not None and kind not in KINDS:
        raise ConfigError(f"kind must be one of {', '.join(KINDS)} or null, got {kind!r}")
    rows = []
    for run_id in runs.run_ids():
        manifest = runs.manifest(run_id)
        if kind is None or manifest["kind"] == kind:
            rows.append(_row(manifest))
    shown = capped(rows, limit, key="runs")
    return {**shown, "skipped": runs.skipped(), "store_root": str(runs.root)}


def get_run(store: RunStore | str | Path, run_id: str) -> dict[str, Any]:
    """One run's request and summary, and the files in its directory (by store-relative path)."""
    runs = RunStore.open(store)
    manifest = runs.manifest(run_id)
    answer = finish(runs, run_id, manifest, reused=True)
    answer.pop("reused")
    folder = runs.run_dir(run_id)
    answer["request"] = manifest["request"]
    answer["created_utc"] = manifest.get("created_utc")
    answer["version"] = manifest.get("version")
    entries = sorted(p for p in folder.iterdir() if p.name != MANIFEST)
    answer["files"] = [runs.relative(p) for p in entries if p.is_file() and not p.is_symlink()]
    answer["links_skipped"] = [f"{run_id}/{p.name}" for p in entries if p.is_symlink()]
    return answer


def _row(manifest: dict[str, Any]) -> dict[str, Any]:
    outcome = manifest.get("outcome", {})
    return {
        "run_id": manifest["run_id"],
        "kind": manifest["kind"],
        "created_utc": manifest.get("created_utc"),
        "request": manifest["request"],
        "results_digest": outcome.get("results_digest"),
    }
