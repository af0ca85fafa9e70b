"""The scorecard: one row per arm, assembled from the metrics beside it.

``build_scorecard`` is the one place a scorecard is made: each arm's equity curve,
its order counts, the shares of its P&L from the market and from selection
(``workbench.evaluation.attribution``) and what the run tallied for it (``ArmTally``:
traded notional, bust, failures, model use) go to the columns of
``workbench.evaluation.columns``, which say how each value is computed.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation.columns import SCORECARD_COLUMNS, ArmRun, scorecard_row
from workbench.evaluation.results import ORDER_COLUMNS

OrderRows = Sequence[Sequence[Any]]  # rows in ``ORDER_COLUMNS`` order, as a run builds them


@dataclass(frozen=True)
class ArmTally:
    """What a run counted for one arm beside its equity curve and orders."""

    traded_notional: float
    bust_step: int | None
    errors: int
    last_error: str
    decisions: int
    model_calls: int
    tokens: int
    latency_s: float
    cost_usd: float = 0.0  # NaN when a call was made at no known price


def build_scorecard(
    equity: pd.DataFrame,
    orders: OrderRows,
    tallies: Sequence[ArmTally],
    steps_per_day: int,
    sources: Mapping[str, Mapping[str, np.ndarray]],
    extra: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """One row per arm (the equity frame's columns, in order), ``SCORECARD_COLUMNS``.

    ``orders`` is the run's own order rows (``order_counts``).
    ``sources`` holds the attribution's "market" and "selection" per step, by arm
    (``Attribution.by_arm``); ``extra`` columns (one value per arm, in row order) follow
    them, built into the same frame rather than assigned to it one by one."""
    arms = list(equity.columns)
    shares = {source: sources[source] for source in ("market", "selection")}
    counts = order_counts(orders)
    curves = equity.to_numpy(dtype=float)
    rows = [
        scorecard_row(
            ArmRun(
                curves[:, i],
                counts.get(arm, _NO_ORDERS),
                tally,
                steps_per_day,
                {source: by_arm.get(arm, np.zeros(0)) for source, by_arm in shares.items()},
            )
        )
        for i, (arm, tally) in enumerate(zip(arms, tallies, strict=True))
    ]
    # built a column at a time: a frame from rows of dicts infers each cell's type again
    columns: dict[str, Any] = {name: [row[name] for row in rows] for name in SCORECARD_COLUMNS}
    columns["bust_step"] = np.array([tally.bust_step for tally in tallies], dtype=object)
    columns.update(extra or {})
    return pd.DataFrame(columns, index=_arm_index(equity.columns))


def _arm_index(arms: pd.Index) -> pd.Index:
    """The equity's columns named "arm": its own index when it holds text already (as a
    run's does), not the same names inferred again."""
    return arms.rename("arm") if arms.dtype == _TEXT else pd.Index(list(arms), name="arm")


_TEXT = pd.Index(["arm"]).dtype  # the type pandas gives a list of names


_NO_ORDERS = {"trades": 0, "clips": 0, "refusals": 0}
_ARM = itemgetter(0)
_ARM_AND_STATUS = itemgetter(0, ORDER_COLUMNS.index("status"))
_CLIPPED_OF = itemgetter(ORDER_COLUMNS.index("clipped"))


def order_counts(orders: OrderRows) -> dict[str, dict[str, int]]:
    """Each arm's trades (filled or partial orders), clips and refusals, from a run's own
    order rows (in ``ORDER_COLUMNS`` order): the rows counted by (arm, status) and the
    clipped ones by arm, each count taken by ``Counter`` without a Python step per row."""
    by_status = Counter(map(_ARM_AND_STATUS, orders))
    clips = Counter(map(_ARM, filter(_CLIPPED_OF, orders)))
    counted: dict[str, dict[str, int]] = {}
    for (arm, status), count in by_status.items():  # arms in the order they first traded
        tally = counted.get(arm)
        if tally is None:
            tally = counted[arm] = {**_NO_ORDERS, "clips": clips[arm]}
        if status == "filled" or status == "partial":
            tally["trades"] += count
        elif status == "refused":
            tally["refusals"] += count
    return counted
