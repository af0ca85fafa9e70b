"""Role models: what answers a role's prompt. Text in, text (and token counts) out.

A committee YAML names one entry per model kind under ``models:``; roles pick
one by key (``quick`` or ``deep`` in the reference committee). Backends:

- ``scripted`` (the offline default): ``ScriptedModel`` answers from rule-based
  scripts over the briefing in the prompt; no key, no network, deterministic.
- ``callable``: ``target: "package.module:function"``, a sync or async function
  from the prompt to text.
- ``pydantic_ai`` / ``openai_agents`` / ``langgraph``: ``target`` names an
  agent or compiled graph object; the thin bridges below ask it for plain text.
- ``openai_compatible``: ``base_url``, ``model`` and optionally ``api_key_env`` and
  ``max_tokens``: ``EndpointModel`` asks that chat-completions server directly.

Framework imports happen on the first call, so a replay needs none of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import inspect
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from workbench._names import resolve
from workbench.errors import ConfigError, FrameworkError, MissingDependency, WorkbenchError
from workbench.integrations._loop import in_daemon_thread

BRIEFING_MARK = "\nBRIEFING "
BACKENDS = (
    "scripted",
    "callable",
    "pydantic_ai",
    "openai_agents",
    "langgraph",
    "openai_compatible",
)


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


def read_prompt(prompt: str) -> tuple[str, dict[str, Any]]:
    """The role named on a prompt's first line and the briefing it carries."""
    header = prompt.split("\n", 1)[0]
    if not header.startswith("ROLE ") or BRIEFING_MARK not in prompt:
        raise FrameworkError(
            "the prompt has no 'ROLE …' header or no BRIEFING; build it with prompt_for"
        )
    role = header[5:].split(" | ", 1)[0]
    return role, json.loads(prompt.rsplit(BRIEFING_MARK, 1)[1])


Script = Callable[[dict[str, Any]], str]


class ScriptedModel:
    """Answers each role with ``scripts[role](briefing)``; ``delay`` stands in for latency.

    A reflection briefing (``phase: reflection``, see ``workbench.memory``) is answered
    by ``reflect(briefing)``, whichever the role."""

    def __init__(
        self,
        name: str,
        scripts: Mapping[str, Script],
        *,
        delay: float = 0.0,
        reflect: Script | None = None,
    ) -> None:
        self.name, self.scripts, self.delay = name, dict(scripts), float(delay)
        self.reflect = reflect

    async def complete(self, prompt: str) -> Reply:
        role, briefing = read_prompt(prompt)
        if self.delay:
            await asyncio.sleep(self.delay)
        reflecting = briefing.get("phase") == "reflection"
        script = self.reflect if reflecting else self.scripts.get(role)
        if script is None:
            what = "reflection script" if reflecting else "script"
            raise FrameworkError(f"scripted model {self.name!r} has no {what} for role {role!r}")
        text = script(briefing)
        return Reply(text, token_estimate(prompt), token_estimate(text))

    def __repr__(self) -> str:
        return f"ScriptedModel({self.name!r}, {len(self.scripts)} roles, delay={self.delay})"


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


class LazyModel:
    """A model built from its YAML entry on first use, so a replay never imports it."""

    def __init__(self, entry: Mapping[str, Any]) -> None:
        self.entry = dict(entry)
        self.name = str(self.entry.get("name") or self.entry["target"])
        self._model: RoleModel | None = None

    async def complete(self, prompt: str) -> Reply:
        if self._model is None:
            self._model = build_model(self.entry)
        return await self._model.complete(prompt)

    def close(self) -> None:
        """Close the connections of a model this entry built (an endpoint's)."""
        closing = getattr(self._model, "close", None)
        if callable(closing):
            closing()


def build_model(entry: Mapping[str, Any]) -> RoleModel:
    """A non-scripted model from its entry (``backend``, ``target``, ``name``, ``model``)."""
    backend, name = entry["backend"], entry.get("name")
    if backend == "openai_compatible":
        from workbench.integrations.endpoints import Endpoint

        timeout = {"timeout": entry["timeout"]} if "timeout" in entry else {}  # each request's
        endpoint = Endpoint(
            str(entry["base_url"]),
            str(entry["model"]),
            api_key_env=entry.get("api_key_env", "OPENAI_API_KEY"),
            **timeout,
        )
        return EndpointModel(endpoint, name=name, max_tokens=entry.get("max_tokens"))
    target = resolve(str(entry["target"]), named_by="the committee")
    if backend == "callable":
        return CallableModel(target, name=name)
    if backend == "pydantic_ai":
        return PydanticAIModel(target, name=name, model=entry.get("model"))
    if backend == "openai_agents":
        return OpenAIAgentsModel(target, name=name, model=entry.get("model"))
    if backend == "langgraph":
        return LangGraphModel(target, name=name)
    raise ConfigError(f"unknown model backend {backend!r}; use one of {', '.join(BACKENDS)}")


__all__ = [
    "BACKENDS",
    "CallableModel",
    "EndpointModel",
    "LangGraphModel",
    "LazyModel",
    "OpenAIAgentsModel",
    "PydanticAIModel",
    "Reply",
    "RoleModel",
    "ScriptedModel",
    "build_model",
    "read_prompt",
    "resolve",
    "token_estimate",
]
