"""Margin: what happens when prices, not orders, carry a book past the leverage cap.

The leverage cap (``Portfolio.leverage_cap``, 2x by default) binds orders only: an
order that would take gross exposure above cap x equity is refused. Between
orders, prices move the book. At every step close each arm's book is marked at
mid, and:

- **bust** — an arm whose equity is zero or below is bust from that step on. It is
  never asked again; its equity in the results is 0 from that step to the end
  (the shortfall is the lender's, not a negative equity); and from the next step
  on every position it still holds is closed with market orders, as far as the
  participation cap lets each step, until the book is flat. The proceeds do not
  revive the arm.
- **maintenance** — an arm whose gross exposure exceeds the maintenance multiple
  of its equity (``maintenance_multiple``, 1.5 x the cap by default: 3x) is under
  a margin call. It is not asked at that close; instead every position is cut
  pro rata, in whole shares rounded up, by market orders executed in the next
  step, so that at that close's marks gross exposure comes back to cap x equity.
  What the participation cap leaves uncut is cut at the next close if the book
  is still past the maintenance multiple.

Forced orders are ordinary orders: they pay the spread, walk the depth, are
clipped to the participation cap and pay fees, and they are recorded in the
orders with the reason ``liquidation`` (``liquidation; <why>`` when one filled
short). They count in the arm's trades and turnover.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from workbench.engine.execution import Portfolio
from workbench.schema import Action, Decision


def is_bust(equity: float) -> bool:
    return equity <= 0.0


def margin_call(gross: float, equity: float, maintenance: float) -> bool:
    """True when a book of ``gross`` exposure holds more than ``maintenance`` x its equity."""
    return bool(gross > maintenance * equity)


def deleverage(portfolio: Portfolio, mid: np.ndarray, symbols: tuple[str, ...]) -> Decision:
    """Market orders cutting every position pro rata to gross = cap x equity at ``mid``."""
    equity, gross = portfolio.marks(mid)
    target = portfolio.leverage_cap * max(equity, 0.0)
    cut = 1.0 - target / gross if gross > 0 else 0.0
    sizes = np.minimum(np.abs(portfolio.positions), np.ceil(cut * np.abs(portfolio.positions)))
    return _reducing(portfolio.positions, sizes, symbols, "maintenance: gross above the multiple")


def close_out(portfolio: Portfolio, symbols: tuple[str, ...]) -> Decision:
    """Market orders closing every position of a bust arm."""
    return _reducing(portfolio.positions, np.abs(portfolio.positions), symbols, "bust: close out")


def _reducing(
    positions: np.ndarray, sizes: np.ndarray, symbols: tuple[str, ...], why: str
) -> Decision:
    actions = []
    for i in np.flatnonzero(sizes > 0).tolist():
        side: Literal["buy", "sell"] = "sell" if positions[i] > 0 else "buy"
        actions.append(Action(symbol=symbols[i], side=side, quantity=float(math.ceil(sizes[i]))))
    return Decision(actions=actions, rationale=why)
