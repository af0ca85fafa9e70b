"""Dollars per arm from its transcript: the recorded tokens priced by a price table.

The table itself (``PriceTable``, ``Price``, ``CostMeter``) lives with the adapters
(``workbench.integrations.pricing``), which price each call as they make it; it is
re-exported here. A transcript holds each exchange's usage and the arm's model, so
``transcript_cost`` prices a recording without running it, at any table's prices.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from workbench.integrations.pricing import (
    PER_TOKENS,
    PRICE_FIELDS,
    CostMeter,
    Price,
    PriceTable,
    as_price_table,
    count_of,
)

COST_COLUMNS = ("model", "model_calls", "input_tokens", "cached_input_tokens", "output_tokens")


def transcript_cost(path: str | Path, prices: PriceTable) -> dict[str, Any]:
    """One arm's recorded usage and its cost: model, calls, tokens and ``cost_usd`` (None
    when its model has no price in the table)."""
    from workbench.transcript import Transcript

    transcript = Transcript.load(path)
    model = transcript.meta.get("model")
    totals = dict.fromkeys(COST_COLUMNS[1:], 0)
    for exchange in transcript.exchanges:
        for key in totals:
            totals[key] += count_of(exchange.usage, key)
    row: dict[str, Any] = {"arm": transcript.meta.get("arm", Path(path).stem), "model": model}
    row.update(totals)
    row["cost_usd"] = prices.cost(model, totals)
    return row


def transcript_costs(paths: Iterable[str | Path], prices: PriceTable) -> pd.DataFrame:
    """``transcript_cost`` for each transcript, one row per arm."""
    rows = [transcript_cost(path, prices) for path in paths]
    frame = pd.DataFrame(rows, columns=["arm", *COST_COLUMNS, "cost_usd"])
    return frame.set_index("arm")


__all__ = [
    "COST_COLUMNS",
    "PER_TOKENS",
    "PRICE_FIELDS",
    "CostMeter",
    "Price",
    "PriceTable",
    "as_price_table",
    "transcript_cost",
    "transcript_costs",
]
