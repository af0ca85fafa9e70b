"""The market's statistical shape: the statistics themselves, and the facts they must show."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from workbench.engine import MarketPath, Universe, preset, simulate
from workbench.engine.stylised import (
    acf,
    daily_bars,
    excess_kurtosis,
    mean_pairwise_corr,
    skewness,
    stylised_facts,
)
from workbench.errors import ConfigError

# every source of non-Gaussian shape switched off: no fat tails, no volatility clustering,
# no leverage, no overnight gap
GAUSSIAN = {"tail_dof": 1000.0, "vol_fast_vol": 0.0, "vol_slow_vol": 0.0, "overnight_share": 0.0}


def run(model: str | dict = "standard-v1", *, names: int = 30, days: int = 250, seed: int = 1):
    chosen = {"base": "standard-v1", **model} if isinstance(model, dict) else model
    return simulate(
        preset(chosen),  # the price model alone: dicts move dials of standard-v1
        Universe.synthetic(names),
        seed=seed,
        days=days,
        steps_per_day=6,
        ticks_per_step=65,
        warmup_days=4,
    )


def hand_path(close: np.ndarray, opens: np.ndarray, volume: np.ndarray) -> MarketPath:
    """Two steps a day; open/close given per step."""
    shape = close.shape
    return MarketPath(
        universe=Universe.of([f"N{i}" for i in range(shape[1])]),
        steps_per_day=2,
        ticks_per_step=1,
        warmup_days=1,
        open=opens,
        high=np.maximum(opens, close),
        low=np.minimum(opens, close),
        close=close,
        volume=volume,
        half_spread=np.full(shape, 1e-4),
        depth=np.ones(shape),
        macro={},
        levels=1,
        level_step=1e-4,
    )


def test_daily_bars_take_the_days_first_open_and_last_close() -> None:
    # three days of two steps; day 0 is warm-up
    close = np.array([[100.0], [101.0], [103.0], [104.0], [102.0], [99.0]])
    opens = np.array([[99.0], [100.0], [102.0], [103.0], [104.0], [102.0]])
    volume = np.arange(1.0, 7.0)[:, None]
    bars = daily_bars(hand_path(close, opens, volume))
    assert np.allclose(bars.close_to_close[:, 0], np.log([104 / 101, 99 / 104]))
    assert np.allclose(bars.overnight[:, 0], np.log([102 / 101, 104 / 104]))
    assert np.array_equal(bars.volume[:, 0], [3 + 4, 5 + 6])


def test_daily_bars_refuse_a_path_too_short_to_measure() -> None:
    close = np.full((4, 1), 100.0)
    with pytest.raises(ConfigError, match="two trading days"):
        daily_bars(hand_path(close, close, close))


def test_the_statistics_on_series_whose_answer_is_known() -> None:
    rng = np.random.default_rng(5)
    normal = rng.standard_normal((20_000, 3))
    assert np.all(np.abs(excess_kurtosis(normal)) < 0.15)
    t5 = rng.standard_t(5, (20_000, 3))  # excess kurtosis 6 in theory
    assert np.all(excess_kurtosis(t5) > 3)
    ar = np.empty((20_000, 1))
    ar[0] = 0.0
    for i in range(1, ar.shape[0]):
        ar[i] = 0.6 * ar[i - 1] + normal[i, 0]
    assert acf(ar, 1)[0] == pytest.approx(0.6, abs=0.02)
    assert acf(ar, 2)[0] == pytest.approx(0.36, abs=0.03)
    assert skewness(rng.exponential(1.0, (40_000, 2))) == pytest.approx([2.0, 2.0], abs=0.2)
    assert np.all(np.abs(skewness(normal)) < 0.1)
    common = rng.standard_normal((20_000, 1))
    correlated = common + rng.standard_normal((20_000, 4))  # pairwise correlation 1/2
    assert mean_pairwise_corr(correlated) == pytest.approx(0.5, abs=0.02)


@pytest.mark.slow
def test_the_default_market_has_fat_tails_and_an_overnight_gap_a_gaussian_one_does_not() -> None:
    facts = stylised_facts([run()])
    assert facts["excess_kurtosis"] > 2.0
    assert 0.2 < facts["overnight_share"] < 0.4
    gaussian = stylised_facts([run(GAUSSIAN)])
    assert abs(gaussian["excess_kurtosis"]) < 0.5
    assert gaussian["overnight_share"] < 0.02


@pytest.mark.slow
def test_volatility_clusters_falls_raise_it_and_volume_follows_it() -> None:
    facts = stylised_facts([run(names=40, days=400)])
    assert facts["acf_abs_1"] > 0.1 and facts["acf_abs_10"] > 0.03
    assert facts["leverage"] < -0.03
    assert facts["abs_volume_corr"] > 0.3
    flat = stylised_facts([run(GAUSSIAN, names=20, days=250)])
    assert abs(flat["acf_abs_1"]) < 0.05 and abs(flat["leverage"]) < 0.04


@pytest.mark.slow
def test_names_move_together_more_when_the_market_is_stressed() -> None:
    bars = run(names=40, days=500, seed=3)
    daily = daily_bars(bars).close_to_close
    vix = bars.macro["vix"][bars.warmup_days :]
    calm, stressed = vix <= np.quantile(vix, 0.3), vix >= np.quantile(vix, 0.7)
    assert mean_pairwise_corr(daily[stressed]) > mean_pairwise_corr(daily[calm]) + 0.05
    spread = bars.half_spread[:: bars.steps_per_day][bars.warmup_days :]
    assert spread[stressed].mean() > 1.3 * spread[calm].mean()


@pytest.mark.slow
def test_crisis_names_move_together_more_than_calm_names() -> None:
    calm, crisis = (stylised_facts([run(name, days=200)]) for name in ("calm-v1", "crisis-v1"))
    assert crisis["pairwise_corr"] > calm["pairwise_corr"] + 0.1


def test_the_factor_paths_explain_a_name_with_no_idiosyncratic_risk() -> None:
    bars = run({"idio_vol": 0.01, "mispricing_vol": 0.0}, names=16, days=30)
    assert bars.market_factor is not None and bars.sector_factors is not None
    assert bars.betas is not None
    step_return = np.diff(np.log(bars.close), axis=0)
    sector = np.asarray(bars.universe.sector_index())
    explained = bars.betas * bars.market_factor[1:, None] + bars.sector_factors[1:, sector]
    residual = step_return - explained
    assert residual.std() < 0.1 * step_return.std()
    assert bars.sector_factors.shape == (bars.steps, 8)


@pytest.mark.parametrize("name", ["turbulent-v2", "crisis-v2"])
@pytest.mark.slow
def test_the_jump_presets_fall_more_than_they_rise_and_stay_within_a_real_largest_move(
    name: str,
) -> None:
    jumps, diffusion = (
        stylised_facts([run(p, names=40, days=300)]) for p in (name, name[:-1] + "1")
    )
    assert jumps["skew"] < -0.1 < diffusion["skew"]
    assert jumps["max_move"] < 0.42 < diffusion["max_move"]
    assert jumps["excess_kurtosis"] > 2.0 and jumps["leverage"] < -0.05


def test_jump_dials_at_rate_zero_draw_nothing_and_stay_out_of_the_fingerprint() -> None:
    sized = {"market_jump_mean": -0.05, "market_jump_vol": 0.02, "idio_jump_mean": -0.1}
    plain, unused = run(names=8, days=20), run(sized, names=8, days=20)
    assert np.array_equal(plain.close, unused.close) and np.array_equal(plain.depth, unused.depth)
    assert not any("jump" in dial for dial in preset("crisis-v1").vector)
    assert preset(dict(preset("crisis-v1").vector)).fingerprint == "crisis-v1"


def test_a_market_jump_is_part_of_the_market_factor_and_lands_in_the_gap() -> None:
    bars = run({"market_jump_rate": 40.0, "market_jump_mean": -0.05, "market_jump_vol": 0.0},
               names=16, days=60)  # fmt: skip
    assert bars.market_factor_open is not None
    gap = bars.market_factor_open[:: bars.steps_per_day]
    plain = run(names=16, days=60)
    assert plain.market_factor_open is not None
    moved = gap - plain.market_factor_open[:: bars.steps_per_day]
    jumped = np.abs(moved) > 1e-12  # whole jumps of -0.05 (jump sd 0), on a day's first step
    assert jumped.sum() > 0
    assert np.allclose(moved[jumped] / -0.05, np.round(moved[jumped] / -0.05))


@pytest.mark.slow
def test_standard_v3_clusters_longer_than_standard_v1_and_its_big_days_are_falls() -> None:
    v3, v1 = (stylised_facts([run(p, names=40, days=400)]) for p in ("standard-v3", "standard-v1"))
    # one 400-day path reads long-lag clustering low; bench/stylised.py checks >= 0.10
    assert v3["acf_abs_10"] > max(v1["acf_abs_10"] + 0.01, 0.05)
    assert v3["skew"] < min(v1["skew"], 0.0)
    assert v3["max_move"] < 0.42 and v3["excess_kurtosis"] > 3.0


JUMP_PATH = (
    "simulate(preset('crisis-v2'), Universe.synthetic(12), seed=8, days=30, steps_per_day=6, "
    "ticks_per_step=20, warmup_days=4)"
)


def _path_digest(path: MarketPath) -> str:
    assert path.market_factor is not None
    parts = (path.close, path.volume, path.depth, path.market_factor)
    return hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in parts)).hexdigest()


@pytest.mark.slow
def test_a_jump_market_is_the_same_bytes_in_another_process() -> None:
    path = simulate(  # JUMP_PATH, which the other process runs
        preset("crisis-v2"), Universe.synthetic(12), seed=8, days=30, steps_per_day=6,
        ticks_per_step=20, warmup_days=4,
    )  # fmt: skip
    here = _path_digest(path)
    code = (
        "import hashlib, numpy as np; from workbench.engine import Universe, preset, simulate; "
        f"p = {JUMP_PATH}; parts = (p.close, p.volume, p.depth, p.market_factor); "
        "print(hashlib.sha256(b''.join(np.ascontiguousarray(a).tobytes() for a in parts))"
        ".hexdigest())"
    )
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root, "PYTHONHASHSEED": "random"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
        timeout=300,
    )  # fmt: skip
    assert done.stdout.strip() == here
