"""The items a market published, as marks on the chart's day axis.

Each item is placed where it became visible (its release step, in days) and
coloured by what the simulator knows of it: informative items by the sign of
the fair-value move they carried (an earnings report's jump included), noise
in grey, injected instructions apart. Earnings reports get their own marker.
The chart shows an item only once the run has reached it, so the timeline
never shows the future of a run still going.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from workbench.report._spec import step_close_x

UP, DOWN, NOISE, INJECTED = 1, -1, 0, 2
LOOKS = {  # kind of mark: (label, colour, marker)
    UP: ("news: value up", "#2a9d2a", "|"),
    DOWN: ("news: value down", "#c0392b", "|"),
    NOISE: ("news: noise", "#9a9a9a", "|"),
    INJECTED: ("injected instruction", "#e67e22", "x"),
}
EARNINGS_MARKER = "^"


@dataclass(frozen=True)
class NewsMarks:
    """Release position (days), kind of mark (``LOOKS``), earnings flag and what each
    item was (its kind and the names it concerned: the chart's hover text)."""

    x: np.ndarray
    look: np.ndarray
    earnings: np.ndarray
    about: np.ndarray

    @classmethod
    def of(cls, information: pd.DataFrame, steps_per_day: int) -> NewsMarks:
        """Marks for ``results.information`` (or ``information_frame``'s rows)."""
        steps = max(steps_per_day, 1)
        rows = information["day"].to_numpy(float) * steps + information["step"].to_numpy(float)
        x = step_close_x(rows, steps)
        carried = information["move"].to_numpy(float) + information["jump"].to_numpy(float)
        look = np.where(carried > 0, UP, DOWN)
        look = np.where(information["informative"].to_numpy(bool), look, NOISE)
        look = np.where(information["injected"].to_numpy(bool), INJECTED, look)
        earnings = (information["kind"] == "earnings").to_numpy(bool)
        return cls(x, look, earnings, _about(information))

    def until(self, day: float) -> NewsMarks:
        """The marks released at or before ``day``."""
        seen = self.x <= day
        return NewsMarks(self.x[seen], self.look[seen], self.earnings[seen], self.about[seen])

    def counts(self) -> dict[int, int]:
        """How many marks of each look there are."""
        return {look: int(np.count_nonzero(self.look == look)) for look in LOOKS}


def _about(information: pd.DataFrame) -> np.ndarray:
    """``kind`` on ``symbols`` per item (the kind alone where no names are given)."""
    kinds = information["kind"].astype(str)
    if "symbols" not in information.columns:
        return kinds.to_numpy(object)
    names = information["symbols"].fillna("").astype(str)
    return np.where(names != "", kinds + " on " + names, kinds).astype(object)
