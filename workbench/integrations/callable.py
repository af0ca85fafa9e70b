"""Wrap a plain Python function (sync or async) so that ``evaluate`` can run it as an arm.

The function gets the serialized payload (plain JSON data), never engine
objects, and returns the raw answer: a ``Decision``, a dict or a JSON string.
An async function is awaited on the evaluation's loop (the ``run_sync``
bridge); a sync one runs in a worker thread so a blocking model call does not
hold up the other arms.

``postprocess(raw, payload)`` runs on whatever the function returned, live and on
replay, and its return is the decision: the transcript records the function's
return, so parsing, risk checks and sizing written in ``postprocess`` are
exercised by every replay, while code inside the function never runs on replay.

A function may return ``Answer(output, input_tokens=, output_tokens=)`` to
report what its model call spent; the tokens are recorded with the exchange and
shown on the scorecard (live and on replay).

``callable_agent(endpoint=Endpoint(base_url, model))`` needs no function: the arm
asks the endpoint in its output mode with the matching instructions, and reads
the decision from the model's text with ``decision_from_text`` (as its
``postprocess``, so a replay parses the recorded text again).

A sync function runs on a daemon thread: a call that outlives its ``timeout``
is abandoned and never keeps the interpreter from exiting.

The replay key is the payload alone. The adapter cannot see a prompt inside
your function, so pass ``info=AdapterInfo(framework="callable",
instructions_digest=digest(PROMPT))`` when you record and when you replay; a
replay built with another digest raises ``RunError`` before the market
opens.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Unpack

from workbench._jsonio import digest
from workbench._names import import_path
from workbench.agents import DecisionRequest
from workbench.errors import ConfigError
from workbench.integrations._loop import in_daemon_thread
from workbench.integrations._recorder import private_copy
from workbench.integrations._shared_payload import payload_copy
from workbench.integrations.base import (
    AdapterInfo,
    AdapterOptions,
    BaseAdapter,
    mode_of,
    replay_options,
)
from workbench.transcript import Transcript

if TYPE_CHECKING:
    from workbench.integrations.endpoints import Endpoint

Postprocess = Callable[[Any, dict[str, Any]], Any]


@dataclass(frozen=True)
class Answer:
    """A function's answer together with what its model call spent."""

    output: Any
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 1
    cached_input_tokens: int = 0  # of the input tokens, those a provider's cache served


class CallableAgentAdapter(BaseAdapter):
    """An arm answered by ``fn(payload)``; ``fn`` may be left out in replay mode."""

    framework = "callable"

    def __init__(
        self,
        fn: Callable[[dict[str, Any]], Any] | None = None,
        *,
        postprocess: Postprocess | None = None,
        **options: Unpack[AdapterOptions],
    ) -> None:
        if fn is None and mode_of(options) != "replay":
            raise ConfigError(
                f"CallableAgentAdapter in mode {mode_of(options)!r} needs fn; only a replay "
                "runs without it"
            )
        if fn is not None and not callable(fn):
            raise ConfigError(f"fn must be callable, got {type(fn).__name__}")
        if postprocess is not None and not callable(postprocess):
            raise ConfigError(f"postprocess must be callable, got {type(postprocess).__name__}")
        self.fn = fn
        self.postprocess = postprocess
        super().__init__(**options)

    def default_name(self) -> str:
        if self.fn is None:
            raise ConfigError("a replay without fn needs name= (the recorded arm's name)")
        return getattr(self.fn, "__name__", "callable")

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        assert self.fn is not None  # a replay never asks
        if _is_async(self.fn):
            return self._unpacked(await self.fn(sent))
        result = await in_daemon_thread(self.fn, sent)
        if inspect.isawaitable(result):
            result = await result
        return self._unpacked(result)

    def _unpacked(self, result: Any) -> Any:
        if not isinstance(result, Answer):
            return result
        self.note_usage(
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            model_calls=result.model_calls,
            cached_input_tokens=result.cached_input_tokens,
        )
        return result.output

    def to_decision(self, raw: Any, payload: dict[str, Any]) -> Any:
        if self.postprocess is None:
            return raw
        shared = type(payload) is dict and self.hook is None  # the evaluation's own payload
        return self.postprocess(raw, payload_copy(payload) if shared else private_copy(payload))

    def replay_spec(self) -> dict[str, Any]:
        spec = super().replay_spec()
        if self.postprocess is not None:
            spec["postprocess"] = import_path(self.postprocess, "postprocess")
        return spec

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        from workbench._trust import resolve_trusted

        postprocess = spec.get("postprocess")
        where = f"arm {spec.get('name')!r}"
        trusted = (
            resolve_trusted(postprocess, what="postprocess", where=where) if postprocess else None
        )
        return cls(postprocess=trusted, **replay_options(spec, transcript))


def callable_agent(
    fn: Callable[[dict[str, Any]], Any] | None = None,
    *,
    endpoint: Endpoint | None = None,
    output_mode: str | None = None,
    **kwargs: Any,
) -> CallableAgentAdapter:
    """``CallableAgentAdapter(fn, **kwargs)``, or an arm that asks ``endpoint`` directly."""
    if endpoint is None:
        if output_mode is not None:
            raise ConfigError("output_mode= applies to endpoint=; your function chooses its own")
        return CallableAgentAdapter(fn, **kwargs)
    if fn is not None:
        raise ConfigError("pass fn or endpoint=, not both")
    asker = endpoint_function(endpoint, output_mode)
    kwargs.setdefault("name", f"callable-{endpoint.model}")
    kwargs.setdefault(
        "info",
        AdapterInfo(
            framework="callable", model=endpoint.model, instructions_digest=digest(asker.text)
        ),
    )
    kwargs.setdefault("postprocess", decision_from_text)
    return CallableAgentAdapter(asker, **kwargs)


class EndpointFunction:
    """``fn(payload)`` asking an endpoint for one decision in one output mode."""

    def __init__(self, endpoint: Endpoint, mode: str) -> None:
        self.endpoint, self.mode = endpoint, mode
        self.text = endpoint.instructions(mode)
        self.__name__ = f"ask_{endpoint.model}"

    async def __call__(self, payload: dict[str, Any]) -> Answer:
        from workbench.integrations.endpoints import decision_messages

        reply = await self.endpoint.chat(
            decision_messages(self.text, payload), output_mode=self.mode
        )
        return Answer(
            reply.text,
            reply.input_tokens,
            reply.output_tokens,
            cached_input_tokens=reply.cached_input_tokens,
        )


def endpoint_function(endpoint: Endpoint, output_mode: str | None = None) -> EndpointFunction:
    """The function a callable arm on ``endpoint`` calls (its mode resolved now)."""
    return EndpointFunction(endpoint, endpoint.resolve_mode(output_mode))


def decision_from_text(raw: Any, payload: dict[str, Any]) -> Any:
    """The postprocess of endpoint arms: the decision inside the model's text."""
    from workbench.integrations.output_modes import decision_from_text as read

    return read(raw)


def _is_async(fn: Callable[..., Any]) -> bool:
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None)  # noqa: B004 - an object with an async __call__
    )


__all__ = ["Answer", "CallableAgentAdapter", "callable_agent", "endpoint_function"]
