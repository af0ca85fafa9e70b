"""How a stored run becomes a service answer: JSON-safe rows, store-relative paths."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from workbench.services.glossary import CAVEATS
from workbench.services.store import RunStore


def finish(runs: RunStore, run_id: str, manifest: dict[str, Any], reused: bool) -> dict[str, Any]:
    """A run's manifest outcome as a service answer: paths made store-relative."""
    outcome = dict(manifest["outcome"])
    outcome["artefacts"] = {k: f"{run_id}/{v}" for k, v in outcome.get("artefacts", {}).items()}
    if "ranking" in outcome:
        counts = runs.trials(), runs.count("evaluation")
        outcome["ranking"] = with_trials(outcome["ranking"], *counts)
    return {
        "run_id": run_id,
        "kind": manifest["kind"],
        "reused": reused,
        **outcome,
        "store_root": str(runs.root),
    }


def with_trials(ranking: Mapping[str, Any], trials: int, evaluations: int) -> dict[str, Any]:
    """A ranking with the store's trial count and its caveat: every ranking shows how many
    looks it is the best of."""
    caveats = [c for c in ranking.get("caveats", []) if c != CAVEATS["trials"]]
    return {
        **ranking,
        "trials_in_store": trials,
        "evaluations_in_store": evaluations,
        "caveats": [*caveats, CAVEATS["trials"]],
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
