"""A situation in words, from the observation payload alone, for similarity search.

``describe(payload)`` names the business-cycle regime, the volatility level, the
breadth of the market and each name's move over the visible history as joined
words (``regime_expansion``, ``volatility_calm``, ``aaa_rise``), so BM25 matches
a name with its move rather than either alone. It reads only the payload, so it
is as point in time as the payload is.
"""

from __future__ import annotations

from typing import Any

# Bands of a name's move over the visible history, in percent (upper bounds).
_MOVES = ((-2.0, "strong_fall"), (-0.5, "fall"), (0.5, "flat"), (2.0, "rise"))


def move_word(change_pct: float) -> str:
    for bound, word in _MOVES:
        if change_pct < bound:
            return word
    return "strong_rise"


def volatility_word(vix: Any) -> str:
    if vix is None:
        return "unobserved"
    return "calm" if vix < 15 else ("normal" if vix < 25 else "stressed")


def describe(payload: dict[str, Any]) -> str:
    macro = payload.get("macro", {})
    changes = {
        symbol: 100.0 * (quote["history"][-1] / quote["history"][0] - 1.0)
        for symbol, quote in sorted(payload["symbols"].items())
    }
    rising = 2 * sum(change > 0 for change in changes.values()) - len(changes)
    breadth = "rising" if rising > 0 else ("falling" if rising < 0 else "mixed")
    words = [
        f"regime_{macro.get('regime') or 'unobserved'}",
        f"volatility_{volatility_word(macro.get('vix'))}",
        f"breadth_{breadth}",
        *(f"{symbol.lower()}_{move_word(change)}" for symbol, change in changes.items()),
    ]
    return " ".join(words)


__all__ = ["describe", "move_word", "volatility_word"]
