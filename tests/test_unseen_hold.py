"""An arm that holds whatever it is shown is not asked: the run is the one asking it gives."""

from __future__ import annotations

from typing import Any

import pytest

from workbench import Agent, evaluate
from workbench.agents import DecisionRequest, ExecutionReport
from workbench.baselines import (
    BASELINES,
    BuyAndHold,
    Cash,
    EarningsDrift,
    HeadlineSentiment,
)
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.schema import Decision

SECRET = "0123456789abcdef" * 2
BARS = sample_bars(days=90, names=4, seed=5)


def _asked(kind: type[Agent]) -> Agent:
    """The baseline ``kind`` asked at every decision point (it never says it holds)."""
    always = type(f"Asked{kind.__name__}", (kind,), {"unseen_hold": lambda self, news: None})
    return always()


def _both(**market: Any) -> tuple[Any, Any]:
    skipping = evaluate(list(BASELINES), **market)
    asked = evaluate([_asked(kind) for kind in BASELINES.values()], **market)
    return skipping, asked


@pytest.mark.parametrize(
    "market",
    [
        {"data": "bars"},
        {"seed": 4, "universe": 5, "days": 30, "steps_per_day": 2, "ticks_per_step": 5},
    ],
    ids=["historical", "simulated-with-news"],
)
def test_a_run_with_unseen_holds_is_the_run_that_asks_every_arm(market: dict[str, Any]) -> None:
    if market.get("data") == "bars":
        market = {"data": Historical.load(BARS, secret=SECRET)}
    skipping, asked = _both(**market)
    assert skipping.digest() == asked.digest()
    assert skipping.scorecard["decisions"].tolist() == asked.scorecard["decisions"].tolist()
    assert skipping.scorecard["decisions"].min() > 0


def test_the_shipped_holds_are_said_only_when_nothing_could_trade() -> None:
    assert Cash().unseen_hold(news=True) is not None
    buyer = BuyAndHold()
    assert buyer.unseen_hold(news=False) is None  # it has not bought yet
    buyer._bought = True
    assert buyer.unseen_hold(news=True) is not None
    for kind in (HeadlineSentiment, EarningsDrift):
        reader = kind()
        assert reader.unseen_hold(news=False) is not None
        assert reader.unseen_hold(news=True) is None  # it would read the news
        reader._views = {"AAA": (1.0, 9)}
        assert reader.unseen_hold(news=False) is None  # it holds a view to trade on


class _Noting(Cash):
    """Cash that hears back after every execution."""

    name = "noting"

    def __init__(self) -> None:
        super().__init__()
        self.heard: list[int] = []

    def after_execution(
        self, request: DecisionRequest, decision: Decision, report: ExecutionReport
    ) -> None:
        self.heard.append(request.day)


class _Trading(Cash):
    """A subclass of Cash with a decide of its own: buys one share of its first name."""

    name = "trading"

    def decide(self, payload: dict[str, Any]) -> Decision:
        return Decision.of_market_orders([(next(iter(payload["symbols"])), "buy", 1.0)])


def test_a_subclass_that_decides_or_hears_back_is_asked_at_every_point() -> None:
    noting, trading = _Noting(), _Trading()
    results = evaluate([noting, trading], data=Historical.load(BARS, secret=SECRET))
    days = int(results.scorecard.loc["noting", "decisions"])
    assert noting.heard == list(range(days))
    assert (results.orders["arm"] == "trading").sum() == days
