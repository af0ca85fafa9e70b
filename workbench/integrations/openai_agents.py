"""OpenAI Agents SDK adapter: your ``agents.Agent`` as an evaluation arm.

``OpenAIAgentsAdapter(agent, ...)`` runs the agent with ``Runner.run`` on a copy
made by ``agent.clone(output_type=...)`` that carries the decision schema, so
the agent's instructions, tools, model settings, hooks, handoffs and guardrails
all carry over and the agent itself is left unchanged. The keyed input is
``input_items(payload)``: the brief, then the rendered observation.

- The SDK is imported only inside ``ask``: a replay needs neither the package
  nor its import time.
- ``max_turns=6`` caps one decision at six model calls (the SDK's default of ten
  suits interactive use, not a loop that runs at every step of every arm).
- Tracing is off per run (``RunConfig(tracing_disabled=True)``) unless
  ``tracing=True``; the SDK's process-wide switch is left alone.
- The model's answer text is kept for the transcript and validated by the
  workbench's ``parse_decision``, the same as every other arm.
- Seven SDK exceptions are the agent's own outcome and become ``DecisionError``:
  ``ModelBehaviorError``, ``ModelRefusalError``, ``MaxTurnsExceeded`` and the four
  guardrail tripwires. A tripped guardrail is not turned into a hold. Anything
  else is a ``FrameworkError`` with the original exception chained.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from workbench.agents import DecisionRequest, Every
from workbench.errors import ConfigError, DecisionError, ValidationError
from workbench.integrations._frameworks import (
    TASK,
    ErrorTable,
    at_least_one,
    installed_version,
    payload_from_text,
    plain_output,
    render_payload,
)
from workbench.integrations.base import AdapterInfo, BaseAdapter, Mode
from workbench.integrations.common import require
from workbench.transcript import Transcript, digest

DISTRIBUTION = "openai-agents"
EXTRA = "openai-agents"
BRIEF = TASK + " Reply with the decision object only."

ERRORS = ErrorTable(
    framework="openai-agents",
    module="agents.exceptions",
    categories={
        "AgentsException": "framework",
        "InputGuardrailTripwireTriggered": "decision",
        "MCPToolCancellationError": "framework",
        "MaxTurnsExceeded": "decision",
        "ModelBehaviorError": "decision",
        "ModelRefusalError": "decision",
        "ModelTimeoutError": "framework",
        "OutputGuardrailTripwireTriggered": "decision",
        "ToolInputGuardrailTripwireTriggered": "decision",
        "ToolOutputGuardrailTripwireTriggered": "decision",
        "ToolTimeoutError": "framework",
        "UserError": "framework",
        "_RedactedExceptionCancellationError": "framework",
    },
)


def input_items(payload: Mapping[str, Any], brief: str = BRIEF) -> list[dict[str, str]]:
    """The exact input a decision sends: the brief, then the rendered observation."""
    return [
        {"role": "user", "content": brief},
        {"role": "user", "content": render_payload(payload)},
    ]


def payload_of(call: Any) -> dict[str, Any]:
    """The observation payload inside a model call (a ``ModelCall``, input items or text)."""
    sent = getattr(call, "input", call)
    if isinstance(sent, str):
        return payload_from_text(sent)
    for item in reversed(list(sent or [])):
        text = _text_of(item)
        if text is not None and "\n" in text:
            try:
                return payload_from_text(text)
            except ValueError:
                continue
    raise ValueError("the model call carries no rendered observation")


def _text_of(item: Any) -> str | None:
    content = item.get("content") if isinstance(item, Mapping) else getattr(item, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        parts = [part.get("text") for part in content if isinstance(part, Mapping)]
        return "".join(part for part in parts if isinstance(part, str)) or None
    return None


def instructions_of(agent: Any) -> str:
    """What the agent's instructions say, as text (a function is named, not called)."""
    instructions = getattr(agent, "instructions", None)
    if instructions is None or isinstance(instructions, str):
        return instructions or ""
    module = getattr(instructions, "__module__", "?")
    return f"<instructions from {module}.{getattr(instructions, '__qualname__', instructions)}>"


class OpenAIAgentsAdapter(BaseAdapter):
    """An ``agents.Agent`` as an arm; ``mode="replay"`` by default (``openai_agent`` is live)."""

    framework = "openai-agents"

    def __init__(
        self,
        agent: Any = None,
        *,
        mode: Mode | str = "replay",
        transcript: Transcript | str | os.PathLike[str] | None = None,
        recorder: Transcript | str | os.PathLike[str] | None = None,
        model: Any = None,
        brief: str = BRIEF,
        max_turns: int = 6,
        tracing: bool = False,
        run_id: str | None = None,
        bind_output_type: bool = True,
        context: Any = None,
        name: str | None = None,
        info: AdapterInfo | None = None,
        every: Every = "day",
        prior: Transcript | str | os.PathLike[str] | None = None,
        timeout: float | None = None,
        max_calls: int | None = None,
    ) -> None:
        _check_agent(agent, mode, bind_output_type)
        self.agent, self.model, self.brief = agent, model, brief
        self.max_turns = at_least_one(max_turns, "max_turns")
        self.tracing, self.run_id, self.context = tracing, run_id, context
        self.bind_output_type = bind_output_type
        self._bound: Any = None
        super().__init__(
            name=name or _name_of(agent),
            info=info or self._info(agent, model),
            every=every,
            mode=mode,
            transcript=transcript,
            recorder=recorder,
            prior=prior,
            timeout=timeout,
            max_calls=max_calls,
        )

    # --- what a decision sends and what changes it ----------------------------------
    def input_items(self, payload: Mapping[str, Any]) -> list[dict[str, str]]:
        return input_items(payload, self.brief)

    def input_for(self, payload: dict[str, Any]) -> Any:
        return self.input_items(payload)

    def state(self) -> dict[str, Any]:
        return {
            "max_turns": self.max_turns,
            "brief_digest": digest(self.brief),
            "bind_output_type": self.bind_output_type,
        }

    # --- the call --------------------------------------------------------------------
    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        sdk = require("agents", extra=EXTRA, purpose="OpenAIAgentsAdapter", package=DISTRIBUTION)
        bound = self._bound_agent()
        result = await sdk.Runner.run(
            bound,
            sent,
            context=self.context,
            max_turns=self.max_turns,
            run_config=self._run_config(sdk, request),
        )
        usage = result.context_wrapper.usage
        self.note_usage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            model_calls=usage.requests,
        )
        if result.last_agent is not bound:
            raise DecisionError(
                f"arm {self.name!r}: the run ended on agent {result.last_agent.name!r} through a "
                "handoff, and that agent answers with an output type of its own, not the "
                "decision. Let the handoff return to a decision-making agent, or make the "
                "agent that decides the one you pass to the adapter."
            )
        return plain_output(result.final_output)

    def map_error(self, exc: Exception) -> ValidationError:
        return ERRORS.translate(exc, where=f"arm {self.name!r}")

    def _bound_agent(self) -> Any:
        if self.agent is None:
            raise ConfigError(
                f"arm {self.name!r} was built without an agent, so it can only replay; pass "
                "the agents.Agent to call the model"
            )
        if self._bound is None:
            if self.bind_output_type:
                from workbench.integrations._agents_sdk import RawDecisionOutput

                self._bound = self.agent.clone(output_type=RawDecisionOutput())
            else:
                self._bound = self.agent
        return self._bound

    def _run_config(self, sdk: Any, request: DecisionRequest) -> Any:
        group = self.run_id or (f"{self.run.arm}-seed{self.run.seed}" if self.run else None)
        return sdk.RunConfig(
            model=self.model,
            tracing_disabled=not self.tracing,
            workflow_name=f"workbench arm {self.name}",
            group_id=group,
            trace_metadata={
                "workbench_arm": self.name,
                "workbench_day": str(request.day),
                "workbench_step": str(request.step),
            },
        )

    # --- building and replaying ------------------------------------------------------
    def _info(self, agent: Any, model: Any) -> AdapterInfo:
        chosen = model if model is not None else getattr(agent, "model", None)
        return AdapterInfo(
            framework=self.framework,
            model=chosen if isinstance(chosen, str) or chosen is None else type(chosen).__name__,
            instructions_digest=None if agent is None else digest(instructions_of(agent)),
            version=installed_version(DISTRIBUTION),
        )

    def replay_spec(self) -> dict[str, Any]:
        spec = super().replay_spec()
        spec.update(
            brief=self.brief, max_turns=self.max_turns, bind_output_type=self.bind_output_type
        )
        return spec


def openai_agent(agent: Any, **kwargs: Any) -> OpenAIAgentsAdapter:
    """An ``OpenAIAgentsAdapter`` that calls the model (``mode="live"`` unless given)."""
    kwargs.setdefault("mode", "live")
    return OpenAIAgentsAdapter(agent, **kwargs)


def _check_agent(agent: Any, mode: str, bind_output_type: bool) -> None:
    if agent is None:
        if mode != "replay":
            raise ConfigError(f"mode={mode!r} calls the model, so it needs the agents.Agent")
        return
    require("agents", extra=EXTRA, purpose="OpenAIAgentsAdapter", package=DISTRIBUTION)
    if not callable(getattr(agent, "clone", None)):
        raise ConfigError(
            f"OpenAIAgentsAdapter needs an agents.Agent, got {type(agent).__name__}; wrap a "
            "plain function with callable_agent instead"
        )
    declared = getattr(agent, "output_type", None)
    if bind_output_type and declared is not None:
        raise ConfigError(
            f"agent {getattr(agent, 'name', '?')!r} declares its own output_type "
            f"({getattr(declared, '__name__', declared)!r}), and the adapter binds the decision "
            "schema itself. Drop output_type from the agent, or pass bind_output_type=False to "
            "keep yours: its final output is then read as JSON and validated by the workbench."
        )


def _name_of(agent: Any) -> str:
    name = getattr(agent, "name", None)
    if not isinstance(name, str) or not name:
        raise ConfigError("name= is required when the agent has no name (e.g. a replay)")
    return name


__all__ = [
    "BRIEF",
    "DISTRIBUTION",
    "ERRORS",
    "EXTRA",
    "OpenAIAgentsAdapter",
    "input_items",
    "instructions_of",
    "openai_agent",
    "payload_of",
]
