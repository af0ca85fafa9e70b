"""Daily variance with long memory and a leverage effect, and fat-tailed daily shocks.

Log variance is a long-run level plus a fast and a slow component, each a
Gaussian AR(1) with its own half-life and stationary standard deviation:

    log h[t] = log long_run - (sd_f^2 + sd_s^2) / 2 + x_f[t] + x_s[t]
    x[t+1]   = phi * x[t] + sd * sqrt(1 - phi^2) * (-lev * u[t] + sqrt(1 - lev^2) * e[t+1])

u[t] is the day's own unit normal return shock and e an independent draw, so a
fall raises tomorrow's variance and a rise lowers it: the leverage effect (Black
1976), here as the asymmetric stochastic-volatility model of Harvey & Shephard
(1996), "Estimation of an asymmetric stochastic volatility model for asset
returns". Components on short and long horizons reproduce the slowly decaying
autocorrelation of |r| (Cont 2001, "Empirical properties of asset returns:
stylized facts and statistical issues") the way two-factor volatility does in
Chernov, Gallant, Ghysels & Tauchen (2003), "Alternative models for stock price
dynamics", and the daily/monthly cascade of Corsi (2009). The shift keeps E[h]
at the long-run level, so a preset's vol dial is the root of mean variance; the
median (typical) variance is ``long_run * exp(-shift)``. Each component starts
from its stationary distribution, so a short run is not always a calm one.

A GJR-GARCH feedback (variance driven by past squared returns) was tried first:
with the same long-run variance it left the autocorrelation of |r| near 0.05 at
lag 1, as GARCH(1,1) with normal-sized coefficients does; latent components reach
the 0.1-0.2 real equities show.

With the dial ``vol_cap_sd`` above 0 (``VolCap``) the variance a day is simulated
on compresses each log deviation past that many of its stationary sds above its
typical level (a name's, its own and the market's coupled share together): an
excess x over the cap c is simulated as c + k log(1 + x / k), k a quarter of an sd
(``SOFTNESS``), so the variance keeps rising with the deviation, continuously and
smoothly at the cap, but only as a power of the excess, not exponentially: 3 sds
past the cap count as 0.64. The components themselves run on uncapped, so memory
below the cap is untouched. It bounds the volatility a long run of bad draws can
build without a ceiling every run reaches: the same idea as the spline exponential
of Chernov, Gallant, Ghysels & Tauchen (2003), "Alternative models for stock price
dynamics", exponential up to a threshold and growing only polynomially past it,
though theirs continues the exponential differently (the compression here is this
engine's own). Uncapped, a name's log variance of sd 1.7 (standard-v3's) puts its
volatility at 30 times its typical level on one name-day in 30,000. At 0, every
preset made before the dial, nothing is capped.

Shocks are Student-t with ``dof`` degrees of freedom, drawn as a normal times the
root of an inverse-gamma weight (the normal variance-mixture form, as for the
t-GARCH of Bollerslev 1987). The weight is one draw per day, shared by a day's
ticks: it is the day's information intensity, which volume also follows (Clark
1973, the mixture-of-distributions hypothesis).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from workbench.engine import portable
from workbench.engine.presets import Preset

# k of the compression past the cap, c + k log(1 + x / k), in the log variance's sds
SOFTNESS = 0.25


def decay(halflife_days: float) -> float:
    """The AR(1) coefficient with the given half-life in days."""
    return portable.power_of(0.5, 1.0 / halflife_days)


class LogVariance:
    """The conditional daily variance of one factor (size 1) or of every name at once."""

    def __init__(
        self, long_run: np.ndarray, p: Preset, *, leverage: float, rng: np.random.Generator
    ) -> None:
        self.long_run, self.leverage, self.rng = long_run, leverage, rng
        self.decays = np.array(
            [decay(p["vol_fast_halflife_days"]), decay(p["vol_slow_halflife_days"])]
        )
        self.sds = np.array([p["vol_fast_vol"], p["vol_slow_vol"]])[:, None]
        # the scale of each innovation
        self.scale = self.sds * np.sqrt(1.0 - self.decays * self.decays)[:, None]
        self.shift = 0.5 * float((self.sds * self.sds).sum())
        self.typical = long_run * portable.exp_of(-self.shift)
        self.state = rng.standard_normal((2, long_run.size)) * self.sds

    @property
    def deviation(self) -> np.ndarray:
        """Log variance above its typical level: N(0, 2 * shift) in the long run."""
        return self.state.sum(axis=0)

    @property
    def variance(self) -> np.ndarray:
        """The variance of the day to come, known at its open."""
        return self.typical * portable.exp(self.deviation)

    def update(self, unit_shock: np.ndarray) -> None:
        """Fold in the day's unit normal return shock; ``variance`` is then the next day's."""
        fresh = self.rng.standard_normal(self.state.shape)
        own = math.sqrt(1.0 - self.leverage * self.leverage)
        innovation = -self.leverage * unit_shock + own * fresh
        self.state = self.decays[:, None] * self.state + self.scale * innovation


class VolCap(NamedTuple):
    """Where a day's log variance starts to be compressed above its typical level
    (market and names), and the scale of the compression, each in log variance."""

    market: float
    idio: float
    market_scale: float
    idio_scale: float

    @classmethod
    def of(cls, p: Preset, market: LogVariance, idio: LogVariance) -> VolCap | None:
        """The preset's ``vol_cap_sd`` in each log variance's own stationary sd; None at 0."""
        cap = p["vol_cap_sd"]
        if cap == 0.0:
            return None
        coupled = p["idio_vol_coupling"] * p["idio_vol_coupling"] * market.shift
        market_sd = math.sqrt(2.0 * market.shift)
        idio_sd = math.sqrt(2.0 * (idio.shift + coupled))
        return cls(cap * market_sd, cap * idio_sd, SOFTNESS * market_sd, SOFTNESS * idio_sd)

    def market_deviation(self, deviation: float) -> float:
        """The market's log deviation the day is simulated on."""
        return _compressed(deviation, self.market, self.market_scale)

    def idio_deviation(self, deviation: np.ndarray) -> np.ndarray:
        """Each name's log deviation the day is simulated on."""
        # a few names a day pass the cap: one by one costs less than a whole-array log
        above = np.flatnonzero(deviation > self.idio)
        if above.size == 0:
            return deviation
        out = deviation.copy()
        out[above] = [_compressed(float(d), self.idio, self.idio_scale) for d in out[above]]
        return out


def _compressed(deviation: float, cap: float, scale: float) -> float:
    """cap + scale * log(1 + excess / scale) past the cap; the deviation itself below it."""
    if deviation <= cap:
        return deviation
    return cap + scale * portable.log_of(1.0 + (deviation - cap) / scale)


def mixing_scale(rng: np.random.Generator, dof: float, size: int) -> np.ndarray:
    """sqrt(w), w = (dof - 2) / chi2(dof): a unit normal times it is a unit-variance Student-t."""
    chi2 = 2.0 * rng.standard_gamma(dof / 2.0, size)
    return np.sqrt((dof - 2.0) / np.maximum(chi2, 1e-300))
