"""PydanticAI adapter: your ``pydantic_ai.Agent`` as an evaluation arm.

The adapter does not modify the agent. ``deps`` reaches ``run(deps=...)``
unchanged (the adapter puts nothing in PydanticAI's one dependency slot), and
the agent's tools, toolsets, instructions and own output type keep working.
The keyed input is the user prompt ``render(payload)``; the adapter's
instructions (``MANDATE`` by default) are added per run and digested into
``meta["instructions_digest"]`` together with the agent's own static ones.

- The decision schema is bound as the run's output type (that run only), as an
  output tool whose arguments are the plain JSON the model sent. The workbench's
  ``parse_decision`` checks them inside PydanticAI's retry loop, so the model is
  corrected with our message and what is accepted is exactly what every other
  arm's answer must pass. An agent with an ``@agent.output_validator`` cannot take
  a per-run output type: pass ``bind_output_type=False`` to keep its own.
- ``endpoint=Endpoint(base_url, model)`` runs the agent on that OpenAI-compatible
  server (an ``OpenAIChatModel`` per event loop, retrying through the workbench's
  transport). ``output_mode``: ``"tool"`` (the default without an endpoint) is the
  output tool above; ``"structured"`` is PydanticAI's native output (``json_schema``);
  ``"json"`` asks for text under ``response_format`` ``json_object`` with the
  decision schema (sent as ``extra_body``); ``"text"`` puts the schema in the
  instructions. In the last two the first JSON object of the answer is checked by
  ``parse_decision`` inside the retry loop. The default instructions end with the
  sentence that matches the mode (no output tool is mentioned where there is none).
- A failed run records the model's last answer (its text, or its tool arguments)
  in the transcript, and the error names the last correction the model was sent.
- ``UnexpectedModelBehavior`` (retries used up without a valid decision) is a
  ``DecisionError``; ``request_limit`` (8) is enforced with ``UsageLimits`` and a
  run that hits it raises ``UsageLimitReached``, a ``FrameworkError`` you can
  catch by name. Everything else is a ``FrameworkError`` with the chain intact.
- Pass an offline model with ``model=``, not ``Agent.override``: override lives in
  context variables, which do not cross the async bridge. PydanticAI records no
  traces by default and the adapter turns nothing on (use ``Agent.instrument_all()``
  or logfire to opt in).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Unpack

from workbench._jsonio import digest
from workbench.agents import DecisionRequest
from workbench.errors import ConfigError, DecisionError, RunError, UsageLimitReached
from workbench.integrations._frameworks import (
    TASK,
    ErrorTable,
    at_least_one,
    installed_version,
    plain_output,
    render_payload,
)
from workbench.integrations.base import AdapterInfo, AdapterOptions, BaseAdapter, mode_of
from workbench.integrations.common import require
from workbench.integrations.output_modes import (
    adapter_output_mode,
    decision_from_text,
    instructions_for,
    json_object_format,
)
from workbench.schema import Decision, parse_decision

if TYPE_CHECKING:
    from workbench.integrations.endpoints import Endpoint

DISTRIBUTION = "pydantic-ai-slim"
EXTRA = "pydantic-ai"
MANDATE_VERSION = "1"
MANDATE = TASK + " Submit the decision with the output tool."
OUTPUT_TOOL = "final_result"

_AGENT_OUTCOMES = (
    "UnexpectedModelBehavior",
    "ContentFilterError",
    "OutputTokenLimitExceeded",
    "IncompleteToolCall",
    # a response the model sent that holds nothing usable (UnexpectedModelBehavior's too)
    "_ModelResponseError",
    "ModelEmptyResponseError",
    "ModelInvalidResponseError",
)
_FRAMEWORK_FAILURES = (
    "AgentRunError", "ApprovalRequired", "CallDeferred", "ConcurrencyLimitExceeded",
    "CostCalculationFailedWarning", "CostNotFoundWarning", "DeprecatedModelWarning",
    "EnumDocstringsUnavailableWarning", "FallbackExceptionGroup",
    "MessageHistoryMutatedWarning", "ModelAPIError", "ModelAuthenticationError",
    "ModelConnectionError", "ModelContextWindowExceededError", "ModelFeatureUnsupportedError",
    "ModelHTTPError", "ModelSchemaTooComplexError", "PartialRubricWarning",
    "ModelNotFoundError", "ModelOverloadedError", "ModelQuotaExceededError",
    "ModelRateLimitError", "ModelRequestRejectedError", "ModelRequestTimeout", "ModelRetry",
    "ModelServerError", "ModelTimeoutError", "ModelUnavailableError",
    "PydanticAIDeprecationWarning", "RetryModelRequest", "RunCancelled", "RunTimedOut",
    "SkipModelRequest", "SkipToolExecution", "SkipToolValidation", "SuspendedResponseExpired",
    "ToolFailed", "ToolFailedError", "ToolRetryError", "UndrainedPendingMessagesError",
    "UnsupportedSettingWarning", "UsageExtractionFailedWarning", "UsageLimitUnavailableWarning",
    "UserError", "_CategorizedHTTPError", "_HTTPModelAuthenticationError",
    "_HTTPModelContextWindowExceededError", "_HTTPModelNotFoundError",
    "_HTTPModelOverloadedError", "_HTTPModelQuotaExceededError", "_HTTPModelRateLimitError",
    "_HTTPModelRequestRejectedError", "_HTTPModelServerError", "_HTTPModelUnavailableError",
    "_HTTPModelSchemaTooComplexError", "_HTTPModelTimeoutError", "_TokenCountingUnavailableError",
)  # fmt: skip
ERRORS = ErrorTable(
    framework="pydantic-ai",
    module="pydantic_ai.exceptions",
    categories={
        **dict.fromkeys(_AGENT_OUTCOMES, "decision"),
        "UsageLimitExceeded": "budget",
        **dict.fromkeys(_FRAMEWORK_FAILURES, "framework"),
    },
)


def render(payload: Mapping[str, Any]) -> str:
    """The user prompt for one decision: the rendered observation."""
    return render_payload(payload)


def instructions_of(agent: Any) -> list[str]:
    """The agent's own static instructions and system prompts (functions named, not called)."""
    found: list[str] = []
    for item in getattr(agent, "_instructions", None) or []:
        found.append(_text(getattr(item, "instruction", item)))
    for prompt in getattr(agent, "_system_prompts", None) or ():
        found.append(_text(prompt))
    for runner in getattr(agent, "_system_prompt_functions", None) or []:
        found.append(_text(getattr(runner, "function", runner)))
    return found


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    return f"<{getattr(value, '__module__', '?')}.{getattr(value, '__qualname__', value)}>"


class PydanticAIAdapter(BaseAdapter):
    """A ``pydantic_ai.Agent`` as an arm (``mode="live"`` by default)."""

    framework = "pydantic-ai"

    def __init__(
        self,
        agent: Any = None,
        *,
        deps: Any = None,
        model: Any = None,
        endpoint: Endpoint | None = None,
        output_mode: str | None = None,
        instructions: str | None = None,
        bind_output_type: bool = True,
        request_limit: int = 8,
        **options: Unpack[AdapterOptions],
    ) -> None:
        mode = mode_of(options)
        _check_agent(agent, mode, bind_output_type)
        if model is not None and endpoint is not None:
            raise ConfigError("pass model= or endpoint=, not both: the endpoint makes the model")
        self.agent, self.deps, self.model, self.endpoint = agent, deps, model, endpoint
        self.output_mode = adapter_output_mode(
            output_mode, endpoint, mode, default="tool", bound=bind_output_type
        )
        self.bind_output_type = bind_output_type
        if instructions is None:
            instructions = mandate(self.output_mode if bind_output_type else None)
        self.instructions = instructions
        self.request_limit = at_least_one(request_limit, "request_limit")
        super().__init__(**options)

    def default_name(self) -> str:
        return _name_of(self.agent)

    def input_for(self, payload: dict[str, Any]) -> Any:
        return render(payload)

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "request_limit": self.request_limit,
            "bind_output_type": self.bind_output_type,
        }
        if self.output_mode != "tool":  # recordings made before modes stay valid
            state["output_mode"] = self.output_mode
        return state

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        if self.agent is None:
            raise ConfigError(
                f"arm {self.name!r} was built without an agent, so it can only replay"
            )
        pai = require("pydantic_ai", extra=EXTRA, purpose="PydanticAIAdapter", package=DISTRIBUTION)
        options: dict[str, Any] = {
            "deps": self.deps,
            "model": self.model if self.endpoint is None else self.endpoint.pydantic_ai_model(),
            "instructions": self.instructions,
            "usage_limits": pai.UsageLimits(request_limit=self.request_limit),
        }
        if self.bind_output_type:
            options.update(mode_options(self.output_mode))
        with pai.capture_run_messages() as messages:
            try:
                result = await self.agent.run(sent, **options)
            except Exception as exc:
                self._note_responses(messages)  # a failed run still spent its calls
                self._note_last_answer(messages)
                if isinstance(exc, pai.UnexpectedModelBehavior):
                    raise self._explained(exc, messages) from exc
                raise
        self._note(result)
        return plain_output(result.output)

    def map_error(self, exc: Exception) -> RunError:
        return ERRORS.translate(exc, where=f"arm {self.name!r}")

    def _explained(self, exc: Exception, messages: list[Any]) -> RunError:
        """The mapped error plus the last correction the model was asked for."""
        error = self.map_error(exc)
        asked = [
            str(part.content)
            for message in messages
            for part in getattr(message, "parts", ())
            if getattr(part, "part_kind", "") in CORRECTION_PARTS
            and getattr(part, "outcome", "retried") != "success"
        ]
        return type(error)(f"{error}; last correction: {asked[-1]}") if asked else error

    def _note_last_answer(self, messages: list[Any]) -> None:
        """Keep the model's last words (text, or tool arguments) for the transcript."""
        responses = [m for m in messages if getattr(m, "kind", "") == "response"]
        if responses:
            said = [_said(part) for part in getattr(responses[-1], "parts", ())]
            self.note_answer("\n".join(text for text in said if text))

    def _note_responses(self, messages: list[Any]) -> None:
        responses = [m for m in messages if getattr(m, "kind", "") == "response"]
        usages = [getattr(m, "usage", None) for m in responses]
        self.note_usage(
            input_tokens=sum(getattr(u, "input_tokens", 0) or 0 for u in usages),
            output_tokens=sum(getattr(u, "output_tokens", 0) or 0 for u in usages),
            model_calls=len(responses),
        )

    def _note(self, result: Any) -> None:
        usage = result.usage
        if not hasattr(usage, "requests"):  # releases where usage is a method
            usage = usage()
        self.note_usage(
            input_tokens=usage.input_tokens or 0,
            output_tokens=usage.output_tokens or 0,
            model_calls=usage.requests or 1,
        )

    def default_info(self) -> AdapterInfo:
        model = self.model if self.endpoint is None else self.endpoint.model
        chosen = model if model is not None else getattr(self.agent, "model", None)
        text = {"agent": instructions_of(self.agent), "mandate": self.instructions}
        return AdapterInfo(
            framework=self.framework,
            model=chosen if isinstance(chosen, str) or chosen is None else _model_name(chosen),
            instructions_digest=None if self.agent is None else digest(text),
            version=installed_version(DISTRIBUTION),
        )

    def replay_spec(self) -> dict[str, Any]:
        spec = super().replay_spec()
        spec.update(request_limit=self.request_limit, bind_output_type=self.bind_output_type)
        if self.output_mode != "tool":
            spec["output_mode"] = self.output_mode
        return spec


# The parts a model is corrected with: "retry-feedback" since pydantic-ai 2.6x; a tool
# call that needs retrying answers as a "tool-return"; "retry-prompt" before that.
CORRECTION_PARTS = ("retry-feedback", "retry-prompt", "tool-return")


def mandate(mode: str | None) -> str:
    """The default instructions for ``mode`` (``None``: the agent keeps its own output type)."""
    if mode == "tool":
        return MANDATE
    return instructions_for(mode or "structured", TASK)


def mode_options(mode: str) -> dict[str, Any]:
    """The ``agent.run`` keywords that ask for the decision in ``mode``."""
    if mode == "tool":
        return {"output_type": decision_output()}
    if mode == "structured":
        return {"output_type": native_decision_output()}
    options: dict[str, Any] = {"output_type": text_decision_output()}
    if mode == "json":
        options["model_settings"] = {"extra_body": {"response_format": json_object_format()}}
    return options


def _said(part: Any) -> str:
    kind = getattr(part, "part_kind", "")
    if kind == "text":
        return str(part.content)
    if kind == "tool-call":
        return str(part.args_as_json_str())
    return ""


@functools.cache
def decision_output() -> Any:
    """The per-run output type: an output tool taking the decision as plain JSON.

    Its schema is the decision's, so the model sees the side enum, the
    non-negative share count and the required actions list; its check is the
    workbench's own, raised as ``ModelRetry`` so PydanticAI asks again.
    """
    pai = require("pydantic_ai", extra=EXTRA, purpose="PydanticAIAdapter", package=DISTRIBUTION)
    plain = pai.StructuredDict(Decision.model_json_schema(), name="Decision")

    def submit(decision: dict[str, Any]) -> dict[str, Any]:
        try:
            parse_decision(dict(decision))
        except DecisionError as exc:
            raise pai.ModelRetry(str(exc)) from exc
        return dict(decision)

    # The annotation PydanticAI reads for the tool's schema (a class made at run time).
    submit.__annotations__ = {"decision": plain, "return": dict[str, Any]}

    return pai.ToolOutput(submit, name=OUTPUT_TOOL, description="Submit the decision.")


def _checked(decision: Any) -> dict[str, Any]:
    """The decision as a dict once ``parse_decision`` accepts it; else ``ModelRetry``."""
    pai = require("pydantic_ai", extra=EXTRA, purpose="PydanticAIAdapter", package=DISTRIBUTION)
    try:
        parse_decision(decision)
    except DecisionError as exc:
        raise pai.ModelRetry(str(exc)) from exc
    return dict(decision)


@functools.cache
def native_decision_output() -> Any:
    """PydanticAI's native structured output of the decision, checked by ``parse_decision``."""
    pai = require("pydantic_ai", extra=EXTRA, purpose="PydanticAIAdapter", package=DISTRIBUTION)
    plain = pai.StructuredDict(Decision.model_json_schema(), name="Decision")

    def submit(decision: dict[str, Any]) -> dict[str, Any]:
        return _checked(dict(decision))

    submit.__annotations__ = {"decision": plain, "return": dict[str, Any]}
    return pai.NativeOutput(submit, name="Decision")


@functools.cache
def text_decision_output() -> Any:
    """A text answer whose first JSON object is the decision (JSON mode, prompt-and-parse)."""
    pai = require("pydantic_ai", extra=EXTRA, purpose="PydanticAIAdapter", package=DISTRIBUTION)

    def read(text: str) -> dict[str, Any]:
        try:
            found = decision_from_text(text)
        except DecisionError as exc:
            raise pai.ModelRetry(f"{exc}; answer with the decision as one JSON object") from exc
        return _checked(found)

    return pai.TextOutput(read)


def _check_agent(agent: Any, mode: str, bind_output_type: bool) -> None:
    if agent is None:
        if mode != "replay":
            raise ConfigError(f"mode={mode!r} calls the model, so it needs the pydantic_ai.Agent")
        return
    require("pydantic_ai", extra=EXTRA, purpose="PydanticAIAdapter", package=DISTRIBUTION)
    if not callable(getattr(agent, "run", None)):
        raise ConfigError(
            f"PydanticAIAdapter needs a pydantic_ai.Agent, got {type(agent).__name__}"
        )
    if bind_output_type and getattr(agent, "_output_validators", None):
        raise ConfigError(
            f"agent {getattr(agent, 'name', None)!r} has an @agent.output_validator, and "
            "PydanticAI refuses a per-run output type on such an agent. Pass "
            "bind_output_type=False to keep the agent's own output type; the workbench still "
            "validates what it produces."
        )


def _name_of(agent: Any) -> str:
    name = getattr(agent, "name", None)
    if not isinstance(name, str) or not name:
        raise ConfigError(
            "name= is required when the agent has no name (pydantic_ai.Agent(name=...))"
        )
    return name


def _model_name(model: Any) -> str:
    name = getattr(model, "model_name", None)
    return name if isinstance(name, str) else type(model).__name__


__all__ = [
    "DISTRIBUTION",
    "ERRORS",
    "EXTRA",
    "MANDATE",
    "MANDATE_VERSION",
    "PydanticAIAdapter",
    "UsageLimitReached",
    "decision_output",
    "instructions_of",
    "mandate",
    "mode_options",
    "render",
]
