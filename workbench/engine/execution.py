"""Stage two of validation, and fills: what the market makes of one decision.

A decision taken on the close of step t executes during step t+1:

- a market order walks the book from the opening touch of t+1, level by level;
- a limit order that is marketable at the open walks the book up to its limit;
  otherwise it rests for the step and fills at its limit, up to the book's
  depth, if the touch crosses it (buy: the step's lowest ask <= limit; sell: the
  highest bid >= limit);
- every order is clipped to MAX_PARTICIPATION of the symbol's volume in step t,
  the ``max_order`` the payload showed (shared by all orders of the decision on
  that symbol); the clip is recorded;
- the decision executes as a whole, exposure-reducing actions first: every sell
  of a name held long and every buy of a name held short (as held when the
  decision arrives) executes before the other actions, each group in the order
  given, so a rotation whose buy is listed before its sell is judged on the book
  the sell leaves. The order records stay in the order the actions were given,
  one per action;
- an action that would take gross exposure above the leverage cap (an order
  that adds exposure, checked on the book as the earlier actions left it),
  names an unknown symbol, or asks for zero shares is refused with a reason, and
  the rest of the decision still trades;
- the leverage cap binds orders only; prices can carry a book past it. The
  maintenance rule and bankruptcy (``workbench.engine.margin``) act on that: a
  book past the maintenance multiple (default 1.5 x the cap, 3x equity) is cut
  back to the cap by ordinary market orders in the next step, recorded with the
  reason ``liquidation``, and an arm whose equity reaches zero is bust.

Each arm pays its own spread, depth walk and fees; arms never see each other's
orders (the paired comparison runs on identical exogenous paths).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from workbench.engine.market import MarketPath
from workbench.schema import MAX_PARTICIPATION, Action, Decision

LIQUIDATION = "liquidation"  # the reason every forced order is recorded with


def max_order(volume: float) -> int:
    """The most shares one step's orders on a name may take: MAX_PARTICIPATION of
    ``volume``, the volume of the step the decision was taken on (the payload's
    ``max_order``)."""
    return math.floor(MAX_PARTICIPATION * volume)


def max_orders(volume: np.ndarray) -> np.ndarray | None:
    """``max_order`` of every volume at once (the same product, floored), or None when a
    volume is not a finite number of whole-share size, which ``max_order`` refuses."""
    scaled = np.floor(MAX_PARTICIPATION * volume)
    if not (np.isfinite(scaled).all() and (np.abs(scaled) < 2.0**53).all()):
        return None
    return scaled.astype(np.int64)


class OrderRecord(NamedTuple):
    """What the market made of one action: a row of ``Results.orders`` after its arm,
    day and step."""

    symbol: str
    side: str
    order_type: str
    limit_price: float | None
    requested: float  # the action's quantity
    quantity: float = 0.0  # shares filled
    price: float | None = None  # average fill price
    fee: float = 0.0
    status: str = "refused"  # filled, partial, unfilled or refused
    reason: str = ""  # why it was refused or fell short
    clipped: bool = False  # cut to the participation cap
    clipped_to: float | None = None  # the quantity it was cut to

    @classmethod
    def of(cls, action: Action, **outcome: Any) -> OrderRecord:
        """The record of ``action`` with the ``outcome`` fields set (refused by default)."""
        a = action
        return cls(a.symbol, a.side, a.order_type, a.limit_price, a.quantity, **outcome)


@dataclass
class Portfolio:
    """Cash and signed share positions of one arm, marked at mid."""

    cash: float
    positions: np.ndarray  # shares per name; negative is short
    leverage_cap: float
    fee_bps: float
    traded_notional: float = 0.0
    fees_paid: float = 0.0
    # the figures a payload last showed, and what they came from (see ``shown``)
    _shown: tuple[float, float, float] = field(
        default=(math.nan, math.nan, math.nan), init=False, repr=False, compare=False
    )
    _shown_from: tuple[float, ...] = field(default=(), init=False, repr=False, compare=False)

    # math.fsum is exact, so equity does not depend on which BLAS kernel the CPU picks
    def equity(self, mid: np.ndarray) -> float:
        return math.fsum((self.cash, *(self.positions * mid).tolist()))

    def gross(self, mid: np.ndarray) -> float:
        return math.fsum((np.abs(self.positions) * mid).tolist())

    def marks(self, mid: np.ndarray) -> tuple[float, float]:
        """``(equity(mid), gross(mid))`` from one product: prices are positive, so
        ``|position x price|`` is ``|position| x price`` to the bit."""
        return self.marks_of((self.positions * mid).tolist())

    def marks_of(self, values: list[float]) -> tuple[float, float]:
        """``marks`` from the position values at mid, worked out already (a run marks
        every arm's book from one product)."""
        if self.cash and not any(values):  # an empty book: fsum would give its cash and 0
            return self.cash, 0.0
        return math.fsum((self.cash, *values)), math.fsum(map(abs, values))

    def buying_power(self, mid: np.ndarray) -> float:
        return self.buying_power_at(*self.marks(mid))

    def buying_power_at(self, equity: float, gross: float) -> float:
        """Buying power at a mark whose equity and gross exposure are already known."""
        return max(0.0, self.leverage_cap * equity - gross)

    def shown(self, equity: float, gross: float) -> tuple[float, float, float]:
        """Cash, equity and buying power to the cent, as a payload shows them, at a mark
        whose equity and gross exposure are known; worked out again only when one of the
        three it comes from moved (a book that holds shows the same figures all run)."""
        source = (self.cash, equity, gross, self.leverage_cap)
        if self._shown_from != source or not (self.cash and equity):  # 0.0 == -0.0
            bought = self.buying_power_at(equity, gross)
            self._shown = (round(self.cash, 2), round(equity, 2), round(bought, 2))
            self._shown_from = source
        return self._shown

    def book_fill(self, i: int, signed_shares: float, cost: float) -> float:
        """Apply a fill of ``signed_shares`` costing ``cost`` (price x shares); return the fee."""
        fee = cost * self.fee_bps / 1e4
        self.positions[i] += signed_shares
        self.cash -= math.copysign(cost, signed_shares) + fee
        self.traded_notional += cost
        self.fees_paid += fee
        return fee


class _StepBook(NamedTuple):
    """Every name's book in one execution step, read from the path once for all arms."""

    step: int
    mark: np.ndarray  # the opening mid, each name's
    open_mid: list[float]
    low_mid: list[float]
    high_mid: list[float]
    half_spread: list[float]
    depth: list[float]
    volume: list[float]  # in the step before, where the decision was taken
    levels: int
    level_step: float


class Executor:
    """Executes decisions against one market path; one instance serves every arm."""

    def __init__(self, path: MarketPath) -> None:
        self.path = path
        self.index = {symbol: i for i, symbol in enumerate(path.universe.symbols)}
        self._book: _StepBook | None = None

    def execute(self, portfolio: Portfolio, decision: Decision, step: int) -> list[OrderRecord]:
        """Execute ``decision`` during ``step``, exposure-reducing actions first; return one
        order record per action, in the order the actions were given."""
        actions = decision.actions
        if not actions:
            return []
        book = self._step_book(step)
        if len(actions) == 1:
            return [self._one(portfolio, actions[0], book, {})]
        cap_left: dict[int, float] = {}
        records: dict[int, OrderRecord] = {}
        for n in self._reducing_first(portfolio, actions):
            records[n] = self._one(portfolio, actions[n], book, cap_left)
        return [records[n] for n in range(len(actions))]

    def liquidate(self, portfolio: Portfolio, decision: Decision, step: int) -> list[OrderRecord]:
        """Execute forced orders (a margin call or a bust arm's close-out) like any order;
        each record's reason says ``liquidation``, then why it fell short, if it did."""
        records = self.execute(portfolio, decision, step)
        return [record._replace(reason=_forced(record.reason)) for record in records]

    def _reducing_first(self, portfolio: Portfolio, actions: list[Action]) -> list[int]:
        """The actions' positions, those reducing exposure first, each group in order."""
        positions, index = portfolio.positions.tolist(), self.index
        reducing: list[int] = []
        adding: list[int] = []
        for n, action in enumerate(actions):
            i = index.get(action.symbol)
            held = 0.0 if i is None else positions[i]
            reduces = held > 0 if action.side == "sell" else held < 0
            (reducing if reduces else adding).append(n)
        return reducing + adding

    def max_order(self, step: int, i: int) -> int:
        """The cap for an order executing in ``step``: the ``max_order`` its payload showed."""
        return max_order(self.path.volume.item(step - 1, i))

    def _step_book(self, step: int) -> _StepBook:
        """The book of ``step``, kept while the arms' decisions execute in it."""
        book = self._book
        if book is None or book.step != step:
            p = self.path
            book = _StepBook(
                step,
                p.open[step],
                p.open[step].tolist(),
                p.low[step].tolist(),
                p.high[step].tolist(),
                p.half_spread[step].tolist(),
                p.depth[step].tolist(),
                p.volume[step - 1].tolist(),
                p.levels,
                p.level_step,
            )
            self._book = book
        return book

    def _one(
        self, portfolio: Portfolio, action: Action, book: _StepBook, cap_left: dict[int, float]
    ) -> OrderRecord:
        i = self.index.get(action.symbol)
        if i is None:
            reason = f"unknown symbol {action.symbol!r}; trade a symbol listed in the payload"
            return OrderRecord.of(action, reason=reason)
        quantity = action.quantity
        if quantity <= 0:
            return OrderRecord.of(action, reason="zero quantity; leave the action out to hold")
        # max_order, inline (an order's most frequent call)
        available = cap_left[i] if i in cap_left else math.floor(MAX_PARTICIPATION * book.volume[i])
        wanted = quantity if quantity <= available else available  # min(quantity, available)
        clipped, clipped_to = (True, wanted) if wanted < quantity else (False, None)
        if wanted <= 0:
            reason = _cap_reason(max_order(book.volume[i]))
            return OrderRecord.of(action, reason=reason, clipped=clipped, clipped_to=clipped_to)
        sign = 1.0 if action.side == "buy" else -1.0
        held, price = portfolio.positions.item(i), book.open_mid[i]
        if abs(held + sign * wanted) * price > abs(held) * price:  # adds exposure: checked
            refusal = _leverage_refusal(portfolio, book.mark, i, sign * wanted)
            if refusal:
                return OrderRecord.of(
                    action, reason=refusal, clipped=clipped, clipped_to=clipped_to
                )
        filled, cost = _fill(book, i, sign, action.limit_price, wanted)
        market = action.order_type == "market"
        if filled == 0:
            reason = "the book had no depth" if market else "the price did not reach the limit"
            return OrderRecord.of(
                action, status="unfilled", reason=reason, clipped=clipped, clipped_to=clipped_to
            )
        cap_left[i] = available - filled
        fee = portfolio.book_fill(i, sign * filled, cost)
        status, reason = "filled", ""
        if filled < wanted:
            status, reason = (
                "partial",
                "book depth exhausted" + ("" if market else " within the limit"),
            )
        return _record((
            action.symbol, action.side, action.order_type, action.limit_price, quantity,
            filled, cost / filled, fee, status, reason, clipped, clipped_to,
        ))  # fmt: skip


# an OrderRecord from its twelve fields in order, without the Python frame of its __new__
_record = functools.partial(tuple.__new__, OrderRecord)


def _forced(why: str) -> str:
    return f"{LIQUIDATION}; {why}" if why else LIQUIDATION


def _cap_reason(cap: int) -> str:
    if cap <= 0:
        return (
            f"participation cap: {MAX_PARTICIPATION:.0%} of the volume leaves no whole share "
            "to trade in this name this step"
        )
    return f"participation cap: the {cap} shares this name allows this step are already used"


def _leverage_refusal(portfolio: Portfolio, mark: np.ndarray, i: int, delta: float) -> str:
    held, price = portfolio.positions.item(i), mark.item(i)
    before, after = abs(held) * price, abs(held + delta) * price
    if after <= before:
        return ""  # an order that does not add exposure is never refused for it
    values = (portfolio.positions * mark).tolist()  # portfolio.marks, without two calls
    equity, gross = math.fsum((portfolio.cash, *values)), math.fsum(map(abs, values))
    gross_other = gross - before
    limit = portfolio.leverage_cap * max(equity, 0.0)
    if gross_other + after <= limit:
        return ""
    # the largest trade in this direction keeps |held + q| <= (limit - gross_other) / price
    room = max(limit - gross_other, 0.0) / price if price > 0 else 0.0
    most = max(math.floor(room - math.copysign(1.0, delta) * held), 0)
    return (
        f"leverage cap: gross exposure would be {(gross_other + after) / max(equity, 1e-9):.2f}x "
        f"equity, above the cap of {portfolio.leverage_cap:g}x; at most {most} shares fit"
    )


def _fill(
    book: _StepBook, i: int, sign: float, limit: float | None, quantity: float
) -> tuple[float, float]:
    """Shares filled and their total cost (price x shares) on name ``i``, walking the book
    if marketable (``sign``: 1 to buy, -1 to sell)."""
    half_spread = book.half_spread[i]
    touch_price = book.open_mid[i] * (1 + sign * half_spread)
    if limit is not None and (limit < touch_price if sign > 0 else limit > touch_price):
        best = (book.low_mid[i] if sign > 0 else book.high_mid[i]) * (1 + sign * half_spread)
        crossed = best <= limit if sign > 0 else best >= limit
        # a resting order meets the same book depth a market order would walk
        filled = min(quantity, book.levels * book.depth[i]) if crossed else 0.0
        return filled, filled * limit
    return _walk(book.depth[i], book.levels, book.level_step, sign, touch_price, quantity, limit)


def _walk(
    depth: float,
    levels: int,
    level_step: float,
    sign: float,
    touch_price: float,
    quantity: float,
    limit: float | None,
) -> tuple[float, float]:
    filled = cost = 0.0
    for level in range(levels):
        price = touch_price * (1 + sign * level * level_step)
        if limit is not None and (price > limit if sign > 0 else price < limit):
            break
        take = min(depth, quantity - filled)
        filled += take
        cost += take * price
        if filled >= quantity:
            break
    return filled, cost
