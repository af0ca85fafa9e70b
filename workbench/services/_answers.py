"""How a stored run becomes a service answer: JSON-safe rows, store-relative paths."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from workbench.services.store import RunStore


def finish(runs: RunStore, run_id: str, manifest: dict[str, Any], reused: bool) -> dict[str, Any]:
    """A run's manifest outcome as a service answer: paths made store-relative."""
    outcome = dict(manifest["outcome"])
    outcome["artefacts"] = {k: f"{run_id}/{v}" for k, v in outcome.get("artefacts", {}).items()}
    if "ranking" in outcome:
        evaluations = runs.count("evaluation")
        outcome["ranking"] = {**outcome["ranking"], "evaluations_in_store": evaluations}
    return {
        "run_id": run_id,
        "kind": manifest["kind"],
        "reused": reused,
        **outcome,
        "store_root": str(runs.root),
    }


def plain_row(row: Mapping[Any, Any]) -> dict[str, Any]:
    """A pandas record as plain JSON values: numpy scalars unwrapped, NaN and inf as null."""
    out = {}
    for key, value in row.items():
        if hasattr(value, "item"):
            value = value.item()
        if isinstance(value, float) and not math.isfinite(value):
            value = None
        out[str(key)] = value
    return out
