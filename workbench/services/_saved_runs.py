"""Output folders read as runs: the panel's ``run-N`` folders, ``evaluate --out`` folders.

A folder that ``Results.save`` or ``write_outputs`` wrote holds ``results.json`` (the
first seed's results) and, with several seeds, ``scorecards_by_seed.csv``. It has no
run manifest, so one is made up from those files in the manifest's shape (kind
``saved``): the market and money from the results' meta, the scorecard (each arm's
mean over the seeds), the results digest (of the first seed: the SHA-256 of
``results.json``, which is ``Results.to_json()``) and the time the folder was written.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SAVED = "saved"
RESULTS = "results.json"
BY_SEED = "scorecards_by_seed.csv"
_REQUEST = ("names", "days", "steps_per_day", "ticks_per_step", "capital", "leverage_cap")


def saved_manifest(folder: Path) -> dict[str, Any] | None:
    """A manifest for an output folder, or None when it holds no readable results."""
    try:
        return read_saved(folder)
    except ValueError:
        return None


def read_saved(folder: Path) -> dict[str, Any]:
    """A manifest for an output folder; ValueError saying why when it holds no readable
    results (no ``results.json``, a link, or a file that is not saved results)."""
    path = folder / RESULTS
    if folder.is_symlink() or path.is_symlink():
        raise ValueError("a symbolic link (never followed)")
    if not path.is_file():
        raise ValueError(f"no manifest.json and no {RESULTS}: not a run or output folder")
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        meta, card = dict(data["meta"]), list(data["scorecard"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{RESULTS} is not saved results ({type(exc).__name__}: {exc})") from None
    seeds, card = _seeds_and_card(folder, meta, card)
    written = datetime.fromtimestamp(path.stat().st_mtime, UTC)
    order = sorted(card, key=lambda row: (-(row.get("sharpe") or 0.0), row["arm"]))
    return {
        "run_id": folder.name,
        "kind": SAVED,
        "created_utc": written.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        "version": None,
        "request": {"seeds": seeds, "preset": meta.get("preset"), **_money_and_shape(meta)},
        "outcome": {
            "meta": meta,
            "scorecard": card,
            "results_digest": hashlib.sha256(text.encode()).hexdigest(),
            "ranking": {"order": [row["arm"] for row in order]},
        },
    }


def _money_and_shape(meta: dict[str, Any]) -> dict[str, Any]:
    return {key: meta[key] for key in _REQUEST if key in meta}


def _seeds_and_card(
    folder: Path, meta: dict[str, Any], card: list[dict[str, Any]]
) -> tuple[list[Any], list[dict[str, Any]]]:
    """The seeds and each arm's scorecard: the mean over seeds when the folder has them."""
    path = folder / BY_SEED
    if not path.is_file():
        return [meta.get("seed")], card
    import pandas as pd

    try:
        frame = pd.read_csv(path)
        numeric = frame.drop(columns=["seed"]).groupby("arm", sort=False).mean(numeric_only=True)
    except (OSError, ValueError, KeyError):
        return [meta.get("seed")], card
    rows = [
        {"arm": str(arm), **{str(k): v for k, v in row.items()}}
        for arm, row in numeric.to_dict(orient="index").items()
    ]
    return sorted(int(s) for s in frame["seed"].unique()), rows
