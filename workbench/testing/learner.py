"""A scripted learner: an arm whose own lessons change what it does, to measure memory by.

The policy (a stand-in for a model) holds two names a day, chosen by one of two
styles: ``follow`` buys the two strongest trends over the visible history,
``fade`` the two weakest. Without lessons it follows. With memory its payload
carries ``lessons``; each is a verdict on an earlier day's style (``VERDICT
GAINED following`` …), and the learner takes the style its recalled lessons
favour (a gain counts for the style used, a loss for the other; a tie follows).

The reflection (a stand-in for the model writing lessons) reads the outcome in
its briefing: the P&L of the buys the decision caused, marked at the close the
outcome is measured at.

``learner_agent()`` has no memory and ``remembering_learner()`` has
``Memory(horizon=1, k=3)``: the same policy, so their paired difference across
seeds is the effect of memory (``compare.ipynb`` with
``arms="learner,learner_memory"``, ``benchmark="learner"``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from workbench.errors import ConfigError
from workbench.integrations.base import BaseAdapter, replay_options
from workbench.integrations.callable import CallableAgentAdapter
from workbench.memory import Memory, MemoryHook, memory_hook, read_reflection
from workbench.memory.adapter import Situation
from workbench.testing.scripted import scripted_info
from workbench.transcript import Transcript

LEARNER_INSTRUCTIONS = (
    "Hold the two names of the day: the strongest trends when following, the weakest when "
    "fading. Follow unless the lessons you recall say fading did better in situations like "
    "this. Answer with the decision JSON only; say the style in the rationale."
)
STAKE = 0.10  # of equity per name bought
_VERDICT = re.compile(r"^VERDICT (GAINED|LOST|FLAT) (following|fading)")


def style_from(lessons: list[dict[str, Any]]) -> str:
    """``fade`` when the recalled verdicts favour fading, else ``follow``."""
    vote = 0
    for item in lessons:
        found = _VERDICT.match(item["lesson"])
        if found and found.group(1) != "FLAT":
            worked = found.group(1) == "GAINED"
            vote += 1 if worked == (found.group(2) == "following") else -1
    return "fade" if vote < 0 else "follow"


def learner_policy(payload: dict[str, Any]) -> str:
    """The day's two names by the style the lessons favour, as decision JSON text."""
    style = style_from(payload.get("lessons", []))
    quotes, book = payload["symbols"], payload["portfolio"]
    trend = {s: q["history"][-1] / q["history"][0] - 1.0 for s, q in quotes.items()}
    sign = -1.0 if style == "follow" else 1.0
    picks = sorted(trend, key=lambda s: (sign * trend[s], s))[:2]
    actions: list[dict[str, Any]] = [
        {"symbol": s, "side": "sell", "quantity": held}
        for s, held in sorted(book["positions"].items())
        if held > 0 and s not in picks
    ]
    for symbol in (s for s in picks if s not in book["positions"]):
        quantity = min(
            quotes[symbol]["max_order"], math.floor(STAKE * book["equity"] / quotes[symbol]["ask"])
        )
        if quantity > 0:
            actions.append({"symbol": symbol, "side": "buy", "quantity": quantity})
    rationale = f"style {style}: {', '.join(picks)}"
    return json.dumps({"actions": actions, "rationale": rationale})


def learner_reflection(prompt: str) -> str:
    """A lesson on one day's style, from the P&L of the buys it caused."""
    briefing = read_reflection(prompt)
    decision = json.loads(briefing["decision"])
    style = "fading" if decision["rationale"].startswith("style fade") else "following"
    outcome = briefing["outcome"]
    buys = [order for order in outcome["orders"] if order["side"] == "buy"]
    pnl = round(math.fsum(order["pnl"] for order in buys), 2)
    verdict = "GAINED" if pnl > 0 else ("LOST" if pnl < 0 else "FLAT")
    bought = ", ".join(order["symbol"] for order in buys) or "nothing"
    measured = outcome["measured"]
    return (
        f"VERDICT {verdict} {style}: bought {bought} on day {outcome['decided']['day']}; "
        f"by day {measured['day']} those buys made {pnl!r}."
    )


class Learner(CallableAgentAdapter):
    """The learner's adapter: the callable adapter with memory (see ``MemoryHook``)."""

    def __init__(
        self,
        fn: Any = None,
        *,
        memory: Memory | dict[str, Any] | bool | None = None,
        reflect: Any = None,
        reflect_name: str | None = None,
        situation: Situation | None = None,
        **options: Any,
    ) -> None:
        hook = memory_hook(memory, reflect, reflect_name, situation)
        super().__init__(fn, hook=hook, **options)

    @property
    def memory(self) -> Memory | None:
        """The memory the arm was given; None without."""
        return self.hook.memory if isinstance(self.hook, MemoryHook) else None

    def lessons(self) -> Any:
        """Every lesson of the last run as a DataFrame (see ``MemoryStore.frame``)."""
        if not isinstance(self.hook, MemoryHook):
            raise ConfigError(f"arm {self.name!r} has no memory; build it with memory=")
        return self.hook.lessons()

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        options = replay_options(spec, transcript)
        return cls(memory=spec.get("memory"), reflect_name=spec.get("reflect_name"), **options)


def learner_agent(**kwargs: Any) -> Learner:
    """The learner without memory (``name='learner'``): it always follows."""
    kwargs.setdefault("name", "learner")
    info = scripted_info("scripted-learner", LEARNER_INSTRUCTIONS)
    reflect = (
        learner_reflection if kwargs.get("memory") and kwargs.get("mode") != "replay" else None
    )
    return Learner(
        learner_policy, info=info, reflect=reflect, reflect_name="scripted-lessons", **kwargs
    )


def remembering_learner(**kwargs: Any) -> Learner:
    """The learner with ``Memory(horizon=1, k=3)`` (``name='learner_memory'``)."""
    kwargs.setdefault("name", "learner_memory")
    kwargs.setdefault("memory", Memory(horizon=1, k=3))
    return learner_agent(**kwargs)


__all__ = [
    "LEARNER_INSTRUCTIONS",
    "Learner",
    "learner_agent",
    "learner_policy",
    "learner_reflection",
    "remembering_learner",
    "style_from",
]
