"""Memory and reflection for any adapter: ``SomeAdapter(..., hook=MemoryHook(...))``.

``MemoryHook`` joins an adapter at its decision seam (``workbench.integrations.hooks``);
no subclass is needed. It takes:

- ``memory``: a ``Memory`` (or ``True`` for the defaults, or recorded settings);
  an adapter given no hook is exactly the adapter without memory (``memory_hook``
  turns a ``memory=None`` keyword into no hook);
- ``reflect=``: what writes the lessons — a role model (``complete(prompt)``)
  or a function from the prompt to text, sync or async; a replay needs none;
- ``situation=``: ``payload -> text`` to match situations by (default
  ``workbench.memory.situation.describe``).

At each decision the arm first reflects on every earlier decision whose outcome
is now known (one recorded exchange of kind ``"reflect"`` each, keyed by the
digest of its prompt, answered by the hook's ``reflect``),
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
from workbench.integrations.hooks import DecisionHook
from workbench.memory.reflection import Pending, Reflection, reflection_prompt
from workbench.memory.settings import Memory, as_memory, carried_by
from workbench.memory.situation import describe
from workbench.schema import Decision

Situation = Callable[[dict[str, Any]], str]
REFLECT = "reflect"
"""The kind of the hook's questions: a lesson on an earlier decision."""


class MemoryHook(DecisionHook):
    """Point-in-time memory and reflection for an adapter; see the module doc.

    Give it to any adapter as ``hook=MemoryHook(memory=..., reflect=...)``."""

    def __init__(
        self,
        memory: Memory | dict[str, Any] | bool | None = True,
        *,
        reflect: Any = None,
        reflect_name: str | None = None,
        situation: Situation | None = None,
    ) -> None:
        checked = as_memory(memory)
        if checked is None:
            raise ConfigError("MemoryHook needs memory= (a Memory, its settings or True)")
        if checked.roles is not None:
            raise ConfigError(
                f"Memory(roles={list(checked.roles)!r}) picks a committee's reflecting "
                "roles; an adapter arm reflects as one, so leave roles out here"
            )
        self.memory: Memory = checked
        self.reflection = Reflection(checked)
        self.reflect_model = _model(reflect)
        self.reflect_name = reflect_name or getattr(self.reflect_model, "name", None)
        self.situation_of: Situation = situation or describe
        self._situations: dict[int, str] = {}  # by decision index, from recall to remember

    # --- what a recording keeps ----------------------------------------------------
    def state(self) -> dict[str, Any]:
        return {"memory": self.memory.settings(), "reflect": self.reflect_name}

    def replay_spec(self) -> dict[str, Any]:
        return {"memory": self.memory.settings(), "reflect_name": self.reflect_name}

    def bound(self, adapter: BaseAdapter) -> None:
        if adapter.mode != "replay" and self.reflect_model is None:
            raise ConfigError(
                f"arm {adapter.name!r} has memory but nothing to write its lessons: pass "
                "reflect= (a role model or a function from prompt to text)"
            )

    # --- one run -------------------------------------------------------------------------
    def begin(self, adapter: BaseAdapter, run: RunInfo) -> None:
        self._situations.clear()
        replayed = adapter.transcript if adapter.mode == "replay" else None
        carried = (carried_by(replayed) or []) if replayed else None
        self.reflection.open(run, carried, resumed=carried_by(adapter.prior))
        if adapter.recorder is not None:
            adapter.recorder.update_meta(memory={"carried": self.memory.carried()})

    def plant(self, adapter: BaseAdapter, lessons: Sequence[Mapping[str, Any]]) -> None:
        self.memory.plant(lessons, [adapter.name])

    def run_completed(self) -> None:
        self.reflection.run_completed()

    def end(self) -> None:
        self.reflection.close()

    def executed(self, request: DecisionRequest, report: ExecutionReport) -> None:
        self.reflection.executed(request.index, report)

    # --- one decision ----------------------------------------------------------------------
    async def before_decision(
        self, adapter: BaseAdapter, request: DecisionRequest
    ) -> tuple[DecisionRequest, dict[str, Any]]:
        """Reflect on every decision whose outcome is now known, then recall."""
        at = (request.day, request.step)
        written = [await self._reflect(adapter, request, p) for p in self.reflection.due(at)]
        situation = self._situations[request.index] = self.situation_of(request.payload)
        recalled = self.reflection.recall(situation, adapter.name, at)
        asked = dataclasses.replace(request, payload={**request.payload, "lessons": recalled})
        return asked, {"reflections": written, "recalled": recalled}

    def after_decision(
        self, adapter: BaseAdapter, request: DecisionRequest, decision: Decision
    ) -> None:
        said = {adapter.name: canonical_json(decision.to_json())}
        self.reflection.remember(request, self._situations.pop(request.index), said)

    async def _reflect(
        self, adapter: BaseAdapter, request: DecisionRequest, pending: Pending
    ) -> dict[str, Any]:
        role: str = adapter.name
        briefing = self.reflection.briefing(pending, role, request.payload)
        prompt = reflection_prompt(role, briefing)
        sent = {"reflection": {"role": role, "model": self.reflect_name, "prompt": prompt}}
        text = await adapter.exchange(request, sent, digest(sent), kind=REFLECT)
        if not isinstance(text, str):
            raise DecisionError(
                f"arm {role!r}: a lesson is text, but the reflection answered with "
                f"{type(text).__name__}"
            )
        self.reflection.learn(pending, role, text, briefing, (request.day, request.step))
        return {"day": pending.day, "step": pending.step, "lesson": text}

    async def answer(self, adapter: BaseAdapter, kind: str, sent: Any) -> Any:
        if kind != REFLECT:
            return await super().answer(adapter, kind, sent)
        if self.reflect_model is None:
            raise ConfigError(f"arm {adapter.name!r} needs reflect= to write lessons")
        reply = await self.reflect_model.complete(sent["reflection"]["prompt"])
        adapter.note_usage(
            input_tokens=reply.input_tokens, output_tokens=reply.output_tokens, model_calls=1
        )
        return str(reply.text)

    def lessons(self) -> Any:
        """Every lesson of the last run as a DataFrame (see ``MemoryStore.frame``)."""
        return self.memory.store.frame()


def memory_hook(
    memory: Memory | dict[str, Any] | bool | None,
    reflect: Any = None,
    reflect_name: str | None = None,
    situation: Situation | None = None,
) -> MemoryHook | None:
    """The hook for an adapter's ``memory=`` keyword: None (no memory) when it is None."""
    if memory is None or memory is False:
        return None
    return MemoryHook(memory, reflect=reflect, reflect_name=reflect_name, situation=situation)


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


__all__ = ["REFLECT", "MemoryHook", "Situation", "memory_hook"]
