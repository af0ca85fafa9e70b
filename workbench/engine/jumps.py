"""Jumps: rare, discontinuous moves on top of the diffusion, mostly downward.

A day's market jump and each name's own are compound Poisson: the number of
jumps is Poisson with the preset's yearly rate over ``TRADING_DAYS``, each jump's
log size normal with the preset's mean and sd, as in the jump-diffusion of Merton
(1976), "Option pricing when underlying stock returns are discontinuous". With a
negative mean the big days are down days: daily returns are negatively skewed,
which a symmetric Student-t diffusion cannot give (Cont 2001 lists the gain/loss
asymmetry among the stylised facts). Jumps land in the overnight gap, where
news that moves a price at once mostly arrives; the market's moves every name by
its beta and is part of the market factor, a name's own is part of its own move.
Jumps come more often when variance is high: a day's rate is the preset's
times the day's variance over its long-run level (known at the open), the
intensity affine in variance of Bates (2000), "Post-'87 crash fears in the S&P
500 futures option market", so jumps cluster in stress as crashes do, and the
preset's rate is the long-run average; where the preset caps the variance
(``vol_cap_sd``) the compressed variance sets it, so the rate grows slowly there too. A jump
does not feed the variance (``workbench.engine.volatility``): measured in units
of a calm day's sd, one crash would raise it without bound.

A preset whose jump rates are 0 draws nothing: its paths are those of a market
without jumps, bit for bit. At daily rates below 10 NumPy's Poisson sampler
multiplies uniforms until their product falls below exp(-rate): the C library's
exp only decides a comparison, the standing ``workbench.engine.portable`` gives
``standard_gamma``'s rejection test.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from workbench.engine.presets import Preset

TRADING_DAYS = 252


class DayJumps(NamedTuple):
    """One day's jumps, in log terms (0.0 where none happened)."""

    market: float
    idio: np.ndarray  # (names,)


class Jumps:
    """Draws each day's jumps from the preset's jump dials, from its own stream."""

    def __init__(self, p: Preset, names: int, rng: np.random.Generator) -> None:
        self.rng, self.names = rng, names
        self.market = (p["market_jump_rate"] / TRADING_DAYS, p["market_jump_mean"])
        self.market_vol = p["market_jump_vol"]
        self.idio = (p["idio_jump_rate"] / TRADING_DAYS, p["idio_jump_mean"])
        self.idio_vol = p["idio_jump_vol"]

    @classmethod
    def of(cls, p: Preset, names: int, rng: np.random.Generator) -> Jumps | None:
        """The preset's jumps, or None when it has none (nothing is drawn then)."""
        if p["market_jump_rate"] == 0.0 and p["idio_jump_rate"] == 0.0:
            return None
        return cls(p, names, rng)

    def draw(self, market_stress: float, idio_stress: np.ndarray) -> DayJumps:
        """The day's jumps; each ``stress`` is a variance over its long-run level."""
        rate, mean = self.market
        market = self._compound(np.array([rate * market_stress]), mean, self.market_vol)
        rate, mean = self.idio
        return DayJumps(float(market[0]), self._compound(rate * idio_stress, mean, self.idio_vol))

    def _compound(self, rate: float | np.ndarray, mean: float, vol: float) -> np.ndarray:
        """The sum of Poisson(rate) normal jumps, per element: N(k mean, k vol^2) given k."""
        count = self.rng.poisson(rate).astype(float)
        size = count.shape
        return count * mean + np.sqrt(count) * vol * self.rng.standard_normal(size)
