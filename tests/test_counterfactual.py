"""Counterfactual variants: the same statistics on another history, and the gap memory makes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench import World
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.engine.variants import bootstrap_days
from workbench.errors import ConfigError
from workbench.evaluation.counterfactual import counterfactual_gap
from workbench.testing import MemorisingOracle

pytestmark = pytest.mark.slow  # the module fixtures run every baseline on real and variant paths

SECRET = "counterfactual-secret-0001"


@pytest.fixture(scope="module")
def bars() -> pd.DataFrame:
    return sample_bars(days=160, names=6, seed=11)


def real_panel(bars: pd.DataFrame, variant: str) -> dict[str, np.ndarray]:
    data = Historical.load(bars, mask=False, variant=variant)
    return data.variant.apply(data.real_panel)


def test_a_bootstrap_draws_whole_days_jointly_in_blocks(bars: pd.DataFrame) -> None:
    real = Historical.load(bars, mask=False).real_panel
    boot = real_panel(bars, "bootstrap:3")
    real_days = np.diff(np.log(real["close"]), axis=0)
    new_days = np.diff(np.log(boot["close"]), axis=0)
    matches = [np.flatnonzero(np.abs(real_days - day).max(axis=1) < 1e-12) for day in new_days]
    assert all(len(m) == 1 for m in matches)  # every new day is one real day, for every name
    source = np.array([m[0] for m in matches])
    assert 4 < len(source) / (1 + np.sum(np.diff(source) != 1)) < 25  # blocks of ~10 days
    assert not np.array_equal(source, np.arange(len(source)))  # not the real calendar
    assert (boot["low"] <= np.minimum(boot["open"], boot["close"]) + 1e-9).all()
    assert (boot["high"] >= np.maximum(boot["open"], boot["close"]) - 1e-9).all()


def test_bootstrap_blocks_have_the_mean_length_asked_for() -> None:
    source = bootstrap_days(20_001, seed=1, block=5.0)
    starts = 1 + np.sum(np.diff(source) % 20_000 != 1)
    assert len(source) / starts == pytest.approx(5.0, rel=0.05)
    assert source.min() >= 1 and source.max() <= 20_000


def test_reversed_reads_the_path_backwards_and_flipped_mirrors_it(bars: pd.DataFrame) -> None:
    real = Historical.load(bars, mask=False).real_panel
    backwards, mirror = real_panel(bars, "reversed"), real_panel(bars, "flipped")
    np.testing.assert_array_equal(backwards["close"], real["close"][::-1])
    product = mirror["close"] * real["close"]  # x -> c0^2 / x, name by name
    np.testing.assert_allclose(product, np.broadcast_to(real["close"][0] ** 2, product.shape))
    assert (mirror["high"] >= mirror["low"]).all()
    np.testing.assert_allclose(mirror["high"], real["close"][0] ** 2 / real["low"])


def test_the_variant_is_chosen_by_a_parameter_and_recorded(bars: pd.DataFrame) -> None:
    world = World(data=Historical.load(bars, secret=SECRET, variant="bootstrap:4"))
    assert world.describe()["data"]["variant"] == {
        "kind": "bootstrap",
        "label": "bootstrap:4",
        "seed": 4,
        "block": 10.0,
    }
    assert world.data is not None and world.data.manifest()["secret"] == SECRET
    real = World(data=Historical.load(bars, secret=SECRET))
    assert real.fingerprint != world.fingerprint
    with pytest.raises(ConfigError, match="unknown variant 'shuffled'; choose from real, boot"):
        Historical.load(bars, variant="shuffled")
    with pytest.raises(ConfigError, match="only 'bootstrap' takes a seed"):
        Historical.load(bars, variant="flipped:2")


@pytest.fixture(scope="module")
def gap(bars: pd.DataFrame):
    def arms() -> list:
        return [MemorisingOracle(bars), "buy_and_hold", "equal_weight", "momentum"]

    return counterfactual_gap(arms, Historical.load(bars, secret=SECRET), variants=8)


@pytest.mark.slow
def test_a_memorising_oracle_does_far_better_on_the_real_path(gap) -> None:
    oracle = gap.table.loc["oracle"]
    assert oracle["real"] > 5 * gap.by_path["oracle"].iloc[1:].max()
    assert oracle["z"] > 10 and oracle["p_value"] == pytest.approx(1 / 9)


@pytest.mark.parametrize("arm", ["buy_and_hold", "equal_weight", "momentum"])
def test_an_honest_baseline_scores_alike_on_real_and_variant_paths(gap, arm: str) -> None:
    row = gap.table.loc[arm]
    assert row["variants"] == 8 and abs(row["z"]) < 2, row.to_dict()
    assert row["p_value"] > 0.2


@pytest.mark.slow
def test_the_oracle_gap_holds_on_reversed_and_flipped_paths(bars: pd.DataFrame) -> None:
    result = counterfactual_gap(
        lambda: [MemorisingOracle(bars)], bars, variants=["reversed", "flipped"], days=60
    )
    real, others = result.by_path["oracle"].iloc[0], result.by_path["oracle"].iloc[1:]
    assert list(result.by_path.index) == ["real", "reversed", "flipped"]
    assert real > 50 and (others.abs() < 5).all()  # unrecognised paths: it stays out
    assert result.runs["flipped"].meta["data"]["variant"]["kind"] == "flipped"
