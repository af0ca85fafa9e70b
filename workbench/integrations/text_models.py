"""Text models: a prompt in, text and token counts out, over any framework or endpoint.

``RoleModel`` is the protocol (``name`` and ``async complete(prompt) -> Reply``);
the committee's roles and the memory's reflections ask one. ``CallableModel``
wraps a sync or async function; ``PydanticAIModel``, ``OpenAIAgentsModel`` and
``LangGraphModel`` ask an agent or compiled graph for plain text, mapping the
framework's errors with its adapter's error table; ``EndpointModel`` asks an
OpenAI-compatible ``Endpoint``. Framework imports happen on the first call.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from workbench.errors import ConfigError, FrameworkError, MissingDependency, WorkbenchError
from workbench.integrations._loop import in_daemon_thread


@dataclass(frozen=True)
class Reply:
    """A model's text and what it cost."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0


@runtime_checkable
class RoleModel(Protocol):
    """Anything that answers a prompt. ``name`` is recorded with every exchange."""

    name: str

    async def complete(self, prompt: str) -> Reply: ...


def token_estimate(text: str) -> int:
    """A deterministic token count for offline models: about four characters a token."""
    return max(1, -(-len(text) // 4))


class CallableModel:
    """``fn(prompt)`` (sync in a worker thread, or async) returning text or a ``Reply``."""

    def __init__(self, fn: Callable[[str], Any], *, name: str | None = None) -> None:
        if not callable(fn):
            raise ConfigError(f"a callable model needs a function, got {type(fn).__name__}")
        self.fn = fn
        self.name: str = name or str(getattr(fn, "__name__", "callable"))

    async def complete(self, prompt: str) -> Reply:
        if inspect.iscoroutinefunction(self.fn):
            answer = await self.fn(prompt)
        else:
            answer = await in_daemon_thread(self.fn, prompt)  # a hang never blocks exit
            if inspect.isawaitable(answer):
                answer = await answer
        if isinstance(answer, Reply):
            return answer
        return Reply(answer, token_estimate(prompt), token_estimate(str(answer)))


class PydanticAIModel:
    """A ``pydantic_ai.Agent`` with a text output; ``model`` overrides the agent's own."""

    def __init__(self, agent: Any, *, name: str | None = None, model: Any = None) -> None:
        self.agent, self.model = agent, model
        self.name = name or _model_name(
            model if model is not None else getattr(agent, "model", None)
        )

    async def complete(self, prompt: str) -> Reply:
        _load("pydantic_ai", "pydantic-ai-slim", "pydantic-ai")
        with _boundary("pydantic_ai", self.name):
            result = await self.agent.run(prompt, model=self.model)
        usage = result.usage  # a property in pydantic-ai >= 2.x; a method before
        usage = usage if hasattr(usage, "input_tokens") else usage()
        return Reply(
            str(result.output), int(usage.input_tokens or 0), int(usage.output_tokens or 0)
        )


class OpenAIAgentsModel:
    """An ``agents.Agent`` run for its final text output, with tracing off."""

    def __init__(self, agent: Any, *, name: str | None = None, model: Any = None) -> None:
        self.agent, self.model = agent, model
        self.name = name or _model_name(
            model if model is not None else getattr(agent, "model", None)
        )

    async def complete(self, prompt: str) -> Reply:
        sdk = _load("agents", "openai-agents", "openai-agents")
        config = sdk.RunConfig(model=self.model, tracing_disabled=True)
        with _boundary("openai_agents", self.name):
            result = await sdk.Runner.run(self.agent, prompt, run_config=config)
        usage = result.context_wrapper.usage
        return Reply(str(result.final_output), int(usage.input_tokens), int(usage.output_tokens))


class LangGraphModel:
    """A compiled graph over ``messages``; the last message's content is the answer."""

    def __init__(self, graph: Any, *, name: str | None = None) -> None:
        if not hasattr(graph, "ainvoke"):
            raise ConfigError("a langgraph role model needs a compiled graph (call .compile())")
        self.graph, self.name = graph, name or "langgraph"

    async def complete(self, prompt: str) -> Reply:
        with _boundary("langgraph", self.name):
            state = await self.graph.ainvoke({"messages": [{"role": "user", "content": prompt}]})
        messages = state.get("messages") if isinstance(state, Mapping) else None
        if not messages:
            raise FrameworkError("the graph returned no messages; a role graph must answer in them")
        text = str(getattr(messages[-1], "content", messages[-1]))
        return Reply(text, token_estimate(prompt), token_estimate(text))


class EndpointModel:
    """A role answered by an OpenAI-compatible ``Endpoint`` in plain text, with its tokens."""

    def __init__(
        self, endpoint: Any, *, name: str | None = None, max_tokens: int | None = None
    ) -> None:
        self.endpoint, self.max_tokens = endpoint, max_tokens
        self.name: str = name or str(endpoint.model)

    async def complete(self, prompt: str) -> Reply:
        reply = await self.endpoint.chat(
            [{"role": "user", "content": prompt}], max_tokens=self.max_tokens
        )
        return Reply(reply.text, reply.input_tokens, reply.output_tokens)

    def close(self) -> None:
        self.endpoint.close()


@contextlib.contextmanager
def _boundary(adapter: str, name: str) -> Iterator[None]:
    """Map a framework's exception with its adapter's error table (one boundary per framework)."""
    try:
        yield
    except WorkbenchError:
        raise
    except Exception as exc:
        table = importlib.import_module(f"workbench.integrations.{adapter}").ERRORS
        raise table.translate(exc, where=f"committee role model {name!r}") from exc


def _load(module: str, package: str, extra: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependency(package, extra, f"a committee role on {module}") from exc


def _model_name(model: Any) -> str:
    if model is None:
        return "unnamed"
    return model if isinstance(model, str) else getattr(model, "model_name", type(model).__name__)


__all__ = [
    "CallableModel",
    "EndpointModel",
    "LangGraphModel",
    "OpenAIAgentsModel",
    "PydanticAIModel",
    "Reply",
    "RoleModel",
    "token_estimate",
]
