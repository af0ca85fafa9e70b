"""The verified snapshot: every number a role may cite, computed from the payload without a model.

Roles are told to cite numbers only from here; nothing a model computes is
trusted. The snapshot reads the agent-visible payload alone, and the payload
holds rows up to the decision step only, so it cannot look ahead. A field the
payload lacks, or one it holds too little history to compute, is the explicit
no-data marker (``no_data(...)``), never a silent gap or a zero a model could
build a story on.

Fundamentals are limited to what the engine really observes: a name's sector,
its move against its sector, its liquidity and the committee's own position.
On a price-only market (observation schema 1) earnings, valuation, balance
sheets, analyst estimates and news are not observed, so they are listed as
no-data, which tells a role plainly that it must not invent them.

On a market that publishes information (schema 2) the snapshot also reads it
(``has_reading``): ``news`` holds every item released since the last decision,
newest first, with its id, time, kind, symbols, headline and vendor figures (the
body stays in the observation; what an item is worth is in no payload), and
``fundamentals`` gains each name's last report as released (EPS, consensus,
revenue, net margin, guidance, and the surprise computed here) and its next
report date with the consensus once published. A name that has not reported
yet, or a consensus not yet published, is the no-data marker; valuation and
balance sheets stay not observed.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

from workbench.schema import OBSERVABLE_MACRO

NO_DATA = "NO_DATA_AVAILABLE"
NOT_OBSERVED = ("earnings", "valuation", "balance_sheet", "analyst_estimates", "news")
READ_WHEN_PUBLISHED = ("earnings", "analyst_estimates", "news")  # observed on schema 2
ITEM_FIELDS = ("id", "day", "step", "kind", "symbols", "headline")
ITEM_FIGURES = (
    "eps", "consensus_eps", "revenue", "guidance_eps", "reliability", "policy_rate", "change_bp"
)  # fmt: skip
EPS_FIGURES = ("eps", "consensus_eps", "guidance_eps")
REPORT_FIGURES = ("report_day", "eps", "consensus_eps", "revenue", "net_margin", "guidance_eps")
RSI_WINDOW = 14
SHORT_WINDOW = 5
DIGITS = 4


def no_data(field: str, why: str) -> str:
    """The marker for a value the payload does not give: names the field and the reason."""
    return f"{NO_DATA}: {field} ({why}); do not estimate or invent it"


def is_no_data(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(NO_DATA)


def observed(source: Mapping[str, Any], key: str, field: str) -> Any:
    """``source[key]``, or the no-data marker when it is absent or null (not observed)."""
    value = source.get(key)
    return no_data(field, "not in the observation") if value is None else value


def verified_snapshot(payload: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON: as-of, macro, portfolio, per-symbol facts and observable fundamentals."""
    symbols: Mapping[str, Any] = payload.get("symbols") or {}
    book = payload.get("portfolio") or {}
    positions = book.get("positions") or {}
    per_symbol = {s: _symbol_facts(s, symbols[s], positions) for s in sorted(symbols)}
    snapshot = {
        "as_of": {k: observed(payload, k, k) for k in ("day", "step")},
        "macro": _macro(payload.get("macro") or {}),
        "portfolio": {
            key: observed(book, key, f"portfolio.{key}")
            for key in ("cash", "equity", "buying_power")
        }
        | {"positions": {s: float(q) for s, q in sorted(positions.items())}},
        "symbols": per_symbol,
        "fundamentals": _fundamentals(per_symbol),
    }
    return _with_reading(snapshot, payload) if has_reading(payload) else snapshot


def _macro(macro: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: observed(macro, key, f"macro.{key}") for key in OBSERVABLE_MACRO}
    short, long = out["yield_2y"], out["yield_10y"]
    if is_no_data(short) or is_no_data(long):
        out["curve_slope_10y_2y"] = no_data("curve_slope_10y_2y", "a yield is missing")
    else:
        out["curve_slope_10y_2y"] = round(float(long) - float(short), 6)
    return out


def _symbol_facts(
    symbol: str, row: Mapping[str, Any], positions: Mapping[str, Any]
) -> dict[str, Any]:
    history = [float(x) for x in row.get("history") or []]
    facts: dict[str, Any] = {
        key: observed(row, key, f"{symbol}.{key}")
        for key in ("sector", "last", "bid", "ask", "volume", "max_order")
    }
    facts["position"] = float(positions.get(symbol, 0.0))
    facts["spread_bps"] = _spread_bps(symbol, facts["bid"], facts["ask"])
    facts["closes"] = len(history)
    facts["change_pct"] = _change_pct(symbol, history)
    facts[f"sma_{SHORT_WINDOW}"] = _sma(symbol, history, SHORT_WINDOW, f"sma_{SHORT_WINDOW}")
    facts["sma_long"] = _sma(symbol, history, len(history), "sma_long")  # all visible closes
    facts[f"rsi_{RSI_WINDOW}"] = _rsi(symbol, history)
    facts["volatility_pct"] = _volatility_pct(symbol, history)
    facts["high"] = round(max(history), DIGITS) if history else _short(symbol, "high", 1, 0)
    facts["low"] = round(min(history), DIGITS) if history else _short(symbol, "low", 1, 0)
    return facts


def _short(symbol: str, field: str, need: int, have: int) -> str:
    return no_data(f"{symbol}.{field}", f"needs {need} closes, the observation has {have}")


def _spread_bps(symbol: str, bid: Any, ask: Any) -> Any:
    if is_no_data(bid) or is_no_data(ask):
        return no_data(f"{symbol}.spread_bps", "bid or ask is missing")
    mid = (float(bid) + float(ask)) / 2
    return round((float(ask) - float(bid)) / mid * 1e4, 2)


def _change_pct(symbol: str, history: Sequence[float]) -> Any:
    if len(history) < 2 or history[0] == 0:
        return _short(symbol, "change_pct", 2, len(history))
    return round((history[-1] / history[0] - 1) * 100, DIGITS)


def _sma(symbol: str, history: Sequence[float], window: int, field: str) -> Any:
    if window < 1 or len(history) < window:
        return _short(symbol, field, max(window, 1), len(history))
    return round(math.fsum(history[-window:]) / window, DIGITS)


def _rsi(symbol: str, history: Sequence[float]) -> Any:
    """Cutler's RSI (simple averages of gains and losses over the window)."""
    if len(history) < RSI_WINDOW + 1:
        return _short(symbol, f"rsi_{RSI_WINDOW}", RSI_WINDOW + 1, len(history))
    moves = [
        b - a for a, b in zip(history[-RSI_WINDOW - 1 : -1], history[-RSI_WINDOW:], strict=True)
    ]
    gain = math.fsum(m for m in moves if m > 0)
    loss = -math.fsum(m for m in moves if m < 0)
    if gain + loss == 0:
        return 50.0
    return round(100 * gain / (gain + loss), 2)


def _volatility_pct(symbol: str, history: Sequence[float]) -> Any:
    """Sample standard deviation of step returns, in percent."""
    if len(history) < 3:
        return _short(symbol, "volatility_pct", 3, len(history))
    returns = [b / a - 1 for a, b in itertools.pairwise(history) if a]
    mean = math.fsum(returns) / len(returns)
    variance = math.fsum((r - mean) ** 2 for r in returns) / (len(returns) - 1)
    return round(math.sqrt(variance) * 100, DIGITS)


def _fundamentals(per_symbol: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    sectors: dict[str, list[float]] = {}
    for facts in per_symbol.values():
        if not is_no_data(facts["sector"]) and not is_no_data(facts["change_pct"]):
            sectors.setdefault(facts["sector"], []).append(facts["change_pct"])
    sector_change = {s: round(math.fsum(v) / len(v), DIGITS) for s, v in sorted(sectors.items())}
    names = {s: _observable(s, f, sector_change) for s, f in per_symbol.items()}
    missing = {field: no_data(field, "the engine does not observe it") for field in NOT_OBSERVED}
    return {"sector_change_pct": sector_change, "names": names, "not_observed": missing}


def _observable(
    symbol: str, facts: Mapping[str, Any], sector_change: Mapping[str, float]
) -> dict[str, Any]:
    sector, change = facts["sector"], facts["change_pct"]
    if is_no_data(change) or sector not in sector_change:
        relative: Any = no_data(f"{symbol}.vs_sector_pct", "its move or sector is missing")
    else:
        relative = round(change - sector_change[sector], DIGITS)
    return {"sector": sector, "vs_sector_pct": relative, "max_order": facts["max_order"]}


# --- reading (schema 2): news, reported figures and the calendar ------------------------
def has_reading(payload: Mapping[str, Any]) -> bool:
    """Whether the payload publishes information (news, fundamentals and calendar)."""
    return "fundamentals" in payload


def _with_reading(snapshot: dict[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    fundamentals = snapshot["fundamentals"]
    for field in READ_WHEN_PUBLISHED:
        del fundamentals["not_observed"][field]
    fundamentals["reported"] = _reported(payload.get("fundamentals") or {})
    fundamentals["calendar"] = _calendar(payload.get("calendar") or {}, payload.get("day"))
    items = [_item(item) for item in payload.get("news") or []]
    snapshot["news"] = {"items": items, "omitted": int(payload.get("news_omitted") or 0)}
    return snapshot


def _item(item: Mapping[str, Any]) -> dict[str, Any]:
    out = {key: item.get(key) for key in ITEM_FIELDS}
    out["symbols"] = list(out["symbols"] or [])
    return out | {key: item[key] for key in ITEM_FIGURES if item.get(key) is not None}


def _reported(given: Mapping[str, Any]) -> dict[str, Any]:
    return {s: _report(s, given[s]) for s in sorted(given)}


def _report(symbol: str, report: Mapping[str, Any] | None) -> Any:
    if report is None:
        return no_data(f"{symbol}.reported", "the name has not reported yet")
    out: dict[str, Any] = {key: report.get(key) for key in REPORT_FIGURES}
    consensus = report.get("consensus_eps")
    if consensus:
        out["surprise_pct"] = round((report["eps"] / consensus - 1.0) * 100.0, DIGITS)
    else:
        out["surprise_pct"] = no_data(f"{symbol}.surprise_pct", "no consensus to compare with")
    return out


def _calendar(given: Mapping[str, Any], today: Any) -> dict[str, Any]:
    return {s: _coming(s, given[s], today) for s in sorted(given)}


def _coming(symbol: str, coming: Mapping[str, Any] | None, today: Any) -> Any:
    if coming is None:
        return no_data(f"{symbol}.next_report", "no report is scheduled in the run")
    out: dict[str, Any] = {"report_day": coming["report_day"]}
    if isinstance(today, int):
        out["days_to_report"] = coming["report_day"] - today
    consensus = coming.get("consensus_eps")
    out["consensus_eps"] = (
        no_data(f"{symbol}.consensus_eps", "not published yet") if consensus is None else consensus
    )
    return out


__all__ = [
    "EPS_FIGURES",
    "NOT_OBSERVED",
    "NO_DATA",
    "READ_WHEN_PUBLISHED",
    "has_reading",
    "is_no_data",
    "no_data",
    "verified_snapshot",
]
