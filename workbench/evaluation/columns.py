"""The scorecard's columns: one entry per column holds everything the column is.

A ``Column`` names the column, computes its value from one arm's run (``ArmRun``:
its equity curve, order counts, what the run tallied for it, the cadence and its
P&L attribution), and carries its glossary text (definition and pitfall), how the
terminal table shows it (label and format, or not at all) and whether it varies
between runs by nature (volatile: left out of digests). ``SCORECARD`` lists them in
column order; ``SCORECARD_COLUMNS``, the glossary's ``METRICS``, the terminal
table's columns and ``VOLATILE_COLUMNS`` are all read from it, so a new column is
one entry here.

The conventions behind the metrics (simple returns of marked-to-mid equity, day
returns, Sharpe with ddof=1 times sqrt(252), drawdown as a positive percentage, one-way
turnover, nothing computed past a bust) are ``workbench.evaluation.metrics``'.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.evaluation import metrics

if TYPE_CHECKING:
    from workbench.evaluation.scorecard import ArmTally


@dataclass(frozen=True)
class ArmRun:
    """What one arm's scorecard row is computed from."""

    curve: np.ndarray
    orders: Mapping[str, int]  # trades, clips and refusals
    tally: ArmTally
    steps_per_day: int
    sources: Mapping[str, np.ndarray]  # the attribution's "market" and "selection" per step

    @property
    def pnl(self) -> float:
        return metrics.pnl(self.curve)

    def until_bust(self) -> np.ndarray:
        return until_bust(self.curve, self.tally.bust_step, self.steps_per_day)


@dataclass(frozen=True)
class Column:
    """One scorecard column: its name, its value for an arm, and its glossary text."""

    name: str
    value: Callable[[ArmRun], Any]
    definition: str
    pitfall: str
    shown: tuple[str, str] | None = None  # (label, format) in the terminal table
    volatile: bool = False  # differs between runs by nature: left out of digests


def pnl_share_pct(part: np.ndarray, pnl: float) -> float:
    """A component's total (``part``, one value per step) as a percentage of the P&L;
    NaN when the P&L is zero (nothing to share out)."""
    if pnl == 0.0:
        return math.nan
    return math.fsum(part.tolist()) / pnl * 100.0


def until_bust(curve: np.ndarray, bust_step: int | None, steps_per_day: int) -> np.ndarray:
    """A bust arm's equity up to the close of the day it went bust: after that it holds
    no account, and a return on zero equity is undefined."""
    if bust_step is None:
        return curve
    return curve[: (bust_step // steps_per_day + 1) * steps_per_day]


SCORECARD: tuple[Column, ...] = (
    Column(
        "return_pct",
        lambda arm: metrics.total_return_pct(arm.curve),
        "Total simple return of the arm's equity, marked to mid, from the starting capital to "
        "the last step's close, in percent.",
        "One market path: a return is an outcome, not a skill estimate; compare across seeds.",
        shown=("return %", "{:+.2f}"),
    ),
    Column(
        "pnl",
        lambda arm: arm.pnl,
        "Final equity minus starting capital, in currency units, marked to mid.",
        "Scales with capital; compare return_pct across runs of different capital.",
        shown=("P&L", "{:+,.0f}"),
    ),
    Column(
        "pnl_market_pct",
        lambda arm: pnl_share_pct(arm.sources["market"], arm.pnl),
        "The attribution's market component (beta exposure x the market factor's return, and "
        "the drift every price carries, at the arm's passive exposure) summed over the run, "
        "as a percentage of pnl. Exact on the simulator, a regression estimate on historical "
        "bars. Null when pnl is 0.",
        "A share of a net figure: near-zero pnl makes it huge, and components of opposite "
        "sign make shares above 100 % or below 0; read the amounts in results.attribution.",
    ),
    Column(
        "pnl_selection_pct",
        lambda arm: pnl_share_pct(arm.sources["selection"], arm.pnl),
        "The attribution's selection component (each held name's own return: its "
        "idiosyncratic move and the change of its mispricing) summed over the run, as a "
        "percentage of pnl. Null when pnl is 0.",
        "On one path selection is mostly luck; compare it across seeds (the paired "
        "difference of selection P&L), not from one run.",
    ),
    Column(
        "sharpe",
        lambda arm: metrics.sharpe(arm.until_bust(), arm.steps_per_day),
        "Mean of day returns over their sample standard deviation (ddof=1), times sqrt(252), "
        "zero risk-free rate. Day returns run between the start and each day's close (no "
        "structural zero at one step a day). 0.0 when there are fewer than two day returns or "
        "no variation.",
        "Few days make it noisy; the best of many arms or runs is biased upward (multiple "
        "testing), so an in-sample winner needs confirming on fresh seeds.",
        shown=("Sharpe", "{:+.2f}"),
    ),
    Column(
        "max_drawdown_pct",
        lambda arm: metrics.max_drawdown_pct(arm.curve),
        "Largest peak-to-trough fall of step equity, as a positive percentage of the peak.",
        "Measured at step closes, so a deeper intraday dip is not seen.",
        shown=("max DD %", "{:.2f}"),
    ),
    Column(
        "turnover",
        lambda arm: metrics.turnover(arm.tally.traded_notional, arm.curve),
        "Traded notional divided by mean equity over the run; one-way, not annualised.",
        "Depends on run length; divide by days to compare runs of different length.",
        shown=("turnover", "{:.2f}"),
    ),
    Column(
        "trades",
        lambda arm: arm.orders["trades"],
        "Orders that filled in full or in part, forced liquidation orders included.",
        "A clipped order still counts once; see clips. Liquidation orders carry the reason "
        "'liquidation' in the orders.",
        shown=("trades", "{:d}"),
    ),
    Column(
        "clips",
        lambda arm: arm.orders["clips"],
        "Orders cut down to the participation cap (a share of the symbol's volume in the step).",
        "Many clips mean the arm wanted more size than the market could take.",
        shown=("clips", "{:d}"),
    ),
    Column(
        "refusals",
        lambda arm: arm.orders["refusals"],
        "Actions the market refused with a reason (leverage cap, unknown symbol, zero shares); "
        "the rest of the decision still traded.",
        "A refusal is the market's answer to a valid decision, not an agent failure.",
        shown=("refused", "{:d}"),
    ),
    Column(
        "bust",
        lambda arm: arm.tally.bust_step is not None,
        "True when the arm's equity reached zero or below at a step close: from that step it "
        "is not asked again, its equity is 0, and its positions are closed by liquidation "
        "orders. Its Sharpe is computed up to the close of the day it went bust.",
        "A bust arm's return is -100 % whatever the market did later; compare bust arms by "
        "when they went bust (bust_step). Its Sharpe, a ratio of arithmetic daily returns, "
        "can stay positive when large gains came before the ruin: read bust first.",
    ),
    Column(
        "bust_step",
        lambda arm: arm.tally.bust_step,
        "Index of the trading step (0-based, as in the equity frame) at whose close the arm "
        "went bust, or null.",
        "A step, not a day: divide by steps_per_day for the day.",
    ),
    Column(
        "errors",
        lambda arm: arm.tally.errors,
        "Decisions that failed: an invalid answer (DecisionError) or a framework or network "
        "failure (FrameworkError). The arm holds for that step. A spent budget "
        "(BudgetExhausted) counts once: the arm is asked nothing more and holds to the end.",
        "A failed arm and a declining arm are never the same: holding by choice is not an error.",
        shown=("errors", "{:d}"),
    ),
    Column(
        "last_error",
        lambda arm: arm.tally.last_error,
        "Type and message of the arm's most recent failed decision, or null.",
        "Only the last one; the full list is in the run's errors.",
    ),
    Column(
        "decisions",
        lambda arm: arm.tally.decisions,
        "Times the arm was asked for a decision. Every arm is asked once per trading day "
        "unless its every says 'step' or a number of steps.",
        "Arms with another cadence (every) are asked more or less often; an arm under a "
        "margin call or bust is not asked.",
        shown=("decisions", "{:d}"),
    ),
    Column(
        "model_calls",
        lambda arm: arm.tally.model_calls,
        "Model requests the arm made (recorded calls when replayed).",
        "Zero for rule-based baselines.",
        shown=("calls", "{:d}"),
    ),
    Column(
        "tokens",
        lambda arm: arm.tally.tokens,
        "Input plus output tokens reported by the framework (as recorded when replayed).",
        "Provider counts differ; compare within one provider.",
    ),
    Column(
        "cost_usd",
        lambda arm: arm.tally.cost_usd,
        "US dollars the arm's model calls cost at the price table the adapter was given "
        "(prices=, per million input, cached-input and output tokens); the recorded cost "
        "when replayed, and a replay spends nothing.",
        "Empty (NaN) when a call was made at no known price: no price is assumed for a model "
        "missing from the table. Zero for rule-based baselines.",
        shown=("cost $", "{:.4g}"),
    ),
    Column(
        "latency_s",
        lambda arm: arm.tally.latency_s,
        "Wall-clock seconds spent waiting for the arm's decisions.",
        "Varies between runs; it is left out of result digests and audit summaries.",
        volatile=True,
    ),
)

SCORECARD_COLUMNS = tuple(column.name for column in SCORECARD)
# Wall-clock columns differ between runs by nature; they are left out of digests.
VOLATILE_COLUMNS = tuple(column.name for column in SCORECARD if column.volatile)
# column -> (label, format) of the columns the terminal table shows, in order
SHOWN = {column.name: column.shown for column in SCORECARD if column.shown}
# column -> (definition, pitfall): the glossary's scorecard entries
GLOSSARY = {column.name: (column.definition, column.pitfall) for column in SCORECARD}


def scorecard_row(arm: ArmRun) -> dict[str, Any]:
    """One arm's scorecard row, in column order."""
    return {column.name: column.value(arm) for column in SCORECARD}


__all__ = [
    "GLOSSARY",
    "SCORECARD",
    "SCORECARD_COLUMNS",
    "SHOWN",
    "VOLATILE_COLUMNS",
    "ArmRun",
    "Column",
    "pnl_share_pct",
    "scorecard_row",
    "until_bust",
]
