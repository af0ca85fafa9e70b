"""The JSON Schema of ``workbench-agent/2``: both messages each way, with the decision inlined.

Version 2 added the request ``id`` that every answer echoes, so a line left over
from one request can never answer the next. A program that answers the hello
with an earlier version is refused before the market opens, with the change to
make (``refuse_other_protocol``): an answer without an id cannot be matched to
its request, so serving it would risk recording one decision's answer under
another.

``process_protocol.schema.json`` beside this module is its text; a test keeps the
two equal, so a change to the decision schema shows up in the published file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.schema import decision_json_schema

PROTOCOL = "workbench-agent/2"
EARLIER = {"workbench-agent/1": "it has no request id"}
SCHEMA_FILE = Path(__file__).with_name("process_protocol.schema.json")
USAGE_KEYS = ("input_tokens", "output_tokens", "model_calls")


def _message(kind: str, required: list[str], **properties: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["type", *required],
        "additionalProperties": False,
        "properties": {"type": {"const": kind}, **properties},
    }


def protocol_schema() -> dict[str, Any]:
    decision = decision_json_schema()
    shared = decision.pop("$defs", {})
    protocol = {"$ref": "#/$defs/protocol"}
    usage = {
        "type": "object",
        "additionalProperties": False,
        "properties": {key: {"type": "integer", "minimum": 0} for key in USAGE_KEYS},
    }
    payload = {"type": "object", "description": "the observation payload of one decision"}
    ident = {"$ref": "#/$defs/id"}
    request = [
        _message("hello", ["protocol", "arm"], protocol=protocol, arm={"type": "string"}),
        _message("decide", ["protocol", "id", "payload"], protocol=protocol, id=ident,
                 payload=payload),
    ]  # fmt: skip
    answer = [
        {**_message("hello", ["protocol"], protocol=protocol), "additionalProperties": True},
        _message("decision", ["id", "decision"], id=ident, decision={"$ref": "#/$defs/decision"},
                 usage=usage),
        _message("error", ["id", "message"], id=ident, message={"type": "string"}),
    ]  # fmt: skip
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": PROTOCOL,
        "description": "One JSON object per line each way between the workbench and an agent.",
        "$defs": {
            **shared,
            "protocol": {"const": PROTOCOL},
            "id": {
                "type": "integer",
                "minimum": 1,
                "description": "the request's id; its answer echoes it (optional over HTTP)",
            },
            "decision": decision,
            "request": {"oneOf": request},
            "answer": {"oneOf": answer},
        },
        "anyOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/answer"}],
    }


def refuse_other_protocol(label: str, spoken: Any) -> None:
    """A ``ConfigError`` naming the fix when ``spoken`` is an earlier version of ours."""
    if isinstance(spoken, str) and spoken in EARLIER:
        raise ConfigError(
            f"{label} speaks {spoken}, which this workbench no longer serves "
            f"({EARLIER[spoken]}, so a stray line could answer a later decision). Move it "
            f'to {PROTOCOL}: reply {{"type": "hello", "protocol": "{PROTOCOL}"}} to the '
            'hello, and put the "id" of each decide message into its answer '
            "(docs/process-agents.md, 'From version 1 to 2')"
        )


def schema_text() -> str:
    return json.dumps(protocol_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # python -m workbench.integrations._protocol rewrites the file
    SCHEMA_FILE.write_text(schema_text())
