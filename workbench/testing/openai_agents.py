"""An offline model for the OpenAI Agents SDK, built on the SDK's own ``ScriptedModel``.

``ScriptedAgentsModel(policy)`` answers every model call from a policy over the
observation payload, so the real ``Runner`` loop, output schema, guardrails and
usage accounting all run with no network and no API key::

    from agents import Agent
    from workbench.integrations.openai_agents import openai_agent
    from workbench.testing.openai_agents import ScriptedAgentsModel
    from workbench.testing import trend_policy

    arm = openai_agent(Agent(name="trader", instructions="..."),
                       model=ScriptedAgentsModel(trend_policy))
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from workbench.errors import MissingDependency
from workbench.integrations.openai_agents import DISTRIBUTION, EXTRA, payload_of
from workbench.testing._answers import Policy, Refusal, answer_of, answer_text, token_estimate

try:
    from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent
    from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message
    from agents.usage import Usage
    from openai.types.responses import ResponseOutputMessage, ResponseOutputRefusal
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependency(DISTRIBUTION, EXTRA, "workbench.testing.openai_agents") from exc


class ScriptedAgentsModel(ScriptedModel):
    """A ``Model`` whose every call is answered by ``policy(payload)``.

    ``delay`` (seconds) is awaited before each answer, to stand in for a
    provider's latency. ``payloads`` lists what each call was asked.
    """

    def __init__(self, policy: Policy, *, delay: float = 0.0) -> None:
        super().__init__()
        self.policy = policy
        self.delay = delay
        self.payloads: list[dict[str, Any]] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.enqueue(ModelStep.respond(self._respond))
        return await super().get_response(*args, **kwargs)

    async def stream_response(
        self, *args: Any, **kwargs: Any
    ) -> AsyncIterator[TResponseStreamEvent]:
        self.enqueue(ModelStep.respond(self._respond))
        async for event in super().stream_response(*args, **kwargs):
            yield event

    async def _respond(self, call: ModelCall) -> ModelStep:
        if self.delay:
            await asyncio.sleep(self.delay)
        payload = payload_of(call)
        self.payloads.append(payload)
        answer = answer_of(self.policy, payload)
        text = answer_text(answer)
        item = _refusal(text) if isinstance(answer, Refusal) else assistant_message(text)
        return ModelStep(output=[item], usage=_usage(call.input, text))


def _refusal(reason: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id="scripted-refusal",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputRefusal(refusal=reason, type="refusal")],
    )


def _usage(sent: str | list[TResponseInputItem], text: str) -> Usage:
    prompt = sent if isinstance(sent, str) else str(sent)
    input_tokens, output_tokens = token_estimate(prompt), token_estimate(text)
    return Usage(
        requests=1,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )


__all__ = ["ScriptedAgentsModel"]
