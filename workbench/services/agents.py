"""The arms a service can run without spending model money.

- Baselines, by name (``"momentum"``; see ``workbench.baselines.BASELINES``), run in
  any evaluation.
- Packaged committees whose every role model is scripted, as
  ``"committee:<name>"`` (``"committee:tradingagents"``): the whole multi-role
  topology runs offline. A committee with any real model behind a role is refused.
- Recorded arms answer from a transcript made in one experiment (seed, roster,
  market); they are run by replaying their recording (``replay_recording``),
  because any other experiment would ask them questions they were never asked.
"""

from __future__ import annotations

from typing import Any

from workbench._checks import did_you_mean
from workbench.agents import Agent
from workbench.errors import ConfigError

COMMITTEE_PREFIX = "committee:"
# Model-backed arms answered offline by scripted models, by the short name notebooks and
# the panel use: two callable stand-ins (workbench.testing.scripted), the reference
# committee, and the scripted learner without and with memory (workbench.testing.learner).
# Recorded runs name the factory so a replay rebuilds them.
SCRIPTED_ARMS = {
    "trend": "workbench.testing.scripted:trend_agent",
    "contrarian": "workbench.testing.scripted:contrarian_agent",
    "committee": "workbench.committee:committee_agent",
    "learner": "workbench.testing.learner:learner_agent",
    "learner_memory": "workbench.testing.learner:remembering_learner",
}


def baseline_names() -> list[str]:
    """The baselines' names, in their fixed order."""
    from workbench.baselines import BASELINES

    return list(BASELINES)


def scripted_arm(name: str, **options: Any) -> Agent:
    """A fresh scripted arm by its short name in ``SCRIPTED_ARMS`` (``options`` go to its
    factory, e.g. ``mode="record", recorder=path``)."""
    from workbench._names import resolve

    built: Agent = resolve(SCRIPTED_ARMS[name])(name=name, **options)
    return built


def baseline_rows() -> list[dict[str, str]]:
    """Each baseline's name and the first line of its description."""
    from workbench.baselines import BASELINES

    return [{"name": name, "about": _first_line(kind.__doc__)} for name, kind in BASELINES.items()]


def committee_rows() -> list[dict[str, Any]]:
    """Each packaged committee: its arm name, roles, and whether it runs offline."""
    from workbench.committee.config import PACKAGED, load_spec

    rows = []
    for name in sorted(PACKAGED):
        spec = load_spec(name)
        rows.append(
            {
                "name": COMMITTEE_PREFIX + name,
                "about": spec.name,
                "roles": len(spec.roles),
                "offline": _offline(spec),
            }
        )
    return rows


def _offline(spec: Any) -> bool:
    return all(entry.get("backend") == "scripted" for entry in spec.models.values())


def _committee(arm: str) -> Agent:
    from workbench.committee import Committee
    from workbench.committee.config import PACKAGED, load_spec

    name = arm[len(COMMITTEE_PREFIX) :]
    if name not in PACKAGED:
        raise ConfigError(_unknown_arm(arm, [COMMITTEE_PREFIX + n for n in sorted(PACKAGED)]))
    spec = load_spec(name)
    if not _offline(spec):
        raise ConfigError(
            f"committee {name!r} puts a real model behind some role; these services never "
            "call a model. Run it live in a notebook, or record it and replay the recording."
        )
    return Committee(spec, name=arm)


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
        if name not in BASELINES and not name.startswith(COMMITTEE_PREFIX):
            raise ConfigError(_unknown_arm(name, list(BASELINES)))
    return [_committee(n) if n.startswith(COMMITTEE_PREFIX) else baseline(n) for n in names]


def _unknown_arm(name: str, known: list[str]) -> str:
    return (
        f"unknown arm {name!r}.{did_you_mean(name, known)} Known: {', '.join(known)}; "
        f"committees are '{COMMITTEE_PREFIX}<name>'. Recorded arms run "
        "by replaying their recording (replay_recording, or `workbench replay`)."
    )
