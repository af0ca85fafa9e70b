"""An offline model for PydanticAI, built on PydanticAI's own ``FunctionModel``.

``ScriptedPydanticModel(policy)`` answers each request from a policy over the
observation payload found in the run's user prompt. When the run has an output
tool (the adapter binds one) the answer goes through it as the tool's arguments,
as ``TestModel`` and a real provider do; otherwise it is sent as text. The real
agent graph, retry loop and usage limits all run, with no network::

    from pydantic_ai import Agent
    from workbench.integrations.pydantic_ai import PydanticAIAdapter
    from workbench.testing.pydantic_ai import ScriptedPydanticModel
    from workbench.testing import trend_policy

    arm = PydanticAIAdapter(Agent(name="trader"), model=ScriptedPydanticModel(trend_policy))
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from workbench.errors import MissingDependency
from workbench.integrations._frameworks import payload_from_text
from workbench.integrations.pydantic_ai import DISTRIBUTION, EXTRA
from workbench.testing._answers import Policy, answer_of, answer_text, token_estimate

try:
    from pydantic_ai.messages import (
        ModelMessage,
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        UserPromptPart,
    )
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.usage import RequestUsage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependency(DISTRIBUTION, EXTRA, "workbench.testing.pydantic_ai") from exc


class ScriptedPydanticModel(FunctionModel):
    """A ``FunctionModel`` whose every request is answered by ``policy(payload)``.

    ``delay`` (seconds) is awaited before each answer; ``payloads`` lists what
    each request was asked (a retry asks the same payload again).
    """

    def __init__(self, policy: Policy, *, delay: float = 0.0, name: str = "scripted") -> None:
        super().__init__(self._answer, model_name=name)
        self.policy = policy
        self.delay = delay
        self.payloads: list[dict[str, Any]] = []

    async def _answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        prompt = _user_prompt(messages)
        payload = payload_from_text(prompt)
        self.payloads.append(payload)
        text = answer_text(answer_of(self.policy, payload))
        usage = RequestUsage(
            input_tokens=token_estimate(prompt), output_tokens=token_estimate(text)
        )
        if info.output_tools:
            call = ToolCallPart(
                info.output_tools[0].name,
                _arguments(text),
                tool_call_id=f"scripted-{len(self.payloads)}",
            )
            return ModelResponse(parts=[call], usage=usage, model_name=self.model_name)
        return ModelResponse(parts=[TextPart(text)], usage=usage, model_name=self.model_name)


def _user_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if not isinstance(message, ModelRequest):
            continue
        for part in reversed(message.parts):
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                return part.content
    raise ValueError("the run carries no text user prompt to read the observation from")


def _arguments(text: str) -> dict[str, Any] | str:
    """Tool arguments: the decision object, or the raw text when it is not an object."""
    try:
        parsed = json.loads(text)
    except ValueError:
        return text
    return parsed if isinstance(parsed, dict) else text


__all__ = ["ScriptedPydanticModel"]
