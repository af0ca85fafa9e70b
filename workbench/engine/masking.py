"""The mask over historical bars, keyed by a secret drawn for each run.

What the mask replaces, and why:

- **symbols** become ``ASSET001…`` aliases in an order drawn from the secret, so
  knowing the seed and the symbol list gives nothing (the secret is never in a
  payload or in the ``RunInfo`` an agent is told);
- **price levels**: each name starts at its own level drawn from the secret
  (log-uniform between ``LEVELS``), so no real price level survives;
- **volume levels**: each name's volume is divided by its own median over the
  history rows before the first decision, then set so that its typical traded
  value is the universe's median traded value times a secret factor for the
  universe (log-uniform in ``1/3 … 3``) and one for the name (``1/10 … 10``). No
  name's own dollar volume survives and neither does the universe's exactly,
  while the book's liquidity stays within the range real universes span;
- **dates** become relative day numbers (done by the payload, which never
  carries a date).

What it cannot hide: the *shape* of every path. Returns, volatility and relative
volume are untouched (rescaling cannot change them), so anyone holding the same
data can still match the return paths and find both the names and the calendar.
Only a counterfactual variant (``workbench.engine.variants``) breaks that; the
contamination audit (``workbench.evaluation.contamination``) measures both.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.engine import portable
from workbench.errors import ConfigError

LEVELS = (20.0, 400.0)  # the range of starting price levels
# traded-value factors are log-uniform in [1/spread, spread]; the name's is wide so that a
# name's own path (its drift and volume swings, which no mask can change) moves its rank little
UNIVERSE_SPREAD, NAME_SPREAD = 3.0, 10.0
_SECRET_BYTES = 16


def draw_secret() -> str:
    """A fresh secret from the operating system's entropy: 32 hex characters."""
    return secrets.token_hex(_SECRET_BYTES)


def check_secret(secret: object) -> str:
    if not isinstance(secret, str) or len(secret) < 16:
        raise ConfigError(
            f"a mask secret must be a string of at least 16 characters, got {secret!r}; "
            "leave it out to draw a fresh one"
        )
    return secret


@dataclass(frozen=True)
class Mask:
    """Aliases and rescaling drawn from ``secret``; the same secret gives the same mask."""

    secret: str

    def rng(self, purpose: str) -> np.random.Generator:
        digest = hashlib.sha256(f"{purpose}\0{self.secret}".encode()).digest()
        return np.random.default_rng(int.from_bytes(digest, "big"))

    def aliases(self, real: Sequence[str]) -> dict[str, str]:
        """Alias → real symbol, aliases numbered in a secret order of the real names."""
        order = self.rng("aliases").permutation(len(real))
        return {f"ASSET{rank + 1:03d}": real[i] for rank, i in enumerate(order)}

    def rescale(self, panel: dict[str, np.ndarray], history_rows: int) -> dict[str, np.ndarray]:
        """Prices and volumes of ``panel`` (rows × names) with every level replaced."""
        names = panel["close"].shape[1]
        draws = self.rng("levels")
        low, high = portable.log_of(LEVELS[0]), portable.log_of(LEVELS[1])
        level = portable.exp(draws.uniform(low, high, names))
        universe_factor = portable.exp(
            draws.uniform(-portable.log_of(UNIVERSE_SPREAD), portable.log_of(UNIVERSE_SPREAD))
        )
        name_factor = portable.exp(
            draws.uniform(-portable.log_of(NAME_SPREAD), portable.log_of(NAME_SPREAD), names)
        )
        price_scale = level / panel["close"][0]
        prices = {k: panel[k] * price_scale for k in ("open", "high", "low", "close")}
        history = slice(0, max(history_rows, 1))
        typical_volume = _floor_one(np.median(panel["volume"][history], axis=0))
        traded = _floor_one(np.median((panel["volume"] * panel["close"])[history], axis=0))
        target_value = np.median(traded) * universe_factor * name_factor
        volume_scale = target_value / (typical_volume * level)
        return {**prices, "volume": np.floor(panel["volume"] * volume_scale)}


def _floor_one(values: np.ndarray) -> np.ndarray:
    """At least 1: a name that never traded in the history rows keeps a finite scale."""
    return np.maximum(values, 1.0)
