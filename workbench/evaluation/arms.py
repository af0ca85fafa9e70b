"""Turn what the caller passed (agents, baseline names, a mapping) into named arms."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from workbench.agents import Agent, check_every
from workbench.errors import ConfigError
from workbench.evaluation.oracle import ORACLE


def resolve_arms(agents: Sequence[Agent | str] | Mapping[str, Agent] | Agent | str) -> list[Agent]:
    from workbench.baselines import baseline

    if isinstance(agents, Agent | str):
        agents = [agents]
    if isinstance(agents, Mapping):
        arms = []
        for name, agent in agents.items():
            arm = baseline(agent) if isinstance(agent, str) else _check(agent)
            arm.name = str(name)
            arms.append(arm)
    else:
        arms = [baseline(a) if isinstance(a, str) else _check(a) for a in agents]
    if not arms:
        raise ConfigError("evaluate needs at least one arm, e.g. agents=['buy_and_hold']")
    _refuse_bad_names(arms)
    return arms


def _check(agent: object) -> Agent:
    if not isinstance(agent, Agent):
        raise ConfigError(
            f"an arm must be a workbench Agent (or a baseline name), got {type(agent).__name__}; "
            "wrap a plain function with workbench.integrations.callable_agent(fn, name=...)"
        )
    check_every(agent.every, agent.name)
    return agent


def _refuse_bad_names(arms: list[Agent]) -> None:
    if any(arm.name == ORACLE for arm in arms):
        raise ConfigError(
            f"the arm name {ORACLE!r} is kept for the reference arm information capture is "
            "measured against; pass another name=... to your agent"
        )
    counts = Counter(arm.name for arm in arms)
    twice = sorted(name for name, n in counts.items() if n > 1)
    if twice:
        raise ConfigError(
            f"arm names must be unique; {', '.join(map(repr, twice))} appear more than once. "
            "Pass name=... to each agent, or a dict {name: agent}."
        )
