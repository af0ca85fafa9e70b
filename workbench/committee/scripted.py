"""Offline scripts for the reference committee's roles: deterministic text from the briefing.

Each script reads only its briefing (the verified snapshot and the memo so far)
and cites numbers exactly as the snapshot holds them; none computes a figure the
snapshot lacks. Later roles read earlier ones' lines (PLAN, PROPOSAL, UPGRADE,
DOWNGRADE, ACCEPT), so the memo really carries the decision, and a failed
advisor changes what follows: the manager, trader and portfolio manager fall
back to the snapshot when the line they expect is missing.

On a market that publishes information the fundamentals analyst also reports
each name's last report, its next one and the news (``news_analyst`` reports the
news alone, for a committee that has that role), and the research manager tilts
a name one tier towards a fresh earnings surprise (``earnings_tilt``), the drift a
careful reader can earn. A price-only snapshot has none of it, so those scripts
write exactly what they always wrote.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping
from typing import Any

from workbench.committee.rating import RATING_LINE, Rating, shift
from workbench.committee.snapshot import NO_DATA, is_no_data, no_data

Briefing = dict[str, Any]


def _n(value: Any) -> str:
    """A snapshot value as cited: strings (and the no-data marker) verbatim, numbers exactly."""
    return value if isinstance(value, str) else repr(value)


def _number(value: Any) -> float | None:
    return None if is_no_data(value) or value is None else float(value)


def score(facts: Mapping[str, Any]) -> int:
    """Trend (+1/-1), momentum over the window (+1/0/-1) and RSI extremes (-1/+1)."""
    total = 0
    short, long, change, rsi = (
        _number(facts.get(k)) for k in ("sma_5", "sma_long", "change_pct", "rsi_14")
    )
    if short is not None and long is not None:
        total += 1 if short > long else -1
    if change is not None:
        total += 1 if change > 1.0 else (-1 if change < -1.0 else 0)
    if rsi is not None:
        total += -1 if rsi > 70 else (1 if rsi < 30 else 0)
    return total


def tier(points: int) -> Rating:
    return {2: Rating.BUY, 1: Rating.OVERWEIGHT, 0: Rating.HOLD, -1: Rating.UNDERWEIGHT}.get(
        max(min(points, 2), -2), Rating.SELL
    )


def defensive(briefing: Briefing) -> bool:
    macro = briefing["snapshot"]["macro"]
    vix = _number(macro.get("vix"))
    return macro.get("regime") == "contraction" or (vix is not None and vix > 25)


def _symbols(briefing: Briefing) -> dict[str, Any]:
    return briefing["snapshot"]["symbols"]


def _last_text(briefing: Briefing, role: str) -> str:
    spoken = [entry["text"] for entry in briefing["memo"] if entry["role"] == role]
    return spoken[-1] if spoken else ""


def _lines(text: str, word: str) -> dict[str, str]:
    return dict(re.findall(rf"^{word} (\S+): (\w+)$", text, flags=re.MULTILINE))


def _marked(text: str, word: str) -> list[str]:
    return re.findall(rf"^{word} (\S+)$", text, flags=re.MULTILINE)


def _scored_plan(briefing: Briefing) -> dict[str, Rating]:
    tilt = 1 if defensive(briefing) else 0
    drift = earnings_tilt(briefing)
    return {s: shift(tier(score(f) + drift.get(s, 0)), tilt) for s, f in _symbols(briefing).items()}


SURPRISE_PCT = 2.0  # a surprise this large, either way, is read as a beat or a miss
FRESH_DAYS = 10  # for this many days after the report


def earnings_tilt(briefing: Briefing) -> dict[str, int]:
    """+1 for a name that beat its consensus within ``FRESH_DAYS``, -1 for one that missed
    (nothing on a price-only snapshot, which has no reports)."""
    snapshot = briefing["snapshot"]
    today = snapshot["as_of"]["day"]
    out = {}
    for symbol, report in snapshot["fundamentals"].get("reported", {}).items():
        surprise = None if is_no_data(report) else _number(report["surprise_pct"])
        if surprise is None or abs(surprise) < SURPRISE_PCT:
            continue
        if 0 <= today - report["report_day"] <= FRESH_DAYS:
            out[symbol] = 1 if surprise > 0 else -1
    return out


def _plan_from(text: str, briefing: Briefing) -> dict[str, Rating]:
    words = {r.value for r in Rating}
    found = {s: Rating(w) for s, w in _lines(text, r"(?:PLAN|PROPOSAL)").items() if w in words}
    plan = _scored_plan(briefing)
    return {s: found.get(s, plan[s]) for s in plan}


# --- analysts ------------------------------------------------------------------------
def market_analyst(briefing: Briefing) -> str:
    lines = []
    for symbol, f in _symbols(briefing).items():
        direction = "up" if score({"sma_5": f["sma_5"], "sma_long": f["sma_long"]}) > 0 else "down"
        lines.append(
            f"{symbol}: last {_n(f['last'])}, change {_n(f['change_pct'])}% over {f['closes']} "
            f"closes, SMA5 {_n(f['sma_5'])} vs long {_n(f['sma_long'])} (trend {direction}), "
            f"RSI14 {_n(f['rsi_14'])}, volatility {_n(f['volatility_pct'])}%"
        )
    return "Market report\n" + "\n".join(lines)


def macro_analyst(briefing: Briefing) -> str:
    m = briefing["snapshot"]["macro"]
    stance = "defensive: cut risk" if defensive(briefing) else "supportive: risk may be added"
    return (
        f"Macro report\nRegime {_n(m['regime'])}; growth {_n(m['growth'])}; inflation "
        f"{_n(m['inflation'])}; policy rate {_n(m['policy_rate'])}; 10y-2y slope "
        f"{_n(m['curve_slope_10y_2y'])}; VIX {_n(m['vix'])}.\nStance: {stance}."
    )


def fundamentals_analyst(briefing: Briefing) -> str:
    fundamentals = briefing["snapshot"]["fundamentals"]
    lines = [
        f"{s} ({f['sector']}): {_n(f['vs_sector_pct'])}% against its sector; max order "
        f"{_n(f['max_order'])} shares"
        for s, f in fundamentals["names"].items()
    ]
    missing = [f"{field}: {text}" for field, text in fundamentals["not_observed"].items()]
    if "news" not in briefing["snapshot"]:
        return "Fundamentals report (observable only)\n" + "\n".join(lines + missing)
    reading = [*_report_lines(fundamentals), "News", *_news_lines(briefing)]
    return "Fundamentals report\n" + "\n".join(lines + reading + missing)


def _report_lines(fundamentals: Mapping[str, Any]) -> list[str]:
    lines = []
    for symbol, r in fundamentals["reported"].items():
        if is_no_data(r):
            lines.append(f"{symbol} last report: {r}")
            continue
        lines.append(
            f"{symbol} last report day {r['report_day']}: EPS {_n(r['eps'])} vs consensus "
            f"{_n(r['consensus_eps'])} (surprise {_n(r['surprise_pct'])}%); revenue "
            f"{_n(r['revenue'])}; net margin {_n(r['net_margin'])}; guidance EPS "
            f"{_n(r['guidance_eps'])}"
        )
    for symbol, c in fundamentals["calendar"].items():
        if is_no_data(c):
            lines.append(f"{symbol} next report: {c}")
        else:
            consensus = _n(c["consensus_eps"])
            lines.append(f"{symbol} next report day {c['report_day']}: consensus EPS {consensus}")
    return lines


def _news_lines(briefing: Briefing) -> list[str]:
    news = briefing["snapshot"]["news"]
    lines = []
    for item in news["items"]:
        symbols = ", ".join(item["symbols"]) or "market"
        note = " (an instruction in the news: ignored)" if item["kind"] == "notice" else ""
        lines.append(f"[item {item['id']}] {item['kind']} on {symbols}: {item['headline']}{note}")
    if news["omitted"]:
        lines.append(f"{news['omitted']} older item(s) left out of the observation.")
    return lines or ["No news since the last decision."]


def news_analyst(briefing: Briefing) -> str:
    """Every item since the last decision, newest first (a committee with a news role)."""
    if "news" not in briefing["snapshot"]:
        return "News report\n" + no_data("news", "the market publishes none")
    return "News report\n" + "\n".join(_news_lines(briefing))


# --- research debate -----------------------------------------------------------------
def bull_researcher(briefing: Briefing) -> str:
    facts = _symbols(briefing)
    strong = sorted((s for s in facts if score(facts[s]) > 0), key=lambda s: (-score(facts[s]), s))
    picks = [f"{s} (change {_n(facts[s]['change_pct'])}%)" for s in strong[:3]]
    reply = _answering(briefing, "bear_researcher", "weakest")
    return f"Bull case, turn {briefing['turn']}: strongest {', '.join(picks) or 'none'}.{reply}"


def bear_researcher(briefing: Briefing) -> str:
    facts = _symbols(briefing)
    weak = sorted((s for s in facts if score(facts[s]) < 0), key=lambda s: (score(facts[s]), s))
    picks = [f"{s} (RSI14 {_n(facts[s]['rsi_14'])})" for s in weak[:3]]
    vix = _n(briefing["snapshot"]["macro"]["vix"])
    reply = _answering(briefing, "bull_researcher", "strongest")
    names = ", ".join(picks) or "none"
    return f"Bear case, turn {briefing['turn']}: weakest {names}; VIX {vix}.{reply}"


def _answering(briefing: Briefing, other: str, word: str) -> str:
    said = _last_text(briefing, other)
    if not said:
        return ""
    if NO_DATA in said or "FAILED" in said:
        return f" The {other.split('_')[0]} gave no usable case."
    named = re.findall(r"(\S+) \((?:change|RSI14) ", said)
    side = other.split("_")[0]
    return f" Answering the {side}: its {word} names ({', '.join(named) or 'none'}) are weighed."


# --- managers and trader ---------------------------------------------------------------
def research_manager(briefing: Briefing) -> str:
    plan = _scored_plan(briefing)
    turns = [e for e in briefing["memo"] if e["phase"] == "research_debate"]
    failed = sum("FAILED" in e["text"] for e in turns)
    lines = [f"PLAN {s}: {r.value}" for s, r in sorted(plan.items())]
    lines.append(f"Weighed {len(turns)} debate turns ({failed} failed).")
    for symbol, direction in sorted(earnings_tilt(briefing).items()):
        word = "beat" if direction > 0 else "miss"
        lines.append(f"Earnings {word} tilts {symbol} one tier.")
    return "\n".join(lines)


def trader(briefing: Briefing) -> str:
    plan = _plan_from(_last_text(briefing, "research_manager"), briefing)
    held = briefing["snapshot"]["portfolio"]["positions"]
    lines = [f"PROPOSAL {s}: {r.value}" for s, r in sorted(plan.items())]
    return "\n".join([*lines, f"Currently holding {len(held)} names."])


# --- risk debate -----------------------------------------------------------------------
def _proposal(briefing: Briefing) -> dict[str, Rating]:
    return _plan_from(_last_text(briefing, "trader"), briefing)


def aggressive_risk(briefing: Briefing) -> str:
    facts, proposal = _symbols(briefing), _proposal(briefing)
    picks = [
        s
        for s, r in sorted(proposal.items())
        if r is Rating.OVERWEIGHT and (_number(facts[s]["change_pct"]) or 0.0) > 2.0
    ]
    return "\n".join([f"UPGRADE {s}" for s in picks] or ["No upgrade is justified."])


def conservative_risk(briefing: Briefing) -> str:
    facts, proposal = _symbols(briefing), _proposal(briefing)
    vols = [v for f in facts.values() if (v := _number(f["volatility_pct"])) is not None]
    line = statistics.median(vols) if vols else float("inf")
    picks = [
        s
        for s, r in sorted(proposal.items())
        if r in (Rating.BUY, Rating.OVERWEIGHT)
        and ((_number(facts[s]["volatility_pct"]) or 0.0) > line or defensive(briefing))
    ]
    return "\n".join([f"DOWNGRADE {s}" for s in picks] or ["No downgrade is needed."])


def neutral_risk(briefing: Briefing) -> str:
    facts = _symbols(briefing)
    rsi = {s: _number(f["rsi_14"]) for s, f in facts.items()}
    ups = [
        s
        for s in _marked(_last_text(briefing, "aggressive_risk"), "UPGRADE")
        if (rsi.get(s) or 50) < 65
    ]
    downs = _marked(_last_text(briefing, "conservative_risk"), "DOWNGRADE")
    lines = [f"ACCEPT UPGRADE {s}" for s in ups] + [f"ACCEPT DOWNGRADE {s}" for s in downs]
    return "\n".join(lines or ["Keep the proposal as it stands."])


# --- the executor ----------------------------------------------------------------------
def portfolio_manager(briefing: Briefing) -> str:
    ratings = _proposal(briefing)
    neutral = _last_text(briefing, "neutral_risk")
    if neutral and "FAILED" not in neutral:
        ups, downs = _marked(neutral, "ACCEPT UPGRADE"), _marked(neutral, "ACCEPT DOWNGRADE")
    else:
        ups, downs = [], _marked(_last_text(briefing, "conservative_risk"), "DOWNGRADE")
    for symbol in (s for s in ups if s in ratings):
        ratings[symbol] = shift(ratings[symbol], -1)
    for symbol in (s for s in downs if s in ratings):
        ratings[symbol] = shift(ratings[symbol], 1)
    recalled = _recalled_verdicts(briefing)
    if recalled and recalled.count("LOST") > recalled.count("GAINED"):
        ratings = {symbol: shift(rating, 1) for symbol, rating in ratings.items()}
    lines = [RATING_LINE.format(symbol=s, rating=r.value) for s, r in sorted(ratings.items())]
    lines.append(f"Applied {len(ups)} upgrade(s) and {len(downs)} downgrade(s).")
    if "lessons" in briefing:
        lost, gained = recalled.count("LOST"), recalled.count("GAINED")
        cautious = "; one tier more cautious" if lost > gained else ""
        lines.append(f"Recalled {len(recalled)} lesson(s): {lost} lost, {gained} gained{cautious}.")
    return "\n".join(lines)


# --- reflection (with workbench.memory) -----------------------------------------------
def reflection_lesson(briefing: Briefing) -> str:
    """A lesson from the realised outcome: what the decision's orders made, and a verdict."""
    outcome = briefing["outcome"]
    pnl, returns, decided = outcome["orders_pnl"], outcome["returns_pct"], outcome["decided"]
    verdict = "GAINED" if pnl > 0 else ("LOST" if pnl < 0 else "FLAT")
    best = max(returns, key=lambda s: (returns[s], s))
    worst = min(returns, key=lambda s: (returns[s], s))
    advice = {
        "GAINED": "the stance held up; repeat it in a situation like this",
        "LOST": "the stance did not hold; be more cautious in a situation like this",
        "FLAT": "the orders made nothing either way; no change",
    }[verdict]
    return (
        f"VERDICT {verdict}: the decision of day {decided['day']} step {decided['step']} made "
        f"{_n(pnl)} on its orders (equity change {_n(outcome['equity_change'])}); best "
        f"{best} {_n(returns[best])}%, worst {worst} {_n(returns[worst])}%. Lesson for "
        f"{briefing['role']}: {advice}."
    )


def _recalled_verdicts(briefing: Briefing) -> list[str]:
    lessons = briefing.get("lessons", [])
    return [m.group(1) for item in lessons if (m := re.match(r"VERDICT (\w+)", item["lesson"]))]


REFERENCE_SCRIPTS: dict[str, Callable[[Briefing], str]] = {
    "market_analyst": market_analyst,
    "macro_analyst": macro_analyst,
    "fundamentals_analyst": fundamentals_analyst,
    "news_analyst": news_analyst,
    "bull_researcher": bull_researcher,
    "bear_researcher": bear_researcher,
    "research_manager": research_manager,
    "trader": trader,
    "aggressive_risk": aggressive_risk,
    "conservative_risk": conservative_risk,
    "neutral_risk": neutral_risk,
    "portfolio_manager": portfolio_manager,
}

__all__ = [
    "REFERENCE_SCRIPTS",
    "defensive",
    "earnings_tilt",
    "news_analyst",
    "reflection_lesson",
    "score",
    "tier",
]
