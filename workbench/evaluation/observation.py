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
from workbench.evaluation.reading import calendar, fundamentals
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
    return _payload(path, row, history, bid, ask, macro, caps)


class MarketPayloads:
    """``market_payload`` at every row of one path, from its prices rounded once for the
    run (rounding is elementwise, so each payload is the one ``market_payload`` builds)."""

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

    def at(self, row: int) -> dict[str, Any]:
        history = self.history[row - HISTORY_STEPS + 1 : row + 1]
        macro = _macro(self.macro, row // self.path.steps_per_day)
        if self.caps is None:
            caps = [max_order(volume) for volume in self.path.volume[row].tolist()]
        else:
            caps = self.caps[row].tolist()
        return _payload(self.path, row, history, self.bid[row], self.ask[row], macro, caps)


def _payload(
    path: MarketPath,
    row: int,
    history: np.ndarray,
    bid: np.ndarray,
    ask: np.ndarray,
    macro: dict[str, Any],
    caps: list[int],
) -> dict[str, Any]:
    """The market part from the rows of rounded prices up to ``row``, the macro of its
    day and each name's ``max_order`` (``caps``)."""
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
    payload = {
        "schema_version": PRICE_ONLY_SCHEMA_VERSION,
        "day": day,
        "step": step,
        "steps_per_day": steps,
        "macro": macro,
        "symbols": symbols,
    }
    if path.information is not None:
        payload["schema_version"] = OBSERVATION_SCHEMA_VERSION
        payload["fundamentals"] = fundamentals(path, row)
        payload["calendar"] = calendar(path, row)
    elif path.text is not None:  # a researcher's own text: no calendar is known in advance
        payload["schema_version"] = OBSERVATION_SCHEMA_VERSION
        if path.text.has_fundamentals:
            payload["fundamentals"] = path.text.fundamentals(row)
    return payload


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
    if private:
        market = private_market(market)
    if news is not None:
        market = {**market, **(private_news(news) if private else news)}
    return {
        **market,
        "portfolio": {
            "cash": cash,
            "equity": shown_equity,
            "buying_power": buying_power,
            "positions": {symbols[i]: quantity for i, quantity in held if quantity},
        },
    }


def private_market(market: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of the market part: a JSON round trip (the fastest deep copy of plain
    JSON), but for the reports (``fundamentals``). A report is a flat dict of numbers, so a
    copy of each is a deep copy, without formatting and parsing every figure."""
    reports = market.get("fundamentals")
    if reports is None:
        return json.loads(json.dumps(market))
    rest = json.loads(json.dumps({k: v for k, v in market.items() if k != "fundamentals"}))
    copied = {name: None if report is None else report.copy() for name, report in reports.items()}
    return {key: copied if key == "fundamentals" else rest[key] for key in market}


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
