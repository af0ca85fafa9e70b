"""Ready-made offline arms for each framework: a real agent or graph on a scripted model.

Each builder returns the framework's adapter around a genuine framework object
(an ``agents.Agent``, a ``pydantic_ai.Agent``, a compiled LangGraph graph) whose
model is scripted, so examples, notebooks, tests and the shipped recordings
drive the real framework code with no network. The framework is imported when a
builder is called, never when this module is imported.

``python -m workbench.testing.framework_arms recordings`` re-makes the shipped
framework recordings (one folder per framework).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Literal

from workbench.integrations.base import BaseAdapter
from workbench.testing._answers import Policy, stumbling_policy, trend_policy

TRADER_INSTRUCTIONS = (
    "You are a cautious trend follower. Buy the strongest riser you do not hold, sell "
    "holdings that are falling, and keep each order within the market's max order."
)
RECORDED_MARKET: dict[str, Any] = {"seed": 11, "universe": 5, "days": 3, "preset": "standard-v1"}


def openai_agents_arm(
    policy: Policy = trend_policy, *, name: str = "openai-agents", delay: float = 0.0, **kwargs: Any
) -> BaseAdapter:
    """An ``agents.Agent`` on a ``ScriptedAgentsModel`` (``mode="live"`` unless given)."""
    from agents import Agent

    from workbench.integrations.openai_agents import openai_agent
    from workbench.testing.openai_agents import ScriptedAgentsModel

    agent = Agent(name=name, instructions=TRADER_INSTRUCTIONS)
    return openai_agent(agent, model=ScriptedAgentsModel(policy, delay=delay), **kwargs)


def pydantic_ai_arm(
    policy: Policy = trend_policy, *, name: str = "pydantic-ai", delay: float = 0.0, **kwargs: Any
) -> BaseAdapter:
    """A ``pydantic_ai.Agent`` on a ``ScriptedPydanticModel``."""
    from pydantic_ai import Agent

    from workbench.integrations.pydantic_ai import PydanticAIAdapter
    from workbench.testing.pydantic_ai import ScriptedPydanticModel

    agent = Agent(name=name, instructions=TRADER_INSTRUCTIONS)
    return PydanticAIAdapter(agent, model=ScriptedPydanticModel(policy, delay=delay), **kwargs)


def langgraph_arm(
    policy: Policy = trend_policy,
    *,
    name: str = "langgraph",
    delay: float = 0.0,
    shape: Literal["messages", "state"] = "messages",
    **kwargs: Any,
) -> BaseAdapter:
    """A compiled one-node graph on a ``ScriptedChatModel``."""
    from workbench.integrations.langgraph import langgraph_agent
    from workbench.testing.langgraph import scripted_graph

    graph = scripted_graph(policy, shape=shape, delay=delay, name=name)
    return langgraph_agent(graph, name=name, **kwargs)


BUILDERS = {
    "openai-agents": openai_agents_arm,
    "pydantic-ai": pydantic_ai_arm,
    "langgraph": langgraph_arm,
}


def make_recordings(root: str | Path = "recordings", *, overwrite: bool = True) -> list[Path]:
    """Record one folder per framework: a steady arm, a stumbling arm and a baseline."""
    from workbench.recordings import record

    made = []
    for framework, build in BUILDERS.items():
        folder = Path(root) / f"{framework}-scripted"
        arms: list[BaseAdapter | str] = [
            build(trend_policy, name=framework, mode="record"),
            build(stumbling_policy, name=f"{framework}-stumbling", mode="record"),
            "buy_and_hold",
        ]
        record(folder, arms, **RECORDED_MARKET, overwrite=overwrite)
        made.append(folder)
    return made


if __name__ == "__main__":  # pragma: no cover - a maintenance command
    for path in make_recordings(sys.argv[1] if len(sys.argv) > 1 else "recordings"):
        print(f"recorded {path}")


__all__ = [
    "BUILDERS",
    "RECORDED_MARKET",
    "TRADER_INSTRUCTIONS",
    "langgraph_arm",
    "make_recordings",
    "openai_agents_arm",
    "pydantic_ai_arm",
]
