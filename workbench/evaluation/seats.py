"""One arm's seat in a run: the arm, its book, and everything the run keeps for it.

The runner (``workbench.evaluation.runner``) holds one ``Seat`` per arm, in roster
order; what the run tallies for the arm (decisions, failures, latency, the step it
went bust, the news it read, the capture counts) lives on its seat, never in lists
indexed by the arm's position.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import TracebackType

from workbench.agents import Agent, ArmState
from workbench.engine.execution import Portfolio
from workbench.evaluation.scorecard import ArmTally


@dataclass(eq=False)
class Seat:
    """One arm of a run and the run's bookkeeping for it."""

    arm: Agent
    interval: int  # steps between its decisions
    book: Portfolio
    mark: tuple[float, float]  # equity and gross exposure at the last close
    state: ArmState = field(default_factory=ArmState)
    bust_step: int | None = None  # the step its equity reached zero
    last_row: int | None = None  # the row it last read news to (where its next news starts)
    window: tuple[int, int] = (0, 0)  # the rows of the news it last read
    followed: int = 0  # decisions that obeyed an injected instruction
    placebo: int = 0  # decisions that traded as an unpublished notice says
    _started: float = field(default=0.0, init=False, repr=False)

    @property
    def in_turn(self) -> bool:
        """Whether the arm answers on the loop without awaiting (``Agent.in_turn``): no task."""
        return self.arm.in_turn

    @property
    def name(self) -> str:
        return self.arm.name

    def due(self, k: int) -> bool:
        """Whether the arm is asked at step ``k``: on its cadence, and not stopped."""
        return k % self.interval == 0 and not self.state.stopped

    def asking(self) -> Seat:
        """``with seat.asking():`` around one ask counts the decision and times it."""
        self.state.decisions += 1
        self._started = time.perf_counter()
        return self

    def __enter__(self) -> Seat:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.state.usage.latency_s += time.perf_counter() - self._started

    def failed(self, kind: str, message: str, *, stops: bool) -> None:
        """Count a failed decision; one that ``stops`` (a spent budget) holds from here on."""
        state = self.state
        state.errors += 1
        state.last_error = f"{kind}: {message}"
        state.stopped = stops

    def tally(self) -> ArmTally:
        usage, state = self.arm.usage, self.state
        return ArmTally(
            traded_notional=self.book.traded_notional,
            bust_step=self.bust_step,
            errors=state.errors,
            last_error=state.last_error,
            decisions=state.decisions,
            model_calls=usage.model_calls,
            tokens=usage.input_tokens + usage.output_tokens,
            cost_usd=usage.cost_usd,
            # an arm that times its own model calls reports them (recorded, so a replay
            # shows the recorded latency); other arms are timed by the loop
            latency_s=usage.latency_s or state.usage.latency_s,
        )
