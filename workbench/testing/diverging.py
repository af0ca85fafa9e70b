"""Two scripted traders that agree on every day but two: the decision diff's fixture.

Both answer from prices alone (never from their book), so what they decide on one
day does not move what they decide on another, and their decisions part on exactly
the days in ``PARTING_DAYS``: ``leader_agent`` buys the name with the strongest
trend every day; ``second_opinion_agent`` does the same, except on those days,
when it buys the weakest name instead.
"""

from __future__ import annotations

import json
from typing import Any

from workbench.integrations.callable import CallableAgentAdapter
from workbench.testing.scripted import scripted_info

PARTING_DAYS = (2, 5)
SHARES = 100
LEADER_INSTRUCTIONS = "Buy 100 shares of the name with the strongest trend, every day."
SECOND_OPINION_INSTRUCTIONS = (
    "Buy 100 shares of the name with the strongest trend, every day, except on days 2 and 5: "
    "then buy the weakest."
)


def _ranked(payload: dict[str, Any]) -> list[str]:
    """Symbols from the strongest trend to the weakest (ties by name)."""
    trend = {s: q["history"][-1] / q["history"][0] for s, q in payload["symbols"].items()}
    return sorted(trend, key=lambda s: (-trend[s], s))


def _buy(symbol: str, why: str) -> str:
    action = {"symbol": symbol, "side": "buy", "quantity": SHARES}
    return json.dumps({"actions": [action], "rationale": why})


def buy_the_leader(payload: dict[str, Any]) -> str:
    leader = _ranked(payload)[0]
    return _buy(leader, f"day {payload['day']}: {leader} has the strongest trend; buy it")


def second_opinion(payload: dict[str, Any]) -> str:
    if payload["day"] not in PARTING_DAYS:
        return buy_the_leader(payload)
    laggard = _ranked(payload)[-1]
    return _buy(laggard, f"day {payload['day']}: {laggard} fell furthest; buy the rebound")


def leader_agent(**kwargs: Any) -> CallableAgentAdapter:
    """The arm ``trader`` buying the leader; kwargs go to ``CallableAgentAdapter``."""
    kwargs.setdefault("name", "trader")
    info = scripted_info("scripted-leader", LEADER_INSTRUCTIONS)
    return CallableAgentAdapter(buy_the_leader, info=info, **kwargs)


def second_opinion_agent(**kwargs: Any) -> CallableAgentAdapter:
    """The arm ``trader`` parting from ``leader_agent`` on ``PARTING_DAYS``."""
    kwargs.setdefault("name", "trader")
    info = scripted_info("scripted-second-opinion", SECOND_OPINION_INSTRUCTIONS)
    return CallableAgentAdapter(second_opinion, info=info, **kwargs)
