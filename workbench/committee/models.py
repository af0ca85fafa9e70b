"""Role models: what answers a role's prompt. Text in, text (and token counts) out.

A committee YAML names one entry per model kind under ``models:``; roles pick
one by key (``quick`` or ``deep`` in the reference committee). Backends:

- ``scripted`` (the offline default): ``ScriptedModel`` answers from rule-based
  scripts over the briefing in the prompt; no key, no network, deterministic.
- ``callable``: ``target: "package.module:function"``, a sync or async function
  from the prompt to text.
- ``pydantic_ai`` / ``openai_agents`` / ``langgraph``: ``target`` names an
  agent or compiled graph object; the thin bridges in
  ``workbench.integrations.text_models`` ask it for plain text.
- ``openai_compatible``: ``base_url``, ``model`` and optionally ``api_key_env`` and
  ``max_tokens``: ``EndpointModel`` asks that chat-completions server directly.

Framework imports happen on the first call, so a replay needs none of them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any

from workbench._names import resolve
from workbench.errors import ConfigError, FrameworkError
from workbench.integrations.text_models import (
    CallableModel,
    EndpointModel,
    LangGraphModel,
    OpenAIAgentsModel,
    PydanticAIModel,
    Reply,
    RoleModel,
    token_estimate,
)

BRIEFING_MARK = "\nBRIEFING "
BACKENDS = (
    "scripted",
    "callable",
    "pydantic_ai",
    "openai_agents",
    "langgraph",
    "openai_compatible",
)


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
    "token_estimate",
]
