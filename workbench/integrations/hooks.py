"""The seam where something joins an adapter's decisions without subclassing it.

An adapter (``BaseAdapter``) takes one ``hook=``: an object that is told of each
stage of a run and may ask the model questions of its own kind. The adapter calls,
in order:

- ``bound(adapter)`` once its mode and transcript are bound (refuse a bad setup here);
- ``begin(adapter, run)`` after the adapter began the run, ``plant(lessons)`` for
  canaries, then per decision ``before_decision(adapter, request)``: the request to
  ask with and the fields its decision-log entry gains, ``after_decision(request,
  decision)``, ``executed(request, report)``; at the end ``run_completed()`` and
  ``end()``.

Every question to the model carries a kind: ``"decide"`` is the adapter's own
(answered by its ``ask``); any other kind the hook asks with
``adapter.exchange(request, sent, key, kind=...)`` is answered by the hook's
``answer``. The hook's ``state()`` and ``replay_spec()`` join the adapter's, so a
replay under other hook settings is refused and a recording rebuilds the hook.
The memory (``workbench.memory.MemoryHook``) is one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from workbench.agents import DecisionRequest, ExecutionReport, RunInfo
from workbench.errors import ConfigError
from workbench.schema import Decision

if TYPE_CHECKING:
    from workbench.integrations.base import BaseAdapter

DECIDE = "decide"
"""The kind of the adapter's own question: its decision, answered by its ``ask``."""


class DecisionHook:
    """Joins an adapter's decisions at the seam; every stage is a no-op by default."""

    def state(self) -> dict[str, Any]:
        return {}

    def replay_spec(self) -> dict[str, Any]:
        return {}

    def bound(self, adapter: BaseAdapter) -> None:
        """The adapter's mode and transcripts are bound: refuse a setup that cannot run."""

    def begin(self, adapter: BaseAdapter, run: RunInfo) -> None:
        """The adapter began ``run``."""

    def plant(self, adapter: BaseAdapter, lessons: Sequence[Mapping[str, Any]]) -> None:
        """Canary lessons for a hook that keeps a store."""

    async def before_decision(
        self, adapter: BaseAdapter, request: DecisionRequest
    ) -> tuple[DecisionRequest, dict[str, Any]]:
        """The request the adapter asks with, and the fields its log entry gains."""
        return request, {}

    def after_decision(
        self, adapter: BaseAdapter, request: DecisionRequest, decision: Decision
    ) -> None:
        """The adapter decided ``decision`` for ``request`` (the request before the hook)."""

    def executed(self, request: DecisionRequest, report: ExecutionReport) -> None:
        """The market executed the decision for ``request``."""

    def run_completed(self) -> None:
        """The run reached its last step."""

    def end(self) -> None:
        """The run ended (or stopped)."""

    async def answer(self, adapter: BaseAdapter, kind: str, sent: Any) -> Any:
        """The raw answer to a question of ``kind`` the hook asked."""
        raise ConfigError(
            f"arm {adapter.name!r}: {type(self).__name__} asked a {kind!r} question it "
            "cannot answer; implement its answer()"
        )


__all__ = ["DECIDE", "DecisionHook"]
