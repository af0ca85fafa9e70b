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
    """Release position (days), kind of mark (``LOOKS``) and earnings flag per item."""

    x: np.ndarray
    look: np.ndarray
    earnings: np.ndarray

    @classmethod
    def of(cls, information: pd.DataFrame, steps_per_day: int) -> NewsMarks:
        """Marks for ``results.information`` (or ``information_frame``'s rows)."""
        x = information["day"].to_numpy(float) + information["step"].to_numpy(float) / max(
            steps_per_day, 1
        )
        carried = information["move"].to_numpy(float) + information["jump"].to_numpy(float)
        look = np.where(carried > 0, UP, DOWN)
        look = np.where(information["informative"].to_numpy(bool), look, NOISE)
        look = np.where(information["injected"].to_numpy(bool), INJECTED, look)
        return cls(x, look, (information["kind"] == "earnings").to_numpy(bool))

    def until(self, day: float) -> NewsMarks:
        """The marks released at or before ``day``."""
        seen = self.x <= day
        return NewsMarks(self.x[seen], self.look[seen], self.earnings[seen])

    def counts(self) -> dict[int, int]:
        """How many marks of each look there are."""
        return {look: int(np.count_nonzero(self.look == look)) for look in LOOKS}
