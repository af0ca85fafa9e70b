"""The run options every evaluation takes, validated in one place."""

from __future__ import annotations

import asyncio
import datetime
import math
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, NoReturn, TypedDict, cast

import numpy as np

from workbench._checks import did_you_mean, is_whole
from workbench.errors import ConfigError
from workbench.evaluation.world import MARKET_KEYS, OLD_UNIVERSE, MarketOptions

OnError = Literal["raise", "skip"]
MAINTENANCE_OVER_CAP = 1.5  # default maintenance multiple, relative to the leverage cap
MODEL_CUTOFF_NEEDS_DATES = (
    "model_cutoff splits results at calendar dates, which the simulated market has not: "
    "trade historical bars (data=, --data) or leave model_cutoff out"
)
StepCallback = Callable[[int, int, dict[str, float]], None]


@dataclass(frozen=True)
class RunOptions:
    """How arms trade and are asked.

    - ``capital``: starting cash of every arm;
    - ``leverage_cap``: gross exposure an arm may hold, as a multiple of equity; an
      order that would take the book above it is refused;
    - ``maintenance_multiple``: gross exposure, as a multiple of equity, past which
      a book that prices (not orders) pushed there is liquidated back to the
      leverage cap at the next step (None: 1.5 x the leverage cap, so 3x at the
      default 2x); it must be at least the leverage cap. See
      ``workbench.engine.margin``;
    - ``fee_bps``: fee on traded notional, in basis points;
    - ``on_error``: "skip" records a failed decision in the error column and
      holds; "raise" stops the run at the first failure;
    - ``max_concurrency``: arms asked at once;
    - ``rate_limit``: at most this many asks started per second across arms
      (None: unlimited), for providers that limit requests per second;
    - ``on_step(k, total, equity_by_arm)``: called after every step is marked;
    - ``progress``: a bar with step, arms waiting, calls and tokens (None: on in a
      Jupyter kernel, off in scripts and tests);
    - ``model_cutoff``: arm name → the last date its model was trained on, a full
      calendar date (``"YYYY-MM-DD"``, a ``datetime.date``, or a ``datetime`` or
      ``pd.Timestamp`` at midnight; ``model_cutoffs``), recorded in
      ``results.meta["model_cutoff"]``; only on historical bars, where
      ``workbench.evaluation.cutoff`` splits every metric at it. An arm replaying a
      transcript recorded with a cutoff has it read back (``replayed_cutoffs``).
    """

    capital: float = 1_000_000.0
    leverage_cap: float = 2.0
    maintenance_multiple: float | None = None
    fee_bps: float = 0.5
    on_error: OnError = "skip"
    max_concurrency: int = 16
    rate_limit: float | None = None
    on_step: StepCallback | None = None
    progress: bool | None = None
    model_cutoff: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if self.on_error not in ("raise", "skip"):
            raise ConfigError(f"on_error must be 'raise' or 'skip', got {self.on_error!r}")
        for name in ("capital", "leverage_cap"):
            _positive(name, getattr(self, name))
        self._check_maintenance()
        if not (_is_number(self.fee_bps) and 0 <= self.fee_bps < 10_000):
            raise ConfigError(f"fee_bps must be a number in [0, 10000), got {self.fee_bps!r}")
        concurrency = self.max_concurrency
        if not is_whole(concurrency) or concurrency < 1:
            raise ConfigError(f"max_concurrency must be a whole number >= 1, got {concurrency!r}")
        if self.rate_limit is not None:
            _positive("rate_limit", self.rate_limit)
        if self.progress not in (None, True, False):
            raise ConfigError(f"progress must be True, False or None, got {self.progress!r}")
        if self.model_cutoff is not None:
            object.__setattr__(self, "model_cutoff", model_cutoffs(self.model_cutoff))

    def _check_maintenance(self) -> None:
        if self.maintenance_multiple is None:
            default = MAINTENANCE_OVER_CAP * self.leverage_cap
            object.__setattr__(self, "maintenance_multiple", default)
            return
        _positive("maintenance_multiple", self.maintenance_multiple)
        if self.maintenance_multiple < self.leverage_cap:
            raise ConfigError(
                f"maintenance_multiple {self.maintenance_multiple:g} is below the leverage cap "
                f"{self.leverage_cap:g}: a book the cap allows would be liquidated at once; "
                "pass a maintenance_multiple >= leverage_cap (or None for 1.5 x the cap)"
            )

    @property
    def maintenance(self) -> float:
        """The maintenance multiple in force (the default resolved)."""
        assert self.maintenance_multiple is not None  # resolved in __post_init__
        return float(self.maintenance_multiple)

    @property
    def margin(self) -> dict[str, float]:
        """The margin rule as recorded in results meta and recording manifests."""
        return {"leverage_cap": float(self.leverage_cap), "maintenance_multiple": self.maintenance}

    @classmethod
    def from_keywords(cls, options: Mapping[str, Any]) -> RunOptions:
        known = [f.name for f in fields(cls)]
        for name in options:
            if name == "names":
                raise ConfigError(OLD_UNIVERSE)
            if name in _TEXT_KEYWORDS:
                raise ConfigError(
                    f"{name}= belongs to the historical data, not to the run: pass "
                    f"data=Historical.load(bars, news=..., {name}=...) (or Historical.with_text"
                    "); evaluate itself takes news= and fundamentals= alone"
                )
            if name not in known:
                raise ConfigError(
                    f"unknown option {name!r}.{did_you_mean(name, known)} Options are: "
                    f"{', '.join(known)}."
                )
        return cls(**options)


_TEXT_KEYWORDS = frozenset(
    ("canaries", "embargo", "names", "company_names", "close_time", "timezone")
)


class RunKeywords(TypedDict, total=False):
    """The fields of ``RunOptions`` as keywords (a test keeps the two in step)."""

    capital: float
    leverage_cap: float
    maintenance_multiple: float | None
    fee_bps: float
    on_error: OnError
    max_concurrency: int
    rate_limit: float | None
    on_step: StepCallback | None
    progress: bool | None
    model_cutoff: Mapping[str, str] | None


class EvaluateOptions(MarketOptions, RunKeywords, total=False):
    """Everything ``evaluate`` and ``aevaluate`` take besides the agents: the market
    (``World``'s keywords), how the arms trade (``RunOptions``) and ``epochs``."""

    epochs: int


def split_market(options: Mapping[str, Any]) -> tuple[MarketOptions, dict[str, Any]]:
    """The market keywords among ``options`` (for ``World``) and the run options."""
    market = {k: v for k, v in options.items() if k in MARKET_KEYS}
    return cast(MarketOptions, market), {k: v for k, v in options.items() if k not in market}


def model_cutoffs(given: Any) -> dict[str, str]:
    """Arm → cutoff date as YYYY-MM-DD, each date checked by ``cutoff_date``; the one check
    of ``model_cutoff`` for ``evaluate``, the CLI, the notebooks, the panel and the split."""
    if not isinstance(given, Mapping):
        raise ConfigError(
            f"model_cutoff is a date per arm, e.g. {{'my_llm': '2023-10-01'}}; got {given!r}"
        )
    return dict(sorted((str(arm), cutoff_date(arm, date)) for arm, date in given.items()))


def cutoff_date(arm: Any, value: Any) -> str:
    """``value`` as YYYY-MM-DD: a full calendar date written so, or a ``datetime.date`` (a
    ``datetime`` or ``pd.Timestamp`` at midnight); a year, a month, a number or any other
    spelling is refused, since reading it would guess a day. A ``np.datetime64`` is read
    as the ``datetime`` it holds, unless it holds only a year, a month or a week."""
    if isinstance(value, np.datetime64):
        return _numpy_date(arm, value)
    if isinstance(value, datetime.datetime):
        if value != value:  # NaT is unequal to itself
            _refuse_cutoff(arm, value, "a missing date")
        if value.time() != datetime.time(0):
            _refuse_cutoff(arm, value, "a time of day has no place in a training cutoff")
        return value.date().isoformat()
    if isinstance(value, datetime.date):
        return value.isoformat()
    if isinstance(value, str) and _ISO_DATE.fullmatch(value.strip()):
        try:
            return datetime.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            _refuse_cutoff(arm, value, "no such day in the calendar")
    _refuse_cutoff(arm, value, "a cutoff is a full calendar date")


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def _numpy_date(arm: Any, value: np.datetime64) -> str:
    """A ``np.datetime64`` cutoff as YYYY-MM-DD, refused as ``cutoff_date`` refuses."""
    if np.datetime_data(value.dtype)[0] in ("Y", "M", "W"):
        _refuse_cutoff(arm, value, "a cutoff is a full calendar date")
    if np.isnat(value):
        _refuse_cutoff(arm, value, "a missing date")
    try:
        day = value.astype("datetime64[D]")
        midnight = bool(value == day)
    except (OverflowError, ValueError):  # a unit finer than NumPy can compare with days
        _refuse_cutoff(arm, value, "a time too fine to read as a day")
    if not midnight:
        _refuse_cutoff(arm, value, "a time of day has no place in a training cutoff")
    try:  # 12016-01-01, -001-01-01, 0000-01-01: no year a calendar date is written with
        return datetime.date.fromisoformat(str(day)).isoformat()
    except ValueError:
        _refuse_cutoff(arm, value, "a year outside 0001-9999")


def _refuse_cutoff(arm: Any, value: Any, problem: str) -> NoReturn:
    raise ConfigError(
        f"model_cutoff of {str(arm)!r} is {value!r}, which is no date ({problem}); write "
        "YYYY-MM-DD, e.g. '2016-09-01', or pass a datetime.date"
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _positive(name: str, value: Any) -> None:
    if not (_is_number(value) and value > 0):
        raise ConfigError(f"{name} must be a positive number, got {value!r}")


class Pacer:
    """Spaces the starts of asks at least ``1 / rate`` seconds apart (no limit if None)."""

    def __init__(self, rate: float | None) -> None:
        self.interval = 0.0 if rate is None else 1.0 / rate
        self.next_start = 0.0
        self.lock = asyncio.Lock()

    async def wait_turn(self) -> None:
        if not self.interval:
            return
        async with self.lock:
            now = time.monotonic()
            start = max(now, self.next_start)
            self.next_start = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)
