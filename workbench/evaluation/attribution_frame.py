"""``results.attribution``: every arm's P&L per step, split by source (see ``attribution``).

``attribute(path, orders, equity, capital=..., intervals=...)`` rebuilds each
arm's positions and cash from its orders, splits each step's P&L with the
maths of ``workbench.evaluation.attribution`` and the legs of
``workbench.evaluation.factor_legs`` (exact on the simulator, a regression
estimate on historical bars, flagged in the ``estimated`` column), and returns
one row per arm and step. The components (``COMPONENTS``) sum to ``pnl``, the
step's change of the arm's equity; the details split timing, selection and
costs further; ``LOST`` is measured beside them, never added.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from workbench._checks import did_you_mean
from workbench.engine.execution import LIQUIDATION
from workbench.engine.market import MarketPath
from workbench.errors import ConfigError
from workbench.evaluation import attribution as at
from workbench.evaluation.factor_legs import estimated_legs, exact_legs
from workbench.evaluation.results import ORDER_COLUMNS

Method = Literal["exact", "regression"]
_ORDER_FIELDS = (
    "arm", "day", "step", "symbol", "side", "limit_price", "requested", "quantity", "price",
    "fee", "status", "reason", "clipped", "clipped_to",
)  # fmt: skip
_ROW_INDEX = {key: ORDER_COLUMNS.index(key) for key in _ORDER_FIELDS}  # in a run's rows
ATTRIBUTION_COLUMNS = (
    "arm",
    "day",
    "step",
    *at.COMPONENTS,
    "pnl",
    *at.DETAILS,
    *at.LOST,
    "estimated",
)


OrderRows = Sequence[Sequence[Any]]  # rows in ``ORDER_COLUMNS`` order, as a run builds them


@dataclass(frozen=True)
class Attribution:
    """Every arm's P&L per trading step, split by source: (arms, steps) arrays by name.

    ``frame()`` is ``results.attribution``; ``by_arm`` hands the scorecard its
    sources without building the frame first."""

    arms: tuple[str, ...]
    steps: int
    steps_per_day: int
    parts: Mapping[str, np.ndarray]
    estimated: bool
    unexplained: str | None = None  # why the parts do not sum to the P&L (None: they do)

    def by_arm(self, source: str) -> dict[str, np.ndarray]:
        """``source`` per step, one array per arm."""
        values = self.parts[source]
        return {arm: values[i] for i, arm in enumerate(self.arms)}

    def frame(self) -> pd.DataFrame:
        """One row per arm and trading step, ``ATTRIBUTION_COLUMNS``."""
        return _frame(list(self.arms), self.steps, self.steps_per_day, self.parts, self.estimated)


def attribute(
    path: MarketPath,
    orders: pd.DataFrame | OrderRows,
    equity: pd.DataFrame,
    *,
    capital: float,
    intervals: Mapping[str, int],
    method: Method | None = None,
) -> pd.DataFrame:
    """One row per arm and trading step (``ATTRIBUTION_COLUMNS``); see ``split_pnl``."""
    return split_pnl(
        path, orders, equity, capital=capital, intervals=intervals, method=method
    ).frame()


def split_pnl(
    path: MarketPath,
    orders: pd.DataFrame | OrderRows,
    equity: pd.DataFrame,
    *,
    capital: float,
    intervals: Mapping[str, int],
    method: Method | None = None,
    strict: bool = True,
) -> Attribution:
    """Split every arm's P&L per step by source.

    ``equity`` is the run's equity frame (steps x arms, 0 from a bust on),
    ``orders`` its orders (``results.orders``, or the run's rows in its column
    order), ``intervals`` each arm's steps between decisions. ``method`` is
    "exact" (the simulator's own factors; the default when the path has them) or
    "regression" (the estimate, the only choice on historical bars).

    Orders and equity that do not belong together (a column missing, a price that
    is not a number, a symbol of another universe, orders that do not account for
    the equity's moves) are refused with a ``ConfigError``, never split. With
    ``strict=False`` (a run splitting its own orders, which must not lose the run
    over a derived view) parts that do not sum are returned with the reason in
    ``Attribution.unexplained`` instead.
    """
    method = _method(path, method)
    arms, steps = list(equity.columns), len(equity)
    first = path.warmup_steps
    curve = _equity_curve(path, equity)  # (A, K)
    legs = (exact_legs if method == "exact" else estimated_legs)(path, first, steps)
    bust = _bust_steps(curve)
    read = _Orders.read(_order_columns(orders), arms, path, steps, bust)
    fills = read.fills(path)
    held = at.holdings(fills, len(arms), steps, path.universe.size)
    parts = _components(held, fills, legs, curve, bust)
    parts["bust_floor"] = _bust_floor(path, fills, held, curve, capital, bust, first)
    parts["pnl"] = np.diff(curve, axis=1, prepend=capital)
    parts.update(_lost(path, read, arms, steps, intervals))
    unexplained = _unexplained_pnl(parts, arms, path.steps_per_day, curve, capital)
    if unexplained and strict:
        raise ConfigError(f"{unexplained}. Pass the orders and equity of the same run, whole")
    return Attribution(
        tuple(arms), steps, path.steps_per_day, parts, method == "regression", unexplained
    )


def _order_columns(orders: pd.DataFrame | OrderRows) -> dict[str, list[Any]]:
    """The columns attribution reads, as lists, from the orders frame or a run's rows."""
    if isinstance(orders, pd.DataFrame):
        if not set(_ORDER_FIELDS) <= set(orders.columns):  # e.g. no orders at all, from JSON
            _refuse_missing_columns(orders)
            orders = orders.reindex(columns=list(_ORDER_FIELDS))
        table = orders.to_numpy(dtype=object)  # one conversion; columns taken from it
        return {key: table[:, orders.columns.get_loc(key)].tolist() for key in _ORDER_FIELDS}
    if not orders:
        return {key: [] for key in _ORDER_FIELDS}
    columns = list(zip(*orders, strict=True))
    return {key: list(columns[_ROW_INDEX[key]]) for key in _ORDER_FIELDS}


def _refuse_missing_columns(orders: pd.DataFrame) -> None:
    """An orders frame with rows has every column attribution reads (none: no orders)."""
    if orders.empty:
        return
    missing = [key for key in _ORDER_FIELDS if key not in orders.columns]
    extra = [str(c) for c in orders.columns if c not in ORDER_COLUMNS]
    hints = "".join(did_you_mean(key, extra) for key in missing)
    raise ConfigError(
        f"the orders frame has no column {', '.join(map(repr, missing))}.{hints} Pass "
        f"results.orders as the run returned it (columns {', '.join(ORDER_COLUMNS)})"
    )


def _equity_curve(path: MarketPath, equity: pd.DataFrame) -> np.ndarray:
    """The equity frame as (arms, steps) numbers: finite, and no longer than the path."""
    available = path.close.shape[0] - path.warmup_steps
    if len(equity) == 0 or len(equity.columns) == 0:
        raise ConfigError("the equity frame is empty: there is nothing to split")
    if len(equity) > available:
        raise ConfigError(
            f"the equity frame has {len(equity)} steps but the market path has {available}: "
            "pass the equity and the market path of the same run"
        )
    try:
        curve = equity.to_numpy(dtype=float).T
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"the equity frame must hold numbers ({exc})") from None
    if not np.isfinite(curve).all():
        arm, step = np.argwhere(~np.isfinite(curve))[0]
        raise ConfigError(
            f"the equity of arm {equity.columns[arm]!r} at row {step} is {curve[arm, step]}; "
            "equity is finite at every step (0 from a bust on): pass the run's equity frame"
        )
    return curve


def _unexplained_pnl(
    parts: Mapping[str, np.ndarray],
    arms: list[str],
    steps_per_day: int,
    curve: np.ndarray,
    capital: float,
) -> str | None:
    """None when the components sum to the equity's move at every step; otherwise where
    they do not: the orders are not the equity's (another run, rows missing or edited)."""
    summed = np.sum([parts[name] for name in at.COMPONENTS], axis=0)
    scale = np.maximum(np.abs(np.concatenate([np.full((len(arms), 1), capital), curve], 1)), 1.0)
    # not "> tolerance": a NaN part compares False with anything and must count as off
    off = ~(np.abs(summed - parts["pnl"]) <= 1e-8 * np.maximum(scale[:, 1:], scale[:, :-1]))
    if not off.any():
        return None
    arm, k = np.argwhere(off)[0]
    day, step = divmod(int(k), steps_per_day)
    return (
        f"the orders do not account for the equity of arm {arms[arm]!r} at day {day} "
        f"step {step}: they make {summed[arm, k]:.2f}, the equity moved "
        f"{parts['pnl'][arm, k]:.2f}"
    )


def _method(path: MarketPath, method: Method | None) -> Method:
    exact_known = path.market_factor is not None and path.mispricing is not None
    if method is None:
        return "exact" if exact_known else "regression"
    if method not in ("exact", "regression"):
        raise ConfigError(f"method must be 'exact' or 'regression', got {method!r}")
    if method == "exact" and not exact_known:
        raise ConfigError(
            "exact attribution needs the simulator's factor paths, which historical bars do "
            "not have; use method='regression' (an estimate)"
        )
    return method


def _bust_steps(curve: np.ndarray) -> np.ndarray:
    """Each arm's bust step (its first equity at or below zero), or the step count."""
    broke = curve <= 0.0
    return np.where(broke.any(axis=1), broke.argmax(axis=1), curve.shape[1])


@dataclass(frozen=True)
class _Orders:
    """The orders as arrays, once: who, what, when (trading step of execution), how much."""

    arm: np.ndarray
    name: np.ndarray
    step: np.ndarray
    side: np.ndarray  # +1 buy, -1 sell
    requested: np.ndarray
    quantity: np.ndarray
    price: np.ndarray
    fee: np.ndarray
    limit: np.ndarray  # NaN for a market order
    clipped: np.ndarray
    clipped_to: np.ndarray
    status: np.ndarray
    forced: np.ndarray  # a margin liquidation the engine placed, not the arm

    @classmethod
    def read(
        cls,
        columns: dict[str, list[Any]],
        arms: list[str],
        path: MarketPath,
        steps: int,
        bust: np.ndarray,
    ) -> _Orders:
        """The orders of ``arms`` on known symbols that executed by each arm's bust; an
        order stamped with the (day, step) it was decided at executes in the next step."""
        arm = _positions(columns["arm"], arms)
        name = _positions(columns["symbol"], path.universe.symbols)
        status = np.array(columns["status"], dtype=object)
        # a refused order may name any symbol; one that traded must be the path's
        if (unknown := (arm >= 0) & (name < 0) & _traded(status)).any():
            _refuse_other_symbols(np.array(columns["symbol"], dtype=object)[unknown], path)
        decided = _whole(columns["day"], "day") * path.steps_per_day
        step = decided + _whole(columns["step"], "step") + 1
        keep = (arm >= 0) & (name >= 0) & (step < steps)
        keep &= step <= bust[np.maximum(arm, 0)]

        def number(key: str) -> np.ndarray:  # None (no limit, no clip) is NaN
            return _numbers(columns[key])[keep]

        side = np.array(columns["side"], dtype=object)[keep]
        if (bad := (side != "buy") & (side != "sell")).any():
            raise _bad_orders(f"a side is {side[bad][0]!r}, not 'buy' or 'sell'")
        return cls(
            arm=arm[keep],
            name=name[keep],
            step=step[keep],
            side=np.where(side == "buy", 1.0, -1.0),
            requested=number("requested"),
            quantity=number("quantity"),
            price=number("price"),
            fee=number("fee"),
            limit=number("limit_price"),
            clipped=np.array(columns["clipped"], dtype=bool)[keep],
            clipped_to=number("clipped_to"),
            status=status[keep],
            forced=_forced(np.array(columns["reason"], dtype=object)[keep]),
        )

    def fills(self, path: MarketPath) -> at.Fills:
        filled = _traded(self.status)
        for key in ("quantity", "price", "fee"):
            values = getattr(self, key)[filled]
            if (bad := ~(np.isfinite(values) & (values >= 0))).any():
                raise _bad_orders(f"a filled order's {key} is {float(values[bad][0])}")
        filled &= self.quantity > 0
        step, name = self.step[filled], self.name[filled]
        rows = path.warmup_steps + step
        return at.Fills(
            arm=self.arm[filled],
            step=step,
            name=name,
            shares=(self.side * self.quantity)[filled],
            price=self.price[filled],
            fee=self.fee[filled],
            limit=self.limit[filled],
            open=path.open[rows, name],
            half_spread=path.half_spread[rows, name],
            forced=self.forced[filled],
        )


def _positions(values: list[Any], known: Sequence[str]) -> np.ndarray:
    """Each value's position in ``known``, -1 for one it does not hold: each distinct
    value looked up once (a run's 17,000 orders name a few arms and symbols)."""
    at = {value: i for i, value in enumerate(known)}
    try:
        found = {value: at.get(value, -1) for value in set(values)}
    except TypeError:  # a value that cannot be a key (a frame passed in may hold any)
        return np.array([at.get(value, -1) for value in values], dtype=np.int64)
    return np.fromiter(map(found.__getitem__, values), dtype=np.int64, count=len(values))


def _numbers(values: list[Any]) -> np.ndarray:
    """``values`` as floats, None as NaN; a column of None alone (no order had a limit, or
    none was clipped) is made at once rather than converted value by value."""
    if set(map(type, values)) == {type(None)}:
        return np.full(len(values), np.nan)
    return np.array(values, dtype=float)


def _forced(reasons: np.ndarray) -> np.ndarray:
    """Which orders are margin liquidations (the reason the engine records them with)."""
    try:  # each distinct reason read once: a run's 17,000 orders hold a few dozen
        forced = {reason: str(reason).startswith(LIQUIDATION) for reason in set(reasons)}
    except TypeError:  # a reason that cannot be a key (a frame passed in may hold any)
        return np.array([str(r).startswith(LIQUIDATION) for r in reasons], dtype=bool)
    return np.fromiter(map(forced.__getitem__, reasons), dtype=bool, count=len(reasons))


def _traded(status: np.ndarray) -> np.ndarray:
    """Which orders filled, in whole or in part."""
    return (status == "filled") | (status == "partial")


def _whole(values: list[Any], key: str) -> np.ndarray:
    try:
        return np.array(values, dtype=np.int64)
    except (TypeError, ValueError):
        raise _bad_orders(f"{key} is not a whole number in every row") from None


def _refuse_other_symbols(symbols: np.ndarray, path: MarketPath) -> None:
    known = path.universe.symbols
    raise ConfigError(
        f"filled orders name {sorted(set(map(str, symbols)))}, which the market path does not "
        f"trade (its symbols: {', '.join(known[:8])}{' ...' if len(known) > 8 else ''}): "
        "pass the orders and the market path of the same run"
    )


def _bad_orders(problem: str) -> ConfigError:
    return ConfigError(
        f"the orders cannot be split: {problem}. Pass results.orders as the run returned it"
    )


def _components(
    held: np.ndarray,
    fills: at.Fills,
    legs: tuple[at.Leg, at.Leg],
    curve: np.ndarray,
    bust: np.ndarray,
) -> dict[str, np.ndarray]:
    arms, steps = curve.shape
    k = np.arange(steps)[None, :]
    alive = k <= bust[:, None]
    before = np.concatenate([np.zeros_like(held[:, :1]), held[:, :-1]], axis=1)
    held, before = held * alive[..., None], before * alive[..., None]  # a bust book is no P&L
    gap, session = at.leg_parts(before, legs[0]), at.leg_parts(held, legs[1])
    timed = fills.only(at.timed(fills, arms))
    timed_market, timed_sector = at.traded_exposures(timed, legs[1], arms, steps)
    market, timing_market = at.passive_and_timing(
        gap.market_exposure[..., None], session.market_exposure[..., None],
        timed_market[..., None], (legs[0].market[:, None], legs[1].market[:, None]),
    )  # fmt: skip
    sector, timing_sector = at.passive_and_timing(
        gap.sector_exposure, session.sector_exposure, timed_sector,
        (legs[0].sector_factors, legs[1].sector_factors),
    )  # fmt: skip
    per_fill = at.fill_parts(fills)
    costs = {
        name: at.per_step(values, fills.arm, fills.step, (arms, steps))
        for name, values in per_fill.items()
    }
    mispricing = (
        gap.mispricing + session.mispricing
        if gap.mispricing is not None and session.mispricing is not None
        else np.full((arms, steps), np.nan)
    )
    news = (
        gap.news + session.news
        if gap.news is not None and session.news is not None
        else np.full((arms, steps), np.nan)
    )
    return {
        "market": market + gap.drift + session.drift,
        "sector": sector,
        "selection": gap.selection + session.selection,
        "timing": timing_market + timing_sector + costs["timing_entry"],
        "costs": costs["costs_spread"] + costs["costs_depth"] + costs["costs_fees"],
        "timing_market": timing_market,
        "timing_sector": timing_sector,
        "selection_mispricing": mispricing,
        "selection_news": news,
        **costs,
    }


def _bust_floor(
    path: MarketPath,
    fills: at.Fills,
    held: np.ndarray,
    curve: np.ndarray,
    capital: float,
    bust: np.ndarray,
    first: int,
) -> np.ndarray:
    """At a bust step, minus the book's equity there (at or below zero); 0 elsewhere."""
    arms, steps = curve.shape
    floor = np.zeros((arms, steps))
    cash = at.cash(fills, capital, arms, steps)
    for a in np.flatnonzero(bust < steps):
        k = int(bust[a])
        book = math.fsum((cash[a, k], *(held[a, k] * path.close[first + k]).tolist()))
        floor[a, k] = -book
    return floor


def _lost(
    path: MarketPath, orders: _Orders, arms: list[str], steps: int, intervals: Mapping[str, int]
) -> dict[str, np.ndarray]:
    """What the shares cut by a clip or a refusal would have made, mid to mid, from the
    open they were to fill at to the close the arm next decided at."""
    wanted = np.where(orders.clipped, orders.clipped_to, orders.requested)
    refused = np.where(orders.status == "refused", wanted, 0.0)
    every = np.array([intervals.get(a, 1) for a in arms], dtype=np.int64)[orders.arm]
    horizon = path.warmup_steps + np.minimum(orders.step - 1 + every, steps - 1)
    start = path.open[path.warmup_steps + orders.step, orders.name]
    move = orders.side * (path.close[horizon, orders.name] - start)
    cut, shape = orders.requested - wanted, (len(arms), steps)
    return {
        "lost_to_clips": at.per_step(cut * move, orders.arm, orders.step, shape),
        "lost_to_refusals": at.per_step(refused * move, orders.arm, orders.step, shape),
    }


def _frame(
    arms: list[str],
    steps: int,
    steps_per_day: int,
    parts: Mapping[str, np.ndarray],
    estimated: bool,
) -> pd.DataFrame:
    day, step = np.divmod(np.arange(steps), steps_per_day)
    columns: dict[str, Any] = {
        "arm": pd.Categorical.from_codes(
            np.repeat(np.arange(len(arms)), steps),
            categories=pd.Index(arms, dtype=object),  # an object index builds much faster
            validate=False,
        ),
        "day": np.tile(day, len(arms)),
        "step": np.tile(step, len(arms)),
    }
    for name in ATTRIBUTION_COLUMNS[3:-1]:
        columns[name] = parts[name].ravel()
    columns["estimated"] = np.full(len(arms) * steps, estimated)
    return pd.DataFrame(columns, copy=False)  # built in ATTRIBUTION_COLUMNS order


def attribution_totals(attribution: pd.DataFrame) -> pd.DataFrame:
    """One row per arm: every component, detail and lost opportunity summed over the run."""
    numeric = [c for c in ATTRIBUTION_COLUMNS[3:-1] if c in attribution.columns]
    summed = attribution.groupby("arm", sort=False)[numeric].sum(min_count=1)
    summed["estimated"] = attribution.groupby("arm", sort=False)["estimated"].any()
    return summed


def attribution_per_seed(runs: Sequence[Any], component: str = "selection") -> pd.DataFrame:
    """``component`` summed over each run, one row per run (its seed), one column per arm:
    the table ``paired_comparison`` takes to compare arms on it across seeds."""
    if component not in ATTRIBUTION_COLUMNS[3:-1]:
        raise ConfigError(
            f"unknown attribution component {component!r}; choose from "
            f"{', '.join(ATTRIBUTION_COLUMNS[3:-1])}"
        )
    if not runs:
        raise ConfigError("attribution_per_seed needs at least one run (the Results of a seed)")
    rows: dict[Any, pd.Series] = {}
    for i, run in enumerate(runs):
        frame = getattr(run, "attribution", None)
        if frame is None or frame.empty:
            raise ConfigError(
                f"run {i} has no attribution; pass the Results evaluate returned (a results "
                "file read back carries none, nor a run that warned its split was left out)"
            )
        seed = run.meta.get("seed", i)
        rows[seed if seed not in rows else f"{seed}#{i}"] = attribution_totals(frame)[component]
    table = pd.DataFrame(rows).T
    table.index.name = "seed"
    return table
