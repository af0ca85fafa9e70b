"""The synthetic market: one exogenous path shared by every arm of an evaluation.

Per day (a Python loop over days; every name is vectorised):

- macro: a two-state business cycle drives growth; inflation is AR(1); the policy
  rate follows a smoothed Taylor rule; 2y/10y yields sit on the policy rate; the
  volatility index is the market factor's own conditional vol, annualised.
- variance: the market factor and each name's idiosyncratic part follow
  GJR-GARCH(1,1) on daily returns (Glosten, Jagannathan & Runkle 1993), with the
  intercept set so the long-run vol equals the preset's dial.
- fair value: ticks of log fair value = drift + beta x market + sector + idio shocks.
- price: fair value x exp(mispricing), the mispricing a tick-level AR(1)
  (discrete Ornstein-Uhlenbeck) with the preset's half-life and stationary vol.
- liquidity: a U-shaped intraday volume profile that rises with vol; a half-spread
  and book depth that widen and thin as vol rises.

Ticks are reduced to step bars (open/high/low/close, volume, spread, depth) as
each day is simulated, so memory grows with steps x names, never with ticks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.engine import portable
from workbench.engine.presets import Preset
from workbench.engine.universe import Universe

TRADING_DAYS = 252
# one independent stream per source, so no draw moves when another source's length changes
_STREAMS = ("macro", "universe", "market", "sector", "idio", "mispricing", "volume", "regime")


@dataclass(frozen=True)
class MarketPath:
    """Step bars for every name; rows are steps (warm-up steps first)."""

    universe: Universe
    steps_per_day: int
    ticks_per_step: int
    warmup_days: int
    open: np.ndarray  # (steps, names) mid price at the step's first tick
    high: np.ndarray
    low: np.ndarray
    close: np.ndarray  # mid price at the step's last tick
    volume: np.ndarray  # shares traded in the step
    half_spread: np.ndarray  # fraction of mid
    depth: np.ndarray  # shares per book level
    macro: dict[str, np.ndarray]  # one value per day, keys OBSERVABLE_MACRO
    levels: int
    level_step: float  # fraction of price between book levels

    @property
    def warmup_steps(self) -> int:
        return self.warmup_days * self.steps_per_day

    @property
    def steps(self) -> int:
        return int(self.close.shape[0])


@dataclass
class _NameTraits:
    beta: np.ndarray
    idio_vol: np.ndarray  # annualised long-run
    price: np.ndarray
    volume: np.ndarray  # shares per day
    sector: np.ndarray  # sector index per name
    sectors: int


def simulate(
    preset: Preset,
    universe: Universe,
    *,
    seed: int,
    days: int,
    steps_per_day: int,
    ticks_per_step: int,
    warmup_days: int,
) -> MarketPath:
    """Simulate warm-up plus trading days; deterministic in preset, universe, seed, cadence."""
    streams = dict(zip(_STREAMS, np.random.SeedSequence(seed).spawn(len(_STREAMS)), strict=True))
    rngs = {name: np.random.default_rng(s) for name, s in streams.items()}
    traits = _draw_traits(preset, universe, rngs["universe"])
    total_days = warmup_days + days
    macro = _macro_path(preset, total_days, rngs["macro"], rngs["regime"])
    bars = _BarBuilder(total_days * steps_per_day, universe.size)
    day_sim = _DaySimulator(preset, traits, steps_per_day, ticks_per_step, rngs)
    for day in range(total_days):
        macro["vix"][day] = day_sim.market_vol_annualised()
        day_sim.run_day(day, float(macro["growth"][day]), bars)
    return MarketPath(
        universe=universe,
        steps_per_day=steps_per_day,
        ticks_per_step=ticks_per_step,
        warmup_days=warmup_days,
        macro=macro,
        levels=int(preset["depth_levels"]),
        level_step=preset["level_step_bps"] / 1e4,
        **bars.arrays(),
    )


def _draw_traits(preset: Preset, universe: Universe, rng: np.random.Generator) -> _NameTraits:
    n = universe.size
    sector = np.asarray(universe.sector_index(), dtype=np.int64)
    return _NameTraits(
        beta=np.clip(rng.normal(1.0, 0.25, n), 0.3, 2.0),
        idio_vol=preset["idio_vol"] * rng.lognormal(0.0, 0.25, n),
        price=portable.exp(rng.normal(math.log(60.0), 0.6, n)),
        volume=preset["base_volume"] * rng.lognormal(0.0, 0.5, n),
        sector=sector,
        sectors=int(sector.max()) + 1,
    )


def _macro_path(
    p: Preset, days: int, rng: np.random.Generator, regime_rng: np.random.Generator
) -> dict[str, np.ndarray]:
    out = {k: np.empty(days) for k in ("regime", "growth", "inflation", "policy_rate")}
    out.update(yield_2y=np.empty(days), yield_10y=np.empty(days), vix=np.empty(days))
    regime, growth, inflation = 0, p["growth_expansion"], p["inflation_mean"]
    rate = p["policy_neutral"] + p["inflation_mean"]
    shocks = rng.standard_normal((days, 4))
    switches = regime_rng.random(days)
    for day in range(days):
        stay = p["regime_stay_expansion"] if regime == 0 else p["regime_stay_contraction"]
        regime = regime if switches[day] < stay else 1 - regime
        target = p["growth_expansion"] if regime == 0 else p["growth_contraction"]
        phi = p["growth_persistence"]
        growth = target + phi * (growth - target) + p["growth_vol"] * shocks[day, 0]
        psi = p["inflation_persistence"]
        inflation = (
            p["inflation_mean"]
            + psi * (inflation - p["inflation_mean"])
            + p["inflation_vol"] * shocks[day, 1]
        )
        taylor = (
            p["policy_neutral"]
            + inflation
            + p["policy_inflation_weight"] * (inflation - p["inflation_mean"])
            + p["policy_growth_weight"] * (growth - p["growth_expansion"])
        )
        rate = max(0.0, p["policy_smoothing"] * rate + (1 - p["policy_smoothing"]) * taylor)
        y2 = rate + 0.25 * p["term_premium"] + p["yield_noise"] * shocks[day, 2]
        out["regime"][day], out["growth"][day] = regime, growth
        out["inflation"][day], out["policy_rate"][day] = inflation, rate
        out["yield_2y"][day] = y2
        out["yield_10y"][day] = y2 + p["term_premium"] + p["yield_noise"] * shocks[day, 3]
    return out


class _BarBuilder:
    """Preallocated step bars, filled one day at a time."""

    def __init__(self, steps: int, names: int) -> None:
        shape = (steps, names)
        self._fields = {
            k: np.empty(shape)
            for k in ("open", "high", "low", "close", "volume", "half_spread", "depth")
        }

    def put(self, rows: slice, **values: np.ndarray) -> None:
        for key, value in values.items():
            self._fields[key][rows] = value

    def arrays(self) -> dict[str, np.ndarray]:
        return self._fields


class _DaySimulator:
    """Carries variance, fair value and mispricing state from one day to the next."""

    def __init__(
        self,
        p: Preset,
        traits: _NameTraits,
        steps_per_day: int,
        ticks_per_step: int,
        rngs: dict[str, np.random.Generator],
    ) -> None:
        self.p, self.t, self.rngs = p, traits, rngs
        self.steps, self.ticks = steps_per_day, ticks_per_step
        self.market_var = p["market_vol"] ** 2 / TRADING_DAYS
        self.idio_var = traits.idio_vol**2 / TRADING_DAYS
        self.log_fair = portable.log(traits.price)
        self.mispricing = np.zeros(traits.beta.size)
        halflife = max(p["mispricing_halflife_ticks"], 1e-9)
        self.ar = math.pow(0.5, 1.0 / halflife)
        self.norm_vol = np.sqrt(
            traits.beta**2 * p["market_vol"] ** 2 + p["sector_vol"] ** 2 + traits.idio_vol**2
        ) / math.sqrt(TRADING_DAYS)
        profile = 1.0 + p["volume_u_shape"] * np.linspace(-1.0, 1.0, steps_per_day) ** 2
        self.volume_profile = (profile / profile.sum())[:, None]

    def market_vol_annualised(self) -> float:
        return 100.0 * math.sqrt(self.market_var * TRADING_DAYS)

    def run_day(self, day: int, growth: float, bars: _BarBuilder) -> None:
        p, t = self.p, self.t
        k = self.steps * self.ticks
        root_k = math.sqrt(k)
        z_market = self.rngs["market"].standard_normal(k)
        z_sector = self.rngs["sector"].standard_normal((k, t.sectors))
        z_idio = self.rngs["idio"].standard_normal((k, t.beta.size))
        drift = p["equity_premium"] + p["growth_sensitivity"] * (growth - p["growth_expansion"])
        drift_tick = drift / TRADING_DAYS / k - 0.5 * (self.norm_vol**2) / k
        market_vol, idio_vol = math.sqrt(self.market_var), np.sqrt(self.idio_var)
        sector_vol = p["sector_vol"] / math.sqrt(TRADING_DAYS)
        shocks = z_idio * (idio_vol / root_k)
        shocks += np.outer(z_market, t.beta * (market_vol / root_k))
        shocks += z_sector[:, t.sector] * (sector_vol / root_k)
        shocks += drift_tick
        log_fair = self.log_fair + np.cumsum(shocks, axis=0)
        log_price = log_fair + self._mispricing_ticks(k)
        self.log_fair = log_fair[-1]
        # liquidity is set by the variance known at the open, before today's shocks update it
        self._reduce(day, log_price, market_vol, bars)
        self._update_variance(
            z_market.sum() / root_k * market_vol, z_idio.sum(0) / root_k * idio_vol
        )

    def _mispricing_ticks(self, k: int) -> np.ndarray:
        sigma = self.p["mispricing_vol"] * math.sqrt(1.0 - self.ar**2)
        path = self.rngs["mispricing"].standard_normal((k, self.mispricing.size)) * sigma
        level = self.mispricing
        for tick in path:  # AR(1) in place: m[t] = ar * m[t-1] + eps[t], every name at once
            tick += self.ar * level
            level = tick
        self.mispricing = path[-1].copy()
        return path

    def _update_variance(self, market_ret: float, idio_ret: np.ndarray) -> None:
        p = self.p
        a, g, b = p["garch_alpha"], p["garch_gamma"], p["garch_beta"]
        persistence = a + g / 2 + b  # below 1: the preset refuses anything else
        long_market = p["market_vol"] ** 2 / TRADING_DAYS
        long_idio = self.t.idio_vol**2 / TRADING_DAYS
        hit = a + g * (market_ret < 0)
        self.market_var = (
            (1 - persistence) * long_market + hit * market_ret**2 + b * self.market_var
        )
        hits = a + g * (idio_ret < 0)
        self.idio_var = (1 - persistence) * long_idio + hits * idio_ret**2 + b * self.idio_var

    def _reduce(
        self, day: int, log_price: np.ndarray, market_vol: float, bars: _BarBuilder
    ) -> None:
        t, p = self.t, self.p
        open_, high, low, close = _step_bars(log_price.reshape(self.steps, self.ticks, -1))
        vol_now = np.sqrt(
            t.beta**2 * market_vol**2 + self.idio_var + p["sector_vol"] ** 2 / TRADING_DAYS
        )
        stress = vol_now / self.norm_vol
        noise = self.rngs["volume"].lognormal(0.0, p["volume_noise"], (self.steps, t.beta.size))
        volume = np.floor(
            t.volume
            * portable.power(stress, p["volume_vol_elasticity"])
            * self.volume_profile
            * noise
        )
        half_spread = np.broadcast_to(
            p["spread_bps"] / 1e4 * portable.power(stress, p["spread_vol_elasticity"]),
            volume.shape,
        )
        rows = slice(day * self.steps, (day + 1) * self.steps)
        bars.put(
            rows,
            open=open_,
            high=high,
            low=low,
            close=close,
            volume=volume,
            half_spread=half_spread,
            depth=np.floor(np.maximum(volume * p["depth_fraction"], 1.0)),
        )


def _step_bars(log_ticks: np.ndarray) -> tuple[np.ndarray, ...]:
    """Open, high, low and close of each step from (steps, ticks, names) log prices.

    exp is monotonic, so the high of the prices is exp of the high of the logs: one
    exp per bar instead of per tick. The high and low are widened to hold the open
    and close whatever the last bit of exp does.
    """
    logs = np.stack(
        (log_ticks[:, 0], log_ticks.max(axis=1), log_ticks.min(axis=1), log_ticks[:, -1])
    )
    open_, high, low, close = portable.exp(logs)
    return (
        open_,
        np.maximum(high, np.maximum(open_, close)),
        np.minimum(low, np.minimum(open_, close)),
        close,
    )
