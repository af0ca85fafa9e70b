"""Counterfactual variants of a historical data set: paths a memory of the real one cannot predict.

A variant is built from the real bars before masking and replaces the whole
(dates × names) panel, so the calendar path an agent might remember is gone
while the statistics worth testing on stay:

- ``bootstrap[:SEED]`` — the stationary block bootstrap of Politis & Romano
  (1994, JASA 89:1303): days are drawn in blocks of geometric length with mean
  ``block`` (default 10), each block starting at a uniform random day and
  wrapping around the end. Whole days are drawn *jointly* for every name, so
  cross-sectional correlation is kept, and blocks keep volatility clustering.
  Each drawn day brings its close-to-close return, its bar shape (open, high and
  low relative to its close) and its volume. Days inside one block are real
  consecutive days: an agent that recognises a stretch can still profit until
  the block ends, so a shorter ``block`` breaks memory more and clustering less.
- ``reversed`` — the price path read backwards (returns reversed in time and of
  opposite sign): every bar is a real one, in the opposite order.
- ``flipped`` — every price ``x`` replaced by ``c0² / x`` (``c0`` the name's
  first close): the mirror path, returns of opposite sign in the real order,
  with high and low exchanged.

``reversed`` and ``flipped`` also turn the real drift around, so even an honest
agent that holds the market scores differently on them; compare an agent with
its own bootstrap variants to tell memory from skill.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench._checks import is_whole
from workbench.engine import portable
from workbench.errors import ConfigError

KINDS = ("real", "bootstrap", "reversed", "flipped")
DEFAULT_BLOCK = 10.0
Panel = dict[str, np.ndarray]


@dataclass(frozen=True)
class Variant:
    """Which path a historical run trades: the real one or a counterfactual."""

    kind: str = "real"
    seed: int = 0
    block: float = DEFAULT_BLOCK

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"unknown variant {self.kind!r}; choose from {', '.join(KINDS)}")
        if not is_whole(self.seed) or self.seed < 0:
            raise ConfigError(f"a variant seed must be a whole number >= 0, got {self.seed!r}")
        block = self.block
        if isinstance(block, bool) or not isinstance(block, int | float) or not block >= 1:
            raise ConfigError(f"a bootstrap block must be a number >= 1 (days), got {block!r}")

    @classmethod
    def parse(cls, spec: Variant | str | None) -> Variant:
        """``None``/"real", "bootstrap", "bootstrap:7", "reversed" or "flipped"."""
        if spec is None:
            return cls()
        if isinstance(spec, Variant):
            return spec
        if not isinstance(spec, str):
            raise ConfigError(f"a variant is a name such as 'bootstrap:3', got {spec!r}")
        kind, _, seed = spec.strip().partition(":")
        if seed and not seed.isdigit():
            raise ConfigError(f"variant {spec!r}: the part after ':' must be a whole number seed")
        if seed and kind != "bootstrap":
            raise ConfigError(f"variant {spec!r}: only 'bootstrap' takes a seed")
        return cls(kind=kind, seed=int(seed or 0))

    @property
    def label(self) -> str:
        return f"bootstrap:{self.seed}" if self.kind == "bootstrap" else self.kind

    def describe(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "label": self.label}
        if self.kind == "bootstrap":
            out.update(seed=self.seed, block=float(self.block))
        return out

    def source_rows(self, rows: int) -> np.ndarray | None:
        """Which real row each row of a bootstrap path copies (row 0 is row 0); None on the
        real path. Reversed and flipped paths turn moves around and copy no row as it is."""
        if self.kind == "bootstrap":
            return np.concatenate([[0], bootstrap_days(rows, self.seed, self.block)])
        if self.kind == "real":
            return None
        raise ConfigError(f"the {self.kind} variant copies no real row as it is")

    def apply(self, panel: Panel) -> Panel:
        """The variant of a real (dates × names) panel of open/high/low/close/volume."""
        if self.kind == "bootstrap":
            return block_bootstrap(panel, self.seed, self.block)
        if self.kind == "reversed":
            return {k: v[::-1].copy() for k, v in panel.items()}
        if self.kind == "flipped":
            return mirrored(panel)
        return panel


def bootstrap_days(rows: int, seed: int, block: float) -> np.ndarray:
    """Source days 1..rows-1 for new days 1..rows-1: stationary blocks, mean length ``block``."""
    if rows < 3:
        raise ConfigError(f"a bootstrap needs at least 3 dates, got {rows}")
    rng = np.random.default_rng(seed)
    days = rows - 1  # day 0 has no return of its own
    starts = rng.random(days) < 1.0 / block
    starts[0] = True
    fresh = rng.integers(0, days, days)
    block_id = np.cumsum(starts) - 1
    first = np.flatnonzero(starts)
    offset = np.arange(days) - first[block_id]
    return 1 + (fresh[first][block_id] + offset) % days


def block_bootstrap(panel: Panel, seed: int, block: float) -> Panel:
    close = panel["close"]
    source = bootstrap_days(close.shape[0], seed, block)
    step = portable.log(close[source] / close[source - 1])
    new_close = close[0] * portable.exp(
        np.vstack([np.zeros((1, close.shape[1])), np.cumsum(step, 0)])
    )
    rows = np.concatenate([[0], source])
    scale = new_close / close[rows]  # each new bar is its source bar, rescaled
    out = {k: panel[k][rows] * scale for k in ("open", "high", "low")}
    return {**out, "close": new_close, "volume": panel["volume"][rows].copy()}


def mirrored(panel: Panel) -> Panel:
    k = panel["close"][0] * panel["close"][0]
    return {
        "open": k / panel["open"],
        "high": k / panel["low"],
        "low": k / panel["high"],
        "close": k / panel["close"],
        "volume": panel["volume"].copy(),
    }


def bootstrap_variants(
    count: int, *, first_seed: int = 1, block: float = DEFAULT_BLOCK
) -> list[Variant]:
    """``count`` bootstrap variants with consecutive seeds."""
    if not is_whole(count) or count < 1:
        raise ConfigError(f"the number of variants must be a whole number >= 1, got {count!r}")
    if not math.isfinite(block):
        raise ConfigError(f"a bootstrap block must be finite, got {block!r}")
    return [Variant("bootstrap", first_seed + i, block) for i in range(count)]
