"""OpenAI-compatible endpoints: one way to point any arm at a base URL and a model name.

``Endpoint(base_url, model)`` names a server that speaks the chat-completions API
(a local llama.cpp, vLLM or Ollama server, or a hosted provider). The key is read
from the environment variable ``api_key_env`` (``OPENAI_API_KEY`` by default); a
loopback server needs none. Every adapter takes ``endpoint=``:

- ``callable_agent(endpoint=ep)``, ``openai_agent(agent, endpoint=ep)``,
  ``PydanticAIAdapter(agent, endpoint=ep)``, ``langgraph_agent(endpoint=ep)``;
- committee roles: ``EndpointModel(ep)`` (or ``backend: openai_compatible`` in YAML).

``output_mode`` (see ``output_modes``) is chosen by you, or ``"auto"``: the first
of structured output, JSON mode, tool call the server accepts (one tiny probe per
mode, once per endpoint), else prompt-and-parse.

Every request goes through one ``httpx`` transport per event loop that waits for
the endpoint's rate limit (``max_requests_per_s``) and for a slot under its
``concurrency`` (None: no limit; a whole number: fixed; ``"adaptive"`` or an
``AdaptiveConcurrency(start, cap, cut=, debounce_s=)``: cut on 429 answers, grown
back while they stop), and retries 429, 5xx and connection errors with backoff
(``retries``, ``backoff_s``); the retries are counted per exchange and recorded
with its usage. ``timeout`` bounds each HTTP
request; the adapter's own ``timeout=`` bounds the whole decision.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import urllib.parse
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workbench._checks import count, did_you_mean, is_whole, number, seconds
from workbench.bridge import run_sync
from workbench.errors import ConfigError, EndpointUnreachable, FrameworkError
from workbench.integrations._concurrency import AdaptiveConcurrency, concurrency_of
from workbench.integrations._frameworks import TASK, render_payload
from workbench.integrations._retries import RateLimit
from workbench.integrations.base import DEFAULT_TIMEOUT
from workbench.integrations.common import require
from workbench.integrations.output_modes import (
    OUTPUT_MODES,
    TOOL_NAME,
    checked_mode,
    decision_tool,
    instructions_for,
    json_object_format,
    json_schema_format,
)

EXTRA = "endpoints"
# What a connection error after the last retry does while the endpoint has never answered:
# stop the run with one EndpointUnreachable, or count it as that decision's error and go on.
UNREACHABLE = ("stop", "count")
PROBE_ORDER: tuple[str, ...] = ("structured", "json", "tool")


@dataclass(frozen=True)
class ChatReply:
    """One chat completion: the text (a tool call's arguments in tool mode) and its cost."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    model: str = ""
    cached_input_tokens: int = 0  # usage.prompt_tokens_details.cached_tokens, where given


class Endpoint:
    """An OpenAI-compatible chat-completions server and the model to ask there."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key_env: str | None = "OPENAI_API_KEY",
        output_mode: str = "auto",
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = 3,
        backoff_s: float = 0.5,
        max_requests_per_s: float | None = None,
        concurrency: int | str | AdaptiveConcurrency | None = None,
        max_tokens: int | None = None,
        temperature: float | None = 0.0,
        seed: int | None = 0,
        on_unreachable: str = "stop",
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"base_url must start with http:// or https://, got {base_url!r}")
        if not model:
            raise ConfigError("model= must name the model the server serves")
        self.base_url, self.model = base_url.rstrip("/"), model
        self.api_key_env, self.output_mode = api_key_env, checked_mode(output_mode, allow_auto=True)
        self.timeout = seconds("Endpoint timeout", timeout)
        self.retries = count("Endpoint retries", retries)
        self.backoff_s = number("Endpoint backoff_s", backoff_s)
        self.limit = RateLimit(max_requests_per_s)
        self.concurrency = concurrency_of(concurrency)
        self.max_tokens = count("Endpoint max_tokens", max_tokens, minimum=1, optional=True)
        self.temperature = number("Endpoint temperature", temperature, optional=True)
        if seed is not None and not is_whole(seed):
            raise ConfigError(f"Endpoint seed must be a whole number, or None; got {seed!r}")
        self.seed = seed
        if on_unreachable not in UNREACHABLE:
            raise ConfigError(
                f"on_unreachable must be 'stop' or 'count'; got {on_unreachable!r}"
                + did_you_mean(str(on_unreachable), UNREACHABLE)
            )
        self.on_unreachable = on_unreachable
        self.answered = False  # has any call to this endpoint had a response (any status)?
        self.retried: list[str] = []  # every retry this endpoint made, with its reason
        self._detected: str | None = None
        self._clients: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"Endpoint({self.base_url!r}, {self.model!r}, output_mode={self.output_mode!r})"

    def __enter__(self) -> Endpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections this endpoint opened (on loops that are still running)."""
        for loop, cache in list(self._clients.items()):
            self._clients.pop(loop, None)
            if isinstance(loop, _NoLoop) or loop.is_closed():
                continue
            closing = [client for key, client in cache.items() if key.startswith("httpx-")]
            if not closing or not loop.is_running():
                continue
            here = _running_loop()
            if here is not None and here is loop:  # called from that loop: do not block it
                here.create_task(_close_all(closing))
            else:
                asyncio.run_coroutine_threadsafe(_close_all(closing), loop).result(self.timeout)

    # --- who and how -----------------------------------------------------------------
    def api_key(self) -> str:
        """The key from ``api_key_env``; a loopback server without one gets a placeholder."""
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            return key
        if _is_loopback(self.base_url) or self.api_key_env is None:
            return "not-needed"
        raise ConfigError(
            f"endpoint {self.base_url} needs an API key: set the environment variable "
            f"{self.api_key_env} (or pass api_key_env= naming the one that holds it)"
        )

    def resolve_mode(self, asked: str | None = None) -> str:
        """``asked``, else the endpoint's ``output_mode``; ``"auto"`` probes the server once."""
        mode = checked_mode(asked or self.output_mode, allow_auto=True)
        return self.detect_output_mode() if mode == "auto" else mode

    def detect_output_mode(self) -> str:
        """The strongest output mode the server accepts (probed once, then remembered)."""
        if self._detected is None:
            self._detected = run_sync(self._probe(), timeout=self.timeout * len(PROBE_ORDER))
        return self._detected

    def sampling(self) -> dict[str, Any]:
        """``max_tokens``, ``temperature`` and ``seed``, those that are set."""
        chosen = {"max_tokens": self.max_tokens, "temperature": self.temperature, "seed": self.seed}
        return {key: value for key, value in chosen.items() if value is not None}

    def instructions(self, mode: str, task: str = TASK) -> str:
        return instructions_for(mode, task)

    # --- the plain chat call (callable arms, LangGraph nodes, committee roles) -----------
    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        output_mode: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatReply:
        """One chat completion; ``output_mode=None`` asks for plain text."""
        body = self._body(messages, output_mode, max_tokens)
        response = await self._client("retrying").post("/chat/completions", json=body)
        if response.status_code >= 400:
            raise FrameworkError(
                f"endpoint {self.base_url} answered HTTP {response.status_code} for model "
                f"{self.model!r}: {response.text[:300]}"
            )
        return _reply(response.json(), output_mode, self.model)

    def _body(
        self, messages: list[dict[str, Any]], mode: str | None, max_tokens: int | None
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": messages, **self.sampling()}
        if max_tokens is not None:
            body["max_tokens"] = count("max_tokens", max_tokens, minimum=1)
        return {**body, **request_options(mode)}

    # --- framework clients, one per event loop ------------------------------------------
    def openai_client(self) -> Any:
        """An ``openai.AsyncOpenAI`` for this loop, retrying through the workbench's transport."""
        openai = require("openai", extra="openai-agents", purpose="an OpenAI-compatible endpoint")
        return self._per_loop(
            "openai",
            lambda: openai.AsyncOpenAI(
                base_url=self.base_url,
                api_key=self.api_key(),
                max_retries=0,
                timeout=self.timeout,
                http_client=self._client("retrying", bare=True),
            ),
        )

    def openai_agents_model(self) -> Any:
        """An OpenAI Agents SDK chat-completions model on this endpoint (for this loop)."""
        sdk = require("agents", extra="openai-agents", purpose="Endpoint.openai_agents_model")
        return self._per_loop(
            "agents",
            lambda: sdk.OpenAIChatCompletionsModel(
                model=self.model, openai_client=self.openai_client()
            ),
        )

    def pydantic_ai_model(self) -> Any:
        """A PydanticAI ``OpenAIChatModel`` on this endpoint (for this loop)."""
        models = require(
            "pydantic_ai.models.openai", extra="pydantic-ai", purpose="Endpoint.pydantic_ai_model"
        )
        providers = require(
            "pydantic_ai.providers.openai",
            extra="pydantic-ai",
            purpose="Endpoint.pydantic_ai_model",
        )
        return self._per_loop(
            "pydantic_ai",
            lambda: models.OpenAIChatModel(
                self.model,
                provider=providers.OpenAIProvider(openai_client=self.openai_client()),
                settings=dict(self.sampling()),
            ),
        )

    def _client(self, kind: str, *, bare: bool = False) -> Any:
        httpx = require("httpx", extra=EXTRA, purpose="an OpenAI-compatible endpoint")
        from workbench.integrations._http import RetryingTransport

        def build() -> Any:
            transport = RetryingTransport(
                httpx.AsyncHTTPTransport(),
                retries=self.retries if kind == "retrying" else 0,
                backoff_s=self.backoff_s,
                limit=self.limit,
                counter=self.retried,
                concurrency=self.concurrency,
                unreachable=self._unreachable,
                answered=self._answered,
            )
            headers = {} if bare else {"Authorization": f"Bearer {self.api_key()}"}
            base = {} if bare else {"base_url": self.base_url}
            return httpx.AsyncClient(
                transport=transport, timeout=self.timeout, headers=headers, **base
            )

        return self._per_loop(f"httpx-{kind}-{bare}", build)

    def _answered(self) -> None:
        self.answered = True

    def _unreachable(self, exc: Exception) -> Exception:
        """What a connection error after the last retry becomes: a stop while this
        endpoint has never answered (unless ``on_unreachable="count"``), else itself."""
        if self.answered or self.on_unreachable == "count":
            return exc
        return EndpointUnreachable(
            f"no server answered at {self.base_url} (model {self.model!r}) after "
            f"{self.retries} retries: {type(exc).__name__}: {exc}. Start the server, or check "
            "the URL and port; to count such failures as errors and go on instead (a long "
            'unattended run), pass Endpoint(..., on_unreachable="count")'
        )

    def _per_loop(self, key: str, build: Callable[[], Any]) -> Any:
        loop: Any = _running_loop() or _NO_LOOP
        cache = self._clients.setdefault(loop, {})
        if key not in cache:
            cache[key] = build()
        return cache[key]

    # --- probing ---------------------------------------------------------------------
    async def _probe(self) -> str:
        client = self._client("probe")
        messages = [{"role": "user", "content": 'Reply with {"actions": [], "rationale": ""}'}]
        for mode in PROBE_ORDER:
            body = {**self._body(messages, mode, 1), "max_tokens": 1}
            try:
                response = await client.post("/chat/completions", json=body)
            except EndpointUnreachable:
                raise  # no server at all: the one clear error, the run's results kept
            except Exception as exc:
                raise FrameworkError(
                    f"endpoint {self.base_url} cannot be reached to detect its output mode: "
                    f"{type(exc).__name__}: {exc}. Start the server, or pass "
                    "output_mode='json' (or 'json_schema', 'tools', 'text') so none is probed"
                ) from exc
            if response.status_code < 400:
                return mode
        return "text"


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


async def _close_all(clients: list[Any]) -> None:
    for client in clients:
        await client.aclose()


class _NoLoop:
    """The key of clients made outside any event loop (weak-referenceable)."""


_NO_LOOP = _NoLoop()


def request_options(mode: str | None) -> dict[str, Any]:
    """The chat-completions request fields that ask for ``mode`` (``None``: plain text)."""
    if mode is None or mode == "text":
        return {}
    if mode == "structured":
        return {"response_format": json_schema_format()}
    if mode == "json":
        return {"response_format": json_object_format()}
    if mode == "tool":
        return {
            "tools": [decision_tool()],
            "tool_choice": {"type": "function", "function": {"name": TOOL_NAME}},
        }
    raise ConfigError(f"output_mode must be one of {', '.join(OUTPUT_MODES)}; got {mode!r}")


def _reply(data: Any, mode: str | None, asked: str) -> ChatReply:
    try:
        message = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError) as exc:
        raise FrameworkError(f"the endpoint's answer has no choices[0].message: {data!r}") from exc
    text = message.get("content") or ""
    calls = message.get("tool_calls") or []
    if mode == "tool" and calls:
        text = calls[0].get("function", {}).get("arguments") or ""
    usage = data.get("usage") or {}
    details = usage.get("prompt_tokens_details") or {}
    return ChatReply(
        text=str(text),
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        model=str(data.get("model") or asked),
        cached_input_tokens=int(details.get("cached_tokens") or 0),
    )


def _is_loopback(url: str) -> bool:
    host = urllib.parse.urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def decision_messages(instructions: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The chat messages of one decision: the instructions, then the rendered observation."""
    return [
        {"role": "system", "content": instructions},
        {"role": "user", "content": render_payload(payload)},
    ]


__all__ = [
    "PROBE_ORDER",
    "AdaptiveConcurrency",
    "ChatReply",
    "Endpoint",
    "decision_messages",
    "request_options",
]
