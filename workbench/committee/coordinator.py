"""Advisors and the coordinator that turns their advice into one labelled memo.

An ``Advisor`` has a ``role`` and one coroutine, ``advise(payload, phase) -> str``.
It gets a private copy of plain JSON (the agent-visible observation, the verified
snapshot and the memo so far: see ``briefing``) and answers in text. It is never
handed the committee, the portfolio or the market, so it has no way to place an
order; only the committee's executor answers with something that becomes orders.

``CommitteeCoordinator.build_memo`` runs the advisors of one phase concurrently
(``asyncio.gather``) and returns their entries in the advisors' order, never in
the order they finished, so a memo does not depend on timing. ``debate`` runs a
rotation of advisors turn by turn, each seeing the turns before it, for
``len(advisors) × rounds`` turns: 2 × rounds for bull ⇄ bear, 3 × rounds for the
three risk debaters, as in TradingAgents. An advisor that fails stays in the memo
as a failed entry naming the error; it is never dropped.

``consult`` is how one advisor is asked. The default calls ``advise`` directly;
the committee passes its own, which keys each exchange by a digest of the exact
input in its transcript, so a replay answers each role from the recording.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from workbench._jsonio import to_plain
from workbench.errors import DecisionError, FrameworkError, RunError, WorkbenchError

FAILED = "ADVISOR FAILED"


@runtime_checkable
class Advisor(Protocol):
    """A role that advises: text in, text out, no order path."""

    role: str

    async def advise(self, payload: dict[str, Any], phase: str) -> str: ...


@dataclass(frozen=True)
class Consultation:
    """One advisor's answer and how it was obtained (key, prompt and model, when known)."""

    text: str
    ok: bool = True
    error: str | None = None
    key: str | None = None
    prompt: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class MemoEntry:
    """One labelled piece of advice. ``turn`` numbers debate turns from 1 (0 outside debates)."""

    role: str
    phase: str
    text: str
    turn: int = 0
    ok: bool = True
    error: str | None = None
    key: str | None = None
    prompt: str | None = None
    model: str | None = None

    @property
    def label(self) -> str:
        where = f"{self.phase} turn {self.turn}" if self.turn else self.phase
        return f"[{where}] {self.role}" + ("" if self.ok else " (failed)")

    def brief(self) -> dict[str, Any]:
        """What later advisors see of this entry."""
        return {"role": self.role, "phase": self.phase, "turn": self.turn, "text": self.text}

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "phase": self.phase,
            "turn": self.turn,
            "model": self.model,
            "key": self.key,
            "prompt": self.prompt,
            "response": self.text,
            "ok": self.ok,
            "error": self.error,
        }


@dataclass(frozen=True)
class Memo:
    """Labelled advice in committee order."""

    entries: tuple[MemoEntry, ...] = field(default_factory=tuple)

    def __add__(self, other: Memo) -> Memo:
        return Memo(self.entries + other.entries)

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def failed(self) -> list[MemoEntry]:
        return [entry for entry in self.entries if not entry.ok]

    def by_role(self, role: str) -> list[MemoEntry]:
        return [entry for entry in self.entries if entry.role == role]

    def render(self) -> str:
        return "\n\n".join(f"{entry.label}\n{entry.text}" for entry in self.entries)

    def brief(self) -> list[dict[str, Any]]:
        return [entry.brief() for entry in self.entries]


Consult = Callable[[Advisor, dict[str, Any], str], Awaitable[Consultation]]


def briefing(
    base: dict[str, Any], memo: Memo, phase: str, role: str, turn: int = 0
) -> dict[str, Any]:
    """A private plain-JSON copy of what one advisor may see: ``base`` plus the memo so far."""
    return to_plain({**base, "phase": phase, "role": role, "turn": turn, "memo": memo.brief()})


def debate_turns(advisors: Sequence[Any], rounds: int) -> list[Any]:
    """Who speaks at each turn: the rotation repeated ``rounds`` times (ends at len × rounds)."""
    if rounds < 1:
        raise ValueError(f"a debate needs at least one round, got {rounds}")
    return [advisors[count % len(advisors)] for count in range(len(advisors) * rounds)]


async def consult_directly(advisor: Advisor, payload: dict[str, Any], phase: str) -> Consultation:
    """The default ``consult``: await ``advise`` and insist on text."""
    return Consultation(text=checked_text(advisor.role, await advisor.advise(payload, phase)))


def checked_text(role: str, answer: Any) -> str:
    if not isinstance(answer, str):
        raise DecisionError(
            f"advisor {role!r} answered with {type(answer).__name__}; an advisor answers in "
            "text, and only the executor's answer becomes orders"
        )
    return answer


def failure_text(error: BaseException) -> str:
    return f"{FAILED} — {type(error).__name__}: {error}"


class CommitteeCoordinator:
    """Builds memos phase by phase; see the module doc."""

    def __init__(self, consult: Consult | None = None) -> None:
        self.consult: Consult = consult or consult_directly

    async def build_memo(
        self,
        base: dict[str, Any],
        phase: str,
        advisors: Sequence[Advisor],
        *,
        memo: Memo | None = None,
    ) -> Memo:
        """Ask every advisor of ``phase`` at once; entries come back in ``advisors`` order."""
        earlier = memo or Memo()
        asks = [
            self._entry(advisor, briefing(base, earlier, phase, advisor.role), phase, 0)
            for advisor in advisors
        ]
        answers = await asyncio.gather(*asks, return_exceptions=True)
        for answer in answers:  # every advisor has finished; a setup error stops the run
            if isinstance(answer, BaseException):
                raise answer
        return Memo(tuple(a for a in answers if isinstance(a, MemoEntry)))

    async def debate(
        self,
        base: dict[str, Any],
        phase: str,
        advisors: Sequence[Advisor],
        rounds: int,
        *,
        memo: Memo | None = None,
    ) -> Memo:
        """Turn by turn; each speaker sees the memo so far, including earlier turns."""
        so_far, spoken = memo or Memo(), Memo()
        for turn, advisor in enumerate(debate_turns(advisors, rounds), start=1):
            payload = briefing(base, so_far + spoken, phase, advisor.role, turn)
            spoken = spoken + Memo((await self._entry(advisor, payload, phase, turn),))
        return spoken

    async def _entry(
        self, advisor: Advisor, payload: dict[str, Any], phase: str, turn: int
    ) -> MemoEntry:
        try:
            answer = await self.consult(advisor, payload, phase)
        except (DecisionError, FrameworkError) as exc:  # the role's own failure: keep it
            answer = _failed(exc)
        except WorkbenchError:
            raise  # set-up or replay errors (ConfigError, ReplayMiss ...) stop the run
        except Exception as exc:
            answer = _failed(_wrapped(advisor.role, exc))
        return MemoEntry(
            role=advisor.role,
            phase=phase,
            text=answer.text,
            turn=turn,
            ok=answer.ok,
            error=answer.error,
            key=answer.key,
            prompt=answer.prompt,
            model=answer.model,
        )


def _wrapped(role: str, exc: Exception) -> FrameworkError:
    wrapped = FrameworkError(f"advisor {role!r} raised {type(exc).__name__}: {exc}")
    wrapped.__cause__ = exc
    return wrapped


def _failed(error: RunError) -> Consultation:
    return Consultation(
        text=failure_text(error), ok=False, error=f"{type(error).__name__}: {error}"
    )


__all__ = [
    "FAILED",
    "Advisor",
    "CommitteeCoordinator",
    "Consult",
    "Consultation",
    "Memo",
    "MemoEntry",
    "briefing",
    "checked_text",
    "consult_directly",
    "debate_turns",
    "failure_text",
]
