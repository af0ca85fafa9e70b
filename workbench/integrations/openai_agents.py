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
- ``endpoint=Endpoint(base_url, model)`` runs the agent on that OpenAI-compatible
  server (a chat-completions model per event loop, retrying through the
  workbench's transport). ``output_mode`` picks how the decision is asked for:
  ``"structured"`` (the default without an endpoint) binds the decision schema as
  the output type, which the SDK sends as ``response_format`` ``json_schema``;
  ``"json"`` binds no output type and sends ``json_object`` with the decision
  schema through ``ModelSettings(extra_body=...)`` (what llama.cpp servers
  accept); ``"tool"`` adds a ``submit_decision`` tool whose arguments end the
  run; ``"text"`` puts the schema in the brief and reads the first JSON object
  of the answer. With an endpoint the mode defaults to the endpoint's (``"auto"``
  probes the server). The brief's last sentence matches the mode.
- The model's answer text is kept for the transcript and validated by the
  workbench's ``parse_decision``, the same as every other arm.
- Seven SDK exceptions are the agent's own outcome and become ``DecisionError``:
  ``ModelBehaviorError``, ``ModelRefusalError``, ``MaxTurnsExceeded`` and the four
  guardrail tripwires. A tripped guardrail is not turned into a hold. Anything
  else is a ``FrameworkError`` with the original exception chained.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from workbench._jsonio import digest
from workbench.agents import DecisionRequest
from workbench.errors import ConfigError, DecisionError, RunError
from workbench.integrations._frameworks import (
    TASK,
    ErrorTable,
    at_least_one,
    installed_version,
    payload_from_text,
    plain_output,
    render_payload,
)
from workbench.integrations.base import AdapterInfo, AdapterOptions, BaseAdapter, mode_of
from workbench.integrations.common import require
from workbench.integrations.output_modes import (
    TOOL_NAME,
    adapter_output_mode,
    decision_from_text,
    instructions_for,
    json_object_format,
)
from workbench.schema import decision_json_schema

if TYPE_CHECKING:
    from workbench.integrations.endpoints import Endpoint

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
    """An ``agents.Agent`` as an arm (``mode="live"`` by default, as for every adapter)."""

    framework = "openai-agents"

    def __init__(
        self,
        agent: Any = None,
        *,
        model: Any = None,
        endpoint: Endpoint | None = None,
        output_mode: str | None = None,
        brief: str | None = None,
        max_turns: int = 6,
        tracing: bool = False,
        run_id: str | None = None,
        bind_output_type: bool = True,
        context: Any = None,
        **options: Unpack[AdapterOptions],
    ) -> None:
        mode = mode_of(options)
        _check_agent(agent, mode, bind_output_type)
        if model is not None and endpoint is not None:
            raise ConfigError("pass model= or endpoint=, not both: the endpoint makes the model")
        self.agent, self.model, self.endpoint = agent, model, endpoint
        self.output_mode = adapter_output_mode(
            output_mode, endpoint, mode, default="structured", bound=bind_output_type
        )
        self.brief = brief if brief is not None else mode_brief(self.output_mode)
        self.max_turns = at_least_one(max_turns, "max_turns")
        self.tracing, self.run_id, self.context = tracing, run_id, context
        self.bind_output_type = bind_output_type
        self._bound: Any = None
        super().__init__(**options)

    def default_name(self) -> str:
        return _name_of(self.agent)

    # --- what a decision sends and what changes it ----------------------------------
    def input_items(self, payload: Mapping[str, Any]) -> list[dict[str, str]]:
        return input_items(payload, self.brief)

    def input_for(self, payload: dict[str, Any]) -> Any:
        return self.input_items(payload)

    def state(self) -> dict[str, Any]:
        state = {
            "max_turns": self.max_turns,
            "brief_digest": digest(self.brief),
            "bind_output_type": self.bind_output_type,
        }
        if self.output_mode != "structured":  # recordings made before modes stay valid
            state["output_mode"] = self.output_mode
        return state

    def to_decision(self, raw: Any, payload: dict[str, Any]) -> Any:
        return raw if self.output_mode == "structured" else decision_from_text(raw)

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

    def map_error(self, exc: Exception) -> RunError:
        return ERRORS.translate(exc, where=f"arm {self.name!r}")

    def _bound_agent(self) -> Any:
        if self.agent is None:
            raise ConfigError(
                f"arm {self.name!r} was built without an agent, so it can only replay; pass "
                "the agents.Agent to call the model"
            )
        if self._bound is None:
            self._bound = self._agent_for_mode() if self.bind_output_type else self.agent
        return self._bound

    def _agent_for_mode(self) -> Any:
        from workbench.integrations import _agents_sdk as sdk_parts

        assert self.agent is not None
        changes = self._settings_for_mode()
        settings = {"model_settings": sdk_parts.with_settings(self.agent, **changes)}
        if self.output_mode == "structured":
            changed = settings if changes else {}
            return self.agent.clone(output_type=sdk_parts.RawDecisionOutput(), **changed)
        if self.output_mode == "tool":
            submit = sdk_parts.decision_tool(TOOL_NAME, decision_json_schema())
            return self.agent.clone(
                tools=[*self.agent.tools, submit],
                tool_use_behavior={"stop_at_tool_names": [TOOL_NAME]},
                **settings,
            )
        return self.agent.clone(**settings)

    def _settings_for_mode(self) -> dict[str, Any]:
        """Model-settings changes: the endpoint's sampling, and what the mode asks for."""
        changes = dict(self.endpoint.sampling()) if self.endpoint is not None else {}
        own = getattr(self.agent, "model_settings", None)
        extra_body = dict(getattr(own, "extra_body", None) or {})
        if "seed" in changes:
            extra_body["seed"] = changes.pop("seed")
        if self.output_mode == "json":
            extra_body["response_format"] = json_object_format()
        if self.output_mode == "tool":
            changes["tool_choice"] = TOOL_NAME
        return {**changes, **({"extra_body": extra_body} if extra_body else {})}

    def _run_config(self, sdk: Any, request: DecisionRequest) -> Any:
        group = self.run_id or (f"{self.run.arm}-seed{self.run.seed}" if self.run else None)
        model = self.model if self.endpoint is None else self.endpoint.openai_agents_model()
        return sdk.RunConfig(
            model=model,
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
    def default_info(self) -> AdapterInfo:
        model = self.model if self.endpoint is None else self.endpoint.model
        chosen = model if model is not None else getattr(self.agent, "model", None)
        return AdapterInfo(
            framework=self.framework,
            model=_model_name(chosen),
            instructions_digest=None if self.agent is None else digest(instructions_of(self.agent)),
            version=installed_version(DISTRIBUTION),
        )

    def replay_spec(self) -> dict[str, Any]:
        spec = super().replay_spec()
        spec.update(
            brief=self.brief, max_turns=self.max_turns, bind_output_type=self.bind_output_type
        )
        if self.output_mode != "structured":
            spec["output_mode"] = self.output_mode
        return spec


def mode_brief(mode: str) -> str:
    """The default brief for ``mode``: the task, then how to answer in that mode."""
    return BRIEF if mode == "structured" else instructions_for(mode, TASK)


def _model_name(chosen: Any) -> str | None:
    """The concrete model name: a string, a model object's ``model``, else its class."""
    if chosen is None or isinstance(chosen, str):
        return chosen
    named = getattr(chosen, "model", None)
    return named if isinstance(named, str) else type(chosen).__name__


class OpenAIAgentsOptions(AdapterOptions, total=False):
    """``OpenAIAgentsAdapter``'s own keywords beside the adapter keywords."""

    model: Any
    endpoint: Endpoint | None
    output_mode: str | None
    brief: str | None
    max_turns: int
    tracing: bool
    run_id: str | None
    bind_output_type: bool
    context: Any


def openai_agent(agent: Any, **options: Unpack[OpenAIAgentsOptions]) -> OpenAIAgentsAdapter:
    """``OpenAIAgentsAdapter(agent, **options)``: the convenience constructor."""
    return OpenAIAgentsAdapter(agent, **options)


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
