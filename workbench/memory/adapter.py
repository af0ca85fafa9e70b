"""Memory and reflection for any adapter: ``class MyArm(Remembers, SomeAdapter)``.

``Remembers`` goes first among the bases of an adapter class (any
``BaseAdapter`` subclass) and adds three keywords to its constructor:

- ``memory=``: a ``Memory`` (or ``True`` for the defaults); ``None``, the
  default, is exactly the adapter without memory;
- ``reflect=``: what writes the lessons — a role model (``complete(prompt)``)
  or a function from the prompt to text, sync or async; a replay needs none;
- ``situation=``: ``payload -> text`` to match situations by (default
  ``workbench.memory.situation.describe``).

At each decision the arm first reflects on every earlier decision whose outcome
is now known (one recorded exchange each, keyed by the digest of its prompt),
then its payload gains ``lessons``: the ``k`` closest lessons visible at this
step, each ``{day, step, lesson}``. Settings go into the adapter state (so a
replay under others is refused) and the replay spec; the lessons a persisted
store carried into the run go into the transcript's meta, so a replay rebuilds
the same memory with no model and no store file.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from workbench._jsonio import canonical_json, digest
from workbench.agents import DecisionRequest, ExecutionReport, RunInfo
from workbench.errors import ConfigError, DecisionError
from workbench.integrations.base import BaseAdapter
from workbench.memory.reflection import Pending, Reflection, reflection_prompt
from workbench.memory.settings import Memory, as_memory, carried_by
from workbench.memory.situation import describe
from workbench.schema import Decision

Situation = Callable[[dict[str, Any]], str]


class Remembers(BaseAdapter):
    """Point-in-time memory and reflection for an adapter; see the module doc.

    A base class to put first: ``class MyArm(Remembers, CallableAgentAdapter)``."""

    def __init__(
        self,
        *args: Any,
        memory: Memory | dict[str, Any] | bool | None = None,
        reflect: Any = None,
        reflect_name: str | None = None,
        situation: Situation | None = None,
        **kwargs: Any,
    ) -> None:
        self.memory = as_memory(memory)
        if self.memory is not None and self.memory.roles is not None:
            raise ConfigError(
                f"Memory(roles={list(self.memory.roles)!r}) picks a committee's reflecting "
                "roles; an adapter arm reflects as one, so leave roles out here"
            )
        self.reflection = Reflection(self.memory) if self.memory is not None else None
        self.reflect_model = _model(reflect)
        self.reflect_name = reflect_name or getattr(self.reflect_model, "name", None)
        self.situation_of: Situation = situation or describe
        super().__init__(*args, **kwargs)
        if self.memory is not None and self.mode != "replay" and self.reflect_model is None:
            raise ConfigError(
                f"arm {self.name!r} has memory but nothing to write its lessons: pass "
                "reflect= (a role model or a function from prompt to text)"
            )

    # --- what a recording keeps ----------------------------------------------------
    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = super().state()
        if self.memory is None:
            return state
        return {**state, "memory": self.memory.settings(), "reflect": self.reflect_name}

    def replay_spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = super().replay_spec()
        if self.memory is not None:
            spec.update(memory=self.memory.settings(), reflect_name=self.reflect_name)
        return spec

    # --- one run -------------------------------------------------------------------------
    def begin(self, run: RunInfo) -> None:
        super().begin(run)
        if self.reflection is None:
            return
        replayed = self.transcript if self.mode == "replay" else None
        carried = (carried_by(replayed) or []) if replayed else None
        self.reflection.open(run, carried, resumed=carried_by(self.prior))
        if self.recorder is not None:
            assert self.memory is not None
            self.recorder.update_meta(memory={"carried": self.memory.carried()})

    def plant_memory(self, lessons: Sequence[Mapping[str, Any]]) -> None:
        if self.memory is not None:
            self.memory.plant(lessons, [self.name])

    def run_completed(self) -> None:
        super().run_completed()
        if self.reflection is not None:
            self.reflection.run_completed()

    def end(self) -> None:
        super().end()
        if self.reflection is not None:
            self.reflection.close()

    def after_execution(
        self, request: DecisionRequest, decision: Decision, report: ExecutionReport
    ) -> None:
        super().after_execution(request, decision, report)
        if self.reflection is not None:
            self.reflection.executed(request.index, report)

    # --- one decision ----------------------------------------------------------------------
    async def adecide(self, request: DecisionRequest) -> Decision:
        if self.reflection is None:
            return await super().adecide(request)
        at = (request.day, request.step)
        written = [await self._reflect(request, p) for p in self.reflection.due(at)]
        situation = self.situation_of(request.payload)
        recalled = self.reflection.recall(situation, self.name, at)
        asked = dataclasses.replace(request, payload={**request.payload, "lessons": recalled})
        opened = len(self.decision_log)
        try:
            decision: Decision = await super().adecide(asked)
        finally:
            if len(self.decision_log) > opened:  # this decision's entry was opened
                self.decision_log[-1].update(reflections=written, recalled=recalled)
        said = {self.name: canonical_json(decision.to_json())}
        self.reflection.remember(request, situation, said)
        return decision

    async def _reflect(self, request: DecisionRequest, pending: Pending) -> dict[str, Any]:
        assert self.reflection is not None
        role: str = self.name
        briefing = self.reflection.briefing(pending, role, request.payload)
        prompt = reflection_prompt(role, briefing)
        sent = {"reflection": {"role": role, "model": self.reflect_name, "prompt": prompt}}
        text = await self.exchange(request, sent, digest(sent))
        if not isinstance(text, str):
            raise DecisionError(
                f"arm {role!r}: a lesson is text, but the reflection answered with "
                f"{type(text).__name__}"
            )
        self.reflection.learn(pending, role, text, briefing, (request.day, request.step))
        return {"day": pending.day, "step": pending.step, "lesson": text}

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        if isinstance(sent, dict) and set(sent) == {"reflection"}:
            return await self._write_lesson(sent["reflection"]["prompt"])
        return await super().ask(request, sent)

    async def _write_lesson(self, prompt: str) -> str:
        if self.reflect_model is None:
            raise ConfigError(f"arm {self.name!r} needs reflect= to write lessons")
        reply = await self.reflect_model.complete(prompt)
        self.note_usage(
            input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, model_calls=1
        )
        return str(reply.text)

    def lessons(self) -> Any:
        """Every lesson of the last run as a DataFrame (see ``MemoryStore.frame``)."""
        if self.memory is None:
            raise ConfigError(f"arm {self.name!r} has no memory; build it with memory=")
        return self.memory.store.frame()


def _model(reflect: Any) -> Any:
    """A role model from ``reflect=``: one already (``complete``) or a function wrapped."""
    if reflect is None or inspect.iscoroutinefunction(getattr(reflect, "complete", None)):
        return reflect
    if not callable(reflect):
        raise ConfigError(
            f"reflect= must be a role model or a function from prompt to text, got {reflect!r}"
        )
    from workbench.integrations.text_models import CallableModel

    return CallableModel(reflect)


__all__ = ["Remembers", "Situation"]
