"""The JSON Schema of ``workbench-agent/1``: both messages each way, with the decision inlined.

``process_protocol.schema.json`` beside this module is its text; a test keeps the
two equal, so a change to the decision schema shows up in the published file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.schema import decision_json_schema

PROTOCOL = "workbench-agent/1"
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
    request = [
        _message("hello", ["protocol", "arm"], protocol=protocol, arm={"type": "string"}),
        _message("decide", ["protocol", "payload"], protocol=protocol, payload=payload),
    ]
    answer = [
        {**_message("hello", ["protocol"], protocol=protocol), "additionalProperties": True},
        _message("decision", ["decision"], decision={"$ref": "#/$defs/decision"}, usage=usage),
        _message("error", ["message"], message={"type": "string"}),
    ]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": PROTOCOL,
        "description": "One JSON object per line each way between the workbench and an agent.",
        "$defs": {
            **shared,
            "protocol": {"const": PROTOCOL},
            "decision": decision,
            "request": {"oneOf": request},
            "answer": {"oneOf": answer},
        },
        "anyOf": [{"$ref": "#/$defs/request"}, {"$ref": "#/$defs/answer"}],
    }


def schema_text() -> str:
    return json.dumps(protocol_schema(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":  # python -m workbench.integrations._protocol rewrites the file
    SCHEMA_FILE.write_text(schema_text())
