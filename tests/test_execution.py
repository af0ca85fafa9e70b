"""Stage two and fills: book walks, limit crosses, participation clips, leverage refusals."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from workbench.engine import Executor, MarketPath, OrderRecord, Portfolio, Universe
from workbench.engine.execution import max_order
from workbench.evaluation import World, evaluate
from workbench.evaluation.observation import market_payload
from workbench.evaluation.results import ORDER_COLUMNS
from workbench.schema import Action, Decision


def flat_market(*, volume: float = 10_000.0, depth: float = 200.0) -> MarketPath:
    """Two names at 100 and 50, one step, 10 bps half-spread, 5 levels 10 bps apart."""
    shape = (2, 2)
    mid = np.array([[100.0, 50.0], [100.0, 50.0]])
    return MarketPath(
        universe=Universe.of(["AAA", "BBB"]),
        steps_per_day=2,
        ticks_per_step=10,
        warmup_days=0,
        open=mid,
        high=mid * 1.01,
        low=mid * 0.99,
        close=mid,
        volume=np.full(shape, volume),
        half_spread=np.full(shape, 0.001),
        depth=np.full(shape, depth),
        macro={},
        levels=5,
        level_step=0.001,
    )


def book(cash: float = 100_000.0, leverage: float = 2.0) -> Portfolio:
    return Portfolio(cash=cash, positions=np.zeros(2), leverage_cap=leverage, fee_bps=0.0)


def run(*actions: Action, market: MarketPath | None = None, portfolio: Portfolio | None = None):
    portfolio = portfolio or book()
    records = Executor(market or flat_market()).execute(
        portfolio, Decision(actions=list(actions)), 1
    )
    return records, portfolio


def test_a_market_buy_walks_the_depth() -> None:
    (record,), portfolio = run(Action(symbol="AAA", side="buy", quantity=500))
    touch = 100 * 1.001
    expected = 200 * touch + 200 * touch * 1.001 + 100 * touch * 1.002
    assert record.status == "filled" and record.quantity == 500
    assert record.price == pytest.approx(expected / 500)
    assert portfolio.positions[0] == 500
    assert portfolio.cash == pytest.approx(100_000 - expected)


def test_a_sell_takes_the_bid_and_may_go_short() -> None:
    (record,), portfolio = run(Action(symbol="BBB", side="sell", quantity=100))
    assert record.price == pytest.approx(50 * 0.999)
    assert portfolio.positions[1] == -100
    assert portfolio.cash == pytest.approx(100_000 + 100 * 50 * 0.999)


def test_orders_are_clipped_to_the_participation_cap_and_the_clip_is_recorded() -> None:
    (record,), portfolio = run(Action(symbol="AAA", side="buy", quantity=5_000))
    assert record.clipped and record.clipped_to == 1_000  # 10% of 10,000
    assert record.quantity == 1_000 and portfolio.positions[0] == 1_000


def test_the_cap_is_shared_by_orders_on_the_same_symbol() -> None:
    records, _ = run(
        Action(symbol="AAA", side="buy", quantity=700),
        Action(symbol="AAA", side="buy", quantity=700),
    )
    assert [r.quantity for r in records] == [700, 300]
    assert records[1].clipped


def test_book_depth_exhaustion_is_a_partial_fill_with_a_reason() -> None:
    (record,), _ = run(
        Action(symbol="AAA", side="buy", quantity=900), market=flat_market(depth=100)
    )
    assert record.status == "partial" and record.quantity == 500
    assert record.reason == "book depth exhausted"


def test_a_resting_limit_fills_at_its_price_when_the_path_crosses() -> None:
    (crossed,), _ = run(
        Action(symbol="AAA", side="buy", quantity=10, order_type="limit", limit_price=99.5)
    )
    assert crossed.status == "filled" and crossed.price == 99.5
    (missed,), portfolio = run(
        Action(symbol="AAA", side="buy", quantity=10, order_type="limit", limit_price=95.0)
    )
    assert missed.status == "unfilled" and missed.quantity == 0
    assert portfolio.cash == 100_000


def test_a_marketable_limit_walks_only_up_to_its_price() -> None:
    limit = 100 * 1.001 * 1.0015  # between level 1 and level 2
    (record,), _ = run(
        Action(symbol="AAA", side="buy", quantity=600, order_type="limit", limit_price=limit)
    )
    assert record.status == "partial" and record.quantity == 400


def test_leverage_cap_refuses_with_a_reason_and_the_rest_still_trades() -> None:
    records, portfolio = run(
        Action(symbol="AAA", side="buy", quantity=900),
        Action(symbol="BBB", side="buy", quantity=100),
        portfolio=book(cash=50_000, leverage=1.0),
    )
    assert records[0].status == "refused"
    assert "leverage cap" in records[0].reason and "at most 500 shares fit" in records[0].reason
    assert records[1].status == "filled" and portfolio.positions.tolist() == [0, 100]


def test_reducing_exposure_is_never_refused_by_the_cap() -> None:
    portfolio = book(cash=-100_000, leverage=1.0)
    portfolio.positions[:] = [1_500, 0]
    (record,), _ = run(Action(symbol="AAA", side="sell", quantity=500), portfolio=portfolio)
    assert record.status == "filled"


def gapped_market() -> MarketPath:
    """BBB closes at 50 on the decision step and opens 12 % higher in the next one."""
    base = flat_market(volume=100_000.0, depth=2_000.0)
    opened = np.array([[100.0, 50.0], [100.0, 56.0]])
    return dataclasses.replace(base, open=opened, high=opened * 1.01, low=opened * 0.99)


def rotation_book() -> Portfolio:
    portfolio = book(cash=5_000.0)
    portfolio.positions[:] = [950, 0]  # 95 % of 100,000 equity in AAA
    return portfolio


def test_a_rotation_listed_buy_first_fills_as_a_whole() -> None:
    # momentum-like: out of AAA into BBB, sized on BBB's last close of 50. Action by action
    # in the order given, the buy would be judged on a book still holding AAA:
    # (95,000 + 1,900 x 56) / 100,000 = 2.01x, above the 2x cap.
    buy = Action(symbol="BBB", side="buy", quantity=1_900)
    sell = Action(symbol="AAA", side="sell", quantity=950)
    records, portfolio = run(buy, sell, market=gapped_market(), portfolio=rotation_book())
    assert [(r.symbol, r.side) for r in records] == [("BBB", "buy"), ("AAA", "sell")]
    assert [r.status for r in records] == ["filled", "filled"]
    assert portfolio.positions.tolist() == [0, 1_900]


def test_a_decision_that_ends_above_the_cap_is_still_refused_after_its_sells() -> None:
    buy = Action(symbol="BBB", side="buy", quantity=3_600)  # 201,600 of BBB alone: 2.02x
    sell = Action(symbol="AAA", side="sell", quantity=950)
    records, portfolio = run(buy, sell, market=gapped_market(), portfolio=rotation_book())
    assert [r.status for r in records] == ["refused", "filled"]
    assert "leverage cap" in records[0].reason and portfolio.positions.tolist() == [0, 0]


def test_a_cover_listed_after_a_new_buy_executes_first() -> None:
    portfolio = book(cash=195_000.0)
    portfolio.positions[:] = [0, -1_900]  # short BBB; at BBB's gap to 56, equity is 88,600
    buy = Action(symbol="AAA", side="buy", quantity=1_100)  # 110,000: 2.44x beside the short
    cover = Action(symbol="BBB", side="buy", quantity=1_900)
    records, after = run(buy, cover, market=gapped_market(), portfolio=portfolio)
    assert [r.status for r in records] == ["filled", "filled"]
    assert after.positions.tolist() == [1_100, 0]


def test_unknown_symbols_and_zero_quantities_are_refused_not_raised() -> None:
    records, portfolio = run(
        Action(symbol="ZZZ", side="buy", quantity=1),
        Action(symbol="AAA", side="buy", quantity=0),
    )
    assert [r.status for r in records] == ["refused", "refused"]
    assert "unknown symbol 'ZZZ'" in records[0].reason
    assert "zero quantity" in records[1].reason
    assert portfolio.cash == 100_000


def test_fees_are_charged_on_notional() -> None:
    portfolio = Portfolio(cash=100_000.0, positions=np.zeros(2), leverage_cap=2.0, fee_bps=10.0)
    (record,), _ = run(Action(symbol="BBB", side="buy", quantity=100), portfolio=portfolio)
    notional = 100 * 50 * 1.001
    assert record.fee == pytest.approx(notional * 0.001)
    assert portfolio.cash == pytest.approx(100_000 - notional * 1.001)


def test_the_headroom_named_for_a_long_turning_short_is_exact() -> None:
    portfolio = book(cash=0.0, leverage=1.0)
    portfolio.positions[:] = [100, 0]  # long 10,000 of AAA on 10,000 equity: |100 - q| <= 100
    (refused,), _ = run(Action(symbol="AAA", side="sell", quantity=250), portfolio=portfolio)
    assert "at most 200 shares fit" in refused.reason
    (filled,), after = run(Action(symbol="AAA", side="sell", quantity=200), portfolio=portfolio)
    assert filled.status == "filled" and after.positions[0] == -100


def test_a_resting_limit_gets_no_more_liquidity_than_the_book_holds() -> None:
    thin = flat_market(depth=100)
    (resting,), _ = run(
        Action(symbol="AAA", side="buy", quantity=900, order_type="limit", limit_price=99.95),
        market=thin,
    )
    (walking,), _ = run(Action(symbol="AAA", side="buy", quantity=900), market=thin)
    assert resting.quantity == walking.quantity == 500


def test_a_market_order_on_an_empty_book_says_so() -> None:
    empty = dataclasses.replace(flat_market(), levels=0)
    (record,), _ = run(Action(symbol="AAA", side="buy", quantity=5), market=empty)
    assert record.status == "unfilled" and record.reason == "the book had no depth"


def test_a_name_too_thin_for_one_share_is_refused_with_that_reason() -> None:
    (record,), _ = run(Action(symbol="AAA", side="buy", quantity=5), market=flat_market(volume=5))
    assert record.status == "refused" and "no whole share" in record.reason


def test_equity_is_an_exact_sum() -> None:
    portfolio = book(cash=0.1)
    portfolio.positions[:] = [1e16, -1e16]
    assert portfolio.equity(np.array([1.0, 1.0])) == 0.1


def test_an_order_record_is_typed_frozen_and_gives_the_orders_columns() -> None:
    (record,), _ = run(Action(symbol="AAA", side="buy", quantity=500))
    assert isinstance(record, OrderRecord) and record.status == "filled"
    with pytest.raises(AttributeError):
        record.status = "refused"  # type: ignore[misc]
    orders = evaluate(["equal_weight"], seed=1, universe=4, days=2).orders
    assert list(orders.columns) == ["arm", "day", "step", *OrderRecord._fields]
    assert list(ORDER_COLUMNS) == list(orders.columns)


def test_the_payload_shows_the_cap_the_executor_applies() -> None:
    world = World(seed=2, universe=12, days=3)
    path, executor = world.path, Executor(world.path)
    for row in range(path.warmup_steps, path.steps - 1):
        quotes = market_payload(path, row)["symbols"]
        caps = [executor.max_order(row + 1, i) for i in range(path.universe.size)]
        assert [quotes[s]["max_order"] for s in path.universe.symbols] == caps
        assert caps == [max_order(v) for v in path.volume[row].tolist()]


def test_marks_are_equity_and_gross_to_the_bit() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        shares = rng.integers(-5_000, 5_000, 40).astype(float) * (rng.random(40) < 0.6)
        prices = np.exp(rng.normal(4.0, 1.5, 40))
        portfolio = Portfolio(float(rng.normal(1e6, 1e5)), shares, 2.0, 0.0)
        equity, gross = portfolio.marks(prices)
        assert (equity, gross) == (portfolio.equity(prices), portfolio.gross(prices))


def test_a_simulated_fill_at_the_open_reads_nothing_later_in_its_bar() -> None:
    path = World(seed=3, universe=6, days=4).path
    step = path.warmup_steps + 2
    later = {key: getattr(path, key).copy() for key in ("high", "low", "close")}
    for key, factor in (("high", 1.06), ("low", 0.97), ("close", 1.04)):
        later[key][step] *= factor
    moved = dataclasses.replace(path, **later)
    buys = [Action(symbol=s, side="buy", quantity=2_000) for s in path.universe.symbols]

    def fills(market: MarketPath) -> list[OrderRecord]:
        portfolio = Portfolio(1e8, np.zeros(path.universe.size), 2.0, 1.0)
        return Executor(market).execute(portfolio, Decision(actions=buys), step)

    assert fills(path) == fills(moved) and all(r.quantity > 0 for r in fills(path))


def test_the_figures_a_payload_shows_follow_every_change_of_what_they_come_from() -> None:
    """``Portfolio.shown`` keeps its rounded figures only while cash, equity, gross and the
    cap repeat, and never across a zero of the other sign."""
    book = Portfolio(1_000.004, np.zeros(2), 2.0, 0.0)
    marks = [(1_000.004, 0.0), (1_000.004, 0.0), (1_500.126, 400.0), (0.0, 0.0), (-0.0, 0.0)]
    for equity, gross in marks:
        shown = book.shown(equity, gross)
        wanted = (round(book.cash, 2), round(equity, 2), round(max(0.0, 2 * equity - gross), 2))
        assert shown == wanted and [math.copysign(1, x) for x in shown] == [
            math.copysign(1, x) for x in wanted
        ]
    book.cash, book.leverage_cap = -0.0, 3.0
    assert str(book.shown(-0.0, 0.0)) == "(-0.0, -0.0, 0.0)"
    assert book.shown(10.0, 0.0) == (-0.0, 10.0, 30.0)
