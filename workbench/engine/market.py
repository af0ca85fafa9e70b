"""The synthetic market: one exogenous path shared by every arm of an evaluation.

Per day (a Python loop over days; every name is vectorised):

- macro: a two-state business cycle drives growth; inflation is AR(1); the policy
  rate follows a smoothed Taylor rule; 2y/10y yields sit on the policy rate; the
  volatility index is the market factor's own conditional vol, annualised.
- variance: the market factor and each name's idiosyncratic part have a daily
  conditional variance with a fast and a slow component and a heavier response to
  falls than to rises (``workbench.engine.volatility``), compressed past a cap where the
  preset's ``vol_cap_sd`` is above 0 (``VolCap``); sector variance moves with
  the market's, so co-movement rises in stress. Shocks are Student-t.
- fair value: an overnight gap (the preset's share of the day's variance) and then
  ticks of log fair value = drift + beta x market + sector + idio shocks, all
  normal; with the dial ``uniform_tick_shocks`` at 1 a name's own tick shocks are
  uniform of unit variance instead (``unit_uniform``: bars sum enough of them to be
  normal), its gap's and the factors' still normal.
- price: fair value x exp(mispricing), the mispricing a tick-level AR(1)
  (discrete Ornstein-Uhlenbeck, its shocks drawn as a name's tick shocks are) with
  the preset's half-life and stationary vol.
- liquidity: a U-shaped intraday volume profile scaled by the day's information
  intensity (volume follows realised volatility, Clark 1973); a half-spread that
  widens as the variance known at the open rises, and book depth sized on the
  volume of the step before, so a fill reads nothing of its own step's later trade.

The stylised facts these reproduce, and how they are measured, are in
``workbench.engine.stylised`` (after Cont 2001). Ticks are reduced to step bars as
each day is simulated, so memory grows with steps x names, never with ticks. The
bars are kept in log terms until the run ends and then exponentiated, and the
liquidity sized, over the whole run at once: ``portable`` maths has a fixed cost
per call, and one call per day per quantity was a sixth of the simulation.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from workbench.engine import portable
from workbench.engine.information import Information, draw_information, report_figures
from workbench.engine.jumps import DayJumps, Jumps
from workbench.engine.macro import macro_path
from workbench.engine.presets import Preset
from workbench.engine.textfeed import TextFeed
from workbench.engine.universe import Universe
from workbench.engine.volatility import LogVariance, VolCap, decay, mixing_scale

TRADING_DAYS = 252
_LOG_TYPICAL_PRICE = portable.log_of(60.0)  # names start around $60
_LOG_1E4 = portable.log_of(1e4)
_ROOT_3 = math.sqrt(3.0)
_TWO_ROOT_3 = 2.0 * _ROOT_3
_Number = TypeVar("_Number", float, np.ndarray)
_FINISH_BLOCK = 1 << 16  # name-steps finished at once, so temporaries stay small in any run
_DRAW_BLOCK = 1 << 16  # values of a day-sized draw taken from its stream at once
# one independent stream per source, so no draw moves when another source's length changes
_STREAMS = (
    "macro",
    "universe",
    "market",
    "sector",
    "idio",
    "mispricing",
    "volume",
    "regime",
    "market_tails",
    "idio_tails",
    "market_vol",
    "idio_vol",
    "information",
    "jumps",  # last, so adding it moved no other stream
)


@dataclass(frozen=True)
class MarketPath:
    """Step bars for every name; rows are steps (warm-up steps first).

    The factor paths behind a simulated market are kept for attribution
    (``workbench.evaluation.attribution``): a name's log mid moves from one step's
    close to the next by exactly ``drift[step]`` (plus ``variance_drag[i]`` on a
    day's first step) + ``betas[i] * market_factor[step]`` +
    ``sector_factors[step, universe.sector_index()[i]]`` + the change of its log
    ``mispricing`` + its own idiosyncratic shock. Factor returns are the zero-mean
    shocks in log terms, the first step of each day carrying the overnight gap; the
    ``*_open`` fields are the parts that had arrived by the step's open (its first
    tick, and the gap), so a step splits into close-to-open and open-to-close. They
    are ``None`` for historical bars.
    """

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
    market_factor: np.ndarray | None = None  # (steps,) market factor log return per step
    sector_factors: np.ndarray | None = None  # (steps, sectors) log return per step and sector
    betas: np.ndarray | None = None  # (names,) each name's loading on the market factor
    market_factor_open: np.ndarray | None = None  # (steps,) the part in by the step's open
    sector_factors_open: np.ndarray | None = None  # (steps, sectors) the same per sector
    drift: np.ndarray | None = None  # (steps,) common log drift: the day's, on its first step
    variance_drag: np.ndarray | None = None  # (names,) each name's own, on a day's first step
    mispricing: np.ndarray | None = None  # (steps, names) log mispricing at the step's close
    mispricing_open: np.ndarray | None = None  # (steps, names) and at its open
    information: Information | None = None  # what the market published (None: nothing)
    text: TextFeed | None = None  # a researcher's news and fundamentals on historical bars
    news: np.ndarray | None = None  # (steps, names) log move of fair value from the items
    news_open: np.ndarray | None = None  # (steps, names) the part in by the step's open

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
    macro = macro_path(preset, total_days, rngs["macro"], rngs["regime"])
    info = None
    if preset.publishes_information:
        info = draw_information(
            preset, universe.size, traits.sector, total_days, steps_per_day,
            macro["policy_rate"], streams["information"],
        )  # fmt: skip
    bars = _BarBuilder(total_days * steps_per_day, universe.size, traits.sectors, info is not None)
    day_sim = _DaySimulator(preset, traits, steps_per_day, ticks_per_step, rngs, total_days)
    day_sim.information = info
    day_sim.news_bars(bars)
    day_sim.volume_noise(bars)
    day_sim.jumps = Jumps.of(preset, universe.size, rngs["jumps"])
    for day in range(total_days):
        var = day_sim.variances()
        macro["vix"][day] = 100.0 * math.sqrt(var.market * TRADING_DAYS)
        day_sim.run_day(day, var, float(macro["growth"][day]), bars)
    if info is not None:  # the reports' figures come from the fair value they were made on
        report_figures(info, bars.get(slice(None), "close"), bars.get(slice(None), "mispricing"))
    day_sim.finish(bars)
    return MarketPath(
        universe=universe,
        steps_per_day=steps_per_day,
        ticks_per_step=ticks_per_step,
        warmup_days=warmup_days,
        macro=macro,
        levels=int(preset["depth_levels"]),
        level_step=preset["level_step_bps"] / 1e4,
        betas=traits.beta,
        variance_drag=-0.5 * day_sim.norm_var,
        information=info,
        text=None,
        **bars.arrays(),
    )


def _draw_traits(preset: Preset, universe: Universe, rng: np.random.Generator) -> _NameTraits:
    n = universe.size
    sector = np.asarray(universe.sector_index(), dtype=np.int64)
    return _NameTraits(
        beta=np.clip(rng.normal(1.0, 0.25, n), 0.3, 2.0),
        idio_vol=preset["idio_vol"] * _lognormal(rng, 0.25, n),
        price=portable.exp(rng.normal(_LOG_TYPICAL_PRICE, 0.6, n)),
        volume=preset["base_volume"] * _lognormal(rng, 0.5, n),
        sector=sector,
        sectors=int(sector.max()) + 1,
    )


class _BarBuilder:
    """Preallocated step bars and factor returns, filled one day at a time.

    Until ``_DaySimulator.finish`` the four price fields hold log prices and
    ``volume`` holds the log of each step's volume noise."""

    def __init__(self, steps: int, names: int, sectors: int, news: bool = False) -> None:
        shape = (steps, names)
        self._fields: dict[str, np.ndarray] = {
            k: np.empty(shape)
            for k in ("open", "high", "low", "close", "volume", "half_spread", "depth")
        }
        for name in ("market_factor", "market_factor_open", "drift"):
            self._fields[name] = np.empty(steps)
        for name in ("sector_factors", "sector_factors_open"):
            self._fields[name] = np.empty((steps, sectors))
        for name in ("mispricing", "mispricing_open") + (("news", "news_open") if news else ()):
            self._fields[name] = np.empty(shape)

    def put(self, rows: slice, **values: np.ndarray) -> None:
        for key, value in values.items():
            self._fields[key][rows] = value

    def get(self, rows: slice, key: str) -> np.ndarray:
        return self._fields[key][rows]

    def arrays(self) -> dict[str, np.ndarray]:
        return self._fields


@dataclass
class _Shocks:
    """One day's unit normal draws: row 0 is the overnight gap, rows 1.. the ticks."""

    market: np.ndarray  # (1 + ticks,)
    sector: np.ndarray  # (1 + ticks, sectors)
    idio: np.ndarray  # (1 + ticks, names)
    market_mix: float  # Student-t scale shared by the market and sector factors today
    idio_mix: np.ndarray  # (names,)
    market_unit: float  # the day's whole unit normal shock, gap and ticks together
    idio_unit: np.ndarray  # (names,)


@dataclass(frozen=True)
class _Variances:
    """Each source's daily variance for the day to come, known at its open."""

    market: float
    sector: float  # every sector's
    idio: np.ndarray  # (names,)


class _DaySimulator:
    """Carries variance, fair value and mispricing state from one day to the next."""

    def __init__(
        self,
        p: Preset,
        traits: _NameTraits,
        steps_per_day: int,
        ticks_per_step: int,
        rngs: dict[str, np.random.Generator],
        days: int,
    ) -> None:
        self.p, self.t, self.rngs = p, traits, rngs
        self.uniform_ticks = p["uniform_tick_shocks"] == 1.0
        self.steps, self.ticks = steps_per_day, ticks_per_step
        self.market = LogVariance(
            np.array([_square(p["market_vol"]) / TRADING_DAYS]),
            p,
            leverage=p["market_leverage"],
            rng=rngs["market_vol"],
        )
        self.idio = LogVariance(
            _square(traits.idio_vol) / TRADING_DAYS,
            p,
            leverage=p["idio_leverage"],
            rng=rngs["idio_vol"],
        )
        self.sector_var = _square(p["sector_vol"]) / TRADING_DAYS
        self.log_fair = portable.log(traits.price)
        self.mispricing = np.zeros(traits.beta.size)
        self._prepare_mispricing(p, steps_per_day * ticks_per_step)
        factor_typical = _square(traits.beta) * _square(p["market_vol"]) + _square(p["sector_vol"])
        self.norm_var = (factor_typical + _square(traits.idio_vol)) / TRADING_DAYS
        self.coupling = p["idio_vol_coupling"]
        self.vol_cap = VolCap.of(p, self.market, self.idio)
        # liquidity sits at its dials when every variance is at its typical (median) level
        coupling_drag = _square(self.coupling) * self.market.shift
        idio_typical = _square(traits.idio_vol) * portable.exp_of(-coupling_drag)
        self.typical_var = (
            (factor_typical + idio_typical) / TRADING_DAYS * portable.exp_of(-self.market.shift)
        )
        profile = 1.0 + p["volume_u_shape"] * _square(np.linspace(-1.0, 1.0, steps_per_day))
        self.volume_profile = (profile / profile.sum())[:, None]
        # tick-sized buffers reused every day: fresh ones would page-fault in on each use
        k, names = steps_per_day * ticks_per_step, traits.beta.size
        self.idio_buffer = np.empty((1 + k, names))
        self.noise_buffer = np.empty((k, names))
        self.factor_buffer = np.empty((k, names))
        # what liquidity follows, per day: sized for the whole run in ``finish``
        self.stress = np.empty((days, names))
        self.intensity = np.empty((days, names))
        self.information: Information | None = None
        self.jumps: Jumps | None = None
        self._draw_ahead(p, traits, days)

    def _draw_ahead(self, p: Preset, traits: _NameTraits, days: int) -> None:
        """The day-sized draws of the streams that give nothing else, a block of days a
        call: a generator gives the same numbers in one call as in several, and each call
        has a fixed cost."""
        rows, dof, rngs, names = (
            1 + self.steps * self.ticks,
            p["tail_dof"],
            self.rngs,
            traits.beta.size,
        )
        sectors = (rows, traits.sectors)
        self.market_draws = _DaysAhead(days, lambda n: rngs["market"].standard_normal((n, rows)))
        self.sector_draws = _DaysAhead(
            days, lambda n: rngs["sector"].standard_normal((n, *sectors)), rows * traits.sectors
        )
        self.market_mixes = _DaysAhead(days, lambda n: mixing_scale(rngs["market_tails"], dof, n))
        self.idio_mixes = _DaysAhead(
            days,
            lambda n: mixing_scale(rngs["idio_tails"], dof, n * names).reshape(n, names),
            names,
        )

    def _prepare_mispricing(self, p: Preset, ticks: int) -> None:
        self.ar_block, self.ar_up, self.ar_down = _mispricing_powers(
            p["mispricing_halflife_ticks"], p["mispricing_vol"], ticks
        )

    def run_day(self, day: int, var: _Variances, growth: float, bars: _BarBuilder) -> None:
        """Simulate one day on the variances known at its open (``variances()``); its
        shocks update them at the close."""
        shocks = self._draw()
        jumps = self._jumps(var)
        scales = self._scales(var, shocks)
        drift = self._drift(growth)
        rows = slice(day * self.steps, (day + 1) * self.steps)
        news = self._news(day)
        log_price = self._log_fair_values(drift, shocks, scales, news, jumps)
        mispricing = self._mispricing_ticks()
        log_price += mispricing
        self._reduce(rows, log_price, bars)
        self._liquidity(day, var, shocks, jumps)
        self._factors(rows, shocks, scales, bars, jumps)
        self._attribution_paths(rows, drift, mispricing, bars)
        self._update_variance(shocks)

    def _draw(self) -> _Shocks:
        rows = 1 + self.steps * self.ticks
        market = self.market_draws.next()
        idio, rng = self.idio_buffer, self.rngs["idio"]
        if self.uniform_ticks:
            rng.standard_normal(out=idio[0])  # the overnight gap: one shock, normal
            unit_uniform(rng, idio[1:])
        else:
            rng.standard_normal(out=idio)
        night = math.sqrt(self.p["overnight_share"])
        day = math.sqrt((1.0 - self.p["overnight_share"]) / (rows - 1))
        return _Shocks(
            market=market,
            sector=self.sector_draws.next(),
            idio=idio,
            market_mix=float(self.market_mixes.next()),
            idio_mix=self.idio_mixes.next(),
            market_unit=float(night * market[0] + day * market[1:].sum()),
            idio_unit=night * idio[0] + day * idio[1:].sum(axis=0),
        )

    def variances(self) -> _Variances:
        """The day's variances, known at its open.

        Sector variance moves with the market's, and each name's own variance partly too
        (the common factor in idiosyncratic volatility, Herskovic et al. 2016), so names
        calm and storm together and co-move more when the market is stressed."""
        market_dev = float(self.market.deviation[0])
        drag = _square(self.coupling) * self.market.shift
        if self.vol_cap is not None:
            return self._capped_variances(market_dev, drag, self.vol_cap)
        # the market's two numbers on floats (``exp_of``: the bits ``exp`` gives them)
        coupled = portable.exp_of(self.coupling * market_dev - drag)
        market = float(self.market.typical[0] * portable.exp_of(market_dev))
        idio_var = self.idio.typical * portable.exp(self.idio.deviation)
        return _Variances(
            market=market,
            sector=self.sector_var * market / float(self.market.long_run[0]),
            idio=idio_var * coupled,
        )

    def _capped_variances(self, market_dev: float, drag: float, cap: VolCap) -> _Variances:
        """``variances`` with each log deviation above its cap compressed (``VolCap``)."""
        market_dev = cap.market_deviation(market_dev)
        market = float(self.market.typical[0] * portable.exp_of(market_dev))
        idio_dev = cap.idio_deviation(self.idio.deviation + self.coupling * market_dev)
        return _Variances(
            market=market,
            sector=self.sector_var * market / float(self.market.long_run[0]),
            idio=self.idio.typical * portable.exp(idio_dev - drag),
        )

    def _scales(self, var: _Variances, s: _Shocks) -> dict[str, np.ndarray]:
        """Per-tick and overnight standard deviations of each source today."""
        night = self.p["overnight_share"]
        day = (1.0 - night) / (self.steps * self.ticks)
        market = math.sqrt(var.market) * s.market_mix
        sector = math.sqrt(var.sector) * s.market_mix
        idio = np.sqrt(var.idio) * s.idio_mix
        return {
            "market_night": np.array(market * math.sqrt(night)),
            "market_tick": np.array(market * math.sqrt(day)),
            "sector_night": np.array(sector * math.sqrt(night)),
            "sector_tick": np.array(sector * math.sqrt(day)),
            "idio_night": idio * math.sqrt(night),
            "idio_tick": idio * math.sqrt(day),
        }

    def _drift(self, growth: float) -> float:
        """The day's common log drift: the equity premium, tilted by growth, per day."""
        p = self.p
        annual = p["equity_premium"] + p["growth_sensitivity"] * (growth - p["growth_expansion"])
        return annual / TRADING_DAYS

    def _news(self, day: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The day's earnings jumps (in its gap) and the move its items realise per tick;
        None when the market publishes nothing (see ``news_bars``)."""
        if self.information is None:
            return None
        return self.information.gap[day], self.news_per_tick[day]

    def news_bars(self, bars: _BarBuilder) -> None:
        """Every day's news moves per step, for attribution: a tick's move lands in the step
        holding it, the gap and the first tick by its open. Set once the information is."""
        info = self.information
        if info is None:
            return
        self.news_per_tick = info.daily / (self.steps * self.ticks)
        days, names = self.news_per_tick.shape
        by_open = np.repeat(self.news_per_tick, self.steps, axis=0).reshape(days, self.steps, names)
        by_open[:, 0] += info.gap
        step = by_open + (self.news_per_tick * (self.ticks - 1))[:, None, :]
        rows = slice(0, days * self.steps)
        bars.put(rows, news=step.reshape(-1, names), news_open=by_open.reshape(-1, names))

    def _log_fair_values(
        self,
        drift: float,
        s: _Shocks,
        scales: dict[str, np.ndarray],
        news: tuple[np.ndarray, np.ndarray] | None = None,
        jumps: DayJumps | None = None,
    ) -> np.ndarray:
        """(ticks, names) log fair value after the gap and each tick.

        The day's drift accrues in the overnight gap, where the equity premium has been
        earned historically (Cliff, Cooper & Gulen 2008, "Return differences between
        trading and non-trading hours: like night and day"). Factor paths are summed at
        their own size and spread over names once: cumsum is linear.
        """
        t = self.t
        gap = s.idio[0] * scales["idio_night"]
        gap += t.beta * (s.market[0] * scales["market_night"])
        gap += s.sector[0, t.sector] * scales["sector_night"]
        gap += drift - 0.5 * self.norm_var
        if jumps is not None:
            gap += t.beta * jumps.market + jumps.idio
        ticks = s.idio[1:]  # scaled in place: the draws are not needed after this
        ticks *= scales["idio_tick"]
        if news is not None:
            gap += news[0]
            ticks += news[1]
        ticks[0] += self.log_fair + gap
        cumsum_down(ticks)
        market = np.cumsum(s.market[1:]) * scales["market_tick"]
        sector = np.cumsum(s.sector[1:], axis=0) * scales["sector_tick"]
        ticks += np.multiply(market[:, None], t.beta, out=self.factor_buffer)
        # names gathered as rows of the (sectors, ticks) transpose: 4x a column gather
        ticks += np.ascontiguousarray(sector.T)[t.sector].T
        self.log_fair = ticks[-1].copy()
        return ticks

    def _mispricing_ticks(self) -> np.ndarray:
        """AR(1) per tick, m[t] = ar * m[t-1] + sigma * eps[t], every name at once.

        Solved in closed form, m[t] = ar^t * (m[0] + sigma * sum_{s<=t} ar^-s eps[s]), over
        blocks short enough that ar^-s stays below 1e4, so no precision is lost to scaling.
        """
        rng, path = self.rngs["mispricing"], self.noise_buffer
        if self.uniform_ticks:
            unit_uniform(rng, path)
        else:
            rng.standard_normal(out=path)
        level = self.mispricing
        for start in range(0, path.shape[0], self.ar_block):
            block = path[start : start + self.ar_block]
            rows = block.shape[0]
            block *= self.ar_up[:rows]
            cumsum_down(block)
            block += level
            block *= self.ar_down[:rows]
            level = block[-1]
        self.mispricing = level.copy()
        return path

    def _jumps(self, var: _Variances) -> DayJumps | None:
        """The day's jumps, as likely as the day's variance over its long-run level is high."""
        if self.jumps is None:
            return None
        market = var.market / float(self.market.long_run[0])
        return self.jumps.draw(market, var.idio / self.idio.long_run)

    def _update_variance(self, s: _Shocks) -> None:
        self.market.update(np.array([s.market_unit]))
        self.idio.update(s.idio_unit)

    def _reduce(self, rows: slice, log_price: np.ndarray, bars: _BarBuilder) -> None:
        # exp is monotone, so only the four bar values per step need it (in ``finish``)
        per_step = log_price.reshape(self.steps, self.ticks, -1)
        np.maximum.reduce(per_step, axis=1, out=bars.get(rows, "high"))  # ``max``, in place
        np.minimum.reduce(per_step, axis=1, out=bars.get(rows, "low"))
        bars.put(rows, open=per_step[:, 0, :], close=per_step[:, -1, :])

    def _liquidity(
        self, day: int, var: _Variances, s: _Shocks, jumps: DayJumps | None = None
    ) -> None:
        """Spreads follow the variance known at the open; volume the day's realised intensity."""
        t = self.t
        factor_var = _square(t.beta) * var.market + var.sector
        self.stress[day] = np.sqrt((factor_var + var.idio) / self.typical_var)
        today = factor_var * _square(s.market_mix) + var.idio * _square(s.idio_mix)
        if jumps is not None:  # a jump is news the day trades on
            today += _square(t.beta * jumps.market) + _square(jumps.idio)
        self.intensity[day] = np.sqrt(today / self.typical_var)

    def volume_noise(self, bars: _BarBuilder) -> None:
        """The log of every step's volume noise, drawn at once (the numbers a draw per day
        gives): exponentiated with the run's bars in ``finish``."""
        volume = bars.get(slice(None), "volume")
        sigma = self.p["volume_noise"]
        volume[:] = self.rngs["volume"].normal(0.0, sigma, volume.shape)

    def finish(self, bars: _BarBuilder) -> None:
        """Turn the run's log bars into prices and size its liquidity, a block of days at a time."""
        days = self.stress.shape[0]
        per_block = max(1, _FINISH_BLOCK // (self.steps * self.t.beta.size))
        for first in range(0, days, per_block):
            self._finish_days(slice(first, min(first + per_block, days)), bars)

    def _finish_days(self, days: slice, bars: _BarBuilder) -> None:
        rows = slice(days.start * self.steps, days.stop * self.steps)
        open_, high, low, close = (
            portable.exp(bars.get(rows, key)) for key in ("open", "high", "low", "close")
        )
        # widened to hold the open and close whatever the last bit of exp does
        high = np.maximum(high, np.maximum(open_, close))
        low = np.minimum(low, np.minimum(open_, close))
        bars.put(rows, open=open_, high=high, low=low, close=close)
        t, p = self.t, self.p
        noise = portable.exp(bars.get(rows, "volume"))  # the steps' log noise, drawn by day
        noise = noise.reshape(days.stop - days.start, self.steps, -1)
        lift = t.volume * portable.power(self.intensity[days], p["volume_vol_elasticity"])
        volume = np.floor(lift[:, None, :] * self.volume_profile * noise).reshape(-1, t.beta.size)
        half_spread = (
            p["spread_bps"] / 1e4 * portable.power(self.stress[days], p["spread_vol_elasticity"])
        )
        bars.put(
            rows,
            volume=volume,
            half_spread=np.repeat(half_spread, self.steps, axis=0),
            depth=np.floor(
                np.maximum(self._volume_before(rows, volume, bars) * p["depth_fraction"], 1.0)
            ),
        )

    def _volume_before(self, rows: slice, volume: np.ndarray, bars: _BarBuilder) -> np.ndarray:
        """Each step's volume of the step before it, known at its open, as the book's depth
        is sized on (the run's first step: the volume its profile expects); the step before
        a block is the last of the block finished before it."""
        if rows.start:
            before = bars.get(slice(rows.start - 1, rows.start), "volume")
        else:
            before = np.floor(self.t.volume * self.volume_profile[0])[None, :]
        return np.concatenate((before, volume[:-1]))

    def _factors(
        self,
        rows: slice,
        s: _Shocks,
        scales: dict[str, np.ndarray],
        bars: _BarBuilder,
        jumps: DayJumps | None = None,
    ) -> None:
        """Each step's market and sector factor log return; the first step carries the gap."""
        market = s.market[1:].reshape(self.steps, self.ticks).sum(axis=1) * scales["market_tick"]
        market[0] += s.market[0] * scales["market_night"]
        sector = s.sector[1:].reshape(self.steps, self.ticks, -1).sum(axis=1)
        sector *= scales["sector_tick"]
        sector[0] += s.sector[0] * scales["sector_night"]
        # the step's first tick (and on the day's first step, the gap) arrive by its open
        market_open = s.market[1 :: self.ticks][: self.steps] * scales["market_tick"]
        market_open[0] += s.market[0] * scales["market_night"]
        if jumps is not None:  # in the gap: by the first step's open
            market[0] += jumps.market
            market_open[0] += jumps.market
        sector_open = s.sector[1 :: self.ticks][: self.steps] * scales["sector_tick"]
        sector_open[0] += s.sector[0] * scales["sector_night"]
        bars.put(
            rows,
            market_factor=market,
            sector_factors=sector,
            market_factor_open=market_open,
            sector_factors_open=sector_open,
        )

    def _attribution_paths(
        self, rows: slice, drift: float, mispricing: np.ndarray, bars: _BarBuilder
    ) -> None:
        """The day's drift on its first step, and the log mispricing at each step's ends."""
        ticks = self.ticks
        step_drift = np.zeros(self.steps)
        step_drift[0] = drift
        bars.put(
            rows,
            drift=step_drift,
            mispricing=mispricing[ticks - 1 :: ticks],
            mispricing_open=mispricing[::ticks],
        )


class _DaysAhead:
    """One stream's draws for the run's days, taken a block of days at a time (at most
    ``_DRAW_BLOCK`` values, ``per_day`` a day) and handed out a day at a time."""

    def __init__(self, days: int, draw: Callable[[int], np.ndarray], per_day: int = 1) -> None:
        self.days_left, self.draw = days, draw
        self.block = max(1, _DRAW_BLOCK // per_day)
        self.ahead: np.ndarray = np.empty(0)
        self.taken = 0

    def next(self) -> np.ndarray:
        if self.taken == len(self.ahead):
            self.ahead, self.taken = self.draw(min(self.block, self.days_left)), 0
            self.days_left -= len(self.ahead)
        self.taken += 1
        return self.ahead[self.taken - 1]


@functools.lru_cache(maxsize=16)
def _mispricing_powers(
    halflife: float, vol: float, ticks: int
) -> tuple[int, np.ndarray, np.ndarray]:
    """The mispricing's block length and its scaled powers of the AR coefficient, up and
    down: read-only and kept, as every run of a preset and cadence needs the same."""
    ar = decay(halflife)
    sigma = vol * math.sqrt(1.0 - ar * ar)
    # blocks short enough that ar^-block stays below 1e4
    block = max(1, min(ticks, int(_LOG_1E4 / -portable.log_of(ar))))
    powers = np.arange(1, block + 1, dtype=float)[:, None]
    up, down = sigma * portable.power(ar, -powers), portable.power(ar, powers)
    up.flags.writeable = down.flags.writeable = False
    return block, up, down


def unit_uniform(rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
    """Uniform shocks of mean 0 and variance 1 in ``out`` (on +-sqrt 3), in place.

    The tick shocks of a market with ``uniform_tick_shocks``: a bar sums 65 of them
    or more, and by the central limit theorem (Donsker's invariance principle for its
    path, highs and lows included) a sum of that many is normal to within an excess
    kurtosis of -1.2 / 65, where the daily scale mixture and the jumps put the heavy
    tails. A uniform costs a quarter of NumPy's normal, the two normal draws per
    name-tick being most of a simulation."""
    rng.random(out=out)
    out *= _TWO_ROOT_3
    out -= _ROOT_3
    return out


def _lognormal(rng: np.random.Generator, sigma: float, size: int | tuple[int, ...]) -> np.ndarray:
    """``rng.lognormal(0, sigma, size)``'s draws, exponentiated by ``portable.exp``: NumPy's
    own takes the C library's ``exp``."""
    return portable.exp(rng.normal(0.0, sigma, size))


def _square(x: _Number) -> _Number:  # not x ** 2: a float's ** is the C library's pow
    return x * x


def cumsum_down(a: np.ndarray) -> None:
    """``np.cumsum(a, axis=0, out=a)`` for a 2-D array whose rows are contiguous, in half the time.

    A column's running sum is a chain of dependent additions, so the CPU waits on
    each; viewed as complex numbers two columns run at once. Complex addition adds
    the real and the imaginary parts separately, so the bits are the same.
    """
    even = a.shape[1] - a.shape[1] % 2
    pairs = a[:, :even].view(np.complex128)
    np.cumsum(pairs, axis=0, out=pairs)
    if even < a.shape[1]:
        np.cumsum(a[:, even:], axis=0, out=a[:, even:])
