"""Reflection: decisions wait for their outcome, then their author writes a lesson.

The helper any adapter (and the committee) uses, in three moves per decision:

1. ``due(day, step)``: the earlier decisions whose outcome is now known — those
   taken at ``(d, s)`` with ``(d + horizon, s) <= (day, step)``, oldest first;
2. for each, ``briefing(pending, role, payload)`` gives the author its situation,
   what it said then and the realised outcome, measured on the payload of the
   asking step (so it is as point in time as that payload): each name's return
   since the decision and the profit or loss of the orders the decision caused,
   marked at the current close; the author answers with a lesson through its own
   model (recorded like any exchange), and ``learn`` writes it to the store;
3. ``recall(situation, role, at)`` returns the closest lessons visible now, and
   ``remember`` queues the new decision; ``executed`` adds its fills.

Nothing here calls a model: the caller asks through its recorded exchange, so a
replay rebuilds the same lessons from the transcript with no model.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from workbench._jsonio import canonical_json
from workbench.agents import DecisionRequest, ExecutionReport, RunInfo
from workbench.errors import FrameworkError
from workbench.memory.settings import Memory
from workbench.memory.store import At, Lesson

REFLECTION_PHASE = "reflection"
REFLECT_INSTRUCTIONS = (
    "Reflect on an earlier decision of yours. The briefing holds the situation you "
    "decided in, what you said then, and what happened after: each name's return since "
    "the decision and the profit or loss of the orders it caused. Write one short lesson "
    "for a similar situation: what to repeat or avoid, and why. Cite numbers only from "
    "the briefing."
)
_MARK = "\nREFLECTION BRIEFING "


@dataclass
class Pending:
    """A decision waiting for its outcome."""

    day: int
    step: int
    index: int
    situation: str
    said: dict[str, str]  # what each reflecting author said (an adapter: its decision)
    marks: dict[str, float]  # each name's last price when deciding
    equity: float
    orders: list[dict[str, Any]] = field(default_factory=list)


def outcome(pending: Pending, payload: dict[str, Any]) -> dict[str, Any]:
    """What became of ``pending`` by the close the payload shows (rounded for prompts)."""
    now = {symbol: quote["last"] for symbol, quote in payload["symbols"].items()}
    orders = [_order_outcome(order, now[order["symbol"]]) for order in pending.orders]
    return {
        "decided": {"day": pending.day, "step": pending.step},
        "measured": {"day": payload["day"], "step": payload["step"]},
        "returns_pct": {
            symbol: round(100.0 * (now[symbol] / mark - 1.0), 2)
            for symbol, mark in sorted(pending.marks.items())
            if symbol in now
        },
        "orders": orders,
        "orders_pnl": round(math.fsum(order["pnl"] for order in orders), 2),
        "equity_change": round(payload["portfolio"]["equity"] - pending.equity, 2),
    }


def _order_outcome(order: dict[str, Any], last: float) -> dict[str, Any]:
    sign = 1.0 if order["side"] == "buy" else -1.0
    pnl = sign * order["quantity"] * (last - order["price"]) - order.get("fee", 0.0)
    return {
        "symbol": order["symbol"],
        "side": order["side"],
        "quantity": order["quantity"],
        "price": round(order["price"], 4),
        "pnl": round(pnl, 2),
    }


def reflection_prompt(role: str, briefing: dict[str, Any]) -> str:
    """The prompt an adapter's reflecting model gets; ``read_reflection`` reads it back."""
    return f"ROLE {role} | PHASE {REFLECTION_PHASE}\n{REFLECT_INSTRUCTIONS}{_MARK}" + (
        canonical_json(briefing)
    )


def read_reflection(prompt: str) -> dict[str, Any]:
    """The briefing inside a ``reflection_prompt``."""
    if _MARK not in prompt:
        raise FrameworkError("not a reflection prompt: build it with reflection_prompt")
    loaded: dict[str, Any] = json.loads(prompt.rsplit(_MARK, 1)[1])
    return loaded


class Reflection:
    """Pending decisions and the lessons about them, for one arm and one ``Memory``."""

    def __init__(self, memory: Memory) -> None:
        self.memory = memory
        self.pending: list[Pending] = []
        self.complete = False  # the run reached its last step: its store learnt the path

    def open(
        self,
        run: RunInfo,
        carried: list[dict[str, Any]] | None = None,
        resumed: list[dict[str, Any]] | None = None,
    ) -> None:
        self.pending = []
        self.complete = False
        self.memory.open(run, carried=carried, resumed=resumed)

    def run_completed(self) -> None:
        self.complete = True

    def close(self) -> None:
        self.pending = []
        self.memory.close(complete=self.complete)

    def due(self, at: At) -> list[Pending]:
        """Take the pending decisions whose outcome is known at ``at``, oldest first."""
        horizon = self.memory.horizon
        known = [(p.day + horizon, p.step) <= tuple(at) for p in self.pending]
        ready = [p for p, due in zip(self.pending, known, strict=True) if due]
        self.pending = [p for p, due in zip(self.pending, known, strict=True) if not due]
        return ready

    def remember(self, request: DecisionRequest, situation: str, said: dict[str, str]) -> None:
        payload = request.payload
        marks = {symbol: quote["last"] for symbol, quote in payload["symbols"].items()}
        self.pending.append(
            Pending(
                request.day,
                request.step,
                request.index,
                situation,
                dict(said),
                marks,
                payload["portfolio"]["equity"],
            )
        )

    def executed(self, index: int, report: ExecutionReport) -> None:
        """The fills of the decision asked at ``index`` (refused and unfilled orders drop)."""
        for pending in self.pending:
            if pending.index == index:
                pending.orders = [
                    {k: getattr(row, k) for k in ("symbol", "side", "quantity", "price", "fee")}
                    for row in report.orders
                    if row.quantity and row.price is not None
                ]

    def briefing(self, pending: Pending, role: str, payload: dict[str, Any]) -> dict[str, Any]:
        """What the author of ``pending`` reflects on."""
        return {
            "phase": REFLECTION_PHASE,
            "role": role,
            "turn": 0,
            "situation": pending.situation,
            "decision": pending.said[role],
            "outcome": outcome(pending, payload),
        }

    def learn(
        self, pending: Pending, role: str, lesson: str, briefing: dict[str, Any], at: At
    ) -> Lesson:
        return self.memory.store.write(
            pending.day,
            pending.step,
            pending.situation,
            lesson,
            horizon=self.memory.horizon,
            role=role,
            known_at=at,
            outcome=briefing["outcome"],
        )

    def recall(self, situation: str, role: str, at: At) -> list[dict[str, Any]]:
        found = self.memory.store.recall(situation, self.memory.k, at=at, role=role)
        return [item.lesson.brief() for item in found]


__all__ = [
    "REFLECTION_PHASE",
    "REFLECT_INSTRUCTIONS",
    "Pending",
    "Reflection",
    "outcome",
    "read_reflection",
    "reflection_prompt",
]
