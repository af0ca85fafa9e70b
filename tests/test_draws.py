"""``workbench.engine.draws`` gives NumPy's own draws, and the random baseline its old ones."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.baselines import RandomTrader
from workbench.engine.draws import Draws
from workbench.errors import ConfigError

highs = st.one_of(
    st.integers(1, 8), st.sampled_from([100, 2**31 - 1, 2**32 - 1]), st.integers(1, 2**32 - 1)
)
names = st.one_of(st.integers(1, 130), st.sampled_from([10_000, 10_001, 20_000]))
calls = st.lists(
    st.one_of(
        st.tuples(st.just("below"), highs),
        st.tuples(st.just("many_below"), highs, st.integers(0, 6)),
        st.tuples(st.just("sample"), names, st.integers(0, 700)),
    ),
    max_size=40,
)


def numpy_draw(rng: np.random.Generator, call: tuple[Any, ...]) -> Any:
    kind, *args = call
    if kind == "below":
        return int(rng.integers(0, args[0]))
    if kind == "many_below":
        return rng.integers(0, args[0], size=args[1]).tolist()
    n, size = args
    return rng.choice(n, size=min(size, n), replace=False).tolist()


def our_draw(draws: Draws, call: tuple[Any, ...]) -> Any:
    kind, *args = call
    if kind == "sample":
        return draws.sample(args[0], min(args[1], args[0]))
    return getattr(draws, kind)(*args)


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), calls=calls)
def test_every_draw_is_numpys_in_any_sequence(seed: int, calls: list[tuple[Any, ...]]) -> None:
    """Ranges that reject a word now and then (5, 6, 7, 2**31 - 1 ...), a range of one that
    draws nothing, Floyd's sample and the tail shuffle above 10,000 names, interleaved."""
    rng, draws = np.random.default_rng(seed), Draws(seed)
    for call in calls:
        assert our_draw(draws, call) == numpy_draw(rng, call), call


def test_a_long_run_of_draws_crosses_many_blocks_of_words() -> None:
    rng, draws = np.random.default_rng(11), Draws(11)
    ours = [draws.below(7) for _ in range(5_000)]
    assert ours == rng.integers(0, 7, size=5_000).tolist()


def numpy_random_trader(seed: int, symbols: int, max_names: int, decisions: int) -> list[Any]:
    """The picks and sides the random trader drew through NumPy before ``Draws``."""
    rng, out = np.random.default_rng(seed), []
    for _ in range(decisions):
        count = int(rng.integers(0, max_names + 1))
        if count == 0:
            out.append(([], []))
            continue
        picks = rng.choice(symbols, size=min(count, symbols), replace=False)
        out.append((picks.tolist(), rng.integers(0, 2, size=len(picks)).tolist()))
    return out


def payload(symbols: int) -> dict[str, Any]:
    quotes = {f"S{i:03d}": {"last": 10.0 + i} for i in range(symbols)}
    return {"symbols": quotes, "portfolio": {"equity": 1e6, "positions": {}}}


@pytest.mark.parametrize(("seed", "symbols", "max_names"), [(0, 6, 3), (4, 1, 3), (9, 40, 12)])
def test_the_random_trader_trades_what_numpys_draws_picked(
    seed: int, symbols: int, max_names: int
) -> None:
    trader = RandomTrader(seed=seed, max_names=max_names)
    market = payload(symbols)
    names = list(market["symbols"])
    for picks, sides in numpy_random_trader(seed, symbols, max_names, 300):
        decision = trader.decide(market)
        wanted = [
            (names[i], ("buy", "sell")[side], float(math.floor(2e4 / (10.0 + i))))
            for i, side in zip(picks, sides, strict=True)
        ]
        assert [(a.symbol, a.side, a.quantity) for a in decision.actions] == wanted


@pytest.mark.parametrize("max_names", [-1, 2**32 - 1, 2.0, True])
def test_the_random_trader_refuses_a_count_its_draws_cannot_make(max_names: Any) -> None:
    with pytest.raises(ConfigError, match="max_names"):
        RandomTrader(max_names=max_names)


def test_the_random_trader_takes_numpy_integers_and_refuses_a_shared_generator() -> None:
    assert RandomTrader(max_names=np.int64(3), seed=np.int32(5)).max_names == 3
    with pytest.raises(ConfigError, match="seed must be a whole number"):
        RandomTrader(seed=np.random.default_rng(7))  # type: ignore[arg-type]
