"""An offline chat model and small graphs for LangGraph, on langchain-core's ``BaseChatModel``.

``ScriptedChatModel(policy=...)`` is a real chat model whose every call is
answered by a policy over the observation in the last user message, so the
graph runtime, message reducers, callbacks and configs all run with no network.
``scripted_graph(policy, shape=...)`` compiles a one-node graph around it:

- ``shape="messages"``: a ``MessagesState`` graph that appends the model's reply;
- ``shape="state"``: a structured state (``observation``, ``instructions``,
  ``decision``) whose node asks the model and writes the reply to ``decision``.

::

    from workbench.integrations.langgraph import langgraph_agent
    from workbench.testing.langgraph import scripted_graph
    from workbench.testing import trend_policy

    arm = langgraph_agent(scripted_graph(trend_policy), name="graph")
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any, Literal, TypedDict

from workbench.errors import ConfigError, MissingDependency
from workbench.integrations._frameworks import payload_from_text
from workbench.integrations.langgraph import DISTRIBUTION, EXTRA, render
from workbench.testing._answers import Policy, answer_of, answer_text, token_estimate

try:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langgraph.graph import END, START, MessagesState, StateGraph
    from pydantic import Field
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependency(DISTRIBUTION, EXTRA, "workbench.testing.langgraph") from exc


class ScriptedChatModel(BaseChatModel):
    """A chat model answering ``policy(payload)``; ``delay`` seconds stand in for latency."""

    policy: Any
    delay: float = 0.0
    payloads: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "workbench-scripted"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay:
            time.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.delay:
            await asyncio.sleep(self.delay)
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages))])

    def _reply(self, messages: Sequence[BaseMessage]) -> AIMessage:
        prompt = _last_user_text(messages)
        payload = payload_from_text(prompt)
        self.payloads.append(payload)
        text = answer_text(answer_of(self.policy, payload))
        sent, got = token_estimate(prompt), token_estimate(text)
        usage = {"input_tokens": sent, "output_tokens": got, "total_tokens": sent + got}
        return AIMessage(content=text, usage_metadata=usage)


def _last_user_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if message.type == "human" and isinstance(message.content, str):
            return message.content
    raise ValueError("the graph sent the model no user message to read the observation from")


class DecisionState(TypedDict, total=False):
    """A structured graph state: what the adapter sends and where the answer goes."""

    observation: dict[str, Any]
    instructions: str
    decision: str


def scripted_graph(
    policy: Policy,
    *,
    shape: Literal["messages", "state"] = "messages",
    delay: float = 0.0,
    name: str = "scripted-graph",
) -> Any:
    """A compiled one-node graph whose node asks a ``ScriptedChatModel``."""
    model = ScriptedChatModel(policy=policy, delay=delay)

    async def answer_messages(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    async def answer_state(state: DecisionState) -> dict[str, Any]:
        asked: list[BaseMessage] = [
            SystemMessage(state.get("instructions", "")),
            HumanMessage(render(state["observation"])),
        ]
        reply = await model.ainvoke(asked)
        return {"decision": reply.content}

    if shape == "messages":
        builder: Any = StateGraph(MessagesState)
        builder.add_node("decide", answer_messages)
    elif shape == "state":
        builder = StateGraph(DecisionState)
        builder.add_node("decide", answer_state)
    else:
        raise ConfigError(f"shape must be 'messages' or 'state', got {shape!r}")
    builder.add_edge(START, "decide")
    builder.add_edge("decide", END)
    return builder.compile(name=name)


__all__ = ["DecisionState", "ScriptedChatModel", "scripted_graph"]
