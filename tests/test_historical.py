"""Historical OHLCV as a market source: masked, complete, and blind to later bars."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine.historical import Historical
from workbench.errors import ConfigError
from workbench.evaluation.observation import market_payload

REAL = ["MSFT", "AAPL", "XOM", "JPM"]


def bars(dates: int = 40, seed: int = 0, *, tail_seed: int | None = None) -> pd.DataFrame:
    """A random-walk panel; ``tail_seed`` rewrites every bar after the 30th date."""
    rng = np.random.default_rng(seed)
    steps = rng.normal(0, 0.01, (dates, len(REAL)))
    if tail_seed is not None:
        steps[30:] = np.random.default_rng(tail_seed).normal(0, 0.03, (dates - 30, len(REAL)))
    close = 100 * np.exp(np.cumsum(steps, axis=0))
    days = pd.bdate_range("2021-03-01", periods=dates)
    rows = []
    for d, day in enumerate(days):
        for i, symbol in enumerate(REAL):
            c = close[d, i]
            rows.append({"date": day, "symbol": symbol, "open": c * 0.999, "high": c * 1.01,
                         "low": c * 0.99, "close": c, "volume": 1e6 + 1e4 * i})  # fmt: skip
    return pd.DataFrame(rows)


class Spy(Agent):
    def __init__(self) -> None:
        super().__init__("spy")
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.seen.append(payload)
        return {"actions": []}


def test_baselines_trade_historical_bars_from_a_csv(tmp_path: Path) -> None:
    source = tmp_path / "bars.csv"
    bars().to_csv(source, index=False)
    results = evaluate(["buy_and_hold", "momentum"], data=source)
    assert results.equity.shape == (40 - 20, 2)
    assert results.scorecard.loc["buy_and_hold", "trades"] == 4
    assert results.meta["preset"].startswith("historical-")


def test_masking_hides_symbols_and_dates_from_the_agent() -> None:
    spy = Spy()
    evaluate([spy], data=bars())
    text = json.dumps(spy.seen)
    assert not any(symbol in text for symbol in REAL)
    assert "2021" not in text
    assert set(spy.seen[0]["symbols"]) == {"ASSET001", "ASSET002", "ASSET003", "ASSET004"}
    assert spy.seen[0]["macro"]["growth"] is None and spy.seen[0]["macro"]["vix"] > 0
    assert all(
        World(data=bars()).path.close[0, i] == pytest.approx(100.0) for i in range(len(REAL))
    )


def test_the_mapping_unmasks_results() -> None:
    data = Historical.load(bars(), seed=3)
    assert sorted(data.mapping.values()) == sorted(REAL)
    assert Historical.load(bars(), seed=3).mapping == data.mapping
    assert Historical.load(bars(), mask=False).mapping == {s: s for s in sorted(REAL)}


def test_payloads_before_a_date_do_not_depend_on_any_later_bar() -> None:
    honest = World(data=bars(seed=1)).path
    rewritten = World(data=bars(seed=1, tail_seed=9)).path
    assert not np.array_equal(honest.close, rewritten.close)
    for row in range(honest.warmup_steps, 30):
        assert market_payload(honest, row) == market_payload(rewritten, row), row


def test_a_different_dataset_has_a_different_fingerprint() -> None:
    assert World(data=bars(seed=1)).fingerprint != World(data=bars(seed=2)).fingerprint
    assert World(data=bars(seed=1)).fingerprint == World(data=bars(seed=1)).fingerprint


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        (bars().drop(columns=["volume"]), "missing \\['volume'\\]"),
        (bars().iloc[:-1], "AAPL has bars on 39 of 40 dates|JPM has bars on 39"),
        (pd.concat([bars(), bars().iloc[:1]]), "two bars for MSFT"),
        (bars().assign(close=lambda f: f["close"].where(f.index != 5)), "missing or non-positive"),
    ],
)
def test_bad_bars_are_refused_with_the_fix(frame: pd.DataFrame, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        World(data=frame)


def test_asking_for_more_days_than_the_data_holds_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="at most 20 days can be traded"):
        evaluate(["cash"], data=bars(), days=25)
    with pytest.raises(ConfigError, match="the data has 15 dates; 20 are needed as history"):
        World(data=bars(dates=15))
    with pytest.raises(ConfigError, match="no such data file"):
        World(data=tmp_path / "missing.csv")
