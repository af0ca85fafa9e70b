"""The adapter factories are typed: each takes its adapter's keywords as a TypedDict, and
that TypedDict names exactly what the adapter's constructor takes, so the two never drift."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from workbench.committee.agent import Committee, CommitteeAgentOptions, committee_agent
from workbench.integrations.base import AdapterOptions
from workbench.integrations.http_agent import HttpAgentAdapter, HttpAgentOptions, http_agent
from workbench.integrations.langgraph import LangGraphAdapter, LangGraphOptions, langgraph_agent
from workbench.integrations.openai_agents import (
    OpenAIAgentsAdapter,
    OpenAIAgentsOptions,
    openai_agent,
)
from workbench.integrations.process import (
    ProcessAgentAdapter,
    ProcessAgentOptions,
    process_agent,
)

FACTORIES = [
    (http_agent, HttpAgentOptions, HttpAgentAdapter),
    (process_agent, ProcessAgentOptions, ProcessAgentAdapter),
    (openai_agent, OpenAIAgentsOptions, OpenAIAgentsAdapter),
    (langgraph_agent, LangGraphOptions, LangGraphAdapter),
    (committee_agent, CommitteeAgentOptions, Committee),
]


def _keyword_only(function: Any) -> set[str]:
    parameters = inspect.signature(function).parameters.values()
    return {p.name for p in parameters if p.kind is inspect.Parameter.KEYWORD_ONLY}


@pytest.mark.parametrize(("factory", "options", "adapter"), FACTORIES)
def test_a_factory_takes_exactly_its_adapters_keywords(
    factory: Any, options: Any, adapter: type
) -> None:
    own = set(options.__optional_keys__) - set(AdapterOptions.__optional_keys__)
    settings = {"max_debate_rounds", "max_risk_discuss_rounds"} if adapter is Committee else set()
    assert own - settings == _keyword_only(adapter.__init__)
    *_, last = inspect.signature(factory).parameters.values()
    assert last.kind is inspect.Parameter.VAR_KEYWORD
    assert str(last.annotation) == f"Unpack[{options.__name__}]"
