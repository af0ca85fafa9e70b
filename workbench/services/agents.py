"""The arms a service can run without spending model money: baselines and recorded arms.

An arm is named by a string:

- a baseline name (``"momentum"``), see ``workbench.baselines.BASELINES``;
- ``"recording:<name>"`` or ``"recording:<name>/<arm>"``: an arm of a shipped
  recording, replayed from its transcript (never live).
"""

from __future__ import annotations

import difflib
from typing import Any

from workbench.agents import Agent
from workbench.errors import ConfigError

RECORDING_PREFIX = "recording:"


def list_agents() -> dict[str, Any]:
    """Every arm name a service accepts, by kind, with a one-line description each."""
    return {
        "baselines": _baselines(),
        "naming": "Pass a baseline by its name.",
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


def arm_source(name: str) -> str:
    return "replayed" if name.startswith(RECORDING_PREFIX) else "baseline"


def _unknown_arm(name: str, known: list[str]) -> str:
    near = difflib.get_close_matches(name, known, n=1)
    hint = f" Did you mean {near[0]!r}?" if near else ""
    return (
        f"unknown arm {name!r}.{hint} Baselines: {', '.join(known)}; recorded arms are "
        f"'{RECORDING_PREFIX}<name>/<arm>' (see list_agents)."
    )
