"""What a service answers about a saved run: the small, JSON-safe part of its results.

``summarise`` saves the results into the run's folder and keeps, for the answer,
the meta data, the scorecard without its volatile columns, the digest, the
ranking, counts, and the first errors. ``ranking`` orders the arms by Sharpe with
what the ordering rests on (one market path, in sample) carried beside it as data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.evaluation import Results
from workbench.evaluation.columns import VOLATILE_COLUMNS
from workbench.services._answers import plain_row
from workbench.services.agents import COMMITTEE_PREFIX
from workbench.services.glossary import CAVEATS

RANK_BY = "sharpe"
_ERRORS_SHOWN = 10


def summarise(results: Results, folder: Path) -> dict[str, Any]:
    """Save ``results`` into ``folder`` and return the small, JSON-safe part of them."""
    saved = results.save(folder)
    card = results.scorecard.drop(columns=list(VOLATILE_COLUMNS)).reset_index()
    rows = [plain_row(row) for row in card.to_dict(orient="records")]
    return {
        "meta": {k: v for k, v in results.meta.items() if k not in ("symbols", "preset_vector")},
        "scorecard": rows,
        "results_digest": results.digest(),
        "ranking": ranking(rows),
        "counts": {"orders": len(results.orders), "errors": len(results.errors)},
        "errors": [plain_row(r) for r in results.errors.head(_ERRORS_SHOWN).to_dict("records")],
        "errors_truncated": max(0, len(results.errors) - _ERRORS_SHOWN),
        "artefacts": {key: path.name for key, path in saved.items()},
    }


def ranking(rows: list[dict[str, Any]], sources: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Arms ordered by Sharpe, with what the ordering rests on carried beside it as data.

    ``sources`` says where each arm's decisions came from ("baseline" when not given).
    """
    order = sorted(rows, key=lambda r: (-(r[RANK_BY] or 0.0), r["arm"]))
    sources = {row["arm"]: (sources or {}).get(row["arm"], _source(row["arm"])) for row in rows}
    caveats = [CAVEATS["single_path"], CAVEATS["multiple_testing"]]
    if "replayed" in sources.values():
        caveats.append(CAVEATS["replayed"])
    return {
        "rank_by": RANK_BY,
        "order": [row["arm"] for row in order],
        "arms_compared": len(rows),
        "seeds": 1,
        "evidence": "in-sample, one market path",
        "arm_sources": sources,
        "caveats": caveats,
    }


def _source(arm: str) -> str:
    return "scripted committee" if arm.startswith(COMMITTEE_PREFIX) else "baseline"
