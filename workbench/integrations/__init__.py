"""Adapters that let an agent built with any framework run as an arm.

``common`` is the shared layer (constants, schemas, transcripts and replay,
preset checks, ``run_sync``); ``base.BaseAdapter`` is the class a framework
adapter completes by writing one ``ask`` method; ``callable`` wraps a plain
Python function; ``process`` and ``http_agent`` run an agent in its own process
or behind a URL (docs/process-agents.md); ``endpoints.Endpoint`` points any of
them at an OpenAI-compatible server; committees are
``workbench.committee.Committee``. Importing an adapter imports no framework:
each one imports its framework only when a live call needs it, so a replay
needs none installed.
"""

from workbench.integrations.base import AdapterInfo, BaseAdapter
from workbench.integrations.callable import Answer, CallableAgentAdapter, callable_agent
from workbench.integrations.endpoints import Endpoint
from workbench.integrations.hooks import DecisionHook
from workbench.integrations.http_agent import HttpAgentAdapter, http_agent
from workbench.integrations.langgraph import (
    GraphInterruptedError,
    LangGraphAdapter,
    langgraph_agent,
)
from workbench.integrations.openai_agents import OpenAIAgentsAdapter, openai_agent
from workbench.integrations.process import ProcessAgentAdapter, process_agent
from workbench.integrations.pydantic_ai import PydanticAIAdapter

__all__ = [
    "AdapterInfo",
    "Answer",
    "BaseAdapter",
    "CallableAgentAdapter",
    "DecisionHook",
    "Endpoint",
    "GraphInterruptedError",
    "HttpAgentAdapter",
    "LangGraphAdapter",
    "OpenAIAgentsAdapter",
    "ProcessAgentAdapter",
    "PydanticAIAdapter",
    "callable_agent",
    "http_agent",
    "langgraph_agent",
    "openai_agent",
    "process_agent",
]
