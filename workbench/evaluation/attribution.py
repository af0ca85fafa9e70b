"""Where an arm's P&L comes from, step by step: the maths, as pure functions from arrays.

Every trading step is split at its open into two *legs*: the **gap**, from the
last close to the open, held with the positions the arm had at that close, and
the **session**, from the open to the close, held with the positions after the
step's fills (a decision taken at a close executes from the next open). Over a
leg a name's mid moves from P0 to P1, and its log move L = log(P1 / P0) is a sum
of log components: on the simulator exactly the engine's own (the drift, beta x
the market factor, the sector factor, the change of the name's mispricing, and
its own shock, which is the remainder; ``workbench.engine.market``); on
historical bars the estimates of ``workbench.evaluation.factor_estimates``. The
arithmetic move is split in proportion to the log components,

    part_c = (P1 - P0) * l_c / L,

so the parts add up to the move, each has the sign of its log component, and a
small move's part is about P0 * l_c. The name's own part (selection) is the move
less the others, so the parts of every leg sum to its move exactly.

Components, in currency, which sum to the step's P&L:

- **market**: shares x the part of beta x market factor, plus the drift every
  price carries (the equity premium tilted by growth, less each name's variance
  correction: what bearing the market's risk earns at all), at the arm's
  *passive* exposure (see timing);
- **sector**: the same for the sector factors, at the passive sector exposures;
- **selection**: each name's own move, its idiosyncratic shock plus the change of
  its mispricing; ``selection_mispricing`` is the second part alone (the
  simulator knows it; unknown on historical bars), and ``selection_news`` the part
  of the name's own move that published items caused (earnings jumps and drift,
  company and sector news; 0 on a market that publishes none, unknown on
  historical bars): what reading could earn;
- **timing**: what the arm's trades earned by changing its exposure, against its
  own passive drift: each step's trades against holding, over that step's session,
  the book held at the step's open (a trade is credited for its own session only).
  Over a leg the arm's market exposure is X = sum of shares x
  (P1 - P0) x beta / L (currency per unit of factor log return, about its
  beta-weighted position value), so its market P&L is X x f for the leg's factor
  return f. Not trading keeps the book held at the step's open; the step's fills
  move the session's X by T, the exposure of the shares they traded, and
  ``timing_market`` is T x f over that session, market the rest of X x f. From
  the next step on the new book is the one held and its drift is market, as is
  every gap. The arm's first fills are its passive book and forced margin
  liquidations are the engine's orders, so neither is timed (``timed``): a book
  that buys once at market and holds has no timing, no arm has any after its last trade,
  and a step that holds nothing has no factor P&L at all. ``timing_sector`` does
  the same per sector. ``timing_entry`` is what a resting limit order gained by
  waiting: the move from the open to the mid at which the touch reached its limit,
  on every fill, the first book's included;
- **costs**: each fill against the mid: the half-spread at the touch
  (``costs_spread``), the walk through the book's levels beyond it
  (``costs_depth``) and fees (``costs_fees``); all negative or zero;
- **bust_floor**: the loss below zero equity on the step an arm goes bust, which
  the equity curve (0 from a bust on, never below) does not show; zero otherwise.

Measured beside the sum, never in it: ``lost_to_clips`` and ``lost_to_refusals``,
the mid-to-mid move the shares an order was cut (participation cap) or refused
(leverage cap) would have made from the open they were to fill at to the close
at which the arm next decided, before costs: opportunity lost, not P&L.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.engine import portable

COMPONENTS = ("market", "sector", "selection", "timing", "costs", "bust_floor")
DETAILS = (
    "timing_market",
    "timing_sector",
    "timing_entry",
    "selection_mispricing",
    "selection_news",
    "costs_spread",
    "costs_depth",
    "costs_fees",
)
LOST = ("lost_to_clips", "lost_to_refusals")


@dataclass(frozen=True)
class Leg:
    """One leg (gap or session) of every trading step, per share of every name.

    Shapes: K trading steps, N names, S sectors. ``sector`` is each name's sector
    index; ``mispricing`` is None when the source does not know it.
    """

    move: np.ndarray  # (K, N) P1 - P0
    per_log: np.ndarray  # (K, N) (P1 - P0) / L: what one unit of log move is worth
    beta: np.ndarray  # (K, N) loading on the market factor
    market: np.ndarray  # (K,) market factor log return
    loading: np.ndarray | None  # (K, N) loading on the name's sector factor; None: 1
    sector_factors: np.ndarray  # (K, S) sector factor log returns
    sector: np.ndarray  # (N,) sector index of each name
    drift: np.ndarray | None  # (K, N) log drift; None: none
    mispricing: np.ndarray | None  # (K, N) change of log mispricing
    news: np.ndarray | None = None  # (K, N) log move of fair value from published items


def per_log_move(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P1 - P0, (P1 - P0) / log(P1 / P0)); where the log move is 0 the second is P0."""
    move = end - start
    log_move = portable.log(end / start)
    moved = log_move != 0.0
    per_log = np.where(moved, move / np.where(moved, log_move, 1.0), start)
    return move, per_log


def group_sum(values: np.ndarray, groups: np.ndarray, count: int) -> np.ndarray:
    """Sum the last axis of ``values`` within each group: (..., N) -> (..., count)."""
    order, starts, present = _grouping(np.asarray(groups, dtype=np.int64).tobytes(), count)
    out = np.zeros((*values.shape[:-1], count))
    if present.any():
        out[..., present] = np.add.reduceat(values[..., order], starts, axis=-1)
    return out


@functools.lru_cache(maxsize=16)
def _grouping(groups: bytes, count: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The stable order that brings each group together, where each present group
    starts in it, and which groups are present (a run asks for the same few often)."""
    index = np.frombuffer(groups, dtype=np.int64)
    order = np.argsort(index, kind="stable")
    sizes = np.bincount(index, minlength=count)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    present = sizes > 0
    return order, starts[present], present


@dataclass(frozen=True)
class LegParts:
    """An arm's P&L on one leg, by source, and the exposures behind the factor parts."""

    total: np.ndarray  # (A, K) shares x move
    market_exposure: np.ndarray  # (A, K)
    market: np.ndarray  # (A, K) market_exposure x factor
    drift: np.ndarray  # (A, K)
    sector_exposure: np.ndarray  # (A, K, S)
    sector: np.ndarray  # (A, K, S) sector_exposure x factor
    mispricing: np.ndarray | None  # (A, K)
    news: np.ndarray | None  # (A, K)

    @property
    def selection(self) -> np.ndarray:
        return self.total - self.market - self.drift - self.sector.sum(axis=-1)


def leg_parts(holdings: np.ndarray, leg: Leg) -> LegParts:
    """Split ``holdings`` (A, K, N shares over the leg) x each name's move into its sources."""
    worth = holdings * leg.per_log
    market_exposure = (worth * leg.beta).sum(axis=-1)
    sectors = leg.sector_factors.shape[-1]
    loaded = worth if leg.loading is None else worth * leg.loading
    sector_exposure = group_sum(loaded, leg.sector, sectors)
    no_drift = np.zeros(holdings.shape[:2])
    return LegParts(
        total=(holdings * leg.move).sum(axis=-1),
        market_exposure=market_exposure,
        market=market_exposure * leg.market,
        drift=no_drift if leg.drift is None else (worth * leg.drift).sum(axis=-1),
        sector_exposure=sector_exposure,
        sector=sector_exposure * leg.sector_factors,
        mispricing=None if leg.mispricing is None else (worth * leg.mispricing).sum(axis=-1),
        news=None if leg.news is None else (worth * leg.news).sum(axis=-1),
    )


def passive_and_timing(
    gap_exposure: np.ndarray,
    session_exposure: np.ndarray,
    timed_exposure: np.ndarray,
    factors: tuple[np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray]:
    """Factor P&L at the arm's passive exposure, and the timing part its trades added.

    Exposures are (A, K, F) (F factors: 1 for the market, S for sectors), over each
    step's gap and session; ``timed_exposure`` is the session exposure of the shares
    that the step's timed fills (``timed``) traded, and ``factors`` the (K, F) gap
    and session factor returns. Not trading would have kept the book the arm held
    at the open, so what the traded shares earned over the session is timing and
    the rest market. Returns two (A, K) arrays, summed over the factors; they add up
    to what the exposures earned.
    """
    gap_factor, session_factor = factors
    timing = timed_exposure * session_factor
    earned = gap_exposure * gap_factor + session_exposure * session_factor
    return (earned - timing).sum(axis=-1), timing.sum(axis=-1)


@dataclass(frozen=True)
class Fills:
    """Every fill of a run, one entry each: who, when (trading step), what, at what price."""

    arm: np.ndarray  # (F,) arm index
    step: np.ndarray  # (F,) trading step it executed in
    name: np.ndarray  # (F,) name index
    shares: np.ndarray  # (F,) signed: positive bought
    price: np.ndarray  # (F,) average fill price
    fee: np.ndarray  # (F,)
    limit: np.ndarray  # (F,) limit price, NaN for a market order
    open: np.ndarray  # (F,) the mid at the step's open
    half_spread: np.ndarray  # (F,) fraction of mid, in the step
    forced: np.ndarray | None = None  # (F,) a margin liquidation, not the arm's order

    def only(self, keep: np.ndarray) -> Fills:
        """The fills where ``keep`` is True."""
        kept: dict[str, Any] = {}
        for field in dataclasses.fields(self):
            values = getattr(self, field.name)
            kept[field.name] = None if values is None else values[keep]
        return Fills(**kept)


def timed(fills: Fills, arms: int) -> np.ndarray:
    """Which fills changed the arm's exposure by its own choice after its first book:
    its orders (not a forced liquidation) in steps after the first it filled in."""
    chosen = np.ones(fills.arm.shape, bool) if fills.forced is None else ~fills.forced
    first = np.full(arms, np.iinfo(np.int64).max)
    np.minimum.at(first, fills.arm[chosen], fills.step[chosen])
    return chosen & (fills.step > first[fills.arm])


def fill_parts(fills: Fills) -> dict[str, np.ndarray]:
    """Per fill: costs_spread, costs_depth, costs_fees and timing_entry (all (F,))."""
    side = np.sign(fills.shares)
    size = np.abs(fills.shares)
    touch = fills.open * (1.0 + side * fills.half_spread)
    resting = np.where(side > 0, fills.limit < touch, fills.limit > touch)  # NaN: False
    # a resting order fills when the touch reaches its limit, at a mid of limit / (1 +- h)
    mid = np.where(resting, fills.price / (1.0 + side * fills.half_spread), fills.open)
    against_mid = fills.shares * (mid - fills.price)
    spread = np.where(resting, against_mid, -size * fills.open * fills.half_spread)
    return {
        "costs_spread": spread,
        "costs_depth": against_mid - spread,
        "costs_fees": -fills.fee,
        "timing_entry": fills.shares * (fills.open - mid),
    }


def traded_exposures(
    fills: Fills, leg: Leg, arms: int, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """(A, K) market and (A, K, S) sector exposure over the session ``leg`` of the shares
    each step's fills traded, summed fill by fill: no (A, K, N) array is made."""
    at = (fills.step, fills.name)
    worth = fills.shares * leg.per_log[at]
    market = per_step(worth * leg.beta[at], fills.arm, fills.step, (arms, steps))
    loaded = worth if leg.loading is None else worth * leg.loading[at]
    shape = (arms, steps, leg.sector_factors.shape[-1])
    where = np.ravel_multi_index((fills.arm, fills.step, leg.sector[fills.name]), shape)
    return market, _binned(loaded, where, shape)


def per_step(values: np.ndarray, arm: np.ndarray, step: np.ndarray, shape: tuple[int, int]):
    """Sum per-fill (or per-order) ``values`` into an (arms, steps) array, in their order."""
    return _binned(values, np.ravel_multi_index((arm, step), shape), shape)


def holdings(fills: Fills, arms: int, steps: int, names: int) -> np.ndarray:
    """(A, K, N) shares held after each step's fills."""
    shape = (arms, steps, names)
    at = np.ravel_multi_index((fills.arm, fills.step, fills.name), shape)
    return np.cumsum(_binned(fills.shares, at, shape), axis=1)


def _binned(values: np.ndarray, at: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    # bincount adds each bin's values one by one in their order from 0.0, as np.add.at does
    size = math.prod(shape)
    binned = np.bincount(at, weights=values, minlength=size)  # int64 when there is nothing
    return binned.astype(float, copy=False).reshape(shape)


def cash(fills: Fills, capital: float, arms: int, steps: int) -> np.ndarray:
    """(A, K) cash after each step's fills: capital less what was paid, fees included."""
    paid = per_step(fills.shares * fills.price + fills.fee, fills.arm, fills.step, (arms, steps))
    return capital - np.cumsum(paid, axis=1)


__all__ = [
    "COMPONENTS",
    "DETAILS",
    "LOST",
    "Fills",
    "Leg",
    "LegParts",
    "cash",
    "fill_parts",
    "group_sum",
    "holdings",
    "leg_parts",
    "passive_and_timing",
    "per_log_move",
    "per_step",
    "timed",
    "traded_exposures",
]
