"""World: one experiment's market — preset, universe, seed and cadence — simulated once."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, TypedDict, Unpack

import pandas as pd

from workbench._checks import is_whole, refuse_unknown_keywords
from workbench._jsonio import digest
from workbench.agents import PresetStamp
from workbench.engine.historical import Historical
from workbench.engine.market import MarketPath, simulate
from workbench.engine.presets import PUBLISHING_DIALS, Preset, market_preset
from workbench.engine.universe import Universe, resolve_universe
from workbench.errors import ConfigError
from workbench.schema import HISTORY_STEPS


def _positive_int(name: str, value: Any, *, most: int) -> int:
    if not is_whole(value):
        raise ConfigError(f"{name} must be a whole number, got {value!r}")
    if not 1 <= value <= most:
        raise ConfigError(f"{name} must be between 1 and {most}, got {value}")
    return value


PresetSpec = str | Preset | Mapping[str, Any]
DataSpec = Historical | str | Path | pd.DataFrame
TextSpec = str | Path | pd.DataFrame


class MarketOptions(TypedDict, total=False):
    """One experiment's market, as ``World``, ``evaluate`` and ``aevaluate`` all take it.

    ``model`` is the old name of ``preset``, kept for one release with a warning.
    """

    seed: int
    universe: Universe | int | Sequence[str] | None
    days: int | None
    steps_per_day: int | None
    ticks_per_step: int | None
    preset: PresetSpec | None
    data: DataSpec | None
    news: TextSpec | None
    fundamentals: TextSpec | None
    model: PresetSpec | None


MARKET_KEYS = frozenset(MarketOptions.__optional_keys__)


@dataclass(frozen=True)
class MarketDefaults:
    """The simulated market's shape where ``MarketOptions`` leaves a keyword out: the one
    place the defaults live (``World``, the services, ``workbench record`` and the MCP tool
    schemas all read them from ``MARKET_DEFAULTS``). Historical bars bring their own names
    and trade one step per date, so there only ``days`` applies (as every tradable date)."""

    universe: int = 40
    days: int = 10
    steps_per_day: int = 6
    ticks_per_step: int = 65


MARKET_DEFAULTS = MarketDefaults()

OLD_UNIVERSE = (
    "names= is the old name of universe=; pass universe= (the number of synthetic names). "
    "With historical bars, names= belongs to the historical data (the company-names map): "
    "pass data=Historical.load(bars, news=..., names=...)"
)


def renamed_preset(options: dict[str, Any], caller: str) -> None:
    """Turn the deprecated ``model=`` of ``caller`` into ``preset=``, in place."""
    if "model" not in options:
        return
    old = options.pop("model")
    if options.get("preset") is not None:
        raise ConfigError(
            f"{caller} got preset= and model=; pass preset= only (model= is its old name)"
        )
    warnings.warn(
        f"{caller}(model=...) is deprecated: the market preset is preset= (model= means the "
        "LLM in every adapter); model= goes in the next release",
        DeprecationWarning,
        stacklevel=3,
    )
    options["preset"] = old


class World:
    """The exogenous market every arm of an evaluation trades in.

    ``preset`` is a shipped name (``"calm-v1"``), a ``Preset``, or a dict of dial
    overrides (``{"base": "calm-v1", "spread_bps": 3}``).

    ``data`` replays historical OHLCV bars (a CSV/Parquet path, a DataFrame or a
    ``Historical``) instead of simulating: one step per date, symbols masked,
    ``days`` defaulting to every date after the first HISTORY_STEPS, and the
    preset supplying only liquidity. ``universe``, ``steps_per_day`` and
    ``ticks_per_step`` have no meaning there and are refused by name. ``news`` and
    ``fundamentals`` (a file or a DataFrame, ``workbench.engine.textdata``) join the
    researcher's own text to the bars, point in time (``workbench.engine.textfeed``);
    company names to mask and an embargo go to ``Historical.load``.
    """

    def __init__(self, **market: Unpack[MarketOptions]) -> None:
        options: dict[str, Any] = dict(market)
        if "names" in options:
            raise ConfigError(f"World: {OLD_UNIVERSE}")
        refuse_unknown_keywords("World", options, MARKET_KEYS)
        renamed_preset(options, "World")
        seed = options.get("seed", 0)
        if not is_whole(seed) or seed < 0:
            raise ConfigError(f"seed must be a non-negative whole number, got {seed!r}")
        self.seed = seed
        self.data = joined_data(
            options.get("data"), options.get("news"), options.get("fundamentals")
        )
        self.preset = market_preset(options.get("preset"), bars=self.data is not None)
        universe, days = options.get("universe"), options.get("days")
        steps_per_day, ticks_per_step = options.get("steps_per_day"), options.get("ticks_per_step")
        if self.data is None:
            defaults = MARKET_DEFAULTS
            self.universe = resolve_universe(defaults.universe if universe is None else universe)
            steps_per_day = defaults.steps_per_day if steps_per_day is None else steps_per_day
            ticks_per_step = defaults.ticks_per_step if ticks_per_step is None else ticks_per_step
            self.steps_per_day = _positive_int("steps_per_day", steps_per_day, most=1_000)
            self.ticks_per_step = _positive_int("ticks_per_step", ticks_per_step, most=10_000)
            days = defaults.days if days is None else days
        else:
            _refuse_with_data(
                universe=universe, steps_per_day=steps_per_day, ticks_per_step=ticks_per_step
            )
            _refuse_news_on_bars(self.preset)
            self.steps_per_day = self.ticks_per_step = 1
            self.universe = self.data.universe
            if days is None:
                days = self.data.tradable_days(self.warmup_days)
        self.days = _positive_int("days", days, most=100_000)

    @property
    def warmup_days(self) -> int:
        return math.ceil(HISTORY_STEPS / self.steps_per_day)

    @cached_property  # hashing historical bars is costly, and every request carries the stamp
    def fingerprint(self) -> str:
        if self.data is None:
            return self.preset.fingerprint
        return self.data.fingerprint(self.preset)

    @cached_property
    def market_path(self) -> str:
        """Names the exogenous path: the preset and seed on the simulator (whatever the
        universe, days or cadence), the bars and their variant on historical data (whatever
        the mask). A persisted memory refuses a path it learnt from."""
        if self.data is None:
            named = {"preset": self.preset.fingerprint, "seed": self.seed}
        else:
            named = {"bars": self.data.digest, "variant": self.data.variant.describe()}
        return digest(named)[:16]

    @cached_property
    def stamp(self) -> PresetStamp:
        return PresetStamp(name=self.fingerprint, vector=self.preset.vector)

    @property
    def trading_steps(self) -> int:
        return self.days * self.steps_per_day

    @cached_property
    def path(self) -> MarketPath:
        if self.data is not None:
            return self.data.path(self.preset, warmup_days=self.warmup_days, days=self.days)
        return simulate(
            self.preset,
            self.universe,
            seed=self.seed,
            days=self.days,
            steps_per_day=self.steps_per_day,
            ticks_per_step=self.ticks_per_step,
            warmup_days=self.warmup_days,
        )

    def describe(self) -> dict[str, Any]:
        """The experiment for the results' meta; historical runs add the dates traded.

        The dates are for the researcher's report: masking hides them from the agents'
        payloads, and the meta is never part of a payload."""
        dates: dict[str, Any] = {}
        if self.data is not None:
            first = self.warmup_days
            dates = {
                "data": self.data.describe(),
                "dates": self.data.dates[first : first + self.days],
            }
        return {
            **dates,
            "seed": self.seed,
            "preset": self.fingerprint,
            "preset_vector": self.preset.vector,
            # the universe's size, under its old key: the meta is inside the results digest,
            # so renaming the key would move every recording's expected digest
            "names": self.universe.size,
            "symbols": list(self.universe.symbols),
            "days": self.days,
            "steps_per_day": self.steps_per_day,
            "ticks_per_step": self.ticks_per_step,
        }

    def __repr__(self) -> str:
        return (
            f"World(seed={self.seed}, universe={self.universe.size}, days={self.days}, "
            f"steps_per_day={self.steps_per_day}, preset={self.fingerprint!r})"
        )


def joined_data(
    data: DataSpec | None, news: TextSpec | None = None, fundamentals: TextSpec | None = None
) -> Historical | None:
    """The bars of ``data`` (None on the simulator) with the text joined to them; text
    without bars, or given twice, is refused."""
    text = news is not None or fundamentals is not None
    if data is None:
        if text:
            raise ConfigError(
                "news= and fundamentals= join text to historical bars and need data=; the "
                "simulated market writes its own (preset='standard-v2')"
            )
        return None
    bars = data if isinstance(data, Historical) else Historical.load(data)
    if text and bars.text is not None:
        raise ConfigError(
            "the Historical passed as data= already carries news or fundamentals; pass them "
            "either to Historical.load or here, not both"
        )
    return bars.with_text(news=news, fundamentals=fundamentals)


def _refuse_news_on_bars(chosen: Preset) -> None:
    """Historical bars publish no simulated items: a preset that asks for them is refused."""
    if chosen.publishes_information:
        asked = [f"{dial}={chosen[dial]:g}" for dial in PUBLISHING_DIALS if chosen[dial] > 0.0]
        raise ConfigError(
            f"preset {chosen.fingerprint!r} publishes simulated news ({', '.join(asked)}), but "
            "historical bars have none to publish: with data= use a preset without news "
            "(standard-v1, or set those dials to 0)"
        )


def _refuse_with_data(**options: Any) -> None:
    passed = [name for name, value in options.items() if value is not None]
    if passed:
        raise ConfigError(
            f"{', '.join(passed)} cannot be set with data=: historical bars bring their own "
            "names and trade one step per date; leave "
            f"{'it' if len(passed) == 1 else 'them'} out"
        )
