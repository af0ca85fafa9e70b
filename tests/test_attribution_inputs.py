"""Attribution given careless input: a correct split or a ConfigError naming the problem."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.evaluation import attribution as at
from workbench.evaluation.attribution_frame import (
    attribute,
    attribution_per_seed,
    attribution_totals,
)
from workbench.evaluation.world import World
from workbench.report._data import as_results, attribution_of

ARMS = ["momentum", "buy_and_hold", "random"]


@pytest.fixture(scope="module")
def run():
    results = evaluate(ARMS, seed=3, universe=5, days=6)
    world = World(seed=3, universe=list(results.meta["symbols"]), days=6)
    return results, world


def _split(run, orders=None, equity=None):
    results, world = run
    orders = results.orders if orders is None else orders
    equity = results.equity if equity is None else equity
    every = {arm: world.steps_per_day for arm in equity.columns}
    return attribute(world.path, orders, equity, capital=results.meta["capital"], intervals=every)


def _edited(frame: pd.DataFrame, column: str, value) -> pd.DataFrame:
    frame = frame.copy()
    first_fill = frame.index[frame["status"] == "filled"][0]
    frame.loc[first_fill, column] = value
    return frame


def test_extra_columns_are_ignored(run) -> None:
    assert _split(run, run[0].orders.assign(note="mine")).equals(run[0].attribution)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda o: o.drop(columns=["quantity"]), "no column 'quantity'"),
        (lambda o: o.rename(columns={"price": "prcie"}), "no column 'price'. Did you mean 'prcie'"),
        (lambda o: _edited(o, "price", np.nan), "a filled order's price is nan"),
        (lambda o: _edited(o, "quantity", np.inf), "a filled order's quantity is inf"),
        (lambda o: _edited(o, "quantity", -5.0), "a filled order's quantity is -5.0"),
        (lambda o: _edited(o, "fee", np.nan), "a filled order's fee is nan"),
        (lambda o: _edited(o, "symbol", "ZZZ"), r"\['ZZZ'\], which the market path does not"),
        (lambda o: _edited(o, "side", "BUY"), "a side is 'BUY', not 'buy' or 'sell'"),
        (lambda o: _edited(o.astype({"day": float}), "day", np.nan), "day is not a whole"),
        (lambda o: o.iloc[1:], "the orders do not account for the equity of arm"),
        (lambda o: o.iloc[:0], "the orders do not account for the equity of arm"),
        (lambda o: _edited(o, "arm", "ghost"), "they make .*, the equity moved"),
    ],
    ids=[
        "missing", "misspelt", "nan price", "inf quantity", "negative quantity", "nan fee",
        "unknown symbol", "side in capitals", "nan day", "a row dropped", "no rows",
        "another arm's name",
    ],
)  # fmt: skip
def test_orders_that_cannot_be_split_are_refused_naming_the_problem(run, edit, said) -> None:
    with pytest.raises(ConfigError, match=said):
        _split(run, edit(run[0].orders))


def test_orders_of_another_run_are_refused(run) -> None:
    other = evaluate(ARMS, seed=4, universe=5, days=6)
    with pytest.raises(ConfigError, match="Pass the orders and equity of the same run"):
        _split(run, other.orders)


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda e: pd.concat([e, e.iloc[:6]]), "has 42 steps but the market path has 36"),
        (lambda e: e.iloc[:0], "the equity frame is empty"),
        (lambda e: e.where(e < e.iloc[5, 0], np.nan), r"'momentum' at row \d+ is nan"),
        (lambda e: e.assign(random=np.inf), "'random' at row 0 is inf"),
        (lambda e: e.assign(random="much"), "the equity frame must hold numbers"),
    ],
    ids=["too long", "empty", "nan", "inf", "text"],
)
def test_an_equity_frame_that_cannot_be_split_is_refused(run, edit, said) -> None:
    with pytest.raises(ConfigError, match=said):
        _split(run, equity=edit(run[0].equity))


def test_a_shorter_equity_frame_is_a_stopped_run_and_still_sums(run) -> None:
    frame = _split(run, equity=run[0].equity.iloc[:-7])
    parts = frame[list(at.COMPONENTS)].sum(axis=1)
    assert np.allclose(parts, frame["pnl"], rtol=0, atol=1e-6) and len(frame) == 3 * 29


def test_an_arm_bust_on_its_first_step_loses_its_capital_to_the_floor(run) -> None:
    frame = _split(run, equity=run[0].equity.assign(dead=0.0))
    dead = attribution_totals(frame).loc["dead"]
    assert dead["bust_floor"] == dead["pnl"] == -run[0].meta["capital"]
    assert not dead[["market", "sector", "selection", "timing", "costs"]].any()


def test_results_read_back_from_json_split_as_the_run_did(run) -> None:
    back = as_results(json.loads(run[0].to_json()))
    again, then = attribution_totals(attribution_of(back)), attribution_totals(run[0].attribution)
    for arm in ARMS:  # JSON sorts the arms
        pd.testing.assert_series_equal(again.loc[arm], then.loc[arm])


def test_no_runs_are_no_table() -> None:
    with pytest.raises(ConfigError, match="needs at least one run"):
        attribution_per_seed([])


def test_a_refused_order_may_name_a_symbol_the_market_does_not_trade(run) -> None:
    orders = run[0].orders
    refused = orders.iloc[:1].assign(symbol="HALLUCINATED", status="refused", quantity=0.0)
    with_it = pd.concat([orders, refused.assign(price=np.nan)], ignore_index=True)
    assert _split(run, with_it).equals(run[0].attribution)


@pytest.mark.parametrize("breakage", ["off_by_one", "nan", "refused"])
def test_a_run_whose_split_cannot_be_trusted_keeps_its_results_and_leaves_it_out(
    monkeypatch: pytest.MonkeyPatch, breakage: str
) -> None:
    """A run is never lost over its derived view: were the split ever wrong (a bug), the
    run returns whole, warns, and shows no market or selection share and no rows."""
    from workbench.evaluation import attribution_frame

    honest = attribution_frame._components

    def broken(*args, **kwargs):
        if breakage == "refused":
            raise ConfigError("a check the run's own orders should never fail")
        parts = honest(*args, **kwargs)
        parts["market"] = parts["market"] + (1.0 if breakage == "off_by_one" else np.nan)
        return parts

    monkeypatch.setattr(attribution_frame, "_components", broken)
    with pytest.warns(RuntimeWarning, match="attribution is left out of these results"):
        results = evaluate(ARMS, seed=3, universe=5, days=2)
    card = results.scorecard
    assert card["pnl_market_pct"].isna().all() and card["pnl_selection_pct"].isna().all()
    assert card.loc["momentum", "trades"] > 0 and len(results.equity) == 12
    assert results.attribution.empty and "market" in results.attribution.columns
    if breakage != "refused":  # the same split asked for by hand is refused, not returned
        with pytest.raises(ConfigError, match="do not account for the equity"):
            _split((results, World(seed=3, universe=list(results.meta["symbols"]), days=2)))
