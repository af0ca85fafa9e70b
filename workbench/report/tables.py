"""Plain-text tables for terminals and logs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from workbench.evaluation.columns import SHOWN as _SHOWN
from workbench.evaluation.results import Results

# on a market that publishes information (workbench.evaluation.capture)
_SHOWN_INFORMATION = {
    "info_capture": ("capture", "{:+.3f}"),
    "injected_followed": ("obeyed", "{:d}"),
}


def format_scorecard(results: Results) -> str:
    """The scorecard as aligned text, one row per arm, in roster order."""
    card = results.scorecard
    shown = {**_SHOWN, **{c: f for c, f in _SHOWN_INFORMATION.items() if c in card.columns}}
    table = pd.DataFrame(
        {label: [_cell(fmt, v) for v in card[col]] for col, (label, fmt) in shown.items()},
        index=card.index,
    )
    meta = results.meta
    head = (
        f"preset {meta.get('preset')} · seed {meta.get('seed')} · {meta.get('names')} names · "
        f"{meta.get('days')} days × {meta.get('steps_per_day')} steps{cadence_text(meta)}"
    )
    return head + "\n" + table.to_string() + _bust_note(card)


def _cell(fmt: str, value: Any) -> str:
    if isinstance(value, float) and value != value:  # NaN: no value (e.g. no oracle P&L)
        return "-"
    return fmt.format(int(value) if fmt == "{:d}" else value)


def _bust_note(card: pd.DataFrame) -> str:
    if "bust" not in card.columns or not card["bust"].any():
        return ""
    bust = card[card["bust"].astype(bool)]
    listed = ", ".join(f"{arm} at step {step}" for arm, step in bust["bust_step"].items())
    return f"\nbust (equity reached zero; not asked again): {listed}"


def cadence_text(meta: Mapping[str, Any]) -> str:
    """How often the arms decided, for a run's heading: one phrase when they all share a
    cadence, else one per arm; empty for results from before cadence was recorded."""
    every = meta.get("every") or {}
    phrases = {arm: _cadence_phrase(value) for arm, value in every.items()}
    if not phrases:
        return ""
    if len(set(phrases.values())) == 1:
        return f" · arms decide {next(iter(phrases.values()))}"
    return " · " + ", ".join(f"{arm} decides {phrase}" for arm, phrase in phrases.items())


def _cadence_phrase(every: Any) -> str:
    if every == "day":
        return "once a day"
    if every == "step":
        return "every step"
    return f"every {every} steps"
