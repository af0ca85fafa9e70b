"""The catalogue: every arm the services can run, by kind.

Baselines and offline committees come from ``services.agents``; recorded arms
from the recordings folder (``services.recorded``), each listed with its
recording, since a recorded arm runs only by replaying its recording.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.services.agents import baseline_rows, committee_rows
from workbench.services.recorded import list_recordings


def list_agents(recordings: str | Path | None = None) -> dict[str, Any]:
    """Every arm the services can run, by kind: baselines, offline committees, and
    recordings with their arms."""
    shipped = list_recordings(recordings)
    return {
        "baselines": baseline_rows(),
        "committees": committee_rows(),
        "recordings": shipped["recordings"],
        "how_to_run": (
            "Baselines and offline committees: pass their names to run_evaluation or "
            "compare_runs. Recorded arms: "
            "replay_recording with the recording's name runs its whole roster offline, on the "
            "market it was recorded on; no model is called."
        ),
    }


__all__ = ["list_agents"]
