"""A second market source: real historical OHLCV bars, masked, replayed step by step.

Input is a long table with one row per (date, symbol) and columns ``date,
symbol, open, high, low, close, volume`` (optionally ``sector``), from a CSV or
Parquet file or a DataFrame, checked strictly (``workbench.engine.bars``). Each
date becomes one decision step.

Masking (on by default, ``workbench.engine.masking``) is keyed by a secret:
the one passed, or else one derived from the first date's bars and the project's
mask key, so the same bars repeat bit for bit in every run of the project. Symbols
become aliases in a secret order, every name's price and volume levels are
replaced, and the payload carries relative day numbers, never dates. The secret
travels with the run (``describe()``, so ``Results.meta["data"]["secret"]``, and
a recording's manifest), never in a payload or in what an agent is told; pass it
back (``secret=``) to repeat a run anywhere. Return paths survive any mask:
``variant=`` trades a counterfactual path instead (``workbench.engine.variants``).

The bars' digest (``bars_digest``) reads the table's content only: neither the
order of its rows or columns, nor extra columns, nor the pandas version changes it.

Spreads and depth come from the preset's liquidity dials, from what is known at
each bar's open: the spread scales with each name's realised vol up to the
previous close, the depth with the previous bar's volume, so raising a bar's
high, low, close or volume never moves a fill at its open. The only macro reading
the bars support is the volatility index (trailing realised vol of the
equal-weight index); the others are None, the payload's no-data mark.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench.engine import portable
from workbench.engine.bars import PRICES, read_bars
from workbench.engine.market import TRADING_DAYS, MarketPath
from workbench.engine.masking import Mask, check_secret, derived_secret
from workbench.engine.presets import Preset
from workbench.engine.textfeed import TextData, TextFeed
from workbench.engine.textmask import TextMask
from workbench.engine.universe import Universe
from workbench.engine.variants import Variant
from workbench.errors import ConfigError
from workbench.schema import OBSERVABLE_MACRO

_VOL_WINDOW = 20
FIELDS = (*PRICES, "volume")
_KEYS, _TEXT_EXTRA = ("date", "symbol"), ("sector",)


def bars_digest(bars: pd.DataFrame) -> str:
    """SHA-256 of the bars' content: each bar's date, symbol, sector (when given), prices
    and volume, in (date, symbol) order, so row and column order never change it.

    Text columns are hashed as their sorted distinct values plus one code per row, numbers
    as little-endian float64 (-0.0 as 0.0): bytes no library version can change."""
    columns = [c for c in (*_KEYS, *_TEXT_EXTRA, *FIELDS) if c in bars.columns]
    text = [c for c in columns if c in (*_KEYS, *_TEXT_EXTRA)]
    coded = {c: pd.factorize(bars[c].astype(str), sort=True) for c in text}
    order = _date_symbol_order(bars, coded)
    digest = hashlib.sha256(b"workbench-bars\0" + ",".join(columns).encode() + b"\0")
    for column in columns:
        if column in coded:
            codes, distinct = coded[column]
            digest.update(json.dumps(list(distinct), ensure_ascii=True).encode("ascii"))
            digest.update(np.ascontiguousarray(codes[order], dtype="<i8").tobytes())
        else:
            values = bars[column].to_numpy(float)[order] + 0.0
            digest.update(np.ascontiguousarray(values, "<f8").tobytes())
    return digest.hexdigest()


def _date_symbol_order(bars: pd.DataFrame, coded: dict[str, Any]) -> np.ndarray:
    """The rows in (date, symbol) order, ties in table order: a stable sort of the two.

    Text keys without a missing value sort as their sorted distinct values do, so their
    codes are sorted instead of the text; any other keys are sorted by pandas."""
    if all(pd.api.types.is_string_dtype(bars[key]) and bars[key].notna().all() for key in _KEYS):
        return np.lexsort((coded["symbol"][0], coded["date"][0]))  # last key first; stable
    keys = bars[list(_KEYS)].reset_index(drop=True)
    return keys.sort_values(list(_KEYS), kind="stable").index.to_numpy()


@dataclass(frozen=True, eq=False)
class Historical:
    """Historical bars ready to trade: a complete (dates × symbols) panel.

    ``bars`` must already be checked; ``Historical.load`` reads and checks them.
    """

    bars: pd.DataFrame  # long form, sorted by date then symbol
    mask: bool = True
    secret: str | None = None  # derived from the bars and the project's key when not given
    variant: Variant = field(default_factory=Variant)
    source: Path | None = None  # the file the bars came from, when they came from one
    text: TextData | None = None  # the researcher's news and fundamentals (``textfeed``)

    def __post_init__(self) -> None:
        if self.mask and self.secret is None:
            object.__setattr__(self, "secret", derived_secret(self.opening_digest))
        elif self.secret is not None:
            check_secret(self.secret)
        object.__setattr__(self, "variant", Variant.parse(self.variant))
        if self.text is not None and self.variant.kind in ("reversed", "flipped"):
            raise ConfigError(
                f"news and fundamentals cannot follow the {self.variant.kind} variant: it turns "
                "every move around, so every item would read against its bar; use a bootstrap "
                "variant (items move with their bars) or a variant without news="
            )
        if self.text is not None and self.text.canaries and self.variant.kind != "real":
            raise ConfigError(
                "canaries are planted on the real path only: a bootstrap may repeat or drop "
                "the bar a canary is dated on; load the data without canaries= for a variant "
                "or a counterfactual_gap (audit the real run with canaries on its own)"
            )

    @classmethod
    def load(
        cls,
        source: str | Path | pd.DataFrame,
        *,
        mask: bool = True,
        secret: str | None = None,
        variant: Variant | str | None = None,
        **text: Any,
    ) -> Historical:
        """``text`` is ``TextData.load``'s keywords (news=, fundamentals=, names=, embargo=,
        close_time=, timezone=, canaries=): the researcher's text, joined point in time."""
        path = None if isinstance(source, pd.DataFrame) else Path(source)
        bars = read_bars(source)
        loaded = cls(bars, mask=mask, secret=secret, variant=Variant.parse(variant), source=path)
        return loaded.with_text(**text) if text else loaded

    def with_text(self, **text: Any) -> Historical:
        """The same bars and mask with news and fundamentals (``TextData.load``'s keywords);
        an empty call leaves them as they are."""
        if not any(value is not None for value in text.values()):
            return self
        twin = dataclasses.replace(self, text=TextData.load(self.bars, **text))
        if "digest" in self.__dict__:
            twin.__dict__["digest"] = self.digest
        return twin

    def with_variant(self, variant: Variant | str | None) -> Historical:
        """The same data and mask secret on another path (the real one or a counterfactual)."""
        twin = dataclasses.replace(self, variant=Variant.parse(variant))
        if "digest" in self.__dict__:
            twin.__dict__["digest"] = self.digest  # the bars did not change: hash them once
        return twin

    @cached_property
    def dates(self) -> list[str]:
        # as a NumPy array of str: sorting an Arrow string array reads it one item at a time
        return sorted(np.asarray(self.bars["date"].astype(str).unique(), dtype=object))

    @cached_property
    def mapping(self) -> dict[str, str]:
        """Alias → real symbol (identity when unmasked)."""
        real = sorted(self.bars["symbol"].unique())
        if not self.mask:
            return {s: s for s in real}
        assert self.secret is not None
        return Mask(self.secret).aliases(real)

    @cached_property
    def digest(self) -> str:
        return bars_digest(self.bars)

    @cached_property
    def opening_digest(self) -> str:
        """The digest of the first date's bars (every name's): what a derived secret reads,
        so no later bar moves the mask, and through the masked volumes the book's depth and
        a fill, before it."""
        bars = self.bars
        return bars_digest(bars[bars["date"] == bars["date"].iloc[0]])

    def tradable_days(self, warmup_days: int) -> int:
        """Dates left to trade after ``warmup_days`` of history; refuses too little data."""
        dates = len(self.dates)
        if dates <= warmup_days:
            raise ConfigError(
                f"the data has {dates} dates; {warmup_days} are needed as history before the "
                "first decision and at least one more to trade"
            )
        return dates - warmup_days

    def fingerprint(self, preset: Preset) -> str:
        """Names the market an agent saw: the bars, the preset, the mask and the variant,
        and the rules of the text joined to it (not its items: an agent is told the name at
        the start, before most items are out).

        The secret is hashed in, so a fingerprint cannot be matched against public data."""
        digest = hashlib.sha256(self.digest.encode())
        digest.update(repr(sorted(preset.vector.items())).encode())
        digest.update(
            f"{self.mask}:{self.secret}:{sorted(self.variant.describe().items())}".encode()
        )
        if self.text is not None:
            digest.update(self.text.rules_digest.encode())
        return "historical-" + digest.hexdigest()[:8]

    def manifest(self) -> dict[str, Any]:
        """What repeats this market exactly, the mask secret included: keep it from agents."""
        return self.describe()

    def describe(self) -> dict[str, Any]:
        """The data set, the variant and the mask secret (None unmasked): what a run's results
        keep so that it repeats anywhere. Never part of a payload or of what an agent is told."""
        return {
            "bars_sha256": self.digest,
            "dates": len(self.dates),
            "names": len(self.mapping),
            "mask": self.mask,
            "secret": self.secret,
            "variant": self.variant.describe(),
            **({} if self.text is None else {"text": self.text.describe()}),
        }

    @cached_property
    def real_panel(self) -> dict[str, np.ndarray]:
        """The real (dates × names) arrays, names sorted, before any variant or mask."""
        real = sorted(self.mapping.values())
        if self._rows_in_panel_order(real):  # as read_bars leaves them: no pivot needed
            shape = (len(self.dates), len(real))
            return {name: self.bars[name].to_numpy(float).reshape(shape) for name in FIELDS}
        wide = self.bars.pivot(index="date", columns="symbol")
        return {name: wide[name][real].to_numpy(float) for name in FIELDS}

    def _rows_in_panel_order(self, real: list[str]) -> bool:
        """Whether the bars hold one row per date and name, dates sorted, each date's names
        in ``real``'s order: the (dates x names) panel row by row."""
        dates, names = len(self.dates), len(real)
        if len(self.bars) != dates * names:
            return False
        symbols = np.asarray(self.bars["symbol"], dtype=object)
        days = np.asarray(self.bars["date"].astype(str), dtype=object)
        return bool(
            (symbols == np.tile(np.asarray(real, dtype=object), dates)).all()
            and (days == np.repeat(np.asarray(self.dates, dtype=object), names)).all()
        )

    @property
    def panel(self) -> dict[str, np.ndarray]:
        """The real arrays with the names in alias order."""
        real = sorted(self.mapping.values())
        order = [real.index(name) for name in self.mapping.values()]
        return {name: values[:, order] for name, values in self.real_panel.items()}

    def window(
        self,
        start: int,
        stop: int,
        *,
        secret: str | None = None,
        variant: Variant | str | None = None,
    ) -> Historical:
        """The dates ``start:stop`` as a data set of their own, with its own secret and variant."""
        days = self.dates[start:stop]
        bars = self.bars[self.bars["date"].isin(days)].reset_index(drop=True)
        part = Historical(bars, mask=self.mask, secret=secret, variant=Variant.parse(variant))
        part.__dict__["dates"] = days  # already known: skip the sort and the pivot
        part.__dict__["real_panel"] = {k: v[start:stop] for k, v in self.real_panel.items()}
        return part

    def path(self, preset: Preset, *, warmup_days: int, days: int) -> MarketPath:
        rows, dates = warmup_days + days, len(self.dates)
        if rows > dates:
            most = max(dates - warmup_days, 0)
            raise ConfigError(
                f"the data has {dates} dates and {warmup_days} are needed as history before the "
                f"first decision, so at most {most} days can be traded; pass days <= {most} "
                "or more data"
            )
        if self.text is not None and self.variant.kind == "real" and days > 1:
            self.text.check_window(self.dates, warmup_days, days)
        panel = {k: v[:rows] for k, v in self.variant.apply(self.panel).items()}
        feed = self._text_feed(panel["close"][0], rows, warmup_days)
        if self.mask:
            assert self.secret is not None
            panel = Mask(self.secret).rescale(panel, warmup_days)
        return self._market_path(panel, preset, warmup_days, feed)

    def _text_feed(self, first_close: np.ndarray, rows: int, warmup_days: int) -> TextFeed | None:
        if self.text is None:
            return None
        alias_of = {real: alias for alias, real in self.mapping.items()}
        source = self.variant.source_rows(len(self.dates))  # None on the real path
        return TextFeed(
            self.text,
            self.dates if source is not None else self.dates[:rows],
            tuple(self.mapping),
            alias_of,
            warmup_days,
            self.text_mask(first_close, warmup_days) if self.mask else None,
            None if source is None else source[:rows],
            seed=self.canary_seed,
        )

    @property
    def canary_seed(self) -> str:
        """What the canaries' codes are drawn from: the bars and the mask secret, never the
        text, so no item can change a canary an earlier decision sees."""
        return f"{self.digest}:{self.secret}"

    def text_mask(self, first_close: np.ndarray, warmup_days: int) -> TextMask:
        """The mask of this run's text: aliases, price factors (names in alias order, as
        ``first_close``), relative days and the company names to replace."""
        assert self.secret is not None and self.text is not None
        factors = Mask(self.secret).price_factors(first_close)
        return TextMask(
            aliases={real: alias for alias, real in self.mapping.items()},
            price_factor=dict(zip(self.mapping.values(), factors.tolist(), strict=True)),
            dates=self.dates,
            warmup_days=warmup_days,
            names=self.text.names,
            counterfactual=self.variant.kind != "real",
        )

    def _market_path(
        self, panel: dict[str, np.ndarray], p: Preset, warmup_days: int, text: TextFeed | None
    ) -> MarketPath:
        vol = _known_at_open(_trailing_vol(panel["close"]))
        stress = vol / pd.DataFrame(vol).expanding().median().to_numpy()
        half_spread = p["spread_bps"] / 1e4 * portable.power(stress, p["spread_vol_elasticity"])
        return MarketPath(
            universe=self.universe,
            steps_per_day=1,
            ticks_per_step=1,
            warmup_days=warmup_days,
            open=panel["open"],
            high=panel["high"],
            low=panel["low"],
            close=panel["close"],
            volume=panel["volume"],
            half_spread=half_spread,
            depth=np.floor(np.maximum(_known_at_open(panel["volume"]) * p["depth_fraction"], 1.0)),
            macro=_macro(panel["close"]),
            levels=int(p["depth_levels"]),
            level_step=p["level_step_bps"] / 1e4,
            text=text,
        )

    @cached_property
    def universe(self) -> Universe:
        """The aliases, with each name's sector when the data carries one."""
        aliases = self.mapping
        if "sector" not in self.bars:
            return Universe(tuple(aliases), ("unknown",) * len(aliases))
        by_symbol = self.bars.drop_duplicates("symbol").set_index("symbol")["sector"]
        return Universe(tuple(aliases), tuple(str(by_symbol[real]) for real in aliases.values()))


def _trailing_vol(close: np.ndarray) -> np.ndarray:
    """Realised vol over the previous ``_VOL_WINDOW`` bars, known at each bar's close."""
    returns = np.vstack([np.zeros((1, close.shape[1])), np.diff(portable.log(close), axis=0)])
    frame = pd.DataFrame(returns).rolling(_VOL_WINDOW, min_periods=2).std()
    return np.maximum(frame.fillna(0.01).to_numpy(), 1e-4)


def _known_at_open(by_close: np.ndarray) -> np.ndarray:
    """Each bar's row holds the previous bar's value: what was known at its open, so an
    order's costs never read the bar it executes in. The first bar repeats its own (no
    order executes in it: it is always history)."""
    return np.vstack([by_close[:1], by_close[:-1]])


def _macro(close: np.ndarray) -> dict[str, np.ndarray]:
    index = (close / close[0]).mean(axis=1, keepdims=True)  # equal weight from the first date
    vix = _trailing_vol(index)[:, 0] * np.sqrt(TRADING_DAYS) * 100
    out = {key: np.full(close.shape[0], np.nan) for key in OBSERVABLE_MACRO}
    out["vix"] = vix
    return out
