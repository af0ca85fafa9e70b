"""Baseline agents: ordinary arms with the same interface as LLM arms.

Each reads only the observation payload and answers with a ``Decision``. Like
every arm they decide once per trading day unless ``every`` says otherwise; the
portfolio ones rebalance to target weights, trading whole shares at market.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from workbench.agents import Agent, Every, RunInfo
from workbench.engine.draws import Draws
from workbench.errors import ConfigError
from workbench.schema import HOLD, Decision

_MIN_TRADE_FRACTION = 0.002  # skip rebalancing trades smaller than 0.2% of equity
_SIDES = ("buy", "sell")
_MOST_NAMES = 2**32 - 1  # the random trader's draws are 32-bit (workbench.engine.draws)


class Cash(Agent):
    """Never trades: the zero line every other arm is measured against."""

    name = "cash"
    shares_payload = True
    reads_news = False
    inline = True

    _holds_unseen = False  # set by ``begin``: whether it decides as written here

    def decide(self, payload: dict[str, Any]) -> Decision:
        return HOLD

    def begin(self, run: RunInfo) -> None:
        self._holds_unseen = _as_shipped(self, Cash)

    def unseen_hold(self, news: bool) -> Decision | None:
        return HOLD if self._holds_unseen else None


# What the runner would skip for an arm that holds unseen (``Agent.unseen_hold``)
_ASKED_THROUGH = ("decide", "views", "answer_in_turn", "after_execution", "unseen_hold", "in_turn")


def _as_shipped(arm: Agent, *shipped: type[Agent]) -> bool:
    """Whether ``arm`` decides, answers and hears back as one of ``shipped`` as this module
    writes it: none of that replaced on the arm, on a subclass, or on the class since.
    Asked at each run's start (``begin``), so a change between runs is seen."""
    own = getattr(arm, "__dict__", {})
    if any(name in own for name in _ASKED_THROUGH):
        return False
    kind = type(arm)
    return any(
        all(getattr(kind, name, None) is written for name, written in _WRITTEN[cls].items())
        for cls in shipped
    )


class _TargetWeights(Agent):
    """Rebalances to ``targets(payload)`` (symbol → weight of equity)."""

    invested = 0.95
    shares_payload = True
    reads_news = False
    inline = True

    def targets(self, payload: dict[str, Any]) -> dict[str, float]:
        raise NotImplementedError

    def decide(self, payload: dict[str, Any]) -> Decision:
        return rebalance(payload, self.targets(payload), type(self).__name__)


def rebalance(payload: dict[str, Any], targets: dict[str, float], why: str) -> Decision:
    """Market orders moving today's positions to ``targets`` weights at the last price."""
    book = payload["portfolio"]
    equity, held = book["equity"], book["positions"]
    if not targets and not held:  # nothing to hold and nothing held: every trade is 0
        return Decision.of_market_orders((), f"{why}: rebalance to 0 names")
    smallest = _MIN_TRADE_FRACTION * equity
    orders = []
    floor, weight_of, shares_of = math.floor, targets.get, held.get  # read once, not per name
    for symbol, quote in payload["symbols"].items():
        if symbol not in targets and symbol not in held:
            continue  # no weight wanted and no shares held: its trade is 0
        price = quote["last"]
        delta = floor(weight_of(symbol, 0.0) * equity / price) - shares_of(symbol, 0.0)
        if abs(delta) * price < smallest or delta == 0:
            continue
        orders.append((symbol, "buy" if delta > 0 else "sell", float(abs(delta))))
    return Decision.of_market_orders(orders, f"{why}: rebalance to {len(targets)} names")


@functools.cache
def _unseen_rebalance(why: str) -> Decision:
    """What a news reader without news answers (the rebalance to no names), made once per
    reader kind for the runner, which holds it unseen: the arm never gets this object."""
    return Decision.of_market_orders((), f"{why}: rebalance to 0 names")


class EqualWeight(_TargetWeights):
    """Holds every name in equal weight, rebalanced daily."""

    name = "equal_weight"
    reads_news = False

    def targets(self, payload: dict[str, Any]) -> dict[str, float]:
        symbols = payload["symbols"]
        return dict.fromkeys(symbols, self.invested / len(symbols))


class BuyAndHold(EqualWeight):
    """Buys every name in equal weight at the first decision, then holds."""

    name = "buy_and_hold"
    shares_payload = True
    reads_news = False
    _bought = False
    _holds_unseen = False

    def begin(self, run: RunInfo) -> None:
        self._bought = False
        self._holds_unseen = _as_shipped(self, BuyAndHold)

    def decide(self, payload: dict[str, Any]) -> Decision:
        if self._bought:
            return HOLD
        self._bought = True
        return super().decide(payload)

    def unseen_hold(self, news: bool) -> Decision | None:
        return HOLD if self._bought and self._holds_unseen else None


class _Ranked(_TargetWeights):
    """Equal weight in the top ``fraction`` of names by a score of their history."""

    fraction = 0.2
    reads_news = False

    def score(self, history: list[float]) -> float:
        raise NotImplementedError

    def targets(self, payload: dict[str, Any]) -> dict[str, float]:
        quotes = payload["symbols"]
        scores = [-self.score(quote["history"]) for quote in quotes.values()]
        count = max(1, round(self.fraction * len(scores)))
        symbols = list(quotes)
        chosen = sorted(range(len(scores)), key=scores.__getitem__)[:count]  # stable: ties in order
        return {symbols[i]: self.invested / count for i in chosen}


class Momentum(_Ranked):
    """Long the names that rose most over the visible history."""

    name = "momentum"
    reads_news = False

    def score(self, history: list[float]) -> float:
        return history[-1] / history[0] - 1.0


class MeanReversion(_Ranked):
    """Long the names that fell most over the visible history."""

    name = "mean_reversion"
    reads_news = False

    def score(self, history: list[float]) -> float:
        return 1.0 - history[-1] / history[0]


def _whole(value: Any) -> bool:
    """An int or a NumPy integer, not a bool."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


class RandomTrader(Agent):
    """Trades a few random names at random at each decision; seeded, so runs repeat exactly."""

    name = "random"
    shares_payload = True
    reads_news = False
    inline = True

    def __init__(
        self,
        name: str | None = None,
        *,
        seed: int = 0,
        every: Every | None = None,
        max_names: int = 3,
        notional_fraction: float = 0.02,
    ) -> None:
        super().__init__(name, every=every)
        if not (_whole(max_names) and 0 <= max_names < _MOST_NAMES):
            raise ConfigError(
                f"max_names must be a whole number from 0 to {_MOST_NAMES - 1}, got {max_names!r}"
            )
        if not (seed is None or _whole(seed)):  # a Generator would be shared and read ahead
            raise ConfigError(f"the random trader's seed must be a whole number, got {seed!r}")
        self.seed, self.max_names, self.notional_fraction = seed, int(max_names), notional_fraction
        self._draws = Draws(seed)

    def begin(self, run: RunInfo) -> None:
        self._draws = Draws(self.seed)

    def decide(self, payload: dict[str, Any]) -> Decision:
        # the numbers of np.random.default_rng(seed)'s integers(0, max_names + 1), then
        # choice(names, count, replace=False) and integers(0, 2, count), without NumPy calls
        symbols = list(payload["symbols"])
        count = self._draws.below(self.max_names + 1)
        if count == 0 or not symbols:  # no pick: the two draws below would draw nothing
            return Decision.of_market_orders((), rationale="random")
        picks = self._draws.sample(len(symbols), min(count, len(symbols)))
        sides = self._draws.many_below(2, len(picks))
        budget = self.notional_fraction * payload["portfolio"]["equity"]
        quotes, orders = payload["symbols"], []
        for i, side in zip(picks, sides, strict=True):
            quantity = math.floor(budget / quotes[symbols[i]]["last"])
            if quantity > 0:
                orders.append((symbols[i], _SIDES[side], float(quantity)))
        return Decision.of_market_orders(orders, rationale="random")


_GOOD_WORDS = (
    "raises", "lifts", "higher", "better", "record", "wins", "approval", "upbeat", "expands",
    "cleared", "dismissal", "respected", "strengthens", "buys", "upgrades", "raise", "beats",
    "tops", "above", "surges", "brightens", "pick up", "talks", "takeover", "buyback",
    "holding up",
)  # fmt: skip
_BAD_WORDS = (
    "trims", "slashes", "warns", "decline", "delays", "fails", "recalls", "halts", "defects",
    "lawsuit", "inquiry", "loses", "fined", "departs", "sell", "resigns", "ousts", "cuts",
    "downgrades", "misses", "short of", "trails", "soften", "drop", "losing", "collapsed",
    "asset sale",
)  # fmt: skip
# every kind a headline's words can be read on: not figures, rates or instructions (a
# researcher's own text on historical bars brings kinds of its own, read the same way)
_UNREAD_KINDS = frozenset(("earnings", "policy", "notice"))


def headline_score(headline: str) -> int:
    """Good words less bad words in a headline (a word list, no model: negation and hedging
    fool it, which is the point of a baseline to beat)."""
    text = headline.lower()
    return sum(word in text for word in _GOOD_WORDS) - sum(word in text for word in _BAD_WORDS)


class _Reader(Agent):
    """Holds names on what it read, each for ``hold_days`` after the item, then lets go."""

    shares_payload = True
    inline = True
    hold_days = 5
    weight = 0.1  # of equity per name held
    _holds_unseen = False

    def __init__(self, name: str | None = None, *, every: Every | None = None) -> None:
        super().__init__(name, every=every)
        self._views: dict[str, tuple[float, int]] = {}  # symbol -> (direction, until day)
        self._traded = False  # whether it has answered with an order this run

    def begin(self, run: RunInfo) -> None:
        self._views, self._traded = {}, False
        self._holds_unseen = _as_shipped(self, HeadlineSentiment, EarningsDrift)

    def views(self, payload: dict[str, Any]) -> dict[str, float]:
        raise NotImplementedError

    def decide(self, payload: dict[str, Any]) -> Decision:
        day = payload["day"]
        for symbol, direction in self.views(payload).items():
            self._views[symbol] = (direction, day + self.hold_days)
        self._views = {s: v for s, v in self._views.items() if v[1] > day}
        targets = {s: direction * self.weight for s, (direction, _) in self._views.items()}
        gross = sum(abs(w) for w in targets.values())
        if gross > 0.95:
            targets = {s: w * 0.95 / gross for s, w in targets.items()}
        decision = rebalance(payload, targets, type(self).__name__)
        self._traded = self._traded or bool(decision.actions)
        return decision

    def unseen_hold(self, news: bool) -> Decision | None:
        """Without news to read, no view and an empty book (it never traded), every
        decision is the rebalance to no names."""
        if news or self._views or self._traded:
            return None
        if not self._holds_unseen:
            return None
        return _unseen_rebalance(type(self).__name__)


class HeadlineSentiment(_Reader):
    """Long a name after good headlines, short after bad ones, by a word count."""

    name = "headline_sentiment"

    def views(self, payload: dict[str, Any]) -> dict[str, float]:
        out: dict[str, float] = {}
        for item in reversed(payload.get("news", [])):  # oldest first: the newest view wins
            if item["kind"] in _UNREAD_KINDS:
                continue
            score = headline_score(item["headline"])
            for symbol in item["symbols"]:
                if score:
                    out[symbol] = 1.0 if score > 0 else -1.0
        return out


class EarningsDrift(_Reader):
    """Follows earnings surprises: long a beat, short a miss, for the drift that follows.

    It reads an earnings item's ``eps`` and ``consensus_eps``; an item without both (a
    researcher's news on historical bars carries text only) is skipped, so on such news
    it holds cash, as it would with no earnings at all."""

    name = "earnings_drift"
    hold_days = 10

    def views(self, payload: dict[str, Any]) -> dict[str, float]:
        out: dict[str, float] = {}
        for item in payload.get("news", []):
            if item["kind"] != "earnings" or not item.get("consensus_eps"):
                continue
            if item.get("eps") is None:
                continue
            surprise = item["eps"] / item["consensus_eps"] - 1.0
            if abs(surprise) >= 0.02:
                out[item["symbols"][0]] = 1.0 if surprise > 0 else -1.0
        return out


BASELINES: dict[str, type[Agent]] = {
    "cash": Cash,
    "buy_and_hold": BuyAndHold,
    "equal_weight": EqualWeight,
    "momentum": Momentum,
    "mean_reversion": MeanReversion,
    "random": RandomTrader,
    "headline_sentiment": HeadlineSentiment,
    "earnings_drift": EarningsDrift,
}


def baseline(name: str, **kwargs: Any) -> Agent:
    """A fresh baseline agent by name, e.g. ``baseline("momentum", every=12)``."""
    try:
        kind = BASELINES[name]
    except KeyError:
        raise ConfigError(
            f"unknown arm {name!r}; baselines are {', '.join(BASELINES)}. "
            "Pass an Agent object for anything else."
        ) from None
    return kind(**kwargs)


__all__ = [
    "BASELINES",
    "BuyAndHold",
    "Cash",
    "EarningsDrift",
    "EqualWeight",
    "HeadlineSentiment",
    "MeanReversion",
    "Momentum",
    "RandomTrader",
    "baseline",
    "headline_score",
    "rebalance",
]


# each class that may hold unseen: what it decides, answers and hears back with, as written
_WRITTEN: dict[type[Agent], dict[str, Any]] = {
    cls: {name: getattr(cls, name, None) for name in _ASKED_THROUGH}
    for cls in (Cash, BuyAndHold, HeadlineSentiment, EarningsDrift)
}
