"""Plain-text tables for terminals and logs."""

from __future__ import annotations

import pandas as pd

from workbench.evaluation.results import Results

_SHOWN = {
    "return_pct": ("return %", "{:+.2f}"),
    "pnl": ("P&L", "{:+,.0f}"),
    "sharpe": ("Sharpe", "{:+.2f}"),
    "max_drawdown_pct": ("max DD %", "{:.2f}"),
    "turnover": ("turnover", "{:.2f}"),
    "trades": ("trades", "{:d}"),
    "clips": ("clips", "{:d}"),
    "refusals": ("refused", "{:d}"),
    "errors": ("errors", "{:d}"),
    "decisions": ("decisions", "{:d}"),
    "model_calls": ("calls", "{:d}"),
}


def format_scorecard(results: Results) -> str:
    """The scorecard as aligned text, one row per arm, in roster order."""
    card = results.scorecard
    table = pd.DataFrame(
        {label: [fmt.format(v) for v in card[col]] for col, (label, fmt) in _SHOWN.items()},
        index=card.index,
    )
    meta = results.meta
    head = (
        f"preset {meta.get('preset')} · seed {meta.get('seed')} · {meta.get('names')} names · "
        f"{meta.get('days')} days × {meta.get('steps_per_day')} steps"
    )
    return head + "\n" + table.to_string()
