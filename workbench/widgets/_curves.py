"""What one frame of the live chart shows, computed from the runs as they are now.

A frame is plain arrays, so it can be computed on a worker thread and handed to
whichever chart draws it (``_chart``: plotly, updated in place; ``_chart_png``:
matplotlib, without plotly). Every curve is rebased to 100 and thinned to at
most ``MAX_POINTS`` points picked by stride, so a frame costs about the same on
step 10 and step 10,000. With every seed shown at once each arm is its mean
across seeds with the min-max range around it, as in the report; with one seed
picked (or one run) it is that seed's own curve. The frame names the seed and
step it shows (``drawn``): the picked seed, or the latest one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from workbench.report._spec import day_labels, step_close_x
from workbench.widgets._news import NewsMarks
from workbench.widgets._session import SeedRun

MAX_POINTS = 400
ALL_SEEDS = "all seeds"


@dataclass(frozen=True)
class Curve:
    """One arm: x in days, its curve (the mean over seeds when banded) and the range."""

    arm: str
    x: np.ndarray
    y: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None


@dataclass(frozen=True)
class Frame:
    """Everything one redraw shows; ``drawn`` is the (seed, steps) it is about."""

    curves: list[Curve]
    news: NewsMarks | None
    drawn: tuple[int, int] | None
    title: str
    x_end: float


class LiveChart:
    """What every live chart does; a chart draws a frame with ``show`` on its ``widget``.

    ``frame`` only reads the runs (a worker thread may call it); ``show`` touches the
    widget, so it is called where widgets are (the kernel's event loop).
    """

    widget: Any

    def __init__(self, steps_per_day: int, title: str) -> None:
        self.reset(steps_per_day, title)

    def reset(self, steps_per_day: int, title: str) -> None:
        """Empty the chart for a new run."""
        self.steps_per_day, self.title = max(steps_per_day, 1), title
        self.drawn: tuple[int, int] | None = None  # (seed, steps) the last frame shows

    def frame(self, runs: Sequence[SeedRun], shown: str = ALL_SEEDS) -> Frame:
        return frame_of(runs, shown, self.steps_per_day, self.title)

    def show(self, frame: Frame) -> None:
        raise NotImplementedError

    def draw(self, runs: Sequence[SeedRun], shown: str = ALL_SEEDS) -> None:
        """``frame`` and ``show`` at once."""
        self.show(self.frame(runs, shown))


def frame_of(runs: Sequence[SeedRun], shown: str, steps_per_day: int, title: str) -> Frame:
    """The frame of ``runs`` as they are now; ``shown`` is ALL_SEEDS or one seed's label."""
    one = None if shown == ALL_SEEDS else int(shown)
    picked = [run for run in runs if one is None or run.seed == one]
    about = _about(runs, one)
    drawn = None if about is None or not about.steps else (about.seed, about.steps)
    curves = [_curve(picked, arm, steps_per_day) for arm in _arms(picked)]
    banded = one is None and len(runs) > 1
    news = None
    if about is not None and about.news is not None and about.steps:
        news = about.news.until(float(step_close_x(about.steps - 1, steps_per_day)))
    total = max((len(run.equity) for run in runs), default=1)
    x_end = float(step_close_x(max(total - 1, 1), steps_per_day))
    caption = _title(title, one, drawn, banded=banded, steps_per_day=steps_per_day)
    return Frame([c for c in curves if c is not None], news, drawn, caption, x_end)


def _about(runs: Sequence[SeedRun], one: int | None) -> SeedRun | None:
    """The run a frame is about (its news, its step): the picked seed, or the latest."""
    if one is None:
        return runs[-1] if runs else None
    return next((run for run in runs if run.seed == one), None)


def _arms(runs: Sequence[SeedRun]) -> list[str]:
    return list(dict.fromkeys(arm for run in runs for arm in run.arms))


def _curve(runs: Sequence[SeedRun], arm: str, steps_per_day: int) -> Curve | None:
    """``arm`` over ``runs``: one run's curve, the mean and range of several, or None."""
    columns = [(run, run.arms.index(arm)) for run in runs if arm in run.arms and run.steps]
    if not columns:
        return None
    steps = max(run.steps for run, _ in columns)
    picked = stride(steps)
    x = step_close_x(picked, max(steps_per_day, 1))
    rows = [_rebased(run, j, picked) for run, j in columns]
    if len(rows) == 1:
        return Curve(arm, x, rows[0])
    stack = np.vstack(rows)
    return Curve(
        arm, x, np.nanmean(stack, axis=0), np.nanmin(stack, axis=0), np.nanmax(stack, axis=0)
    )


def _rebased(run: SeedRun, column: int, picked: np.ndarray) -> np.ndarray:
    """``run``'s curve at ``picked`` steps rebased to 100, NaN past its last step."""
    curve = np.full(picked.size, np.nan)
    ok = picked < run.steps
    start = run.equity[0, column] or 1.0
    curve[ok] = run.equity[picked[ok], column] / start * 100
    return curve


def _title(
    title: str, one: int | None, drawn: tuple[int, int] | None, *, banded: bool, steps_per_day: int
) -> str:
    what = "all seeds: mean and range" if banded else ""
    if drawn is not None:
        seed, steps = drawn
        last = step_close_x(steps - 1, steps_per_day)
        at = f"seed {seed} at {day_labels([last], steps_per_day)[0]}"
        what = f"{what} · {at}" if what else at
    elif one is not None:
        what = f"seed {one}"
    return f"{title} · {what}".strip(" ·")


def stride(steps: int) -> np.ndarray:
    """At most MAX_POINTS step indices from 0 to steps - 1, always keeping the last."""
    if steps <= MAX_POINTS:
        return np.arange(steps)
    picked = np.linspace(0, steps - 1, MAX_POINTS).astype(int)
    return np.unique(picked)
