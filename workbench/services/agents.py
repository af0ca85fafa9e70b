"""The arms a service can run without spending model money.

- Baselines, by name (``"momentum"``; see ``workbench.baselines.BASELINES``), run in
  any evaluation.
- Recorded arms answer from a transcript made in one experiment (seed, roster,
  market); they are run by replaying their recording (``replay_recording``),
  because any other experiment would ask them questions they were never asked.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from workbench.agents import Agent
from workbench.errors import ConfigError


def list_agents(recordings: str | Path | None = None) -> dict[str, Any]:
    """Every arm the services can run, by kind: baselines, and recordings with their arms."""
    from workbench.services.recorded import list_recordings

    shipped = list_recordings(recordings)
    return {
        "baselines": _baselines(),
        "recordings": shipped["recordings"],
        "how_to_run": (
            "Baselines: pass their names to run_evaluation or compare_runs. Recorded arms: "
            "replay_recording with the recording's name runs its whole roster offline, on the "
            "market it was recorded on; no model is called."
        ),
    }


def _baselines() -> list[dict[str, str]]:
    from workbench.baselines import BASELINES

    return [{"name": name, "about": _first_line(kind.__doc__)} for name, kind in BASELINES.items()]


def _first_line(text: str | None) -> str:
    return (text or "").strip().splitlines()[0] if text else ""


def check_arm_names(arms: Any) -> list[str]:
    """``arms`` as a list of unique strings, or a ConfigError naming the fix."""
    if isinstance(arms, str):
        arms = [a.strip() for a in arms.split(",") if a.strip()]
    if not isinstance(arms, list | tuple) or not all(isinstance(a, str) for a in arms):
        raise ConfigError(f"arms must be a list of arm names, got {arms!r}")
    if not arms:
        raise ConfigError("arms is empty; name at least one, e.g. ['buy_and_hold']")
    twice = sorted({a for a in arms if arms.count(a) > 1})
    if twice:
        raise ConfigError(f"arms must be unique; {', '.join(twice)} appear more than once")
    return list(arms)


def build_arms(arms: Any) -> list[Agent]:
    """Fresh agents for the named arms; every name is checked before any is built."""
    from workbench.baselines import BASELINES, baseline

    names = check_arm_names(arms)
    for name in names:
        if name not in BASELINES:
            raise ConfigError(_unknown_arm(name, list(BASELINES)))
    return [baseline(name) for name in names]


def _unknown_arm(name: str, known: list[str]) -> str:
    near = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    return (
        f"unknown arm {name!r}.{hint} Baselines: {', '.join(known)}. Recorded arms run "
        "by replaying their recording (replay_recording, or `workbench replay`)."
    )
