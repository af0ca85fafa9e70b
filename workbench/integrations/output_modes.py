"""How a model is asked for a decision, and how its answer is read back.

Four output modes, from the strongest guarantee to the weakest:

- ``"structured"``: the provider's structured output (``response_format`` of type
  ``json_schema``, or the framework's native output type);
- ``"json"``: JSON mode constrained by the decision schema (``response_format``
  of type ``json_object`` carrying a ``schema``; llama.cpp, vLLM and Ollama
  servers accept it where they refuse ``json_schema``);
- ``"tool"``: the decision is the arguments of a tool call;
- ``"text"``: prompt-and-parse: the instructions carry the schema and the first
  JSON object in the model's text is the decision.

The instructions each mode gives (``instructions_for``) say what the mode does,
so a model is never told to use an output tool that is not there.
``decision_from_text`` is the one reader of a text answer: it runs live and on
replay, so a recorded prose answer fails the same way again.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.errors import ConfigError, DecisionError
from workbench.schema import decision_json_schema

OUTPUT_MODES: tuple[str, ...] = ("structured", "json", "tool", "text")
TOOL_NAME = "submit_decision"

_ENDINGS = {
    "structured": "Reply with the decision object only.",
    "json": "Reply with one JSON object, the decision, and nothing else.",
    "tool": f"Submit the decision by calling the {TOOL_NAME} tool.",
    "text": (
        "Reply with one JSON object, the decision, and nothing else. Its JSON schema is: {schema}"
    ),
}


def checked_mode(mode: Any, *, allow_auto: bool = False) -> str:
    """``mode`` if it is an output mode (or ``"auto"`` when allowed); else a ConfigError."""
    known = (*OUTPUT_MODES, "auto") if allow_auto else OUTPUT_MODES
    if mode not in known:
        raise ConfigError(f"output_mode must be one of {', '.join(known)}; got {mode!r}")
    return str(mode)


def adapter_output_mode(
    asked: str | None, endpoint: Any, adapter_mode: str, *, default: str, bound: bool = True
) -> str:
    """The output mode an adapter runs in: ``default`` when it keeps the agent's own output
    type (``bound=False``, which takes no ``output_mode``), else the one asked for or the
    endpoint's choice (detected from the server on a live run), else ``default``."""
    if not bound:
        if asked is not None:
            raise ConfigError(
                "bind_output_type=False keeps the agent's own output type, so output_mode= "
                "does not apply; drop one of them"
            )
        return default
    if endpoint is not None and adapter_mode != "replay":
        return str(endpoint.resolve_mode(asked))
    return checked_mode(asked or default)


def instructions_for(mode: str, task: str) -> str:
    """The task, then how to answer in ``mode``."""
    ending = _ENDINGS[checked_mode(mode)]
    return f"{task} {ending.format(schema=compact_schema())}"


def compact_schema() -> str:
    """The decision schema as one line of JSON, for prompts."""
    return json.dumps(decision_json_schema(), separators=(",", ":"), sort_keys=True)


def json_object_format() -> dict[str, Any]:
    """The ``response_format`` of JSON mode, constrained by the decision schema."""
    return {"type": "json_object", "schema": decision_json_schema()}


def json_schema_format() -> dict[str, Any]:
    """The ``response_format`` of structured output."""
    return {
        "type": "json_schema",
        "json_schema": {"name": "Decision", "schema": decision_json_schema()},
    }


def decision_tool() -> dict[str, Any]:
    """The chat-completions tool whose arguments are the decision."""
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": "Submit the decision.",
            "parameters": decision_json_schema(),
        },
    }


def decision_from_text(raw: Any, payload: Any = None) -> Any:
    """The decision inside a model's text answer: the whole text, or its first JSON object.

    Anything that is not text passes through unchanged (the schema check comes
    next). Usable as a ``postprocess`` hook: it ignores ``payload``.
    """
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    found = _first_json_object(text)
    if found is None:
        shown = text if len(text) <= 160 else text[:157] + "…"
        raise DecisionError(f"the model answered in prose with no JSON object: {shown!r}")
    return found


def _first_json_object(text: str) -> Any:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start >= 0:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


__all__ = [
    "OUTPUT_MODES",
    "TOOL_NAME",
    "checked_mode",
    "compact_schema",
    "decision_from_text",
    "decision_tool",
    "instructions_for",
    "json_object_format",
    "json_schema_format",
]
