"""The observation payload: an allowlist of plain JSON, never engine objects.

The market part is built once per decision point and shared by every arm; each
arm's portfolio part is added on top. Rows are taken up to and including the
decision step only, so nothing from a later step can reach an agent.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from workbench.engine.execution import Portfolio, max_order, max_orders
from workbench.engine.market import MarketPath
from workbench.evaluation.reading import parts, parts_by_row
from workbench.schema import (
    HISTORY_STEPS,
    OBSERVABLE_MACRO,
    OBSERVATION_SCHEMA_VERSION,
    PRICE_ONLY_SCHEMA_VERSION,
)

_REGIMES = ("expansion", "contraction")


def market_payload(path: MarketPath, row: int) -> dict[str, Any]:
    """Everything shared by the arms at path row ``row`` (warm-up included; see STEPS)."""
    close, spread = path.close[row], path.half_spread[row]
    history = path.close[row - HISTORY_STEPS + 1 : row + 1].round(4)
    bid = (close * (1 - spread)).round(4)
    ask = (close * (1 + spread)).round(4)
    day_row = row // path.steps_per_day
    macro = _macro(
        {key: path.macro[key][day_row : day_row + 1].tolist() for key in OBSERVABLE_MACRO}, 0
    )
    caps = [max_order(volume) for volume in path.volume[row].tolist()]
    return _payload(path, row, history, bid, ask, macro, caps, parts(path, row))


class MarketPayloads:
    """``market_payload`` at every row of one path, from its prices rounded once for the
    run (rounding is elementwise, so each payload is the one ``market_payload`` builds) and,
    on historical bars, the reading of each row looked up once (``parts_by_row``)."""

    def __init__(self, path: MarketPath) -> None:
        self.path = path
        close, spread = path.close, path.half_spread
        self.history = close.round(4)
        self.bid = (close * (1 - spread)).round(4)
        self.ask = (close * (1 + spread)).round(4)
        self.macro = {  # the series this path observes on some day (all on the simulator)
            key: path.macro[key].tolist()
            for key in OBSERVABLE_MACRO
            if not np.isnan(path.macro[key]).all()
        }
        self.caps = max_orders(path.volume)
        self.parts = parts_by_row(path)
        self._day_macro: tuple[int, dict[str, Any]] = (-1, {})  # the last day's, see _macro_of

    def at(self, row: int) -> dict[str, Any]:
        history = self.history[row - HISTORY_STEPS + 1 : row + 1]
        macro = self._macro_of(row // self.path.steps_per_day)
        if self.caps is None:
            caps = [max_order(volume) for volume in self.path.volume[row].tolist()]
        else:
            caps = self.caps[row].tolist()
        reading = parts(self.path, row) if self.parts is None else self.parts[row]
        return _payload(self.path, row, history, self.bid[row], self.ask[row], macro, caps, reading)

    def _macro_of(self, day_row: int) -> dict[str, Any]:
        """``_macro`` of day ``day_row``, worked out once for the day's steps; each payload
        gets a copy of its own (its values are text, numbers and None), so an arm that
        writes to the macro it was shown changes no other step's."""
        day, kept = self._day_macro
        if day != day_row:
            kept = _macro(self.macro, day_row)
            self._day_macro = (day_row, kept)
        return kept.copy()


def _payload(
    path: MarketPath,
    row: int,
    history: np.ndarray,
    bid: np.ndarray,
    ask: np.ndarray,
    macro: dict[str, Any],
    caps: list[int],
    reading: dict[str, Any] | None,
) -> dict[str, Any]:
    """The market part from the rows of rounded prices up to ``row``, the macro of its
    day, each name's ``max_order`` (``caps``) and what it reads beside them (``parts``)."""
    steps = path.steps_per_day
    day, step = divmod(row - path.warmup_steps, steps)
    quotes = zip(
        path.universe.symbols,
        path.universe.sectors,
        history.T.tolist(),
        bid.tolist(),
        ask.tolist(),
        path.volume[row].tolist(),
        caps,
        strict=True,
    )
    symbols = {
        symbol: {
            "sector": sector,
            "history": closes,
            "last": closes[-1],
            "bid": bid_price,
            "ask": ask_price,
            "volume": volume,
            "max_order": cap,
        }
        for symbol, sector, closes, bid_price, ask_price, volume, cap in quotes
    }
    version = PRICE_ONLY_SCHEMA_VERSION if reading is None else OBSERVATION_SCHEMA_VERSION
    return {
        "schema_version": version,
        "day": day,
        "step": step,
        "steps_per_day": steps,
        "macro": macro,
        "symbols": symbols,
        **(reading or {}),
    }


def _macro(days: dict[str, list[float]], day_row: int) -> dict[str, Any]:
    """The observable macro of day ``day_row`` from the path's macro series as lists (the
    series of ``days``; a key it leaves out is one the source never observes)."""
    out: dict[str, Any] = dict.fromkeys(OBSERVABLE_MACRO)  # None: not observed (historical)
    for key, series in days.items():
        value = float(series[day_row])
        if not math.isnan(value):
            out[key] = _REGIMES[int(value)] if key == "regime" else round(value, 6)
    return out


def arm_payload(
    market: dict[str, Any],
    portfolio: Portfolio,
    symbols: tuple[str, ...],
    *,
    equity: float,
    gross: float,
    private: bool = True,
    news: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The market part plus this arm's own cash, equity and positions, and on a market
    that publishes information the news since the arm's last decision (``news``:
    ``reading.news``'s two keys).

    ``equity`` and ``gross`` are the portfolio's at the decision close (the
    evaluation has just marked them). With ``private`` the market part is a deep
    copy (``private_market``), so the arm may mutate what it got; the news is copied
    item by item (``private_news``).
    """
    held = enumerate(portfolio.positions.tolist())
    cash, shown_equity, buying_power = portfolio.shown(equity, gross)
    own = {
        "cash": cash,
        "equity": shown_equity,
        "buying_power": buying_power,
        "positions": {symbols[i]: quantity for i, quantity in held if quantity},
    }
    if not private:  # one dict on top of the shared parts
        if news is None:
            return {**market, "portfolio": own}
        return {**market, **news, "portfolio": own}
    payload = private_market(market)  # a new dict: the arm's parts are added to it in place
    if news is not None:
        payload.update(private_news(news))
    payload["portfolio"] = own
    return payload


def private_market(market: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of the market part: a JSON round trip (the fastest deep copy of plain
    JSON), but for the reports (``fundamentals``). A report is a flat dict of numbers, so a
    copy of each is a deep copy, without formatting and parsing every figure."""
    reports = market.get("fundamentals")
    if reports is None:
        return json.loads(json.dumps(market))
    copied = json.loads(json.dumps({**market, "fundamentals": None}))  # the key kept in place
    copied["fundamentals"] = {
        name: None if report is None else report.copy() for name, report in reports.items()
    }
    return copied


def private_news(news: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``news`` an arm may mutate. An item is flat (text and numbers) but for its
    list of symbols, and a string cannot change, so a copy of each item and of that list
    is a deep copy, without encoding every headline and body as a JSON round trip would."""
    items = []
    for item in news["news"]:
        copied = item.copy()  # the fastest copy of a dict; then of its one list
        copied["symbols"] = copied["symbols"].copy()
        items.append(copied)
    return {**news, "news": items}
