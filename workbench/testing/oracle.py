"""An agent that has memorised the real path of a data set: the contamination to detect.

``MemorisingOracle`` stands for a model trained on market history. It holds the
unmasked bars (as such a model holds them in its weights), recognises where it
is by matching each payload's return history against its memory — the mask
rescales levels and renames symbols, but cannot change returns — and then
trades on what it remembers happens next: long every name that it remembers
rising from the next open to the one after, short every name that falls. Where
no stretch of its memory matches a name's history exactly, it stays out.

On the real path it is a near-perfect trader; on a counterfactual variant it
recognises only the stretches a bootstrap copied whole, so an evaluation that
runs it on both (``workbench.evaluation.counterfactual``) shows a gap that an
honest agent does not have.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench.agents import Agent
from workbench.baselines import rebalance
from workbench.engine.historical import Historical
from workbench.schema import HISTORY_STEPS, Decision

_EXACT = 1e-8  # squared error per return below which a stretch counts as remembered


class MemorisingOracle(Agent):
    """Trades on a memory of ``data``'s real path; ``gross`` is the exposure it takes."""

    name = "oracle"
    inline = True
    shares_payload = True

    def __init__(
        self,
        data: str | Path | pd.DataFrame | Historical,
        *,
        name: str | None = None,
        every: int | None = None,
        gross: float = 1.0,
    ) -> None:
        super().__init__(name, every=every)
        memory = data if isinstance(data, Historical) else Historical.load(data, mask=False)
        panel = memory.real_panel
        self.open, self.gross = panel["open"], gross
        returns = np.diff(np.log(panel["close"]), axis=0)
        self.windows = np.lib.stride_tricks.sliding_window_view(
            returns, HISTORY_STEPS - 1, axis=0
        )  # (offsets, names, HISTORY_STEPS - 1)

    def decide(self, payload: dict[str, Any]) -> Decision:
        targets = {}
        for symbol, quote in payload["symbols"].items():
            move = self.remembered_move(quote["history"])
            if move:
                targets[symbol] = self.gross * np.sign(move) / len(payload["symbols"])
        return rebalance(payload, targets, "remembered")

    def remembered_move(self, history: list[float]) -> float:
        """The log move from the next open to the one after, if this history is remembered."""
        seen = np.diff(np.log(np.asarray(history, dtype=float)))
        error = ((self.windows - seen) ** 2).mean(axis=-1)
        offset, name = np.unravel_index(int(np.argmin(error)), error.shape)
        today = int(offset) + HISTORY_STEPS - 1  # the date of the history's last close
        if error[offset, name] > _EXACT or today + 2 >= len(self.open):
            return 0.0
        return float(np.log(self.open[today + 2, name] / self.open[today + 1, name]))
