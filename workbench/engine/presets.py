"""Presets: frozen, named sets of market dials with a fingerprint and a diff.

A preset's fingerprint is its name when its dials are exactly those of a shipped
preset, otherwise ``custom-XXXXXXXX`` from a hash of the dial vector, so two runs
with the same fingerprint saw the same market model.
"""

from __future__ import annotations

import hashlib
import json
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from workbench._checks import did_you_mean
from workbench.errors import ConfigError

# Dials with the unit each is expressed in. Rates and vols are annualised unless noted.
_STANDARD: dict[str, float] = {
    # macro (daily AR(1) processes, two-state business cycle)
    "regime_stay_expansion": 0.995,  # daily probability an expansion continues
    "regime_stay_contraction": 0.98,  # daily probability a contraction continues
    "growth_expansion": 0.025,  # mean real growth in an expansion
    "growth_contraction": -0.015,  # mean real growth in a contraction
    "growth_persistence": 0.98,
    "growth_vol": 0.002,  # daily shock
    "inflation_mean": 0.025,
    "inflation_persistence": 0.995,
    "inflation_vol": 0.0008,
    "policy_neutral": 0.02,
    "policy_inflation_weight": 1.5,  # Taylor-rule response to inflation gap
    "policy_growth_weight": 0.5,
    "policy_smoothing": 0.97,
    "term_premium": 0.012,
    "yield_noise": 0.0005,
    # market factor and per-name variance (fast + slow components on daily returns)
    "equity_premium": 0.06,
    "growth_sensitivity": 1.5,  # extra drift per unit of growth above its mean
    "market_vol": 0.16,  # long-run market factor vol
    "sector_vol": 0.08,  # at the market's long-run variance; scales with the market's
    "idio_vol": 0.22,  # long-run idiosyncratic vol (median name)
    "vol_fast_vol": 0.6,  # stationary std of the fast component of log variance
    "vol_fast_halflife_days": 3.0,
    "vol_slow_vol": 0.9,  # the slow component's (long memory)
    "vol_slow_halflife_days": 60.0,
    "market_leverage": 0.5,  # -corr(today's market shock, the shock to its log variance)
    "idio_leverage": 0.3,  # the same for each name's own variance
    "idio_vol_coupling": 0.6,  # loading of each name's log variance on the market's
    "tail_dof": 6.0,  # Student-t degrees of freedom of daily shocks
    "overnight_share": 0.3,  # share of a day's variance in the close-to-open gap
    # prices = fair value × mean-reverting mispricing (per tick)
    "mispricing_vol": 0.002,  # stationary std of log mispricing
    "mispricing_halflife_ticks": 40.0,
    # liquidity
    "base_volume": 1_000_000.0,  # shares per day, median name
    "volume_vol_elasticity": 1.0,  # volume rises with vol relative to its norm
    "volume_noise": 0.25,
    "volume_u_shape": 0.6,  # open/close volume excess over midday
    "spread_bps": 4.0,  # half-spread at normal vol, in basis points
    "spread_vol_elasticity": 1.0,
    "depth_fraction": 0.02,  # shares per book level as a fraction of step volume
    "depth_levels": 5.0,
    "level_step_bps": 3.0,  # price distance between book levels
}

# What the market publishes for a reader (``workbench.engine.information``). Every
# ``-v1`` preset publishes nothing: these are their values, and a dial at its value
# here is left out of a preset's vector and fingerprint, so presets made before the
# dials existed keep theirs (and their paths, bit for bit).
_INFORMATION_OFF: dict[str, float] = {
    "news_rate": 0.0,  # company items per name per trading day
    "news_noise_share": 0.5,  # share of company and sector items unrelated to later prices
    "news_ic": 0.5,  # correlation of an informative item's tone with its coming move
    "news_move_vol": 0.03,  # sd of an informative company item's log move of fair value
    "news_lead_days": 1.0,  # days from an item's release to the start of its move
    "news_halflife_days": 2.0,  # half of what is left of a move is realised per half-life
    "rumour_share": 0.15,  # share of company items that are rumours of stated reliability
    "sector_news_rate": 0.0,  # sector items per sector per trading day
    "earnings_surprise_vol": 0.0,  # sd of EPS against consensus (a fraction); 0: no reports
    "earnings_response": 0.5,  # log move of fair value per unit of surprise, at the release
    "earnings_drift_share": 0.3,  # share of that move realised again after it (drift)
    "earnings_drift_halflife_days": 5.0,
    "injection_rate": 0.0,  # daily probability of an injected instruction in the news
}
_INFORMATION_ON = {
    **_INFORMATION_OFF,
    "news_rate": 0.05,
    "news_noise_share": 0.4,
    "news_ic": 0.6,
    "news_move_vol": 0.04,
    "sector_news_rate": 0.02,
    "earnings_surprise_vol": 0.06,
}

# Jumps: rare, mostly downward moves on top of the diffusion, the market's shared by
# every name (scaled by its beta), each name's own apart, all in the overnight gap
# (``workbench.engine.jumps``). Off in every preset made before them, the same way
# as the information dials: at these values they stay out of vectors and fingerprints.
_JUMPS_OFF: dict[str, float] = {
    "market_jump_rate": 0.0,  # market jumps per year
    "market_jump_mean": 0.0,  # mean log size of a market jump
    "market_jump_vol": 0.0,  # sd of its log size
    "idio_jump_rate": 0.0,  # jumps per name per year
    "idio_jump_mean": 0.0,
    "idio_jump_vol": 0.0,
}
# How a name's tick shocks (and the mispricing's) are drawn: 0, normal, in every preset
# shipped before the dial (their paths never change); 1, uniform of unit variance, the
# same market in law at 1.7 times the speed at 200 names
# (``workbench.engine.market.unit_uniform``), in standard-v4, crisis-v3 and turbulent-v3.
# Like the dials above, off in every preset made before it.
_TICKS_NORMAL: dict[str, float] = {"uniform_tick_shocks": 0.0}
# The cap on a day's log variance above its typical level, in that log variance's
# stationary sds (``workbench.engine.volatility.VolCap``); 0, uncapped, in every preset
# made before it.
_VOL_UNCAPPED: dict[str, float] = {"vol_cap_sd": 0.0}
_UNSET = {**_INFORMATION_OFF, **_JUMPS_OFF, **_TICKS_NORMAL, **_VOL_UNCAPPED}


def _with(**overrides: float) -> dict[str, float]:
    return {**_STANDARD, **_UNSET, **overrides}


_SHIPPED: dict[str, dict[str, float]] = {
    "standard-v1": _with(),
    # standard-v1's market, publishing earnings, company and sector news and rumours
    "standard-v2": _with(**_INFORMATION_ON),
    "calm-v1": _with(
        market_vol=0.10,
        idio_vol=0.15,
        market_leverage=0.4,
        vol_fast_vol=0.5,
        vol_slow_vol=0.7,
        tail_dof=8.0,
        overnight_share=0.2,
        regime_stay_expansion=0.999,
        spread_bps=2.0,
        mispricing_vol=0.001,
    ),
    "turbulent-v1": _with(
        market_vol=0.26,
        idio_vol=0.32,
        vol_fast_vol=0.7,
        tail_dof=5.0,
        regime_stay_expansion=0.985,
        spread_bps=8.0,
        depth_fraction=0.01,
        mispricing_vol=0.004,
    ),
    "crisis-v1": _with(
        market_vol=0.40,
        sector_vol=0.12,
        idio_vol=0.40,
        equity_premium=-0.10,
        regime_stay_expansion=0.95,
        regime_stay_contraction=0.995,
        spread_bps=15.0,
        depth_fraction=0.005,
        volume_vol_elasticity=1.5,
        mispricing_vol=0.006,
        market_leverage=0.6,
        vol_fast_vol=0.7,
        tail_dof=5.0,
        overnight_share=0.35,
    ),
}
# crisis-v1 and turbulent-v1 with downward jumps in place of part of their diffusion
# (lower diffusion vols, lighter Student-t tails, a stronger leverage response), so
# their big days are down days (negative daily skew, as real returns show: Cont 2001)
# and no name moves more in a day than large stocks did over 2013-2023 (about 42 %).
# The jumps are the negative-mean log-normal jumps of Merton (1976), "Option pricing
# when underlying stock returns are discontinuous"; the market's are sized after the
# S&P 500 estimates of Eraker, Johannes & Polson (2003), "The impact of jumps in
# volatility and returns" (about 1.5 a year, mean -2.5 %, sd 4 %): here several times
# as often, a little larger on average and less dispersed; each name's own are larger
# falls (``workbench.engine.jumps``).
_SHIPPED["crisis-v2"] = {
    **_SHIPPED["crisis-v1"],
    "market_vol": 0.30,
    "idio_vol": 0.30,
    "vol_fast_vol": 0.6,
    "vol_slow_vol": 0.7,
    "tail_dof": 10.0,
    "market_leverage": 0.7,
    "idio_leverage": 0.4,
    "market_jump_rate": 8.0,
    "market_jump_mean": -0.035,
    "market_jump_vol": 0.02,
    "idio_jump_rate": 8.0,
    "idio_jump_mean": -0.06,
    "idio_jump_vol": 0.03,
}
_SHIPPED["turbulent-v2"] = {
    **_SHIPPED["turbulent-v1"],
    "market_vol": 0.22,
    "idio_vol": 0.26,
    "vol_fast_vol": 0.6,
    "vol_slow_vol": 0.7,
    "tail_dof": 10.0,
    "market_leverage": 0.6,
    "idio_leverage": 0.4,
    "market_jump_rate": 5.0,
    "market_jump_mean": -0.03,
    "market_jump_vol": 0.02,
    "idio_jump_rate": 4.0,
    "idio_jump_mean": -0.05,
    "idio_jump_vol": 0.03,
}
# standard-v2's market with the shape real large stocks show that -v2 lacks: longer
# volatility memory (a slower, larger slow component and a tighter common factor in
# names' variance), so |r| still correlates at ten days as real stocks' does (0.13),
# lighter diffusion tails, and downward jumps: the market's at the rate and mean Eraker,
# Johannes & Polson (2003) estimate for the S&P 500 (1.5 a year, -2.5 %), each name's
# own a little more often and larger, so daily skew is negative and no name moves as
# much as the real ten-year largest (about 42 %).
_SHIPPED["standard-v3"] = {
    **_SHIPPED["standard-v2"],
    "vol_fast_vol": 0.4,
    "vol_slow_vol": 1.2,
    "vol_slow_halflife_days": 120.0,
    "idio_vol_coupling": 0.9,
    "tail_dof": 10.0,
    "market_jump_rate": 1.5,
    "market_jump_mean": -0.025,
    "market_jump_vol": 0.02,
    "idio_jump_rate": 2.0,
    "idio_jump_mean": -0.05,
    "idio_jump_vol": 0.03,
}
# The -v3 and -v4 generation's shape at any seeds, not only at a few: a name's daily
# variance is compressed past a cap (``vol_cap_sd`` stationary sds of its log above the
# typical level), where it keeps rising only logarithmically in log terms, as the spline
# exponential of Chernov, Gallant, Ghysels & Tauchen (2003), "Alternative models for
# stock price dynamics", damps a log-volatility factor's exponential growth past a
# threshold so volatility cannot run away; jumps come with variance (Bates 2000), so
# the cap slows their rate too. turbulent-v3 compresses from 1.75 sds, crisis-v3 1.6. Long
# memory comes from a slow component of larger sd and shorter half-life than -v3's (a
# half-life near a 500-day sample's length is absorbed by its mean), the fast one small,
# the Student-t diffusion nearly normal (30 dof), so the heavy tails come from volatility
# and from downward jumps, several small ones a year rather than rare large ones, so
# each name's skew is negative in most samples, not only in those where a big jump
# happened to land. Tick shocks are uniform (the same market in law, at a quarter of
# the normal draws' cost).
_CAPPED_MEMORY = {
    "uniform_tick_shocks": 1.0,
    "vol_cap_sd": 2.0,
    "vol_fast_vol": 0.3,
    "vol_slow_halflife_days": 50.0,
    "tail_dof": 30.0,
}
# standard-v3's market (information on): the market's jumps at about Eraker, Johannes &
# Polson's (2003) S&P 500 size (-2 %, sd 1 %) several times as often, each name's own of
# -3.5 % eight times a year.
_SHIPPED["standard-v4"] = {
    **_SHIPPED["standard-v3"],
    **_CAPPED_MEMORY,
    "vol_slow_vol": 1.5,
    "sector_vol": 0.10,
    "market_jump_rate": 4.0,
    "market_jump_mean": -0.02,
    "market_jump_vol": 0.01,
    "idio_jump_rate": 8.0,
    "idio_jump_mean": -0.035,
    "idio_jump_vol": 0.015,
}
# crisis-v2 and turbulent-v2 with the capped, longer memory, names' variance coupled to
# the market's as standard-v3's is, and their names' own jumps more often.
_SHIPPED["crisis-v3"] = {
    **_SHIPPED["crisis-v2"],
    **_CAPPED_MEMORY,
    "vol_cap_sd": 1.6,
    "vol_slow_vol": 1.4,
    "idio_vol_coupling": 0.9,
    "idio_jump_rate": 10.0,
}
_SHIPPED["turbulent-v3"] = {
    **_SHIPPED["turbulent-v2"],
    **_CAPPED_MEMORY,
    "vol_cap_sd": 1.75,
    "vol_slow_vol": 1.4,
    "idio_vol_coupling": 0.9,
    "market_jump_rate": 6.0,
    "idio_jump_rate": 8.0,
}
# the market of a run that names none: every band at every seed group, at the engine's
# speed target (until this release standard-v2, which recorded runs still name)
DEFAULT_PRESET = "standard-v4"
# historical bars take only liquidity from a preset, and publish no simulated news
BARS_DEFAULT_PRESET = "standard-v1"
# shipped presets a newer version replaces, each kept frozen so the runs and recordings
# made on it replay: the version to choose now, and what is wrong with the old one
_SOME_SEEDS = "misses its bands at some seed groups"
_UP_DAYS = "positive daily skew; a name can move 80 % or more in a day"
SUPERSEDED: dict[str, tuple[str, str]] = {
    "crisis-v1": ("crisis-v3", _UP_DAYS),
    "crisis-v2": ("crisis-v3", _SOME_SEEDS),
    "turbulent-v1": ("turbulent-v3", _UP_DAYS),
    "turbulent-v2": ("turbulent-v3", _SOME_SEEDS),
    "standard-v2": ("standard-v4", "positive daily skew; weak ten-day volatility clustering"),
    "standard-v3": ("standard-v4", _SOME_SEEDS),
}
DIALS: tuple[str, ...] = (
    *_STANDARD,
    *_INFORMATION_OFF,
    *_JUMPS_OFF,
    *_TICKS_NORMAL,
    *_VOL_UNCAPPED,
)
INFORMATION_DIALS: tuple[str, ...] = tuple(_INFORMATION_OFF)
JUMP_DIALS: tuple[str, ...] = tuple(_JUMPS_OFF)
# a market publishes information when any of these is above 0
PUBLISHING_DIALS = ("news_rate", "sector_news_rate", "earnings_surprise_vol", "injection_rate")

# The closed range each dial may take; depth_levels must also be whole.
RANGES: dict[str, tuple[float, float]] = {
    "regime_stay_expansion": (0.5, 1.0),
    "regime_stay_contraction": (0.5, 1.0),
    "growth_expansion": (-0.2, 0.2),
    "growth_contraction": (-0.2, 0.2),
    "growth_persistence": (0.0, 0.9999),
    "growth_vol": (0.0, 0.05),
    "inflation_mean": (-0.05, 0.3),
    "inflation_persistence": (0.0, 0.9999),
    "inflation_vol": (0.0, 0.05),
    "policy_neutral": (-0.05, 0.2),
    "policy_inflation_weight": (0.0, 5.0),
    "policy_growth_weight": (0.0, 5.0),
    "policy_smoothing": (0.0, 0.9999),
    "term_premium": (-0.05, 0.1),
    "yield_noise": (0.0, 0.05),
    "equity_premium": (-0.5, 0.5),
    "growth_sensitivity": (0.0, 10.0),
    "market_vol": (0.01, 2.0),
    "sector_vol": (0.0, 2.0),
    "idio_vol": (0.01, 3.0),
    "vol_fast_vol": (0.0, 3.0),
    "vol_fast_halflife_days": (0.1, 10_000.0),
    "vol_slow_vol": (0.0, 3.0),
    "vol_slow_halflife_days": (0.1, 10_000.0),
    "market_leverage": (0.0, 1.0),
    "idio_leverage": (0.0, 1.0),
    "idio_vol_coupling": (0.0, 2.0),
    "tail_dof": (2.5, 1000.0),
    "overnight_share": (0.0, 0.95),
    "mispricing_vol": (0.0, 0.2),
    "mispricing_halflife_ticks": (1.0, 1e6),
    "base_volume": (1.0, 1e12),
    "volume_vol_elasticity": (0.0, 5.0),
    "volume_noise": (0.0, 2.0),
    "volume_u_shape": (0.0, 5.0),
    "spread_bps": (0.0, 1000.0),
    "spread_vol_elasticity": (0.0, 5.0),
    "depth_fraction": (1e-6, 1.0),
    "depth_levels": (1.0, 50.0),
    "level_step_bps": (0.0, 1000.0),
    "news_rate": (0.0, 2.0),
    "news_noise_share": (0.0, 1.0),
    "news_ic": (0.0, 1.0),
    "news_move_vol": (0.0, 0.5),
    "news_lead_days": (1.0, 20.0),
    "news_halflife_days": (0.25, 60.0),
    "rumour_share": (0.0, 1.0),
    "sector_news_rate": (0.0, 1.0),
    "earnings_surprise_vol": (0.0, 1.0),
    "earnings_response": (0.0, 5.0),
    "earnings_drift_share": (0.0, 1.0),
    "earnings_drift_halflife_days": (0.25, 60.0),
    "injection_rate": (0.0, 1.0),
    "market_jump_rate": (0.0, 50.0),
    "market_jump_mean": (-0.3, 0.3),
    "market_jump_vol": (0.0, 0.3),
    "idio_jump_rate": (0.0, 50.0),
    "idio_jump_mean": (-0.3, 0.3),
    "idio_jump_vol": (0.0, 0.3),
    "uniform_tick_shocks": (0.0, 1.0),
    "vol_cap_sd": (0.0, 10.0),
}
_WHOLE_DIALS = ("depth_levels", "news_lead_days", "uniform_tick_shocks")


@dataclass(frozen=True)
class Preset:
    """A frozen set of dials. Build with ``preset(...)``; compare with ``diff``."""

    name: str
    dials: Mapping[str, float] = field(repr=False)

    def __post_init__(self) -> None:
        dials = {**_UNSET, **_as_floats(self.dials)}  # a vector from before those dials
        _refuse_unknown(dials)
        missing = [dial for dial in DIALS if dial not in dials]
        if missing:
            raise ConfigError(
                f"preset {self.name!r} lacks dial(s) {', '.join(missing)}; build presets with "
                "preset({...}) so unnamed dials come from a base preset"
            )
        _check_ranges(dials)
        object.__setattr__(self, "dials", MappingProxyType(dials))

    @property
    def fingerprint(self) -> str:
        """A shipped preset's name when the dials are exactly a shipped preset's, else a hash."""
        dials = dict(self.dials)
        if _SHIPPED.get(self.name) == dials:
            return self.name
        for name, shipped in _SHIPPED.items():
            if shipped == dials:
                return name
        return "custom-" + hashlib.sha256(_vector_text(dials).encode()).hexdigest()[:8]

    @property
    def vector(self) -> dict[str, float]:
        """The dials, less any information or jump dial at its ``-v1`` value (see _UNSET)."""
        return _without_unset(self.dials)

    @property
    def publishes_information(self) -> bool:
        return any(self.dials[dial] > 0.0 for dial in PUBLISHING_DIALS)

    def __getitem__(self, dial: str) -> float:
        return self.dials[dial]

    def with_dials(self, **overrides: float) -> Preset:
        _refuse_unknown(overrides)
        return Preset(name="custom", dials={**self.dials, **overrides})


def _without_unset(dials: Mapping[str, float]) -> dict[str, float]:
    return {k: v for k, v in dials.items() if _UNSET.get(k) != v}


def _vector_text(dials: Mapping[str, float]) -> str:
    kept = _without_unset(dials)
    return json.dumps({k: float(v) for k, v in sorted(kept.items())}, sort_keys=True)


def _as_floats(overrides: Mapping[str, Any]) -> dict[str, float]:
    out = {}
    for dial, value in overrides.items():
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
            raise ConfigError(f"dial {dial!r} must be a number, got {value!r}")
        try:
            out[dial] = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"dial {dial!r} must be a number, got {value!r}") from None
        if out[dial] != out[dial] or out[dial] in (float("inf"), float("-inf")):
            raise ConfigError(f"dial {dial!r} must be finite, got {value!r}")
    return out


def _check_ranges(dials: Mapping[str, float]) -> None:
    for dial, value in dials.items():
        low, high = RANGES[dial]
        if not low <= value <= high:
            raise ConfigError(f"dial {dial!r} must be between {low:g} and {high:g}, got {value:g}")
    for dial in _WHOLE_DIALS:
        if not dials[dial].is_integer():
            raise ConfigError(f"dial {dial!r} must be a whole number, got {dials[dial]}")


def _refuse_unknown(overrides: Mapping[str, Any]) -> None:
    unknown = sorted(set(overrides) - set(DIALS))
    if unknown:
        hints = " ".join(f"{dial!r}.{did_you_mean(dial, DIALS)}" for dial in unknown)
        raise ConfigError(f"unknown dial(s): {hints} See `workbench presets show` for the dials.")


def list_presets() -> list[str]:
    return sorted(_SHIPPED)


def preset(spec: str | Preset | Mapping[str, Any] | None = None) -> Preset:
    """Resolve a preset name, a Preset, or a dict of dial overrides on the default.

    A dict may name its base with ``{"base": "calm-v1", "spread_bps": 3}``; a dict of
    every market dial (a preset's ``vector``) is that preset whole.
    """
    if spec is None:
        spec = DEFAULT_PRESET
    if isinstance(spec, Preset):
        return spec
    if isinstance(spec, str):
        if spec not in _SHIPPED:
            raise ConfigError(
                f"unknown preset {spec!r}.{did_you_mean(spec, _SHIPPED)} Shipped presets: "
                f"{', '.join(list_presets())}."
            )
        return _shipped(spec)
    if isinstance(spec, Mapping):
        overrides = dict(spec)
        if "base" not in overrides and set(_STANDARD) <= set(overrides):
            # a whole vector (a preset's ``vector``): its unnamed news dials are off
            return Preset(name="custom", dials=overrides)
        base = preset(str(overrides.pop("base", DEFAULT_PRESET)))
        return base.with_dials(**overrides) if overrides else base
    raise ConfigError(f"a preset is a name, a Preset or a dict of dials, got {type(spec).__name__}")


def _shipped(name: str) -> Preset:
    """A shipped preset, built and checked again only when its dials changed (a Preset is
    immutable, so one built from the same dials is the same preset)."""
    dials = _SHIPPED[name]
    built = _BUILT.get(name)
    if built is None or built[0] != dials:
        built = _BUILT[name] = (dict(dials), Preset(name=name, dials=dials))
    return built[1]


_BUILT: dict[str, tuple[dict[str, float], Preset]] = {}  # a shipped name: its dials, its preset


def market_preset(spec: str | Preset | Mapping[str, Any] | None, *, bars: bool) -> Preset:
    """The preset a market runs: ``spec``, or when it is None the default (on historical
    ``bars``, BARS_DEFAULT_PRESET: bars take only liquidity from it and publish no news)."""
    if spec is None and bars:
        spec = BARS_DEFAULT_PRESET
    return preset(spec)


def diff(a: str | Preset | Mapping[str, Any], b: str | Preset | Mapping[str, Any]) -> dict:
    """The dials that differ between two presets: {dial: (value in a, value in b)}."""
    left, right = preset(a).dials, preset(b).dials
    names = sorted(set(left) | set(right))
    return {n: (left.get(n), right.get(n)) for n in names if left.get(n) != right.get(n)}
