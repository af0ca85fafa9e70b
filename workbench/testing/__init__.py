"""Test doubles that ship with the package: scripted agents and scripted framework models.

Tests, examples and notebooks drive the same code offline with these. Modules:
``scripted`` (rule-based callable agents standing in for a model), ``oracle``
(an agent that memorised a historical path: the contamination to detect),
``insiders`` (arms that read the simulator's mispricing or coming market factor,
so attribution has a known answer) and one module per framework with a scripted
model for it.
"""

from typing import Any

from workbench.testing._answers import Policy, Refusal, stumbling_policy, trend_policy

# Scripted framework models, imported on first use so that importing
# workbench.testing never imports a framework.
_LAZY = {
    "MarketTimer": "workbench.testing.insiders",
    "MemorisingOracle": "workbench.testing.oracle",
    "MispricingPicker": "workbench.testing.insiders",
    "ScriptedAgentsModel": "workbench.testing.openai_agents",
    "ScriptedPydanticModel": "workbench.testing.pydantic_ai",
    "ScriptedChatModel": "workbench.testing.langgraph",
    "scripted_graph": "workbench.testing.langgraph",
    "openai_agents_arm": "workbench.testing.framework_arms",
    "pydantic_ai_arm": "workbench.testing.framework_arms",
    "langgraph_arm": "workbench.testing.framework_arms",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'workbench.testing' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    # an agent that memorised a historical path, and arms that read the simulator's (lazy)
    "MarketTimer",
    "MemorisingOracle",
    "MispricingPicker",
    # scripted policies for the framework models
    "Policy",
    "Refusal",
    # scripted framework models (lazy)
    "ScriptedAgentsModel",
    "ScriptedChatModel",
    "ScriptedPydanticModel",
    "langgraph_arm",
    "openai_agents_arm",
    "pydantic_ai_arm",
    "scripted_graph",
    "stumbling_policy",
    "trend_policy",
]
