"""The five-tier rating, defined once, and the deterministic rule that turns ratings into orders.

Every role that speaks in ratings (research manager, trader, risk debaters,
portfolio manager), the parser and the sizing rule use ``Rating`` from here, so
the vocabulary cannot drift between them.

The executor answers with one line per symbol::

    RATING <SYMBOL>: <Buy|Overweight|Hold|Underweight|Sell>

``size`` maps those ratings to whole-share market orders. Each name has an equal
budget, ``invested × equity / names``; a rating sets the target share of that
budget (``SizingRule.fractions``):

- Buy and Overweight move the position to the target (buying, or trimming a
  position above it);
- Hold never trades;
- Underweight only reduces, down to its target, and never buys;
- Sell closes the position (the committee never opens a short).

Quantities are floored to whole shares and capped at the payload's
``max_order``; trades smaller than ``min_trade_fraction`` of equity are skipped.
Sells come before buys, each in symbol order, so the same ratings always give
the same decision.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from workbench.errors import ConfigError, DecisionError
from workbench.schema import Action, Decision


class Rating(StrEnum):
    """The five tiers, strongest first."""

    BUY = "Buy"
    OVERWEIGHT = "Overweight"
    HOLD = "Hold"
    UNDERWEIGHT = "Underweight"
    SELL = "Sell"


RATINGS: tuple[Rating, ...] = tuple(Rating)
RATING_LINE = "RATING {symbol}: {rating}"
_LINE = re.compile(r"^\s*RATING\s+([A-Za-z0-9_.\-]+)\s*:\s*([A-Za-z]+)\s*\.?\s*$", re.MULTILINE)
_BY_WORD = {rating.value.lower(): rating for rating in RATINGS}
DEFAULT_FRACTIONS: dict[Rating, float | None] = {
    Rating.BUY: 1.0,
    Rating.OVERWEIGHT: 0.5,
    Rating.HOLD: None,
    Rating.UNDERWEIGHT: 0.25,
    Rating.SELL: 0.0,
}


def rating_of(word: str) -> Rating:
    """The tier named by ``word`` (any case); anything else is a ``DecisionError``."""
    try:
        return _BY_WORD[word.strip().lower()]
    except KeyError:
        raise DecisionError(
            f"{word!r} is not a rating; use one of {', '.join(r.value for r in RATINGS)}"
        ) from None


def shift(rating: Rating, tiers: int) -> Rating:
    """``rating`` moved ``tiers`` towards Sell (positive) or Buy (negative), clamped."""
    index = min(max(RATINGS.index(rating) + tiers, 0), len(RATINGS) - 1)
    return RATINGS[index]


def render_ratings(ratings: Mapping[str, Rating]) -> str:
    return "\n".join(
        RATING_LINE.format(symbol=s, rating=r.value) for s, r in sorted(ratings.items())
    )


def parse_ratings(text: str, symbols: list[str] | tuple[str, ...]) -> dict[str, Rating]:
    """Every ``RATING SYM: Tier`` line in ``text``; unrated symbols are Hold.

    No rating line at all, an unknown symbol, an unknown tier or two different
    tiers for one symbol are ``DecisionError``s (the executor answered badly).
    """
    found: dict[str, Rating] = {}
    for symbol, word in _LINE.findall(text):
        if symbol not in symbols:
            raise DecisionError(
                f"the executor rated {symbol!r}, which is not in the observation; "
                f"rate only {', '.join(symbols[:8])}{' …' if len(symbols) > 8 else ''}"
            )
        rating = rating_of(word)
        if found.get(symbol, rating) != rating:
            raise DecisionError(
                f"the executor rated {symbol} twice ({found[symbol].value} and {rating.value})"
            )
        found[symbol] = rating
    if not found:
        raise DecisionError(
            "the executor gave no ratings; answer with one line per symbol: "
            f"'{RATING_LINE.format(symbol='<SYMBOL>', rating='<' + '|'.join(RATINGS) + '>')}'"
        )
    return {symbol: found.get(symbol, Rating.HOLD) for symbol in sorted(symbols)}


@dataclass(frozen=True)
class SizingRule:
    """How much of a name's equal budget each tier targets (Hold: ``None``, never trades)."""

    invested: float = 0.95
    fractions: Mapping[Rating, float | None] = field(
        default_factory=lambda: dict(DEFAULT_FRACTIONS)
    )
    min_trade_fraction: float = 0.002

    def __post_init__(self) -> None:
        if not 0 < self.invested <= 1:
            raise ConfigError(f"sizing.invested must be in (0, 1], got {self.invested!r}")
        if set(self.fractions) != set(RATINGS):
            raise ConfigError("sizing.fractions must name all five tiers: " + ", ".join(RATINGS))
        if self.fractions[Rating.HOLD] is not None:
            raise ConfigError("sizing.fractions: Hold never trades, so its fraction must be null")
        for rating, value in self.fractions.items():
            if rating is not Rating.HOLD and not (value is not None and 0 <= value <= 1):
                raise ConfigError(f"sizing.fractions.{rating.value} must be in [0, 1]")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | None) -> SizingRule:
        data = dict(data or {})
        unknown = set(data) - {"invested", "fractions", "min_trade_fraction"}
        if unknown:
            raise ConfigError(f"sizing has unknown keys {sorted(unknown)}")
        fractions = dict(DEFAULT_FRACTIONS)
        for word, value in (data.pop("fractions", None) or {}).items():
            fractions[_config_rating(word)] = None if value is None else float(value)
        return cls(fractions=fractions, **{k: float(v) for k, v in data.items()})

    def to_json(self) -> dict[str, Any]:
        return {
            "invested": self.invested,
            "fractions": {r.value: self.fractions[r] for r in RATINGS},
            "min_trade_fraction": self.min_trade_fraction,
        }


def _config_rating(word: str) -> Rating:
    try:
        return rating_of(word)
    except DecisionError as exc:
        raise ConfigError(f"sizing.fractions: {exc}") from None


def size(ratings: Mapping[str, Rating], payload: Mapping[str, Any], rule: SizingRule) -> Decision:
    """The orders that move today's positions to what ``ratings`` ask for (see module doc)."""
    book, quotes = payload["portfolio"], payload["symbols"]
    budget = rule.invested * book["equity"] / max(len(quotes), 1)
    orders: list[Action] = []
    for symbol in sorted(ratings):
        held = float(book["positions"].get(symbol, 0.0))
        target = _target(ratings[symbol], held, budget, quotes[symbol]["last"], rule)
        order = _order(symbol, held, target, quotes[symbol], book["equity"], rule)
        if order is not None:
            orders.append(order)
    orders.sort(key=lambda a: (a.side != "sell", a.symbol))
    summary = ", ".join(f"{s} {r.value}" for s, r in sorted(ratings.items()))
    return Decision.of([a.model_dump() for a in orders], rationale=f"portfolio manager: {summary}")


def _target(rating: Rating, held: float, budget: float, price: float, rule: SizingRule) -> float:
    fraction = rule.fractions[rating]
    if fraction is None:
        return held
    goal = float(math.floor(fraction * budget / price))
    if rating is Rating.UNDERWEIGHT:
        return min(held, goal) if held > 0 else held
    if rating is Rating.SELL:
        return 0.0 if held > 0 else held
    return goal


def _order(
    symbol: str,
    held: float,
    target: float,
    quote: Mapping[str, Any],
    equity: float,
    rule: SizingRule,
) -> Action | None:
    quantity = min(abs(target - held), float(quote.get("max_order", 0)))
    if quantity < 1 or quantity * quote["last"] < rule.min_trade_fraction * equity:
        return None
    side: Literal["buy", "sell"] = "buy" if target > held else "sell"
    return Action(symbol=symbol, side=side, quantity=float(math.floor(quantity)))


__all__ = [
    "DEFAULT_FRACTIONS",
    "RATINGS",
    "RATING_LINE",
    "Rating",
    "SizingRule",
    "parse_ratings",
    "rating_of",
    "render_ratings",
    "shift",
    "size",
]
