"""Margin: a book carried past the maintenance multiple is liquidated; zero equity is bust."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, Results, evaluate
from workbench.engine.historical import Historical
from workbench.errors import ConfigError
from workbench.report import format_scorecard
from workbench.schema import HISTORY_STEPS

SYMBOLS = ["UP", "FLAT"]

MASK = "7" * 32  # one mask for every run: each sees the same bars


def panel(moves: list[float], *, gap: dict[int, float] | None = None) -> pd.DataFrame:
    """Two names over HISTORY_STEPS warm-up dates (UP wiggles 2 % around 100, so its trailing
    vol and spread are ordinary) then one date per move: UP's close changes by each move,
    FLAT stays at 50; ``gap`` sets UP's open on a date to the previous close times a factor
    (an overnight jump)."""
    up = [100.0 if d % 2 else 102.0 for d in range(HISTORY_STEPS)]
    for move in moves:
        up.append(up[-1] * (1 + move))
    rows = []
    for d, day in enumerate(pd.bdate_range("2020-01-01", periods=len(up))):
        opened = up[d - 1] * (gap or {}).get(d, 1.0) if d else up[0]
        for symbol, close, first in (("UP", up[d], opened), ("FLAT", 50.0, 50.0)):
            high, low = max(first, close) * 1.001, min(first, close) * 0.999
            rows.append({"date": day, "symbol": symbol, "open": first, "high": high,
                         "low": low, "close": close, "volume": 5e6})  # fmt: skip
    return pd.DataFrame(rows)


class ShortOnce(Agent):
    """Shorts ``symbol`` up to ``fraction`` x the leverage cap at its first decision, then holds."""

    def __init__(self, symbol: str, fraction: float = 0.99) -> None:
        super().__init__("short")
        self.symbol, self.fraction, self.asked = symbol, fraction, 0

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.asked += 1
        if self.asked > 1:
            return {"actions": []}
        equity, last = payload["portfolio"]["equity"], payload["symbols"][self.symbol]["last"]
        shares = math.floor(self.fraction * 2.0 * equity / last)
        action = {"symbol": self.symbol, "side": "sell", "quantity": shares}
        return {"actions": [action]}


def short_run(data: pd.DataFrame, **options: Any) -> tuple[ShortOnce, Results]:
    arm = ShortOnce("UP")
    return arm, evaluate([arm], data=Historical.load(data, mask=False), **options)


def test_a_short_squeezed_past_zero_equity_is_bust_and_never_negative() -> None:
    # UP jumps 80 % overnight before the third trading date: the 2x short owes 1.6x equity
    arm, results = short_run(panel([0.0, 0.0, 0.8, 0.0, 0.0], gap={HISTORY_STEPS + 2: 1.8}))
    card = results.scorecard.loc["short"]
    equity = results.equity["short"]
    assert card["bust"] and card["bust_step"] == 2
    assert (equity >= 0).all() and (equity.iloc[2:] == 0).all() and equity.iloc[1] > 0
    assert card["return_pct"] == -100.0
    closing = results.orders[results.orders["reason"].str.startswith("liquidation")]
    assert not closing.empty and set(closing["side"]) == {"buy"}
    assert closing["status"].isin(["filled", "partial"]).all()
    assert closing[["day", "step"]].values.tolist()[0] == [2, 0]
    assert results.exposure["short"].iloc[-1] == 0  # closed out in full
    assert arm.asked == 2 and card["decisions"] == 2  # bust at the third close: not asked again
    assert format_scorecard(results).endswith("not asked again): short at step 2")


def test_prices_past_the_maintenance_multiple_liquidate_back_to_the_cap() -> None:
    # UP rises 5 % a day: the 2x short is 2.3x, 2.7x, then 3.3x equity at the fourth close
    arm, results = short_run(panel([0.0] + [0.05] * 5))
    ratio = (results.exposure["short"] / results.equity["short"]).to_numpy()
    liquidations = results.orders[results.orders["reason"] == "liquidation"]
    assert not results.scorecard.loc["short", "bust"]
    assert ratio[1:3].tolist() == pytest.approx([2.31, 2.74], abs=0.02)
    assert ratio[3] > 3.0  # the fourth close: a margin call
    assert liquidations["day"].tolist() == np.flatnonzero(ratio[:-1] > 3.0).tolist()
    assert liquidations["day"].tolist()[0] == 3
    assert (liquidations["side"] == "buy").all() and liquidations["status"].eq("filled").all()
    assert ratio[4] < 2.5  # cut to 2x at the fourth close's marks, then UP rose 5 % again
    assert arm.asked == 4  # at closes 0, 1, 2 and 4: not at the margin call, nor the last close
    assert (results.equity["short"] > 0).all()


def test_liquidation_orders_pay_the_spread_like_any_order() -> None:
    _, results = short_run(panel([0.0] + [0.05] * 5))
    forced = results.orders[results.orders["reason"] == "liquidation"].iloc[0]
    day_close = 100 * 1.05**3  # the buy executes from the next open: the fourth close
    assert forced["price"] > day_close and forced["fee"] > 0


def test_the_margin_rule_is_in_the_results_meta() -> None:
    _, results = short_run(panel([0.0] * 3), leverage_cap=1.5, maintenance_multiple=2.0)
    assert results.meta["leverage_cap"] == 1.5 and results.meta["maintenance_multiple"] == 2.0
    _, default = short_run(panel([0.0] * 3))
    assert default.meta["maintenance_multiple"] == 3.0


@pytest.mark.parametrize("bad", [1.5, 0, -1, float("nan"), True, "3"])
def test_a_maintenance_multiple_below_the_cap_or_not_a_number_is_refused(bad: Any) -> None:
    with pytest.raises(ConfigError, match="maintenance_multiple"):
        evaluate(["cash"], seed=1, universe=3, days=1, maintenance_multiple=bad)


def long_history(days: int = 2_000, names: int = 6, seed: int = 4) -> pd.DataFrame:
    """Daily bars like real stocks: fat-tailed moves, one name trending up hard (the squeeze
    that ruins a random short book), overnight gaps."""
    rng = np.random.default_rng(seed)
    drift = np.linspace(-0.0004, 0.0025, names)
    moves = drift + 0.025 * rng.standard_t(3, (days, names)) / math.sqrt(3)
    close = 50 * np.exp(np.cumsum(moves, axis=0))
    opened = close * np.exp(0.005 * rng.standard_normal((days, names)))
    frames = []
    for i in range(names):
        high = np.maximum(opened[:, i], close[:, i]) * 1.005
        low = np.minimum(opened[:, i], close[:, i]) * 0.995
        frames.append(pd.DataFrame({"date": pd.bdate_range("2010-01-04", periods=days),
                                    "symbol": f"S{i}", "open": opened[:, i], "high": high,
                                    "low": low, "close": close[:, i], "volume": 2e6}))  # fmt: skip
    return pd.concat(frames, ignore_index=True)


@pytest.mark.slow
def test_a_long_random_history_never_shows_negative_equity() -> None:
    # without the maintenance rule this random book ended at -606 %, below zero on 1,179 days
    results = evaluate(
        ["random", "buy_and_hold"], data=Historical.load(long_history(), secret=MASK)
    )
    equity, exposure = results.equity, results.exposure
    assert (equity.to_numpy() >= 0).all()
    forced = results.orders[results.orders["reason"].str.startswith("liquidation")]
    assert set(forced["arm"]) == {"random"}
    assert exposure.shape == equity.shape and (exposure.index == equity.index).all()
    assert not results.scorecard["bust"].any()
    daily = equity.pct_change().dropna()
    assert (daily.to_numpy() >= -1.0).all()


@pytest.mark.slow
def test_with_no_maintenance_to_speak_of_the_same_history_ends_bust_not_below_zero() -> None:
    results = evaluate(
        ["random"], data=Historical.load(long_history(), secret=MASK), maintenance_multiple=1_000
    )
    card, equity = results.scorecard.loc["random"], results.equity["random"]
    step = card["bust_step"]
    assert card["bust"] and isinstance(step, int) and 0 < step < len(equity) - 1
    assert (equity >= 0).all() and (equity.iloc[step:] == 0).all() and equity.iloc[step - 1] > 0
    assert card["return_pct"] == -100.0 and card["max_drawdown_pct"] == 100.0
    assert card["sharpe"] < 0 and card["decisions"] == step
    closing = results.orders[results.orders["reason"].str.startswith("liquidation")]
    assert not closing.empty and (closing["day"] >= step).all()
    assert results.exposure["random"].iloc[-1] == 0
