"""The part of the OpenAI Agents adapter that needs the SDK, imported only when a run starts."""

from __future__ import annotations

import json
from typing import Any

from agents import FunctionTool, ModelSettings
from agents.agent_output import AgentOutputSchema, AgentOutputSchemaBase

from workbench.schema import Decision


class RawDecisionOutput(AgentOutputSchemaBase):
    """Shows the provider the strict decision schema and hands back the model's text untouched.

    The SDK would otherwise validate the answer with its own rules and, by default,
    drop the model's text from the error. Returning the text lets the workbench
    record it and validate it with the same ``parse_decision`` every arm goes
    through, so the SDK's strictness never changes what is accepted.
    """

    def __init__(self) -> None:
        self._schema = AgentOutputSchema(Decision, strict_json_schema=True).json_schema()

    def is_plain_text(self) -> bool:
        return False

    def name(self) -> str:
        return "Decision"

    def json_schema(self) -> dict[str, Any]:
        return self._schema

    def is_strict_json_schema(self) -> bool:
        return True

    def validate_json(self, json_str: str) -> str:
        return json_str


def with_settings(agent: Any, **changes: Any) -> ModelSettings:
    """The agent's own model settings with ``changes`` laid over them."""
    settings: ModelSettings = agent.model_settings
    return settings.resolve(ModelSettings(**changes))


def decision_tool(name: str, schema: dict[str, Any]) -> FunctionTool:
    """A tool whose arguments are the decision; it hands them back untouched as JSON text."""

    async def submit(context: Any, arguments: str) -> str:
        json.loads(arguments)  # the SDK reports malformed arguments to the model
        return arguments

    return FunctionTool(
        name=name,
        description="Submit the decision.",
        params_json_schema=schema,
        on_invoke_tool=submit,
        strict_json_schema=False,
    )


__all__ = ["RawDecisionOutput", "decision_tool", "with_settings"]
