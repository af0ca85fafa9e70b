"""Historical OHLCV as a market source: masked, complete, and blind to later bars."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine import Executor, OrderRecord, Portfolio
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError
from workbench.evaluation.observation import market_payload
from workbench.schema import Action, Decision

REAL = ["MSFT", "AAPL", "XOM", "JPM"]
SECRET = "0123456789abcdef" * 2


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
        self.run: Any = None

    def begin(self, run: Any) -> None:
        self.run = run

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
    # a price's digits may read "2021"; a calendar date cannot hide in them
    assert not re.search(r"2021-\d\d-\d\d", text)
    assert set(spy.seen[0]["symbols"]) == {"ASSET001", "ASSET002", "ASSET003", "ASSET004"}
    assert spy.seen[0]["macro"]["growth"] is None and spy.seen[0]["macro"]["vix"] > 0


def test_the_mapping_unmasks_results() -> None:
    data = Historical.load(bars(), secret=SECRET)
    assert sorted(data.mapping.values()) == sorted(REAL)
    assert Historical.load(bars(), secret=SECRET).mapping == data.mapping
    assert Historical.load(bars(), mask=False).mapping == {s: s for s in sorted(REAL)}


def test_the_mask_secret_travels_with_the_results_but_never_reaches_an_agent() -> None:
    spy = Spy()
    data = Historical.load(bars())
    results = evaluate([spy], data=data)
    seen = json.dumps(spy.seen) + repr(spy.run)
    assert data.secret is not None and data.manifest()["secret"] == data.secret
    assert results.meta["data"]["secret"] == data.secret, "kept so the run repeats anywhere"
    assert data.secret not in seen
    run_secret = spy.run.preset.name  # what the agent was told of the market: a hash only
    assert run_secret.startswith("historical-") and "secret" not in seen


@pytest.mark.slow
def test_a_given_secret_repeats_the_run_bit_for_bit() -> None:
    first = evaluate(["momentum", "random"], data=Historical.load(bars(), secret=SECRET))
    again = evaluate(["momentum", "random"], data=Historical.load(bars(), secret=SECRET))
    other = evaluate(["momentum", "random"], data=Historical.load(bars(), secret="f" * 32))
    assert first.digest() == again.digest() != other.digest()


def test_no_price_level_or_traded_value_of_a_name_survives_the_mask() -> None:
    real = World(data=Historical.load(bars(), mask=False)).path
    rows = real.warmup_steps
    for secret in ("a" * 32, "b" * 32):
        data = Historical.load(bars(), secret=secret)
        masked = World(data=data).path
        order = [sorted(REAL).index(name) for name in data.mapping.values()]
        level = masked.close[0] / real.close[0, order]
        value = (masked.close * masked.volume)[:rows].mean(0) / (real.close * real.volume)[
            :rows, order
        ].mean(0)
        assert np.ptp(np.log(level)) > 0.1 and np.ptp(np.log(value)) > 0.1  # per-name factors
        np.testing.assert_allclose(  # the shape of every path survives: returns are untouched
            np.diff(np.log(masked.close), axis=0), np.diff(np.log(real.close[:, order]), axis=0)
        )


def test_the_bars_are_hashed_once_per_world_however_many_decisions(monkeypatch) -> None:
    from workbench.engine import historical

    calls = []
    real_digest = historical.bars_digest
    monkeypatch.setattr(historical, "bars_digest", lambda b: calls.append(len(b)) or real_digest(b))
    table = bars(dates=60)
    results = evaluate(["cash", "momentum", "random"], data=table)
    assert results.scorecard["decisions"].sum() == 3 * 39
    first_date = int((table["date"] == table["date"].min()).sum())
    assert sorted(calls) == [first_date, len(table)]  # the mask's first date, then the whole


def test_payloads_before_a_date_do_not_depend_on_any_later_bar() -> None:
    honest = World(data=Historical.load(bars(seed=1), secret=SECRET)).path
    rewritten = World(data=Historical.load(bars(seed=1, tail_seed=9), secret=SECRET)).path
    assert not np.array_equal(honest.close, rewritten.close)
    for row in range(honest.warmup_steps, 30):
        assert market_payload(honest, row) == market_payload(rewritten, row), row


def _fill_at_the_open(table: pd.DataFrame, step: int, shares: float) -> OrderRecord:
    path = World(data=Historical.load(table, secret=SECRET)).path
    portfolio = Portfolio(1e7, np.zeros(path.universe.size), leverage_cap=2.0, fee_bps=1.0)
    buy = Action(symbol=path.universe.symbols[0], side="buy", quantity=shares)
    return Executor(path).execute(portfolio, Decision(actions=[buy]), step)[0]


@pytest.mark.parametrize("shares", [100.0, 3_000.0])  # at the touch; walking the book
@pytest.mark.slow
def test_a_fill_at_the_open_reads_nothing_later_in_its_bar(shares: float) -> None:
    honest = bars(seed=2)
    step = 25  # a bar after the warm-up, where the order executes
    day = honest["date"].drop_duplicates().iloc[step]
    later = honest.copy()
    in_bar = later["date"] == day
    for column, factor in (("close", 1.04), ("high", 1.06), ("low", 0.97), ("volume", 0.2)):
        later.loc[in_bar, column] *= factor
    fill, again = _fill_at_the_open(honest, step, shares), _fill_at_the_open(later, step, shares)
    assert fill.quantity == shares and fill == again
    earlier = honest.copy()
    earlier.loc[earlier["date"] == honest["date"].drop_duplicates().iloc[step - 1], "close"] *= (
        1.008
    )
    assert _fill_at_the_open(earlier, step, shares).price != fill.price  # the past does count


def test_a_different_dataset_or_secret_has_a_different_fingerprint() -> None:
    def fingerprint(seed: int, secret: str = SECRET) -> str:
        return World(data=Historical.load(bars(seed=seed), secret=secret)).fingerprint

    assert fingerprint(1) != fingerprint(2)
    assert fingerprint(1) == fingerprint(1) != fingerprint(1, "e" * 32)


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        (bars().drop(columns=["volume"]), "missing \\['volume'\\]"),
        (bars().iloc[:-1], "JPM has no bar on 2021-04-23 \\(1 of 40 dates\\)"),
        (pd.concat([bars(), bars().iloc[:1]]), "two bars for MSFT"),
        (bars().assign(close=lambda f: f["close"].where(f.index != 5)), "AAPL on .* no close"),
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


def test_the_panel_is_the_same_from_bars_in_any_row_order() -> None:
    """Bars as ``read_bars`` leaves them are reshaped into the panel; any other order is
    pivoted: both give the same (dates x names) arrays."""
    loaded = Historical.load(sample_bars(days=40, names=5, seed=4), secret=SECRET)
    shuffled = Historical(loaded.bars.sample(frac=1.0, random_state=2), secret=SECRET)
    for name, values in loaded.real_panel.items():
        assert np.array_equal(values, shuffled.real_panel[name])
        assert values.shape == (40, 5)
