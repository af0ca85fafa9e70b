"""The committee's memory: reflecting roles recall lessons and write them after outcomes.

``Committee(memory=Memory(...))`` turns it on: the committee's ``hook`` is then a
``CommitteeMemory``, a ``DecisionHook`` on the seam ``MemoryHook`` uses
(``workbench.integrations.hooks``), so a live run and a replay go through the same
stages. Without it the committee is exactly what it was. As in TradingAgents, the
situation is the first phase's reports (the analysts'), and the reflecting roles are,
by default, the bull and bear researchers, the research manager, the trader and the
portfolio manager (``Memory(roles=[...])`` picks others; a role of the first phase
cannot recall by a situation it has not heard yet).

At each decision, before the committee deliberates, every decision whose outcome
is now known (``horizon`` days on) is reflected on: each reflecting role that
spoke in it gets what it said, the situation and the realised outcome (returns
since, and the P&L of the orders the decision caused) and writes a lesson
through its own model, with the reflection instructions in place of its usual
ones. Each lesson is one exchange in the transcript (of kind ``"reflect"``, which
the hook answers through the role's model), keyed by its exact prompt, so a replay
rebuilds the same memory with no model. Then each reflecting role's briefing gains
``lessons``: the ``k`` lessons of its own closest to this situation and visible at
this step.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from workbench._jsonio import digest
from workbench.agents import DecisionRequest, ExecutionReport, RunInfo
from workbench.committee.config import CommitteeSpec
from workbench.committee.coordinator import checked_text
from workbench.committee.roles import RoleAdvisor, prompt_for
from workbench.errors import ConfigError
from workbench.integrations.base import BaseAdapter
from workbench.integrations.hooks import DecisionHook
from workbench.memory.adapter import REFLECT
from workbench.memory.reflection import REFLECT_INSTRUCTIONS, REFLECTION_PHASE, Pending, Reflection
from workbench.memory.settings import Memory, as_memory, carried_by
from workbench.memory.store import MemoryStore
from workbench.schema import Decision

if TYPE_CHECKING:
    from workbench.committee.agent import Committee

REFLECTING_ROLES = (
    "bull_researcher",
    "bear_researcher",
    "research_manager",
    "trader",
    "portfolio_manager",
)


class CommitteeMemory(DecisionHook):
    """One committee's memory for one run at a time, as the committee's hook; see the
    module doc. Beside the hook's stages, the committee asks it ``with_lessons`` for
    each reflecting role's briefing."""

    def __init__(self, spec: CommitteeSpec, memory: Memory) -> None:
        self.memory = memory
        self.reflection = Reflection(memory)
        self.situation_phase = spec.phases[0].name
        self.roles = _reflecting_roles(spec, memory.roles)
        self.recalled: dict[str, list[dict[str, Any]]] = {}

    def settings(self) -> dict[str, Any]:
        return {**self.memory.settings(), "roles": list(self.roles)}

    def state(self) -> dict[str, Any]:
        return {"memory": self.settings()}

    def replay_spec(self) -> dict[str, Any]:
        return {"memory": self.settings()}

    @property
    def store(self) -> MemoryStore:
        return self.memory.store

    # --- one run ---------------------------------------------------------------------
    def begin(self, adapter: BaseAdapter, run: RunInfo) -> None:
        replayed = adapter.transcript if adapter.mode == "replay" else None
        carried = (carried_by(replayed) or []) if replayed else None
        self.reflection.open(run, carried, resumed=carried_by(adapter.prior))
        if adapter.recorder is not None:
            adapter.recorder.update_meta(memory={"carried": self.memory.carried()})

    def plant(self, adapter: BaseAdapter, lessons: Sequence[Mapping[str, Any]]) -> None:
        self.memory.plant(lessons, self.roles)

    def executed(self, request: DecisionRequest, report: ExecutionReport) -> None:
        self.reflection.executed(request.index, report)

    def run_completed(self) -> None:
        self.reflection.run_completed()

    def end(self) -> None:
        self.reflection.close()

    # --- one decision ------------------------------------------------------------------
    async def before_decision(
        self, adapter: BaseAdapter, request: DecisionRequest
    ) -> tuple[DecisionRequest, dict[str, Any]]:
        """Lessons on every decision whose outcome is known now; they go into the log
        entry. The request is unchanged: recall happens per role, in ``with_lessons``."""
        self.recalled = {}
        written: list[dict[str, Any]] = []
        for pending in self.reflection.due((request.day, request.step)):
            roles = [role for role in self.roles if role in pending.said]
            asks = [self._lesson(_committee(adapter), request, pending, role) for role in roles]
            written.extend(await asyncio.gather(*asks))
        return request, {"reflections": written}

    def after_decision(
        self, adapter: BaseAdapter, request: DecisionRequest, decision: Decision
    ) -> None:
        entry = adapter.entry_for(request)
        if entry is not None:
            self.remember(request, entry)

    async def answer(self, adapter: BaseAdapter, kind: str, sent: Any) -> Any:
        """A lesson, written by the reflecting role's own model."""
        if kind != REFLECT:
            return await super().answer(adapter, kind, sent)
        return await _committee(adapter).ask_role(sent)

    async def _lesson(
        self, committee: Committee, request: DecisionRequest, pending: Pending, role: str
    ) -> dict[str, Any]:
        advisor = committee.advisors[role]
        briefing = self.reflection.briefing(pending, role, request.payload)
        given: str | dict[str, Any] = briefing
        model = f"advisor:{type(advisor).__qualname__}"
        if isinstance(advisor, RoleAdvisor):
            instead = dataclasses.replace(advisor.spec, prompt=REFLECT_INSTRUCTIONS)
            model = advisor.model_name
            given = prompt_for(instead, advisor.persona, briefing, REFLECTION_PHASE)
        sent = {"role": role, "phase": REFLECTION_PHASE, "model": model, "input": given}
        key = digest(sent)
        text = checked_text(role, await committee.exchange(request, sent, key, kind=REFLECT))
        self.reflection.learn(pending, role, text, briefing, (request.day, request.step))
        return {"role": role, "day": pending.day, "step": pending.step, "key": key, "lesson": text}

    def with_lessons(self, role: str, payload: dict[str, Any]) -> dict[str, Any]:
        """A reflecting role's briefing with the lessons it recalls here; others unchanged."""
        if role not in self.roles or "memo" not in payload:
            return payload
        seen = payload["observation"]
        at = (seen["day"], seen["step"])
        recalled = self.reflection.recall(self.situation(payload["memo"]), role, at)
        self.recalled[role] = recalled
        return {**payload, "lessons": recalled}

    def situation(self, memo: list[dict[str, Any]]) -> str:
        """The first phase's reports, as one text."""
        return "\n\n".join(e["text"] for e in memo if e["phase"] == self.situation_phase)

    def remember(self, request: DecisionRequest, entry: dict[str, Any]) -> None:
        """Queue a decision: what each reflecting role said in it, and its situation."""
        answers = [*entry.get("roles", []), {**entry.get("executor", {}), "ok": True}]
        said: dict[str, list[str]] = {}
        for answer in answers:
            if answer.get("role") in self.roles and answer.get("ok", True):
                said.setdefault(answer["role"], []).append(str(answer.get("response")))
        briefs = [{"phase": r["phase"], "text": r["response"]} for r in entry.get("roles", [])]
        situation = self.situation(briefs)
        self.reflection.remember(request, situation, {r: "\n\n".join(t) for r, t in said.items()})
        entry["recalled"] = dict(sorted(self.recalled.items()))


def committee_memory(
    spec: CommitteeSpec, memory: Memory | Mapping[str, Any] | bool | None
) -> CommitteeMemory | None:
    """The committee's memory for ``memory=`` (None: none at all)."""
    given = as_memory(memory)
    return None if given is None else CommitteeMemory(spec, given)


def _committee(adapter: BaseAdapter) -> Committee:
    """The committee this hook belongs to (a ``CommitteeMemory`` is built by one)."""
    return cast("Committee", adapter)


def _reflecting_roles(spec: CommitteeSpec, chosen: tuple[str, ...] | None) -> tuple[str, ...]:
    names = [role.role for role in spec.roles]
    roles = chosen if chosen is not None else tuple(r for r in REFLECTING_ROLES if r in names)
    unknown = [r for r in roles if r not in names]
    if unknown:
        raise ConfigError(f"memory roles {unknown} are not roles of the committee; roles: {names}")
    first = {role.role for role in spec.phases[0].roles}
    early = [r for r in roles if r in first]
    if early:
        raise ConfigError(
            f"memory roles {early} speak in the first phase ({spec.phases[0].name!r}), whose "
            "reports are the situation lessons are recalled by; pick roles of later phases"
        )
    if not roles:
        raise ConfigError("memory needs at least one reflecting role; pass Memory(roles=[...])")
    return tuple(roles)


__all__ = ["REFLECTING_ROLES", "CommitteeMemory", "committee_memory"]
