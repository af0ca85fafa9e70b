"""Attribution: golden values on a hand-built two-name market, and the sources found in runs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from workbench.engine.market import MarketPath
from workbench.engine.universe import Universe
from workbench.evaluation import attribution as at
from workbench.evaluation.attribution_frame import (
    ATTRIBUTION_COLUMNS,
    attribute,
    attribution_totals,
)
from workbench.evaluation.results import ORDER_COLUMNS

CAPITAL = 10_000.0
HALF_SPREAD = 0.0005
ROWS = 6  # one warm-up step, then five trading steps (one step a day)
A, B = 0, 1
BETA = np.array([1.0, 0.5])


def _components() -> dict[str, np.ndarray]:
    """Each leg of each row moved by one known source (two where stated), per name."""
    zeros = {
        key: np.zeros((ROWS, 2))
        for key in ("market_gap", "market_session", "sector_gap", "sector_session")
    }
    parts = {**zeros, "drift": np.zeros(ROWS), "idio_gap": np.zeros((ROWS, 2))}
    parts.update(idio_session=np.zeros((ROWS, 2)), mispricing=np.zeros((ROWS, 2)))
    parts["market_session"][2] = 0.02  # row 2 session: the market only
    parts["idio_gap"][3, A] = 0.01  # row 3 gap: A's own news
    parts["sector_session"][3] = [0.01, -0.02]  # row 3 session: each name's sector
    parts["drift"][4] = 0.001  # row 4 gap: the day's drift
    parts["mispricing"][4, A] = -0.005  # row 4 session: A's mispricing opens up
    parts["idio_session"][4, B] = 0.005  # and B's own news
    parts["market_session"][5] = 0.01  # row 5 session: market and own news together
    parts["idio_session"][5] = [0.01, 0.01]
    return parts


def two_name_market() -> MarketPath:
    """A path whose every move is known: name A (beta 1, sector 0), B (beta 0.5, sector 1)."""
    c = _components()
    log_open, log_close = np.zeros((ROWS, 2)), np.zeros((ROWS, 2))
    log_open[0] = log_close[0] = np.log([100.0, 50.0])
    for r in range(1, ROWS):
        log_open[r] = log_close[r - 1] + BETA * c["market_gap"][r, 0] + c["sector_gap"][r]
        log_open[r] += c["drift"][r] + c["idio_gap"][r]
        log_close[r] = log_open[r] + BETA * c["market_session"][r, 0] + c["sector_session"][r]
        log_close[r] += c["mispricing"][r] + c["idio_session"][r]
    open_, close = np.exp(log_open), np.exp(log_close)
    full = np.full((ROWS, 2), 1e9)
    return MarketPath(
        universe=Universe.of(["AAA", "BBB"], ["tech", "energy"]),
        steps_per_day=1,
        ticks_per_step=1,
        warmup_days=1,
        open=open_,
        high=np.maximum(open_, close),
        low=np.minimum(open_, close),
        close=close,
        volume=full,
        half_spread=np.full((ROWS, 2), HALF_SPREAD),
        depth=full,
        macro={},
        levels=5,
        level_step=3e-4,
        market_factor=c["market_gap"][:, 0] + c["market_session"][:, 0],
        market_factor_open=c["market_gap"][:, 0],
        sector_factors=c["sector_gap"] + c["sector_session"],
        sector_factors_open=c["sector_gap"],
        betas=BETA,
        drift=c["drift"],
        variance_drag=np.zeros(2),
        mispricing=np.cumsum(c["mispricing"], axis=0),
        mispricing_open=np.cumsum(c["mispricing"], axis=0) - c["mispricing"],
    )


def _order(**values) -> dict:
    row = dict.fromkeys(ORDER_COLUMNS)
    row.update(day=0, step=0, reason="", clipped=False, fee=0.0, quantity=0.0)
    return {**row, **values}


@pytest.fixture
def hand() -> dict:
    """Two arms on the two-name market, both deciding at the first close (row 1) and so
    trading at row 2's open: long_a buys 100 A at market (asked 150, clipped to 100);
    short_b sells 50 B with a resting limit above the touch, and asks for 30 A, refused."""
    path = two_name_market()
    o, c = path.open, path.close
    buy_price = o[2, A] * (1 + HALF_SPREAD)
    limit = round(o[2, B] * 1.004, 4)
    fee_a, fee_b = 100 * buy_price * 1e-4, 50 * limit * 1e-4
    orders = pd.DataFrame(
        [
            _order(arm="long_a", symbol="AAA", side="buy", order_type="market", requested=150.0,
                   quantity=100.0, price=buy_price, fee=fee_a, status="filled", clipped=True,
                   clipped_to=100.0),
            _order(arm="short_b", symbol="BBB", side="sell", order_type="limit",
                   limit_price=limit, requested=50.0, quantity=50.0, price=limit, fee=fee_b,
                   status="filled"),
            _order(arm="short_b", symbol="AAA", side="buy", order_type="market",
                   requested=30.0, status="refused", reason="leverage cap: ..."),
        ],
        columns=list(ORDER_COLUMNS),
    )  # fmt: skip
    long_cash, short_cash = CAPITAL - 100 * buy_price - fee_a, CAPITAL + 50 * limit - fee_b
    equity = pd.DataFrame(
        {
            "long_a": [CAPITAL, *(long_cash + 100 * c[2:, A])],
            "short_b": [CAPITAL, *(short_cash - 50 * c[2:, B])],
        }
    )
    frame = attribute(path, orders, equity, capital=CAPITAL, intervals={"long_a": 5, "short_b": 1})
    return {"path": path, "frame": frame, "equity": equity, "buy": buy_price, "limit": limit,
            "fees": (fee_a, fee_b)}  # fmt: skip


def _arm(frame: pd.DataFrame, arm: str) -> pd.DataFrame:
    return frame[frame["arm"] == arm].reset_index(drop=True)


def test_the_frame_has_a_row_per_arm_and_step_and_the_components_sum_to_the_pnl(hand) -> None:
    frame, equity = hand["frame"], hand["equity"]
    assert list(frame.columns) == list(ATTRIBUTION_COLUMNS) and len(frame) == 2 * 5
    assert not frame["estimated"].any()
    for arm in ("long_a", "short_b"):
        rows = _arm(frame, arm)
        expected = np.diff(equity[arm].to_numpy(), prepend=CAPITAL)
        assert np.allclose(rows["pnl"], expected, rtol=0, atol=1e-9)
        parts = rows[list(at.COMPONENTS)].sum(axis=1)
        assert np.allclose(parts, rows["pnl"], rtol=0, atol=1e-9)


def test_each_source_of_a_long_position_is_the_move_it_made(hand) -> None:
    o, c = hand["path"].open, hand["path"].close
    rows, total = _arm(hand["frame"], "long_a"), attribution_totals(hand["frame"]).loc["long_a"]
    market_moves = 100 * (c[2, A] - o[2, A]) + 100 * (c[5, A] - o[5, A]) / 2
    drift = 100 * (o[4, A] - c[3, A])
    assert total["market"] + total["timing_market"] == pytest.approx(market_moves + drift)
    assert total["sector"] + total["timing_sector"] == pytest.approx(100 * (c[3, A] - o[3, A]))
    own = 100 * (o[3, A] - c[2, A]) + 100 * (c[4, A] - o[4, A]) + 100 * (c[5, A] - o[5, A]) / 2
    assert total["selection"] == pytest.approx(own)
    assert total["selection_mispricing"] == pytest.approx(100 * (c[4, A] - o[4, A]))
    assert total["costs_spread"] == pytest.approx(-100 * o[2, A] * HALF_SPREAD)
    assert total["costs_depth"] == pytest.approx(0.0, abs=1e-9)
    assert total["costs_fees"] == pytest.approx(-hand["fees"][0])
    assert total["timing_entry"] == 0.0 and total["bust_floor"] == 0.0
    assert rows.loc[0, list(at.COMPONENTS)].abs().sum() == 0.0  # nothing held on step 0


def test_a_book_held_since_its_first_fill_earns_its_exposure_as_market_not_timing(hand) -> None:
    o, c = hand["path"].open, hand["path"].close
    sessions = {1: (2, 0.02), 2: (3, 0.0), 3: (4, 0.0), 4: (5, 0.01)}  # step: (row, factor)
    log_moves = {1: 0.02, 2: 0.01, 3: -0.005, 4: 0.02}  # A's whole log move in each session
    exposure = {k: 100 * (c[r, A] - o[r, A]) / log_moves[k] for k, (r, _) in sessions.items()}
    earned = sum(exposure[k] * f for k, (_, f) in sessions.items())
    total = attribution_totals(hand["frame"]).loc["long_a"]
    assert total["market"] == pytest.approx(earned + 100 * (o[4, A] - c[3, A]))
    assert total["timing_market"] == 0.0 and total["timing_sector"] == 0.0


def test_a_resting_limit_pays_the_spread_at_its_fill_and_times_its_entry(hand) -> None:
    o, c, limit = hand["path"].open, hand["path"].close, hand["limit"]
    total = attribution_totals(hand["frame"]).loc["short_b"]
    mid = limit / (1 - HALF_SPREAD)  # the touch (bid) reached the limit at this mid
    assert total["costs_spread"] == pytest.approx(-50 * (mid - limit))
    assert total["costs_depth"] == pytest.approx(0.0, abs=1e-9)
    assert total["timing_entry"] == pytest.approx(50 * (mid - o[2, B]))
    third = 0.5 * 0.01 / 0.015  # B's last session: a third market, two thirds its own
    market_moves = -50 * (c[2, B] - o[2, B]) - 50 * (c[5, B] - o[5, B]) * third
    assert total["market"] + total["timing_market"] == pytest.approx(
        market_moves - 50 * (o[4, B] - c[3, B])
    )
    assert total["sector"] + total["timing_sector"] == pytest.approx(-50 * (c[3, B] - o[3, B]))
    own = -50 * (c[4, B] - o[4, B]) - 50 * (c[5, B] - o[5, B]) * (1 - third)
    assert total["selection"] == pytest.approx(own)
    assert total["selection_mispricing"] == pytest.approx(0.0, abs=1e-9)


def test_clips_and_refusals_are_valued_to_the_next_decision_and_kept_out_of_the_sum(
    hand,
) -> None:
    o, c, frame = hand["path"].open, hand["path"].close, hand["frame"]
    long_a, short_b = (attribution_totals(frame).loc[arm] for arm in ("long_a", "short_b"))
    # long_a decides every 5 steps: the 50 cut shares are valued to the last close (row 5)
    assert long_a["lost_to_clips"] == pytest.approx(50 * (c[5, A] - o[2, A]))
    # short_b decides every step: the refused 30 A to the close of the step they were for
    assert short_b["lost_to_refusals"] == pytest.approx(30 * (c[2, A] - o[2, A]))
    assert long_a["lost_to_refusals"] == 0.0 and short_b["lost_to_clips"] == 0.0
    parts = frame[list(at.COMPONENTS)].sum(axis=1)
    assert np.allclose(parts, frame["pnl"], rtol=0, atol=1e-9)


def test_a_bust_step_shows_the_loss_below_zero_in_bust_floor() -> None:
    path = two_name_market()
    o, c = path.open, path.close
    orders = pd.DataFrame(
        [_order(arm="bust", symbol="AAA", side="sell", order_type="market", requested=900.0,
                quantity=900.0, price=o[2, A], status="filled")],
        columns=list(ORDER_COLUMNS),
    )  # fmt: skip
    capital = 100.0  # short 900 A: A's 2 % rise at row 2 takes the book below zero
    book = capital + 900 * o[2, A] - 900 * c[2, A]
    assert book < 0
    equity = pd.DataFrame({"bust": [capital, 0.0, 0.0, 0.0, 0.0]})
    rows = attribute(path, orders, equity, capital=capital, intervals={"bust": 1})
    assert rows.loc[1, "bust_floor"] == pytest.approx(-book)
    assert rows[list(at.COMPONENTS)].sum(axis=1).tolist() == pytest.approx([0, -capital, 0, 0, 0])
    assert rows.loc[2:, list(at.COMPONENTS)].abs().to_numpy().sum() == 0.0


# --- the pure pieces, on hand numbers --------------------------------------------------
def test_a_move_is_split_in_proportion_to_its_log_components() -> None:
    move, per_log = at.per_log_move(np.array([100.0, 80.0]), np.array([110.0, 80.0]))
    assert move.tolist() == [10.0, 0.0]
    assert per_log[0] == pytest.approx(10.0 / math.log(1.1)) and per_log[1] == 80.0
    # a 10 % rise that is 3/4 market and 1/4 own news: the parts are 7.5 and 2.5
    log_move = math.log(1.1)
    leg = at.Leg(
        move=move[None, :1], per_log=per_log[None, :1], beta=np.ones((1, 1)),
        market=np.array([0.75 * log_move]), loading=None,
        sector_factors=np.zeros((1, 1)), sector=np.zeros(1, dtype=int),
        drift=None, mispricing=None,
    )  # fmt: skip
    parts = at.leg_parts(np.array([[[2.0]]]), leg)
    assert parts.market[0, 0] == pytest.approx(2 * 7.5)
    assert parts.selection[0, 0] == pytest.approx(2 * 2.5)


def _split(session: np.ndarray, timed: np.ndarray, factor: np.ndarray):
    """Three sessions, no gaps."""
    no_gap = np.zeros_like(factor)
    return at.passive_and_timing(np.zeros_like(session), session, timed, (no_gap, factor))


def test_timing_is_what_the_traded_exposure_earned_in_the_session_it_traded_in() -> None:
    # the first book (exposure 50), then +100 bought, then -50 sold: only those are timed
    session = np.array([[[50.0], [150.0], [100.0]]])
    timed = np.array([[[0.0], [100.0], [-50.0]]])
    factor = np.array([[0.02], [0.04], [-0.01]])
    passive, timing = _split(session, timed, factor)
    assert timing[0].tolist() == pytest.approx([0.0, 4.0, 0.5])
    # holding the book it opened with: 50 in the second session, 150 in the third
    assert passive[0].tolist() == pytest.approx([1.0, 2.0, -1.5])


def test_exposure_that_drifts_with_prices_alone_is_no_timing() -> None:
    session = np.array([[[50.0], [60.0], [75.0]]])  # the first book, its value rising
    factor = np.array([[0.02], [0.2], [0.25]])
    passive, timing = _split(session, np.zeros_like(session), factor)
    assert timing[0].tolist() == [0.0, 0.0, 0.0]
    assert passive[0].tolist() == (session * factor)[0, :, 0].tolist()


def _fills(arm: list[int], step: list[int], forced: list[bool]) -> at.Fills:
    ones = np.ones(len(arm))
    return at.Fills(
        arm=np.array(arm), step=np.array(step), name=np.zeros(len(arm), dtype=int),
        shares=ones, price=ones, fee=0 * ones, limit=np.full(len(arm), np.nan), open=ones,
        half_spread=0 * ones, forced=np.array(forced, dtype=bool),
    )  # fmt: skip


def test_the_first_book_and_forced_liquidations_are_not_timed() -> None:
    # arm 0: first book at step 2 (two fills), a trade at 4, a liquidation at 5;
    # arm 1: its first order (at 3) is its first book, the liquidation before it none
    fills = _fills([0, 0, 0, 0, 1, 1], [2, 2, 4, 5, 1, 3], [0, 0, 0, 1, 1, 0])
    assert at.timed(fills, 2).tolist() == [False, False, True, False, False, False]


def test_a_market_order_pays_half_the_spread_then_the_book_walk() -> None:
    # 300 shares bought from an open mid of 100: 100 at the touch 100.1, 200 a level up
    touch = 100.0 * 1.001
    price = (100 * touch + 200 * touch * 1.0003) / 300
    fills = at.Fills(
        arm=np.array([0]), step=np.array([0]), name=np.array([0]), shares=np.array([300.0]),
        price=np.array([price]), fee=np.array([1.5]), limit=np.array([np.nan]),
        open=np.array([100.0]), half_spread=np.array([0.001]),
    )  # fmt: skip
    parts = at.fill_parts(fills)
    assert parts["costs_spread"][0] == pytest.approx(-300 * 0.1)
    assert parts["costs_depth"][0] == pytest.approx(-200 * touch * 0.0003)
    assert parts["costs_fees"][0] == -1.5 and parts["timing_entry"][0] == 0.0
