"""The committee adapter: a TradingAgents-style committee of roles evaluated as one arm.

``CommitteeAdapter`` is ``workbench.committee.Committee``, a ``BaseAdapter``:
the same modes (live / record / replay), transcript, ``prior=`` resume,
``timeout=`` and ``max_calls=`` as every other adapter, except that one decision
is many model exchanges (one per role), each keyed by the digest of its exact
input. ``committee_agent(spec, **kwargs)`` is the convenience constructor;
``spec`` is ``"tradingagents"`` (the packaged reference committee), a YAML path
or a mapping. Roles run on scripted offline models unless the YAML (or
``models=``) points them at a callable, PydanticAI, OpenAI Agents or LangGraph
model; those frameworks are imported on first call only, so a replay needs none.
"""

from __future__ import annotations

from workbench.committee.agent import Committee, committee_agent
from workbench.committee.models import (
    CallableModel,
    LangGraphModel,
    OpenAIAgentsModel,
    PydanticAIModel,
    ScriptedModel,
)

CommitteeAdapter = Committee

__all__ = [
    "CallableModel",
    "Committee",
    "CommitteeAdapter",
    "LangGraphModel",
    "OpenAIAgentsModel",
    "PydanticAIModel",
    "ScriptedModel",
    "committee_agent",
]
