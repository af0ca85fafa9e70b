"""Where two runs of one arm parted, and how much of their P&L gap each parting made.

Two runs on the same market path differ only by their decisions. Each run is
re-executed once with its arm *taped* (``Taped``: every answer kept by trading
step, the answers themselves unchanged). Two decisions part when their actions
differ; an ask that failed trades nothing, like a hold, and a rationale alone is
not a parting. Call the steps where they part d_1 < ... < d_n.

The gap is split by telescoping hybrids. Hybrid H_k plays A's recorded decisions
before d_k and B's from d_k on (H_{n+1} is A throughout; H_1 trades as B, since the
runs agree before d_1). Consecutive hybrids differ at d_k alone, so

    part_k = E(H_k) - E(H_{k+1})        (E: final equity; P&L is E minus capital)
    part_1 + ... + part_n = E(H_1) - E(H_{n+1}) = E(B) - E(A) = the P&L gap,

each part being what B's decision at d_k made, given A's path before it and B's
decisions after it. The hybrids are played back (``Playback``) from the recorded
decisions through the real engine, all in one evaluation (each arm keeps its own
book, so arms never touch each other): no model is called. The sum is exact in
real arithmetic; ``residual`` is the exact rational gap minus the exact sum of the
float parts, 0.0 when every part is an exact float difference (Sterbenz: always
when the hybrids' final equities lie within a factor two of each other).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pandas as pd

from workbench.agents import Agent, DecisionRequest, ExecutionReport, RunInfo, Usage
from workbench.errors import ConfigError
from workbench.evaluation.results import Results
from workbench.schema import Decision

HOLD = Decision.of([])
DIVERGENCE_COLUMNS = ("index", "day", "step", "a", "b", "pnl_part", "share_of_gap")


@dataclass(frozen=True)
class Asked:
    """One decision point of one arm: what it answered (or the error it failed with)."""

    index: int
    day: int
    step: int
    decision: Decision | None  # None when the ask failed
    error: str = ""

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions as canonical JSON, the form two decisions are compared in."""
        if self.decision is None:
            return ()
        return tuple(json.dumps(a.to_json(), sort_keys=True) for a in self.decision.actions)

    @property
    def rationale(self) -> str:
        """The arm's reason as it gave it; the error when it failed or was not asked."""
        if self.error or self.decision is None:
            return self.error
        return self.decision.rationale

    def describe(self) -> str:
        if self.decision is None:
            return f"failed ({self.error}): trades nothing"
        if self.error:  # a step the run was not asked at
            return f"{self.error}: holds"
        if not self.decision.actions:
            return "hold"
        return "; ".join(_action_text(a.to_json()) for a in self.decision.actions)


class Taped(Agent):
    """``inner`` with every answer kept by trading step (``tape``); its answers unchanged."""

    def __init__(self, inner: Agent) -> None:
        self.inner = inner  # before Agent's __init__, which sets usage (the inner arm's)
        super().__init__(inner.name, every=inner.every)
        self.shares_payload, self.reads_news = inner.shares_payload, inner.reads_news
        self.tape: dict[int, Asked] = {}

    @property
    def usage(self) -> Usage:
        """The inner arm's spending, read when the run ends (an arm may replace its own)."""
        return self.inner.usage

    @usage.setter
    def usage(self, value: Usage) -> None:
        """Agent's ``__init__`` gives every arm a fresh Usage; a wrapper keeps its arm's."""

    def begin(self, run: RunInfo) -> None:
        self.inner.begin(run)

    def plant_memory(self, lessons: Sequence[Mapping[str, Any]]) -> None:
        self.inner.plant_memory(lessons)

    async def answer(self, request: DecisionRequest) -> Decision:
        where = (request.index, request.day, request.step)
        try:
            decision = await self.inner.answer(request)
        except Exception as exc:
            self.tape[request.index] = Asked(*where, None, f"{type(exc).__name__}: {exc}")
            raise
        self.tape[request.index] = Asked(*where, decision)
        return decision

    def after_execution(
        self, request: DecisionRequest, decision: Decision, report: ExecutionReport
    ) -> None:
        self.inner.after_execution(request, decision, report)

    def run_completed(self) -> None:
        self.inner.run_completed()

    def end(self) -> None:
        self.inner.end()


class Playback(Agent):
    """An arm that answers with recorded decisions by trading step, and holds elsewhere.
    It answers on the loop from the payload's day and step (no task per decision)."""

    shares_payload = True
    inline = True

    def __init__(self, name: str, every: Any, decisions: Mapping[int, Decision]) -> None:
        super().__init__(name, every=every)
        self.decisions = dict(decisions)
        self.steps_per_day = 1

    def begin(self, run: RunInfo) -> None:
        self.steps_per_day = run.steps_per_day

    def decide(self, payload: dict[str, Any]) -> Decision:
        index = payload["day"] * self.steps_per_day + payload["step"]
        return self.decisions.get(index, HOLD)


@dataclass
class DecisionDiff:
    """Two runs of one arm compared decision by decision (see the module doc)."""

    a: str
    b: str
    arm_a: str
    arm_b: str
    capital: float
    equity_a: float  # final equity of the recorded runs
    equity_b: float
    hybrids: list[float]  # final equity of H_1 .. H_{n+1}
    divergences: list[tuple[Asked, Asked]]
    decisions: int  # decision points either run was asked at
    notes: list[str] = field(default_factory=list)
    # the two runs' results (A, B) when the diff was made from them: what a report draws
    runs: tuple[Results, Results] | None = field(default=None, repr=False, compare=False)

    @property
    def gap(self) -> float:
        """B's P&L minus A's (their final equities' difference)."""
        return self.equity_b - self.equity_a

    @property
    def parts(self) -> list[float]:
        return [self.hybrids[k] - self.hybrids[k + 1] for k in range(len(self.divergences))]

    @property
    def residual(self) -> float:
        """The exact gap minus the exact sum of the float parts (0.0: the split is exact)."""
        exact = Fraction(self.hybrids[0]) - Fraction(self.hybrids[-1])
        return float(exact - sum((Fraction(p) for p in self.parts), Fraction(0)))

    @property
    def reproduced(self) -> bool:
        """Whether the all-B and all-A hybrids ended exactly where the runs did."""
        return self.hybrids[0] == self.equity_b and self.hybrids[-1] == self.equity_a

    def first(self) -> dict[str, Any] | None:
        """The first parting: where, and both decisions with their rationales side by side."""
        if not self.divergences:
            return None
        left, right = self.divergences[0]
        return {
            "index": left.index,
            "day": left.day,
            "step": left.step,
            "a": left.describe(),
            "b": right.describe(),
            "rationale_a": left.rationale,
            "rationale_b": right.rationale,
        }

    def table(self) -> pd.DataFrame:
        """One row per parting: where, both decisions, its part of the gap and its share."""
        rows = [
            (left.index, left.day, left.step, left.describe(), right.describe(), part)
            for (left, right), part in zip(self.divergences, self.parts, strict=True)
        ]
        frame = pd.DataFrame(rows, columns=list(DIVERGENCE_COLUMNS[:-1]))
        frame["share_of_gap"] = frame["pnl_part"] / self.gap if self.gap else float("nan")
        return frame

    def summary(self) -> dict[str, Any]:
        """The diff as JSON-safe data."""
        frame = self.table()
        table = frame.astype(object).where(frame.notna(), None)
        return {
            "a": self.a,
            "b": self.b,
            "arms": [self.arm_a, self.arm_b],
            "pnl_a": self.equity_a - self.capital,
            "pnl_b": self.equity_b - self.capital,
            "gap": self.gap,
            "divergences": table.to_dict(orient="records"),
            "first": self.first(),
            "decision_points": self.decisions,
            "residual": self.residual,
            "reproduced": self.reproduced,
            "notes": list(self.notes),
        }


def partings(tape_a: Mapping[int, Asked], tape_b: Mapping[int, Asked]) -> list[tuple[Asked, Asked]]:
    """The steps where the two tapes' actions differ, in order (a step one run was not
    asked at counts as a hold there)."""
    found = []
    for index in sorted(set(tape_a) | set(tape_b)):
        left = tape_a.get(index) or _not_asked(tape_b[index])
        right = tape_b.get(index) or _not_asked(tape_a[index])
        if left.actions != right.actions:
            found.append((left, right))
    return found


def split_gap(
    run: Callable[[list[Agent]], Results],
    tapes: tuple[Taped, Taped],
    equities: tuple[float, float],
    *,
    labels: tuple[str, str],
    capital: float,
    runs: tuple[Results, Results] | None = None,
) -> DecisionDiff:
    """The hybrids of two taped arms played back through ``run`` (one evaluation on the
    runs' path), and the diff they make. ``equities`` are the runs' final equities;
    ``runs`` their results, kept on the diff for a report."""
    left, right = tapes
    divergences = partings(left.tape, right.tape)
    every = left.every if left.every == right.every else "step"
    hybrids = [
        Playback(f"hybrid-{k}", every, _hybrid(left.tape, right.tape, cut))
        for k, cut in enumerate([*(a.index for a, _ in divergences), None])
    ]
    results = run(list(hybrids))
    finals = [float(results.equity[h.name].iloc[-1]) for h in hybrids]
    diff = DecisionDiff(
        *labels,
        left.name,
        right.name,
        capital,
        *equities,
        finals,
        divergences,
        len(set(left.tape) | set(right.tape)),
        runs=runs,
    )
    if not diff.reproduced:
        diff.notes.append(
            "the hybrids that play all of B's or all of A's decisions did not end where the "
            "runs did; the parts sum to the hybrids' gap, not the runs'"
        )
    return diff


def final_equity(results: Results, arm: str) -> float:
    if arm not in results.equity.columns:
        raise ConfigError(f"arm {arm!r} is not in these results: {list(results.equity.columns)}")
    return float(results.equity[arm].iloc[-1])


def _hybrid(
    tape_a: Mapping[int, Asked], tape_b: Mapping[int, Asked], cut: int | None
) -> dict[int, Decision]:
    """A's decisions before step ``cut``, B's from it on (A's throughout when None)."""
    chosen = {i: a for i, a in tape_a.items() if cut is None or i < cut}
    if cut is not None:
        chosen |= {i: b for i, b in tape_b.items() if i >= cut}
    return {i: asked.decision or HOLD for i, asked in chosen.items()}


def _not_asked(other: Asked) -> Asked:
    return Asked(other.index, other.day, other.step, HOLD, "not asked")


def _action_text(action: Mapping[str, Any]) -> str:
    text = f"{action['side']} {action['quantity']:g} {action['symbol']}"
    if action.get("order_type") == "limit":
        text += f" limit {action['limit_price']:g}"
    return text
