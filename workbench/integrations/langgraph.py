"""LangGraph adapter: a compiled graph (or anything with ``invoke``) as an evaluation arm.

- Any object with ``invoke`` or ``ainvoke`` is accepted; its class is not checked
  (``Runnable`` is a nominal ABC, and a deterministic test double is a plain
  object). ``ainvoke`` is awaited when present, a sync-only ``invoke`` runs in a
  worker thread, and an uncompiled ``StateGraph`` is refused by name.
- Input: ``default_input_builder`` sends both shapes at once, ``observation`` for a
  structured state and ``messages`` for the ``MessagesState`` shape, plus the
  instructions. LangGraph drops keys its state schema does not declare, so one
  default serves both. The instructions are rendered into this keyed input, so a
  changed instruction misses the recording like any other changed input.
- Output: a graph returns its whole state; ``default_output_parser`` reads a
  ``Decision``, an interrupted state, a state carrying ``actions`` or ``decision``,
  or the ``MessagesState`` shape, and refuses anything else by name.
- An interrupt raises ``GraphInterruptedError`` (a ``DecisionError``) naming the
  unanswered question: a market loop has nowhere to resume into. It is checked
  before ``decision``, which a checkpointed thread may carry from an earlier step.
- ``endpoint=Endpoint(base_url, model)`` with no graph builds a one-node chat graph
  on that OpenAI-compatible server (``langchain_endpoint.chat_graph``); in your own
  graph use ``EndpointChatModel(endpoint=ep, output_mode=...)`` as the chat model.
  ``output_mode`` sets the default instructions' last sentence and, for a graph
  built here, what the request asks for; outside ``"structured"`` the first JSON
  object of the answer is the decision. The endpoint's model name is recorded.
- Observability: the run's identity goes into ``config["metadata"]`` (nodes see
  it; the tracer consumes ``run_name``) with a ``"workbench"`` tag, merged into
  the ``config`` you pass. LangSmith stays off unless its environment says so;
  turning it on sends the rendered observation to LangSmith.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Unpack

from workbench.agents import DecisionRequest
from workbench.errors import ConfigError, DecisionError, RunError
from workbench.integrations._frameworks import (
    TASK,
    ErrorTable,
    installed_version,
    plain_output,
    render_payload,
)
from workbench.integrations._loop import in_daemon_thread
from workbench.integrations.base import (
    AdapterInfo,
    AdapterOptions,
    BaseAdapter,
    mode_of,
    replay_options,
)
from workbench.integrations.output_modes import (
    adapter_output_mode,
    decision_from_text,
    instructions_for,
)
from workbench.schema import DECISION_SCHEMA_VERSION, Decision
from workbench.transcript import Transcript

if TYPE_CHECKING:
    from workbench.integrations.endpoints import Endpoint

DISTRIBUTION = "langgraph"
EXTRA = "langgraph"
INSTRUCTIONS = TASK + " Reply with the decision object as JSON only."
DEFAULT_INPUT_KEYS: tuple[str, ...] = ("observation", "instructions", "messages")
INTERRUPT_KEY = "__interrupt__"
TAG = "workbench"

ERRORS = ErrorTable(
    framework="langgraph",
    module="langgraph.errors",
    categories={
        "EmptyChannelError": "framework",
        "EmptyInputError": "framework",
        "GraphBubbleUp": "framework",
        "GraphDrained": "framework",
        "GraphInterrupt": "decision",
        "GraphRecursionError": "decision",
        "InvalidUpdateError": "framework",
        "LangGraphDeprecatedSinceV10": "framework",
        "NodeCancelledError": "framework",
        "NodeInterrupt": "decision",
        "NodeTimeoutError": "framework",
        "ParentCommand": "framework",
        "TaskNotFound": "framework",
        "UnknownInterruptError": "framework",
    },
)

InputBuilder = Callable[[dict[str, Any], str], Any]
OutputParser = Callable[[Any], Any]


class GraphInterruptedError(DecisionError):
    """The graph paused on ``interrupt()`` instead of deciding; ``questions`` says what for."""

    def __init__(self, message: str, *, questions: Sequence[Any] = ()) -> None:
        super().__init__(message)
        self.questions = tuple(questions)


def render(payload: Mapping[str, Any]) -> str:
    """The user message for one decision: the rendered observation."""
    return render_payload(payload)


def default_input_builder(payload: dict[str, Any], instructions: str) -> dict[str, Any]:
    """Both input shapes at once; the graph keeps the keys its state declares."""
    return {
        "observation": payload,
        "instructions": instructions,
        "messages": [
            {"role": "system", "content": instructions},
            {"role": "user", "content": render(payload)},
        ],
    }


def default_output_parser(state: Any) -> Any:
    """The decision inside a graph's final state, as plain JSON (or the model's text)."""
    if isinstance(state, Decision):
        return state.to_json()
    if state is not None and not isinstance(state, Mapping) and hasattr(state, "model_dump"):
        state = state.model_dump()
    if not isinstance(state, Mapping):
        raise DecisionError(_not_a_state(state))
    if state.get(INTERRUPT_KEY):
        raise _interrupted(state[INTERRUPT_KEY])
    if "actions" in state:
        return {"actions": plain_output(state["actions"]), "rationale": state.get("rationale", "")}
    if state.get("decision") is not None:
        return plain_output(state["decision"])
    if state.get("messages"):
        return _last_message_text(state["messages"])
    raise DecisionError(
        f"the graph's final state has no decision: its keys are {sorted(map(str, state))}. "
        "Write the decision to 'decision' or 'actions', answer in 'messages', or pass "
        "output_parser= to read your state."
    )


def _not_a_state(state: Any) -> str:
    if state is None:
        return (
            "the graph returned None: its state schema declares none of the input keys "
            f"{list(DEFAULT_INPUT_KEYS)}, so LangGraph dropped them all. Pass input_builder= "
            "to build the input your graph expects."
        )
    return f"the graph returned {type(state).__name__}, not a state or a Decision"


def _interrupted(interrupts: Any) -> GraphInterruptedError:
    items = interrupts if isinstance(interrupts, list | tuple) else [interrupts]
    questions = [getattr(item, "value", item) for item in items]
    asked = "; ".join(repr(question) for question in questions)
    return GraphInterruptedError(
        f"the graph stopped on interrupt() and asked {asked}, which nobody can answer "
        "inside a market loop: the market moves on as soon as the arm returns. Run a "
        "human-in-the-loop graph separately and give the workbench a graph that decides.",
        questions=questions,
    )


def _last_message_text(messages: Sequence[Any]) -> Any:
    last = messages[-1]
    content = last.get("content") if isinstance(last, Mapping) else getattr(last, "content", None)
    if isinstance(content, list):  # content blocks
        texts = [b.get("text", "") if isinstance(b, Mapping) else str(b) for b in content]
        return "".join(texts)
    if content is None:
        raise DecisionError(f"the graph's last message ({type(last).__name__}) has no content")
    return plain_output(content)


class LangGraphAdapter(BaseAdapter):
    """A compiled LangGraph graph as an arm (``mode="live"`` by default)."""

    framework = "langgraph"

    def __init__(
        self,
        runnable: Any = None,
        *,
        input_builder: InputBuilder | None = None,
        output_parser: OutputParser | None = None,
        instructions: str | None = None,
        endpoint: Endpoint | None = None,
        output_mode: str | None = None,
        config: Mapping[str, Any] | None = None,
        thread_id: str | None = None,
        run_id: str | None = None,
        **options: Unpack[AdapterOptions],
    ) -> None:
        mode = mode_of(options)
        self.output_mode = adapter_output_mode(output_mode, endpoint, mode, default="structured")
        if runnable is None and endpoint is not None and mode != "replay":
            from workbench.integrations.langchain_endpoint import chat_graph

            runnable = chat_graph(endpoint, self.output_mode, name=options.get("name") or "chat")
        _check_runnable(runnable, mode)
        self.runnable, self.endpoint = runnable, endpoint
        self.instructions = (
            instructions if instructions is not None else mode_instructions(self.output_mode)
        )
        self.input_builder = input_builder or default_input_builder
        self.output_parser = output_parser or default_output_parser
        self.config, self.thread_id, self.run_id = dict(config or {}), thread_id, run_id
        super().__init__(**options)

    def default_name(self) -> str:
        return _name_of(self.runnable)

    def default_info(self) -> AdapterInfo:
        return AdapterInfo(
            framework="langgraph",
            model=None if self.endpoint is None else self.endpoint.model,
            version=installed_version(DISTRIBUTION),
        )

    def input_for(self, payload: dict[str, Any]) -> Any:
        return self.input_builder(payload, self.instructions)

    def state(self) -> dict[str, Any]:
        if self.output_mode == "structured":  # recordings made before modes stay valid
            return {}
        return {"output_mode": self.output_mode}

    def to_decision(self, raw: Any, payload: dict[str, Any]) -> Any:
        return raw if self.output_mode == "structured" else decision_from_text(raw)

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        if self.runnable is None:
            raise ConfigError(f"arm {self.name!r} was built without a graph, so it can only replay")
        config = self.config_for(request)
        if callable(getattr(self.runnable, "ainvoke", None)):
            state = await self.runnable.ainvoke(sent, config)
        elif _takes_config(self.runnable.invoke):
            state = await in_daemon_thread(self.runnable.invoke, sent, config)
        else:
            state = await in_daemon_thread(self.runnable.invoke, sent)
        self._note_model_usage(state)
        return self.output_parser(state)

    def _note_model_usage(self, state: Any) -> None:
        """Tokens of the AI messages after the last user message, when the graph keeps any."""
        messages = state.get("messages") if isinstance(state, Mapping) else None
        if not isinstance(messages, list):
            return
        since = [m for m in messages[_after_last_user(messages) :] if _kind(m) == "ai"]
        usages = [getattr(m, "usage_metadata", None) or {} for m in since]
        self.note_usage(
            input_tokens=sum(int(u.get("input_tokens", 0)) for u in usages),
            output_tokens=sum(int(u.get("output_tokens", 0)) for u in usages),
            model_calls=len(since),
        )

    def map_error(self, exc: Exception) -> RunError:
        if type(exc).__name__ in ("GraphInterrupt", "NodeInterrupt"):
            return _interrupted(exc.args[0] if exc.args else [])
        return ERRORS.translate(exc, where=f"arm {self.name!r}")

    def config_for(self, request: DecisionRequest) -> dict[str, Any]:
        """The RunnableConfig of one decision: yours, plus the run identity and tag."""
        config = dict(self.config)
        config["metadata"] = {**dict(config.get("metadata") or {}), **self._identity(request)}
        tags = list(config.get("tags") or [])
        config["tags"] = tags if TAG in tags else [*tags, TAG]
        if self.thread_id is not None:
            configurable = dict(config.get("configurable") or {})
            config["configurable"] = {**configurable, "thread_id": self.thread_id}
        return config

    def _identity(self, request: DecisionRequest) -> dict[str, Any]:
        run_id = self.run_id or (f"{self.run.arm}-seed{self.run.seed}" if self.run else self.name)
        return {
            "workbench_run_id": run_id,
            "workbench_arm": self.name,
            "workbench_day": request.day,
            "workbench_step": request.step,
            "workbench_decision_schema": DECISION_SCHEMA_VERSION,
        }

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> LangGraphAdapter:
        from workbench._trust import resolve_trusted

        builder = spec.get("input_builder")
        where = f"arm {spec.get('name')!r}"
        return cls(
            None,
            **replay_options(spec, transcript),
            instructions=spec.get("instructions", INSTRUCTIONS),
            input_builder=resolve_trusted(builder, what="input_builder", where=where)
            if builder
            else None,
            output_mode=spec.get("output_mode"),
        )

    def replay_spec(self) -> dict[str, Any]:
        """The instructions and, when it is not the default, where the input builder lives.

        The builder makes the keyed input, so a replay must build it the same way;
        the output parser runs only on live answers and is not needed.
        """
        from workbench._names import import_path

        spec = super().replay_spec()
        spec["instructions"] = self.instructions
        if self.output_mode != "structured":
            spec["output_mode"] = self.output_mode
        if self.input_builder is not default_input_builder:
            spec["input_builder"] = import_path(self.input_builder, "the input_builder")
        return spec


def mode_instructions(mode: str) -> str:
    """The default instructions for ``mode``."""
    return INSTRUCTIONS if mode == "structured" else instructions_for(mode, TASK)


def _kind(message: Any) -> str:
    if isinstance(message, Mapping):
        return {"assistant": "ai", "user": "human"}.get(str(message.get("role")), "")
    return str(getattr(message, "type", ""))


def _after_last_user(messages: list[Any]) -> int:
    kinds = [_kind(m) for m in messages]
    return len(kinds) - kinds[::-1].index("human") if "human" in kinds else 0


class LangGraphOptions(AdapterOptions, total=False):
    """``LangGraphAdapter``'s own keywords beside the adapter keywords."""

    input_builder: InputBuilder | None
    output_parser: OutputParser | None
    instructions: str | None
    endpoint: Endpoint | None
    output_mode: str | None
    config: Mapping[str, Any] | None
    thread_id: str | None
    run_id: str | None


def langgraph_agent(runnable: Any = None, **options: Unpack[LangGraphOptions]) -> LangGraphAdapter:
    """A ``LangGraphAdapter`` for ``runnable``, or for ``endpoint=`` (convenience constructor)."""
    return LangGraphAdapter(runnable, **options)


def _check_runnable(runnable: Any, mode: str) -> None:
    if runnable is None:
        if mode != "replay":
            raise ConfigError(f"mode={mode!r} invokes the graph, so it needs one")
        return
    if type(runnable).__name__ == "StateGraph" and not hasattr(runnable, "invoke"):
        raise ConfigError(
            "got an uncompiled StateGraph, which cannot run: pass builder.compile() instead"
        )
    if not (
        callable(getattr(runnable, "invoke", None)) or callable(getattr(runnable, "ainvoke", None))
    ):
        raise ConfigError(
            "LangGraphAdapter needs an object with invoke or ainvoke, "
            f"got {type(runnable).__name__}"
        )


def _takes_config(invoke: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(invoke).parameters.values()
    except (TypeError, ValueError):
        return True
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


def _name_of(runnable: Any) -> str:
    name = getattr(runnable, "name", None)
    if isinstance(name, str) and name:
        return name
    raise ConfigError("name= is required when the graph has no name")


__all__ = [
    "DEFAULT_INPUT_KEYS",
    "DISTRIBUTION",
    "ERRORS",
    "EXTRA",
    "INSTRUCTIONS",
    "INTERRUPT_KEY",
    "GraphInterruptedError",
    "LangGraphAdapter",
    "default_input_builder",
    "default_output_parser",
    "langgraph_agent",
    "render",
]
