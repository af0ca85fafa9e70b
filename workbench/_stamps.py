"""What every saved artefact is stamped with: when it was made, on which market, under
which payload schemas. Plain data, below transcripts and adapters alike."""

from __future__ import annotations

import datetime as _dt
import os
from typing import Any

from workbench.schema import (
    DECISION_SCHEMA_VERSION,
    OBSERVATION_SCHEMA_VERSION,
    OBSERVATION_SCHEMA_VERSIONS,
)

PRESET_KEY = "model_preset"
PRESET_VECTOR_KEY = "model_preset_vector"
SCHEMA_KEYS = {
    "observation_schema_version": OBSERVATION_SCHEMA_VERSION,
    "decision_schema_version": DECISION_SCHEMA_VERSION,
}
# every version of each schema this workbench still serves (a recording under any replays)
SPOKEN_VERSIONS = {
    "observation_schema_version": OBSERVATION_SCHEMA_VERSIONS,
    "decision_schema_version": (DECISION_SCHEMA_VERSION,),
}


def stamp_artefact(meta: dict[str, Any]) -> dict[str, Any]:
    """Write ``recorded_utc`` and the payload schema versions, if none were stamped. The
    market is stamped by what ran it (``stamp_preset``, at the first exchange), never
    guessed: an artefact that names none says so, and a replay warns that it cannot check."""
    meta.setdefault("recorded_utc", utc_now())
    for key, running in SCHEMA_KEYS.items():
        meta.setdefault(key, running)
    return meta


def utc_now() -> str:
    """Now in UTC to the second; honours SOURCE_DATE_EPOCH for reproducible artefacts."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH")
    moment = _dt.datetime.fromtimestamp(int(fixed), _dt.UTC) if fixed else _dt.datetime.now(_dt.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


__all__ = [
    "PRESET_KEY",
    "PRESET_VECTOR_KEY",
    "SCHEMA_KEYS",
    "SPOKEN_VERSIONS",
    "stamp_artefact",
    "utc_now",
]
