"""Stage two of validation, and fills: what the market makes of one decision.

A decision taken on the close of step t executes during step t+1:

- a market order walks the book from the opening touch of t+1, level by level;
- a limit order that is marketable at the open walks the book up to its limit;
  otherwise it rests for the step and fills at its limit if the touch crosses it
  (buy: the step's lowest ask <= limit; sell: the highest bid >= limit);
- every order is clipped to MAX_PARTICIPATION of the symbol's volume in t+1
  (shared by all orders of the decision on that symbol); the clip is recorded;
- an action that would take gross exposure above the leverage cap, names an
  unknown symbol, or asks for zero shares is refused with a reason, and the rest
  of the decision still trades.

Each arm pays its own spread, depth walk and fees; arms never see each other's
orders (the paired comparison runs on identical exogenous paths).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.engine.market import MarketPath
from workbench.schema import MAX_PARTICIPATION, Action, Decision


@dataclass
class Portfolio:
    """Cash and signed share positions of one arm, marked at mid."""

    cash: float
    positions: np.ndarray  # shares per name; negative is short
    leverage_cap: float
    fee_bps: float
    traded_notional: float = 0.0
    fees_paid: float = 0.0

    def equity(self, mid: np.ndarray) -> float:
        return float(self.cash + self.positions @ mid)

    def gross(self, mid: np.ndarray) -> float:
        return float(np.abs(self.positions) @ mid)

    def buying_power(self, mid: np.ndarray) -> float:
        return max(0.0, self.leverage_cap * self.equity(mid) - self.gross(mid))


@dataclass(frozen=True)
class _Touch:
    """Book state for one symbol in the execution step."""

    open_mid: float
    low_mid: float
    high_mid: float
    half_spread: float
    depth: float
    levels: int
    level_step: float
    volume: float


class Executor:
    """Executes decisions against one market path; one instance serves every arm."""

    def __init__(self, path: MarketPath) -> None:
        self.path = path
        self.index = {symbol: i for i, symbol in enumerate(path.universe.symbols)}

    def execute(self, portfolio: Portfolio, decision: Decision, step: int) -> list[dict[str, Any]]:
        """Execute ``decision`` during ``step``; return one order record per action."""
        mark = self.path.open[step]
        cap_left: dict[int, float] = {}
        records = []
        for action in decision.actions:
            records.append(self._one(portfolio, action, step, mark, cap_left))
        return records

    def _one(
        self,
        portfolio: Portfolio,
        action: Action,
        step: int,
        mark: np.ndarray,
        cap_left: dict[int, float],
    ) -> dict[str, Any]:
        record = _record(action)
        i = self.index.get(action.symbol)
        if i is None:
            return _refuse(
                record,
                f"unknown symbol {action.symbol!r}; trade a symbol listed in "
                "the observation payload",
            )
        if action.quantity <= 0:
            return _refuse(record, "zero quantity; leave the action out to hold")
        available = cap_left.setdefault(
            i, math.floor(MAX_PARTICIPATION * self.path.volume[step, i])
        )
        wanted = min(action.quantity, available)
        if wanted < action.quantity:
            record["clipped"], record["clipped_to"] = True, wanted
        if wanted <= 0:
            return _refuse(
                record,
                f"participation cap: {MAX_PARTICIPATION:.0%} of this step's volume is already used",
            )
        sign = 1.0 if action.side == "buy" else -1.0
        refusal = _leverage_refusal(portfolio, mark, i, sign * wanted)
        if refusal:
            return _refuse(record, refusal)
        filled, cost = _fill(self._touch(step, i), action, wanted)
        if filled == 0:
            record.update(status="unfilled", reason="the price did not reach the limit")
            return record
        cap_left[i] = available - filled
        fee = cost * portfolio.fee_bps / 1e4
        portfolio.positions[i] += sign * filled
        portfolio.cash -= sign * cost + fee
        portfolio.traded_notional += cost
        portfolio.fees_paid += fee
        record.update(quantity=filled, price=cost / filled, fee=fee)
        record["status"] = "filled" if filled == wanted else "partial"
        if filled < wanted:
            record["reason"] = (
                "book depth exhausted"
                if action.order_type == "market"
                else ("book depth exhausted within the limit")
            )
        return record

    def _touch(self, step: int, i: int) -> _Touch:
        p = self.path
        return _Touch(
            open_mid=float(p.open[step, i]),
            low_mid=float(p.low[step, i]),
            high_mid=float(p.high[step, i]),
            half_spread=float(p.half_spread[step, i]),
            depth=float(p.depth[step, i]),
            levels=p.levels,
            level_step=p.level_step,
            volume=float(p.volume[step, i]),
        )


def _record(action: Action) -> dict[str, Any]:
    return {
        "symbol": action.symbol,
        "side": action.side,
        "order_type": action.order_type,
        "limit_price": action.limit_price,
        "requested": action.quantity,
        "quantity": 0.0,
        "price": None,
        "fee": 0.0,
        "status": "refused",
        "reason": "",
        "clipped": False,
        "clipped_to": None,
    }


def _refuse(record: dict[str, Any], reason: str) -> dict[str, Any]:
    record.update(status="refused", reason=reason)
    return record


def _leverage_refusal(portfolio: Portfolio, mark: np.ndarray, i: int, delta: float) -> str:
    equity = portfolio.equity(mark)
    before = abs(portfolio.positions[i]) * mark[i]
    after = abs(portfolio.positions[i] + delta) * mark[i]
    gross_after = portfolio.gross(mark) - before + after
    limit = portfolio.leverage_cap * max(equity, 0.0)
    if after <= before or gross_after <= limit:
        return ""
    room = max(0.0, limit - (gross_after - after) - before)
    most = math.floor(room / mark[i]) if mark[i] > 0 else 0
    return (
        f"leverage cap: gross exposure would be {gross_after / max(equity, 1e-9):.2f}x equity, "
        f"above the cap of {portfolio.leverage_cap:g}x; at most {most} more shares fit"
    )


def _fill(touch: _Touch, action: Action, quantity: float) -> tuple[float, float]:
    """Shares filled and their total cost (price x shares), walking the book if marketable."""
    buy = action.side == "buy"
    sign = 1.0 if buy else -1.0
    touch_price = touch.open_mid * (1 + sign * touch.half_spread)
    limit = action.limit_price
    if limit is not None and (limit < touch_price if buy else limit > touch_price):
        best = (touch.low_mid if buy else touch.high_mid) * (1 + sign * touch.half_spread)
        crossed = best <= limit if buy else best >= limit
        return (quantity, quantity * limit) if crossed else (0.0, 0.0)
    return _walk(touch, sign, touch_price, quantity, limit)


def _walk(
    touch: _Touch, sign: float, touch_price: float, quantity: float, limit: float | None
) -> tuple[float, float]:
    filled = cost = 0.0
    for level in range(touch.levels):
        price = touch_price * (1 + sign * level * touch.level_step)
        if limit is not None and (price > limit if sign > 0 else price < limit):
            break
        take = min(touch.depth, quantity - filled)
        filled += take
        cost += take * price
        if filled >= quantity:
            break
    return filled, cost
