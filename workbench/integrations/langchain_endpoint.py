"""A LangChain chat model over an ``Endpoint``, and the one-node graph ``langgraph_agent`` builds.

``EndpointChatModel(endpoint=ep, output_mode="json")`` is a ``BaseChatModel``: put
it in any node of your own graph as you would any chat model. Each call goes
through the endpoint (rate limit, counted retries, timeout), asks in the given
output mode, and answers with an ``AIMessage`` carrying ``usage_metadata`` and
the model name the server reported, so the adapter records tokens.

``chat_graph(ep, output_mode)`` compiles a ``MessagesState`` graph whose one node
asks that model; ``langgraph_agent(endpoint=ep)`` uses it when you pass no graph.
Importing this module imports langchain-core and langgraph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from workbench.errors import MissingDependency
from workbench.integrations.endpoints import Endpoint
from workbench.integrations.output_modes import checked_mode

try:
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langgraph.graph import END, START, MessagesState, StateGraph
    from pydantic import ConfigDict
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependency("langgraph", "langgraph", "a LangGraph arm on an endpoint") from exc

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}


class EndpointChatModel(BaseChatModel):
    """A chat model answered by an OpenAI-compatible ``Endpoint`` in one output mode."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    endpoint: Endpoint
    output_mode: str | None = None  # None: plain text

    @property
    def _llm_type(self) -> str:
        return "workbench-endpoint"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        from workbench.bridge import run_sync

        result: ChatResult = run_sync(self._agenerate(messages, stop, run_manager, **kwargs))
        return result

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        mode = None if self.output_mode is None else checked_mode(self.output_mode)
        reply = await self.endpoint.chat(chat_messages(messages), output_mode=mode)
        usage = {
            "input_tokens": reply.input_tokens,
            "output_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
        }
        message = AIMessage(
            content=reply.text,
            usage_metadata=usage,
            response_metadata={"model_name": reply.model},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])


def chat_messages(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """LangChain messages as chat-completions messages (role and text)."""
    return [
        {"role": _ROLES.get(message.type, "user"), "content": str(message.content)}
        for message in messages
    ]


def chat_graph(endpoint: Endpoint, output_mode: str | None, *, name: str = "chat") -> Any:
    """A compiled ``MessagesState`` graph whose one node asks ``endpoint``."""
    model = EndpointChatModel(endpoint=endpoint, output_mode=output_mode)

    async def decide(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder: Any = StateGraph(MessagesState)
    builder.add_node("decide", decide)
    builder.add_edge(START, "decide")
    builder.add_edge("decide", END)
    return builder.compile(name=name)


__all__ = ["EndpointChatModel", "chat_graph", "chat_messages"]
