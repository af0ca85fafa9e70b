"""A FinRobot agent speaking workbench-agent/2: run with the Python of a FinRobot environment.

This file imports nothing from the workbench (FinRobot's environment does not
have it): ``make finrobot`` builds that environment and runs this program as a
process arm. Each decide message becomes one FinRobot ``Market_Analyst`` turn
(FinRobot's agent library, autogen 0.2 underneath) against the OpenAI-compatible
server named by ``OPENAI_BASE_URL`` and ``FINROBOT_MODEL``; the reply's first
JSON object with ``actions`` is the decision, and a reply without one is passed
on as text, so the workbench records it and counts a ``DecisionError``.

FinRobot's data toolkits (Finnhub, yfinance, SEC) are not registered: the agent
sees the workbench's payload and nothing from the network, and code execution
is off (autogen's user proxy would otherwise run code blocks from the reply).
FinRobot and autogen print and log to stdout as they chat, so the bridge keeps
a private copy of stdout for protocol lines and points everything else that
writes to stdout (Python or C) at stderr, which the workbench keeps.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

PROTOCOL = "workbench-agent/2"
TASK = (
    "You manage a stock portfolio. Below is today's market as JSON. Answer with one JSON "
    'object only: {"actions": [{"symbol": "...", "side": "buy" or "sell", "quantity": '
    'whole shares}], "rationale": "one sentence"}. An empty actions list holds.'
)


def build_agent() -> Any:
    from finrobot.agents.workflow import SingleAssistant

    endpoint = {
        "model": os.environ.get("FINROBOT_MODEL", "smollm2"),
        "base_url": os.environ["OPENAI_BASE_URL"],
        "api_key": os.environ.get("OPENAI_API_KEY", "not-needed"),
        "price": [0.0, 0.0],  # a local model costs nothing; autogen warns without a price
    }
    # a small model left unbounded writes until its context is full: cap the answer
    llm_config = {
        "config_list": [endpoint],
        "temperature": 0,
        "max_tokens": int(os.environ.get("FINROBOT_MAX_TOKENS", "200")),
        "cache_seed": None,
        "timeout": 300,
    }
    analyst = {"name": "Market_Analyst", "profile": TASK, "toolkits": []}
    return SingleAssistant(analyst, llm_config=llm_config, code_execution_config=False)


def summary(payload: dict[str, Any]) -> str:
    """The payload, shortened to what a small model's context holds: last five closes."""
    symbols = {
        name: {
            "last": quote["last"],
            "recent": quote["history"][-5:],
            "max_order": quote["max_order"],
        }
        for name, quote in payload["symbols"].items()
    }
    portfolio = payload["portfolio"]
    return json.dumps(
        {"symbols": symbols, "cash": portfolio["cash"], "held": portfolio["positions"]}
    )


def decision_in(text: str) -> Any:
    """The first JSON object in ``text`` that has ``actions``; else the whole text, so the
    workbench records what the model said and counts a ``DecisionError``."""
    decoder = json.JSONDecoder()
    for start in (i for i, c in enumerate(text) if c == "{"):
        try:
            value, _ = decoder.raw_decode(text[start:])
        except ValueError:
            continue
        if isinstance(value, dict) and "actions" in value:
            return value
    return text


class Usage:
    """Tokens per call: autogen reports its client's running totals, so keep the last."""

    def __init__(self) -> None:
        self.seen = {"input_tokens": 0, "output_tokens": 0}

    def of(self, result: Any) -> dict[str, int]:
        totals = {"input_tokens": 0, "output_tokens": 0}
        cost = (getattr(result, "cost", None) or {}).get("usage_including_cached_inference", {})
        for entry in cost.values():
            if isinstance(entry, dict):
                totals["input_tokens"] += int(entry.get("prompt_tokens", 0))
                totals["output_tokens"] += int(entry.get("completion_tokens", 0))
        call = {key: max(totals[key] - self.seen[key], 0) for key in totals}
        self.seen = totals
        return {**call, "model_calls": 1}


def decide(agent: Any, payload: dict[str, Any], usage: Usage) -> dict[str, Any]:
    message = f"{TASK}\n\n{summary(payload)}"
    result = agent.user_proxy.initiate_chat(
        agent.assistant, message=message, max_turns=1, clear_history=True
    )
    text = str(result.chat_history[-1].get("content") or "")
    return {"type": "decision", "decision": decision_in(text), "usage": usage.of(result)}


def protocol_stream() -> Any:
    """A private copy of stdout for protocol lines; fd 1 and sys.stdout then go to stderr."""
    stream = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stream


def main() -> None:
    out = protocol_stream()
    agent, usage = None, Usage()
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "hello":
            answer = {"type": "hello", "protocol": PROTOCOL}
        else:
            try:
                agent = agent or build_agent()
                answer = decide(agent, message["payload"], usage)
            except Exception as exc:  # the workbench records it as a FrameworkError
                answer = {"type": "error", "message": f"{type(exc).__name__}: {exc}"}
            answer["id"] = message["id"]  # the answer names the request it answers
        out.write(json.dumps(answer) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
