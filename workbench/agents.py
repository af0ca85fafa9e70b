"""The one interface every arm implements: baselines, adapters and committees alike.

The evaluation asks an arm at a decision point with a ``DecisionRequest``; the
arm answers with a decision (a ``Decision``, a mapping or a JSON string), which
the evaluation validates in two stages and executes. After execution the arm is
told what happened (``after_execution``), so an adapter can keep one record per
decision from observation to order.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from workbench._checks import is_whole
from workbench.errors import ConfigError
from workbench.schema import Decision, parse_decision

if TYPE_CHECKING:
    from workbench.engine.execution import OrderRecord

Every = Literal["day", "step"] | int
"""How often an arm is asked: ``"day"`` (the default: once per trading day, at the
close of the day's first step), ``"step"`` (at every step's close) or a whole number
N (at every Nth step's close, counted from the first; N steps are N days on
historical bars, where a day is one step)."""


@dataclass(frozen=True)
class PresetStamp:
    """The market an observation came from: fingerprint and full dial vector."""

    name: str
    vector: dict[str, float]


@dataclass(frozen=True)
class RunInfo:
    """What an arm is told once, before the market opens."""

    arm: str
    roster: tuple[str, ...]
    seed: int
    preset: PresetStamp
    symbols: tuple[str, ...]
    days: int
    steps_per_day: int
    ticks_per_step: int
    decision_interval: int  # steps between this arm's decisions: its ``every``, resolved
    # names the exogenous path whatever the universe size, days or mask (see World.market_path)
    market_path: str = ""
    model_cutoff: str | None = None  # the arm's training cutoff (YYYY-MM-DD), when given


@dataclass(frozen=True, slots=True)  # slots: built for every arm at every decision point
class DecisionRequest:
    """One question to one arm. ``payload`` is plain JSON; never mutate it."""

    arm: str
    day: int
    step: int  # the step of the day (see the glossary's STEPS)
    index: int  # the trading step, counted from the run's first
    payload: dict[str, Any]
    preset: PresetStamp


@dataclass
class Usage:
    """What an arm spent on models; baselines spend nothing."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    retries: int = 0  # requests an endpoint retried (429, 5xx, connection errors)
    cost_usd: float = 0.0  # US dollars; NaN once a call was made at no known price

    def add(self, other: Usage) -> None:
        for name in _USAGE_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))


_USAGE_FIELDS = tuple(item.name for item in dataclasses.fields(Usage))  # read once, not per add


@dataclass(frozen=True, slots=True)
class ExecutionReport:
    """What the market made of one decision.

    ``orders`` has one ``OrderRecord`` per action (symbol, side, order_type,
    limit_price, requested, quantity filled, price, fee, status, reason, clipped,
    clipped_to); ``clips`` and ``refusals`` are the records that were clipped to the
    participation cap or refused.
    """

    orders: tuple[OrderRecord, ...] = ()

    @property
    def clips(self) -> list[OrderRecord]:
        return [order for order in self.orders if order.clipped]

    @property
    def refusals(self) -> list[OrderRecord]:
        return [order for order in self.orders if order.status == "refused"]


class Agent:
    """Base of every arm. Override ``decide`` (sync) or ``adecide`` (async).

    ``every`` is the arm's cadence (see ``Every``): ``"day"`` by default, so every
    arm is asked once per trading day at the same step whatever ``steps_per_day``;
    ``"step"`` or a number of steps is a finer (or coarser) explicit choice. In
    between the arm holds.
    Each arm gets its own copy of the payload, so one arm cannot change what
    another sees; ``shares_payload = True`` skips the copy for arms known never
    to mutate it (the baselines): a subclass that writes its own ``decide`` or
    ``adecide`` and does not say it again gets its own copy; ``reads_news = False``
    says an arm never reads the payload's ``news`` (the price-only baselines), so on
    historical bars its payload carries none and a researcher's items are not masked
    for it; a class says it itself, a subclass that does not (one that adds a news
    signal to ``Momentum``) reads them. A synchronous
    ``decide`` runs in a worker thread so that a slow one does not hold up the other
    arms; ``inline = True`` runs it on the event loop instead, in turn with the other
    inline arms, for quick pure computations (the baselines): an inline arm answers
    with ``decide``, so it may not override ``adecide``.

    The evaluation takes each decision from ``answer`` (or ``answer_in_turn`` for an
    arm ``in_turn``: an inline arm, or an adapter replaying with no hook, which has
    nothing to await), the one point where an arm's answer is validated: whatever
    ``adecide`` or ``decide`` returned goes through ``parse_decision``, and an arm that
    validates its own answers (every ``BaseAdapter``) returns them from ``answer`` as
    they are.
    """

    name: str = "agent"
    every: Every = "day"
    shares_payload: bool = False
    reads_news: bool = True
    inline: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "reads_news" not in vars(cls):
            # a subclass of a price-only arm may read the news: it says so if it does not
            cls.reads_news = True
        if "shares_payload" not in vars(cls) and {"decide", "adecide"} & vars(cls).keys():
            # a payload it reads in its own way: shared only when it says it never mutates it
            cls.shares_payload = False
        if cls.inline and "adecide" in vars(cls):
            raise ConfigError(
                f"{cls.__name__} sets inline = True and overrides adecide: an inline arm "
                "answers with decide(payload) on the event loop; drop one of the two"
            )

    def __init__(self, name: str | None = None, *, every: Every | None = None) -> None:
        if name is not None:
            self.name = name
        if every is not None:
            self.every = check_every(every, self.name)
        self.usage = Usage()

    def begin(self, run: RunInfo) -> None:
        """Called once before the market opens; replays check their manifest here."""

    def plant_memory(self, lessons: Sequence[Mapping[str, Any]]) -> None:
        """Called after ``begin`` in a run with canaries: lessons dated after the decisions
        they test (``day``, ``situation``, ``lesson``; see ``workbench.engine.canaries``),
        for an arm that keeps a memory store to write into it, each visible from its day.
        An arm without a store has nowhere to plant them."""

    def decide(self, payload: dict[str, Any]) -> Decision | dict[str, Any] | str:
        raise NotImplementedError(f"{type(self).__name__} must implement decide or adecide")

    async def adecide(self, request: DecisionRequest) -> Decision | dict[str, Any] | str:
        if self.inline:
            return self.decide(request.payload)
        return await asyncio.to_thread(self.decide, request.payload)

    async def answer(self, request: DecisionRequest) -> Decision:
        """This arm's validated decision for ``request``: what ``adecide`` returned, parsed."""
        return parse_decision(await self.adecide(request))

    @property
    def in_turn(self) -> bool:
        """Whether the evaluation takes this arm's decisions from ``answer_in_turn``, on
        the loop without a task: an ``inline`` arm, or one with nothing to await."""
        return self.inline

    def answer_in_turn(self, request: DecisionRequest) -> Decision:
        """``answer`` for an inline arm, on the loop without awaiting: ``decide``, parsed."""
        return parse_decision(self.decide(request.payload))

    def unseen_hold(self, news: bool) -> Decision | None:
        """The decision without actions this arm answers at its next decision point
        whatever its payload shows, when it can tell that without one; None (the default)
        when it cannot. An in-turn arm that says one is not asked at that point: no
        request is built, its ``decide`` is not called and ``after_execution`` is not
        called (so an arm whose ``after_execution`` does anything says None). ``news``:
        whether that payload would carry news. The baselines that hold say so
        (``Cash``, ``BuyAndHold`` once bought, a news reader without news)."""
        return None

    def after_execution(
        self, request: DecisionRequest, decision: Decision, report: ExecutionReport
    ) -> None:
        """Called after the market executed this arm's decision."""

    def run_completed(self) -> None:
        """Called once, before ``end``, when the run reached its last step (not when it
        stopped early): what the arm learnt covers the whole market path."""

    def end(self) -> None:
        """Called once after the market closes (or the run stopped)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, every={self.every})"


def check_every(every: Any, arm: str) -> Every:
    """``every`` if it is a cadence (``"day"``, ``"step"`` or a whole number >= 1)."""
    if every in ("day", "step"):
        return "day" if every == "day" else "step"
    if not is_whole(every) or every < 1:
        raise ConfigError(
            f"arm {arm!r}: every must be 'day' (once per trading day, the default), 'step' "
            f"(every step) or a whole number of steps >= 1, got {every!r}"
        )
    return every


def decision_interval(every: Every, steps_per_day: int) -> int:
    """Steps between two decisions of an arm with cadence ``every``."""
    if every == "day":
        return steps_per_day
    if every == "step":
        return 1
    return int(every)


@dataclass
class ArmState:
    """Run bookkeeping the evaluation keeps per arm (not visible to the arm)."""

    decisions: int = 0
    errors: int = 0
    last_error: str = ""
    usage: Usage = field(default_factory=Usage)
    stopped: bool = False  # spent its budget: asked nothing more, it holds


__all__ = [
    "Agent",
    "DecisionRequest",
    "Every",
    "ExecutionReport",
    "PresetStamp",
    "RunInfo",
    "Usage",
    "check_every",
    "decision_interval",
]
