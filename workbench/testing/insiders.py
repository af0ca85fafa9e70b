"""Scripted arms that know what the simulator knows: skills attribution must find.

Each is handed the ``MarketPath`` its run trades (the world is deterministic, so
``World(...).path`` is the run's own path) and reads from it what no payload
shows, so its P&L has a known source:

- ``MispricingPicker`` holds the names whose price is furthest below fair value
  at each close (the most negative log mispricing): a stock picker whose edge is
  selection, and within it ``selection_mispricing``;
- ``MarketTimer`` knows the market factor of the coming session: invested in
  equal weight before a rising one, in cash before a falling one, so its edge is
  timing.

They are for tests and for checking an attribution, never for evaluation: an
agent never sees a path.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from workbench.agents import Agent, DecisionRequest, Every
from workbench.baselines import rebalance
from workbench.engine.market import MarketPath
from workbench.errors import ConfigError
from workbench.schema import Decision

_INVESTED = 0.95


def _simulated(path: MarketPath) -> MarketPath:
    if path.mispricing is None or path.market_factor is None:
        raise ConfigError("an insider arm needs a simulated path (historical bars have no factors)")
    return path


class MispricingPicker(Agent):
    """Holds, in equal weight, the ``names`` names with the most negative mispricing."""

    name = "mispricing_picker"
    shares_payload = True

    def __init__(
        self, path: MarketPath, *, names: int = 5, every: Every = "step", name: str | None = None
    ) -> None:
        super().__init__(name, every=every)
        self.path, self.names = _simulated(path), names

    async def adecide(self, request: DecisionRequest) -> Decision:
        assert self.path.mispricing is not None
        mispricing = self.path.mispricing[self.path.warmup_steps + request.index]
        cheapest = np.argsort(mispricing, kind="stable")[: self.names]
        symbols = self.path.universe.symbols
        targets = {symbols[i]: _INVESTED / self.names for i in cheapest}
        return rebalance(request.payload, targets, "cheapest against fair value")


class MarketTimer(Agent):
    """In equal weight before a session whose market factor rises, in cash before a fall."""

    name = "market_timer"
    shares_payload = True

    def __init__(self, path: MarketPath, *, every: Every = "step", name: str | None = None) -> None:
        super().__init__(name, every=every)
        self.path = _simulated(path)

    async def adecide(self, request: DecisionRequest) -> Decision:
        assert self.path.market_factor is not None and self.path.market_factor_open is not None
        row = self.path.warmup_steps + request.index + 1  # the step the decision trades in
        coming = self.path.market_factor[row] - self.path.market_factor_open[row]
        symbols: Any = request.payload["symbols"]
        weight = _INVESTED / len(symbols) if coming > 0 else 0.0
        return rebalance(request.payload, dict.fromkeys(symbols, weight), "the market, timed")


__all__ = ["MarketTimer", "MispricingPicker"]
