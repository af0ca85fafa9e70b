"""The oracle reader: the reference an arm's information capture is measured against.

It is the one arm that reads what no payload carries: at each decision it knows
the move still to come from every item released so far (``pending_moves``), and
holds each name in proportion to that move, long or short, within the same
capital, costs, participation and leverage limits as every other arm. It never
sees an item before its release, so what it earns is what the published
information was worth to a perfect reader on this path. It is a reference, not
a baseline: ``results.information_capture`` names it, rankings never do. Its
figure depends on the market and the limits alone, so a process keeps the last
few (``ORACLE_NEWS_PNL``) and a second evaluation on the same world reuses it.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np

from workbench.agents import Agent
from workbench.baselines import rebalance
from workbench.engine.information import pending_moves
from workbench.engine.market import MarketPath
from workbench.schema import Decision

if TYPE_CHECKING:
    from workbench.evaluation.options import RunOptions
    from workbench.evaluation.world import World

ORACLE = "oracle_reader"
_GROSS = 0.95  # of equity, like the baselines' invested share
_MIN_MOVE = 0.004  # a pending log move below this is not worth a round trip's costs


class OracleReader(Agent):
    """Trades on the true pending move of every released item (see the module)."""

    name = ORACLE
    shares_payload = True
    inline = True

    def __init__(self, path: MarketPath) -> None:
        super().__init__()
        self.path = path

    def decide(self, payload: dict[str, Any]) -> Decision:
        info, steps = self.path.information, self.path.steps_per_day
        assert info is not None, "the oracle reader runs only on a market that publishes items"
        row = self.path.warmup_steps + payload["day"] * steps + payload["step"]
        # its orders fill from the next step: only what is realised from the next day counts
        pending = pending_moves(info, row, row // steps + 1)
        pending = np.where(np.abs(pending) >= _MIN_MOVE, pending, 0.0)
        total = float(np.abs(pending).sum())
        if total == 0.0:
            return rebalance(payload, {}, "oracle: nothing pending")
        weights = pending / total * _GROSS
        symbols = self.path.universe.symbols
        targets = {symbols[i]: float(weights[i]) for i in np.flatnonzero(weights).tolist()}
        return rebalance(payload, targets, "oracle: the true pending moves")


class _Remembered:
    """The last few oracle figures by the key of what they depend on; the oldest goes first."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.values: dict[Hashable, float] = {}
        self._lock = threading.Lock()  # evaluations may run in several threads at once

    def get(self, key: Hashable) -> float | None:
        return self.values.get(key)

    def put(self, key: Hashable, value: float) -> float:
        with self._lock:
            self.values[key] = value
            while len(self.values) > self.most:
                del self.values[next(iter(self.values))]
        return value


# the oracle's news P&L by world and limits: a simulated path is a pure function of them
ORACLE_NEWS_PNL = _Remembered(most=64)


def reference_key(world: World, options: RunOptions) -> Hashable:
    """Everything the oracle's run reads: the market (preset dials, seed, names, cadence)
    and the limits every arm trades within."""
    return (
        world.fingerprint,
        tuple(sorted(world.preset.vector.items())),
        world.seed,
        world.universe,
        world.days,
        world.steps_per_day,
        world.ticks_per_step,
        options.capital,
        options.leverage_cap,
        options.maintenance,
        options.fee_bps,
    )
