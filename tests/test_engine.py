"""The synthetic market: presets, universes and simulated paths."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from workbench.engine import DIALS, Preset, Universe, diff, list_presets, market, preset, simulate
from workbench.engine.market import unit_uniform
from workbench.engine.presets import DEFAULT_PRESET, INFORMATION_DIALS, JUMP_DIALS
from workbench.errors import ConfigError


def path(model: str | dict = DEFAULT_PRESET, *, seed: int = 1, names: int = 12, days: int = 5):
    return simulate(
        preset(model),
        Universe.synthetic(names),
        seed=seed,
        days=days,
        steps_per_day=6,
        ticks_per_step=65,
        warmup_days=4,
    )


def test_at_least_three_presets_and_a_default() -> None:
    assert len(list_presets()) >= 3
    assert preset().fingerprint == DEFAULT_PRESET


def test_a_shipped_preset_is_fingerprinted_by_name_and_a_custom_one_by_hash() -> None:
    assert preset("calm-v1").fingerprint == "calm-v1"
    custom = preset({"base": "calm-v1", "spread_bps": 3.0})
    assert custom.fingerprint.startswith("custom-") and len(custom.fingerprint) == 15
    assert preset({"base": "calm-v1", "spread_bps": 3.0}).fingerprint == custom.fingerprint
    assert preset({"spread_bps": 3.5}).fingerprint != custom.fingerprint


def test_diff_lists_exactly_the_dials_that_moved() -> None:
    moved = diff("standard-v1", {"base": "standard-v1", "spread_bps": 9.0, "tail_dof": 4.0})
    assert moved == {"spread_bps": (4.0, 9.0), "tail_dof": (6.0, 4.0)}
    assert diff("calm-v1", "calm-v1") == {}


def test_unknown_dials_and_presets_are_refused_by_name_with_a_hint() -> None:
    with pytest.raises(ConfigError, match=r"'sprad_bps'\. Did you mean 'spread_bps'\?"):
        preset({"sprad_bps": 2})
    with pytest.raises(ConfigError, match=r"unknown preset 'calm'.*calm-v1"):
        preset("calm")
    with pytest.raises(ConfigError, match="must be finite"):
        preset({"spread_bps": float("nan")})


def test_presets_are_frozen() -> None:
    chosen = preset("standard-v1")
    with pytest.raises(TypeError):
        chosen.dials["spread_bps"] = 1.0  # type: ignore[index]
    # information, jump, tick-shock and cap dials at their -v1 values are left out, so older
    # vectors keep their hash
    unset = {*INFORMATION_DIALS, *JUMP_DIALS, "uniform_tick_shocks", "vol_cap_sd"}
    assert set(chosen.vector) == set(DIALS) - unset
    assert set(preset("standard-v2").vector) > set(chosen.vector)


def test_universe_synthetic_and_given_symbols() -> None:
    synthetic = Universe.synthetic(40)
    assert synthetic.size == 40 and len(set(synthetic.symbols)) == 40
    assert Universe.synthetic(40) == synthetic
    given = Universe.of(["msft", "aapl"])
    assert given.symbols == ("MSFT", "AAPL")
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ConfigError, match="names"):
            Universe.synthetic(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="unique"):
        Universe.of(["A", "a"])


def test_same_inputs_give_identical_paths_and_a_new_seed_a_new_path() -> None:
    first, again, other = path(), path(), path(seed=2)
    fields = ("open", "high", "low", "close", "volume", "half_spread", "depth")
    for field in (*fields, "market_factor", "sector_factors", "betas"):
        assert np.array_equal(getattr(first, field), getattr(again, field)), field
    assert not np.array_equal(first.close, other.close)


def test_finishing_the_bars_a_day_at_a_time_gives_the_bits_of_the_whole_run_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fields = ("open", "high", "low", "close", "volume", "half_spread", "depth")
    whole = path(names=13, days=7)
    monkeypatch.setattr(market, "_FINISH_BLOCK", 1)  # one day per block
    by_day = path(names=13, days=7)
    for field in fields:
        assert getattr(whole, field).tobytes() == getattr(by_day, field).tobytes(), field


@pytest.mark.parametrize("columns", [1, 2, 7, 40])
def test_running_sums_down_the_rows_match_numpy_bit_for_bit(columns: int) -> None:
    a = np.random.default_rng(columns).normal(0, 1, (391, columns))
    want = np.cumsum(a[1:], axis=0)
    rows = a[1:]  # a view whose rows are contiguous, as the simulator passes it
    market.cumsum_down(rows)
    assert rows.tobytes() == want.tobytes()


def test_bars_are_consistent() -> None:
    bars = path()
    assert bars.close.shape == (9 * 6, 12)
    assert np.all(bars.high >= np.maximum(bars.open, bars.close))
    assert np.all(bars.low <= np.minimum(bars.open, bars.close))
    assert np.all(bars.volume >= 0) and np.all(bars.depth >= 1)
    assert set(bars.macro) >= {"regime", "growth", "vix", "policy_rate", "yield_10y"}


def test_macro_path_does_not_depend_on_the_universe() -> None:
    small, large = path(names=3), path(names=30)
    assert np.array_equal(small.macro["growth"], large.macro["growth"])
    # the market factor has its own streams, so its path and the vix ignore the universe too
    assert np.array_equal(small.macro["vix"], large.macro["vix"])
    assert np.array_equal(small.market_factor, large.market_factor)


def test_spreads_widen_and_depth_thins_in_a_turbulent_preset() -> None:
    calm, crisis = path("calm-v1", days=20), path("crisis-v1", days=20)
    assert crisis.half_spread.mean() > 3 * calm.half_spread.mean()
    relative_depth = crisis.depth / crisis.volume
    assert relative_depth.mean() < (calm.depth / calm.volume).mean()


@pytest.mark.slow
def test_realised_vol_tracks_the_preset() -> None:
    def annual_vol(model: str) -> float:
        closes = path(model, names=60, days=120).close[5::6]
        return float(np.diff(np.log(closes), axis=0).std() * np.sqrt(252))

    calm, crisis = annual_vol("calm-v1"), annual_vol("crisis-v1")
    assert 0.12 < calm < 0.3 and crisis > 1.6 * calm


@pytest.mark.slow
def test_liquidity_is_set_at_the_open_not_by_the_days_own_shocks() -> None:
    # falls raise variance (the leverage effect), so a spread set after the day's returns
    # would move against that day's return; one set at the open cannot know it yet
    bars = path(names=40, days=150)
    spd = bars.steps_per_day
    spread = np.log(bars.half_spread[::spd])  # one value per day, the same at every step
    assert np.array_equal(bars.half_spread[1::spd], bars.half_spread[::spd])
    day_return = np.diff(np.log(bars.close[spd - 1 :: spd]), axis=0)  # day d+1, close to close
    same_day = np.corrcoef(np.diff(spread, axis=0).ravel(), day_return.ravel())[0, 1]
    next_day = np.corrcoef(np.diff(spread[1:], axis=0).ravel(), day_return[:-1].ravel())[0, 1]
    assert abs(same_day) < 0.05 and next_day < -0.2


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.slow
def test_a_longer_run_starts_with_the_same_path(seed: int) -> None:
    # crisis-v1 switches regime often, so a horizon-dependent draw would show within 30 days
    short = path("crisis-v1", seed=seed, names=4, days=30)
    long = path("crisis-v1", seed=seed, names=4, days=60)
    rows = short.steps
    for field in ("close", "half_spread", "volume", "market_factor", "sector_factors"):
        assert np.array_equal(getattr(short, field), getattr(long, field)[:rows]), field
    for key, values in short.macro.items():
        assert np.array_equal(values, long.macro[key][: values.size]), key


@pytest.mark.parametrize(
    ("dials", "fragment"),
    [
        ({"spread_bps": -20}, "'spread_bps' must be between 0 and 1000"),
        ({"base_volume": -5}, "'base_volume' must be between"),
        ({"depth_levels": 0}, "'depth_levels' must be between 1 and 50"),
        ({"depth_levels": 2.7}, "'depth_levels' must be a whole number"),
        ({"tail_dof": 2.0}, "'tail_dof' must be between 2.5 and 1000"),
        ({"overnight_share": 1.0}, "'overnight_share' must be between 0 and 0.95"),
        ({"mispricing_halflife_ticks": -3}, "mispricing_halflife_ticks"),
        ({"spread_bps": True}, "must be a number"),
    ],
)
def test_dials_out_of_range_are_refused(dials: dict, fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        preset(dials)


def test_a_preset_built_by_hand_is_validated_too() -> None:
    with pytest.raises(ConfigError, match="lacks dial"):
        Preset("mine", {"spread_bps": 3.0})
    with pytest.raises(ConfigError, match="unknown dial"):
        Preset("mine", {**preset().vector, "colour": 1.0})


def test_dials_equal_to_a_shipped_preset_carry_its_name() -> None:
    assert preset({"spread_bps": 4.0}).fingerprint == "standard-v4"  # on the default
    assert preset({"base": "standard-v1", "spread_bps": 4.0}).fingerprint == "standard-v1"
    assert preset({"base": "calm-v1", "spread_bps": 2.0}).fingerprint == "calm-v1"


def test_the_attribution_paths_split_each_step_at_its_open() -> None:
    # with almost no idiosyncratic risk, drift + factors + mispricing + news explain every
    # move (the default preset publishes news: its moves are in the paths too)
    bars = simulate(
        preset({"idio_vol": 0.01}), Universe.synthetic(16), seed=5, days=6,
        steps_per_day=6, ticks_per_step=65, warmup_days=1,
    )  # fmt: skip
    sector = np.asarray(bars.universe.sector_index())
    first = (np.arange(bars.steps) % bars.steps_per_day == 0)[:, None]
    drift = bars.drift[:, None] + first * bars.variance_drag
    market_open, market = bars.market_factor_open, bars.market_factor
    sector_open, sectors = bars.sector_factors_open[:, sector], bars.sector_factors[:, sector]
    gap = np.log(bars.open[1:] / bars.close[:-1])
    gap_parts = bars.betas * market_open[1:, None] + sector_open[1:] + drift[1:]
    gap_parts += bars.mispricing_open[1:] - bars.mispricing[:-1] + bars.news_open[1:]
    session = np.log(bars.close / bars.open)
    session_parts = bars.betas * (market - market_open)[:, None] + sectors - sector_open
    session_parts += bars.mispricing - bars.mispricing_open + bars.news - bars.news_open
    assert np.std(gap - gap_parts) < 0.1 * np.std(gap)
    assert np.std(session - session_parts) < 0.1 * np.std(session)
    assert np.all(bars.drift[~first[:, 0]] == 0.0) and np.all(bars.drift[first[:, 0]] != 0.0)
    assert np.all(bars.variance_drag < 0)


def test_no_mispricing_dial_means_no_mispricing_path() -> None:
    bars = path({"mispricing_vol": 0.0})
    assert not bars.mispricing.any() and not bars.mispricing_open.any()


# sha256 of a standard-v2 path's bars, mispricing and news as the engine drew them before
# the dial uniform_tick_shocks (8 names, seed 3, 6 days of 6 steps of 65 ticks, 2 warm-up)
NORMAL_TICKS_PATH = "fafd7c138a1639167234c4bc2c1e3114383b2af28ecc070f82779c85d58db0b9"
UNIFORM_TICK_PRESETS = ("standard-v4", "crisis-v3", "turbulent-v3")


def _path_digest(chosen: Preset) -> str:
    bars = simulate(
        chosen, Universe.synthetic(8), seed=3, days=6, steps_per_day=6, ticks_per_step=65,
        warmup_days=2,
    )  # fmt: skip
    digest = hashlib.sha256()
    for column in ("open", "high", "low", "close", "volume", "mispricing", "news"):
        digest.update(np.ascontiguousarray(getattr(bars, column)).tobytes())
    return digest.hexdigest()


def test_shipped_presets_keep_their_normal_ticks_and_paths_bit_for_bit() -> None:
    assert _path_digest(preset("standard-v2")) == NORMAL_TICKS_PATH
    # the presets made after the dial (standard-v4, crisis-v3, turbulent-v3) turn it on
    before = [name for name in list_presets() if name not in UNIFORM_TICK_PRESETS]
    assert all(preset(name)["uniform_tick_shocks"] == 0.0 for name in before)
    assert all("uniform_tick_shocks" not in preset(name).vector for name in before)
    assert all(preset(name)["uniform_tick_shocks"] == 1.0 for name in UNIFORM_TICK_PRESETS)


def test_uniform_tick_shocks_draw_another_path_under_another_fingerprint() -> None:
    fast = preset({"base": "standard-v2", "uniform_tick_shocks": 1})
    assert _path_digest(fast) != NORMAL_TICKS_PATH
    assert fast.vector["uniform_tick_shocks"] == 1.0 and fast.fingerprint.startswith("custom-")
    assert diff(preset("standard-v2"), fast) == {"uniform_tick_shocks": (0.0, 1.0)}


def test_uniform_tick_shocks_is_zero_or_one() -> None:
    with pytest.raises(ConfigError, match=r"uniform_tick_shocks.*whole number"):
        preset({"uniform_tick_shocks": 0.5})
    with pytest.raises(ConfigError, match=r"uniform_tick_shocks.*between 0 and 1"):
        preset({"uniform_tick_shocks": 2})


def test_unit_uniform_shocks_have_mean_zero_variance_one_and_stay_within_root_three() -> None:
    shocks = unit_uniform(np.random.default_rng(0), np.empty((2000, 100)))
    assert abs(shocks.mean()) < 0.01 and abs(shocks.var() - 1.0) < 0.01
    assert np.abs(shocks).max() <= np.sqrt(3.0)


def test_a_day_of_uniform_ticks_sums_to_a_normal_return() -> None:
    # 390 uniform ticks a day: the day's sum has the normal's kurtosis (excess -1.2 / 390)
    days = unit_uniform(np.random.default_rng(1), np.empty((4000, 390))).sum(axis=1)
    standard = (days - days.mean()) / days.std()
    assert abs(float(np.mean(standard**4)) - 3.0) < 0.25


def test_book_depth_is_sized_on_the_volume_known_at_the_steps_open() -> None:
    # a step's own volume (its day's realised intensity, its noise) comes after its open:
    # the book an order at the open walks is sized on the step before's
    bars = simulate(
        preset("standard-v2"), Universe.synthetic(6), seed=4, days=5, steps_per_day=6,
        ticks_per_step=65, warmup_days=1,
    )  # fmt: skip
    fraction = preset("standard-v2")["depth_fraction"]
    known = np.floor(np.maximum(bars.volume[:-1] * fraction, 1.0))
    assert np.array_equal(bars.depth[1:], known)
    assert not np.array_equal(bars.depth, np.floor(np.maximum(bars.volume * fraction, 1.0)))
