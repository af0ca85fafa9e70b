"""An arm that holds whatever it is shown is not asked: the run is the one asking it gives."""

from __future__ import annotations

from typing import Any, cast

import pytest

from workbench import Agent, evaluate
from workbench.agents import DecisionRequest, ExecutionReport, RunInfo
from workbench.baselines import (
    BASELINES,
    BuyAndHold,
    Cash,
    EarningsDrift,
    HeadlineSentiment,
    rebalance,
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


def _begun(arm: Agent) -> Agent:
    """``arm`` told a run starts (the baselines read nothing of it)."""
    arm.begin(cast(RunInfo, None))
    return arm


def test_the_shipped_holds_are_said_only_when_nothing_could_trade() -> None:
    assert Cash().unseen_hold(news=True) is None  # not yet told a run starts
    assert _begun(Cash()).unseen_hold(news=True) is not None
    buyer = _begun(BuyAndHold())
    assert buyer.unseen_hold(news=False) is None  # it has not bought yet
    buyer._bought = True
    assert buyer.unseen_hold(news=True) is not None
    for kind in (HeadlineSentiment, EarningsDrift):
        reader = _begun(kind())
        assert reader.unseen_hold(news=False) is not None
        assert reader.unseen_hold(news=True) is None  # it would read the news
        reader._views = {"AAA": (1.0, 9)}
        assert reader.unseen_hold(news=False) is None  # it holds a view to trade on


def _buy_first(payload: dict[str, Any]) -> Decision:
    return Decision.of_market_orders([(next(iter(payload["symbols"])), "buy", 1.0)], "buy")


def test_a_decide_replaced_on_the_arm_or_its_class_is_asked(monkeypatch) -> None:
    patched = Cash()
    patched.decide = _buy_first  # type: ignore[method-assign]
    assert evaluate([patched], seed=1, universe=4, days=3).scorecard.loc["cash", "trades"] > 0
    kind = type("Later", (Cash,), {"name": "later"})
    assert evaluate([kind()], seed=1, universe=4, days=3).scorecard.loc["later", "trades"] == 0
    monkeypatch.setattr(kind, "decide", lambda self, payload: _buy_first(payload))
    assert evaluate([kind()], seed=1, universe=4, days=3).scorecard.loc["later", "trades"] > 0
    monkeypatch.setattr(Cash, "decide", lambda self, payload: _buy_first(payload))
    assert evaluate([Cash()], seed=1, universe=4, days=3).scorecard.loc["cash", "trades"] > 0


def test_a_decision_without_trades_is_the_callers_own() -> None:
    payload = {"portfolio": {"equity": 1e5, "positions": {}}, "symbols": {}}
    first, second = rebalance(payload, {}, "why"), rebalance(payload, {}, "why")
    first.actions.append(second.actions)  # type: ignore[arg-type]
    assert first is not second and second.actions == []


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
