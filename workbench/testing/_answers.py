"""What the scripted framework models share: a policy's answer as model output.

A policy is a plain function from the observation payload to an answer. The
answer may be a ``Decision``, a mapping, a string (sent verbatim, so a test can
script malformed JSON), a ``Refusal``, or an exception instance, which the
scripted model raises from inside the framework's model call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workbench._jsonio import canonical_json
from workbench.schema import Decision

Policy = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Refusal:
    """A scripted model declining to answer; frameworks with a refusal channel use it."""

    reason: str


def answer_of(policy: Policy, payload: dict[str, Any]) -> Any:
    """Ask ``policy``; an exception it returns (rather than raises) is raised here."""
    answer = policy(payload)
    if isinstance(answer, BaseException):
        raise answer
    return answer


def answer_text(answer: Any) -> str:
    """The text a model would send for ``answer``."""
    if isinstance(answer, Refusal):
        return answer.reason
    if isinstance(answer, str):
        return answer
    if isinstance(answer, Decision):
        return canonical_json(answer.to_json())
    if isinstance(answer, Mapping):
        return canonical_json(dict(answer))
    raise TypeError(
        f"a scripted policy must return a Decision, a mapping, a string, a Refusal or an "
        f"exception, got {type(answer).__name__}"
    )


def token_estimate(text: str) -> int:
    """A deterministic token count for scripted usage: about four characters a token."""
    return max(1, math.ceil(len(text) / 4))


def trend_policy(payload: dict[str, Any]) -> dict[str, Any]:
    """A small deterministic trader: buy the strongest riser, sell what is falling."""
    symbols: dict[str, Any] = payload.get("symbols") or {}
    held: dict[str, float] = (payload.get("portfolio") or {}).get("positions") or {}
    moves = {name: _move(row) for name, row in sorted(symbols.items())}
    actions = [
        {"symbol": name, "side": "sell", "quantity": float(min(qty, _cap(symbols[name])))}
        for name, qty in sorted(held.items())
        if qty > 0 and name in moves and moves[name] < 0 and _cap(symbols[name]) > 0
    ]
    risers = [name for name, move in moves.items() if move > 0 and name not in held]
    if risers:
        best = max(risers, key=lambda name: (moves[name], name))
        quantity = float(min(10, _cap(symbols[best])))
        if quantity > 0:
            actions.append({"symbol": best, "side": "buy", "quantity": quantity})
    rationale = f"{len(actions)} order(s): follow the trend over the visible history"
    return {"actions": actions, "rationale": rationale}


def stumbling_policy(payload: dict[str, Any]) -> Any:
    """``trend_policy``, except on day 1, where it answers with prose instead of JSON."""
    if payload.get("day") == 1:
        return "I would rather wait and see how the market settles."
    return trend_policy(payload)


def _move(row: Mapping[str, Any]) -> float:
    history = row.get("history") or []
    if len(history) < 2 or not history[0]:
        return 0.0
    return float(history[-1]) / float(history[0]) - 1.0


def _cap(row: Mapping[str, Any]) -> int:
    return int(row.get("max_order") or 0)


__all__ = [
    "Policy",
    "Refusal",
    "answer_of",
    "answer_text",
    "stumbling_policy",
    "token_estimate",
    "trend_policy",
]
