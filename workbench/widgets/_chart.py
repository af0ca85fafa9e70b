"""The panel's live equity chart: one figure kept for the whole run, updated in place.

Why not a live-plotting library: the chart needs one PNG every second or so,
not an interactive canvas, and matplotlib is already how every report is drawn.
What made the old chart slow was rebuilding the figure and re-plotting every
point on every draw. Here the figure and one line per (seed, arm) are made
once; a draw moves each line's data (``set_data``) to at most ``MAX_POINTS``
points picked by stride, redraws the mean-and-range band, and renders. So a
draw costs about the same on step 10 and step 10,000: it is bounded by
seeds x arms x MAX_POINTS, never by the length of the run. With several seeds
shown at once each arm is its mean line over a shaded range, as in the report:
the seeds' own lines are hidden (and not updated), which keeps the chart
readable and a draw cheap. How often it draws is the panel's business
(``_refresh``); each frame says, in its title and on ``drawn``, the seed and
step it shows, so a reader (or a test) sees that it keeps up with the run.

On a market that publishes information, the items released so far sit along
the foot of the axis as a timeline (``_news``): ticks coloured by the move the
simulator knows each carried, triangles for earnings, crosses for injected
instructions; the picked seed's, or the latest seed's when all are shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from workbench.report.plots import png_bytes
from workbench.widgets._news import EARNINGS_MARKER, LOOKS
from workbench.widgets._session import SeedRun

MAX_POINTS = 400
ALL_SEEDS = "all seeds"
_DPI = 100


class LiveChart:
    """Every seed's curve per arm (rebased to 100) on a day axis; a seed can be picked."""

    def __init__(self, steps_per_day: int, title: str = "") -> None:
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(8.0, 3.2), dpi=_DPI)
        self.axis = self.figure.add_axes((0.07, 0.15, 0.70, 0.75))
        self.axis.set_xlabel("trading day", fontsize=8)
        self.axis.set_ylabel("equity (start = 100)", fontsize=8)
        self.axis.tick_params(labelsize=7)
        self.axis.grid(alpha=0.3)
        self.lines: dict[tuple[int, str], Any] = {}
        self.bands: list[Any] = []
        self.marks: list[Any] = []
        self.colours: dict[str, Any] = {}
        self.reset(steps_per_day, title)

    def reset(self, steps_per_day: int, title: str) -> None:
        """Empty the chart for a new run; the figure (and its warm caches) is kept."""
        for artist in [*self.axis.lines, *self.axis.collections]:
            artist.remove()
        legend = self.axis.get_legend()
        if legend is not None:
            legend.remove()
        self.lines, self.bands, self.marks, self.colours = {}, [], [], {}
        self.news_legend = False
        self.drawn: tuple[int, int] | None = None  # (seed, steps) the last frame shows
        self.steps_per_day, self.title = max(steps_per_day, 1), title

    def render(self, runs: Sequence[SeedRun], shown: str = ALL_SEEDS) -> bytes:
        """A PNG of ``runs`` as they are now; ``shown`` is ALL_SEEDS or one seed's label."""
        one = None if shown == ALL_SEEDS else int(shown)
        banded = one is None and len(runs) > 1
        for run in runs:
            visible = not banded and (one is None or run.seed == one)
            self._update(run, visible=visible, bold=one is not None)
        self._band(runs if banded else [])
        latest = _news_run(runs, one)
        self.drawn = None if latest is None else (latest.seed, latest.steps)
        self._news(latest)
        self._frame(runs, one)
        return png_bytes(self.figure)

    def _update(self, run: SeedRun, *, visible: bool, bold: bool) -> None:
        if not visible:
            for arm in run.arms:
                self._colour(arm)  # the arm's legend entry and band colour
                line = self.lines.get((run.seed, arm))
                if line is not None:
                    line.set_visible(False)
            return
        picked = _stride(run.steps)
        x = picked / self.steps_per_day
        for j, arm in enumerate(run.arms):
            line = self.lines.get((run.seed, arm))
            if line is None:
                line = self._new_line(arm)
                self.lines[(run.seed, arm)] = line
            curve = run.equity[picked, j]
            line.set_data(x, curve / (run.equity[0, j] or 1.0) * 100 if curve.size else curve)
            line.set_visible(visible)
            line.set_linewidth(1.6 if bold else 1.0)
            line.set_alpha(1.0 if bold else 0.45)

    def _new_line(self, arm: str) -> Any:
        (line,) = self.axis.plot([], [], color=self._colour(arm))
        return line

    def _colour(self, arm: str) -> str:
        if arm not in self.colours:
            self.colours[arm] = f"C{len(self.colours) % 10}"
            self.axis.plot([], [], color=self.colours[arm], lw=2.0, label=arm)  # legend entry
        return str(self.colours[arm])

    def _band(self, runs: Sequence[SeedRun]) -> None:
        """Mean across seeds (bold) and the min-max range (shaded), where 2+ seeds have data."""
        for artist in self.bands:
            artist.remove()
        self.bands = []
        if len(runs) < 2:
            return
        for arm, colour in self.colours.items():
            stack = _rebased_stack(runs, arm)
            if stack is None:
                continue
            steps, values = stack
            x = steps / self.steps_per_day
            low, high = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
            mean = np.nanmean(values, axis=0)
            self.bands.append(self.axis.fill_between(x, low, high, color=colour, alpha=0.15))
            self.bands += self.axis.plot(x, mean, color=colour, lw=2.0)

    def _news(self, run: SeedRun | None) -> None:
        """The items ``run`` has reached, along the foot of the axis."""
        for artist in self.marks:
            artist.remove()
        self.marks = []
        if run is None or run.news is None:
            return
        from matplotlib.transforms import blended_transform_factory

        self._news_legend()
        seen = run.news.until((run.steps - 1) / self.steps_per_day)
        foot = blended_transform_factory(self.axis.transData, self.axis.transAxes)
        for look, (_, colour, marker) in LOOKS.items():
            for earnings, height in ((False, 0.03), (True, 0.07)):
                x = seen.x[(seen.look == look) & (seen.earnings == earnings)]
                if x.size:
                    shape = EARNINGS_MARKER if earnings else marker
                    self.marks.append(
                        self.axis.scatter(
                            x,
                            np.full(x.size, height),
                            s=14,
                            marker=shape,
                            color=colour,
                            transform=foot,
                            linewidths=0.8,
                            zorder=3,
                        )
                    )

    def _news_legend(self) -> None:
        """Legend entries for the marks, once per run (the legend is then drawn again)."""
        if self.news_legend:
            return
        for label, colour, marker in LOOKS.values():
            self.axis.plot([], [], ls="", marker=marker, color=colour, label=label)
        self.axis.plot([], [], ls="", marker=EARNINGS_MARKER, color="#555555", label="earnings")
        legend = self.axis.get_legend()
        if legend is not None:
            legend.remove()
        self.news_legend = True

    def _frame(self, runs: Sequence[SeedRun], one: int | None) -> None:
        total = max((len(r.equity) for r in runs), default=1)
        self.axis.set_xlim(0, max(total - 1, 1) / self.steps_per_day)
        self.axis.relim(visible_only=True)
        self.axis.autoscale_view(scalex=False)
        what = "all seeds: mean (bold), range (shaded)" if one is None else f"seed {one}"
        if self.drawn is not None and self.drawn[1]:
            seed, steps = self.drawn
            where = "" if one is not None else f" · seed {seed}"
            what += f"{where} at day {(steps - 1) / self.steps_per_day:,.1f}"
        self.axis.set_title(f"{self.title} · {what}".strip(" ·"), fontsize=9)
        if self.colours and self.axis.get_legend() is None:
            self.axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)


def _news_run(runs: Sequence[SeedRun], one: int | None) -> SeedRun | None:
    """The run a frame is about (its news, its step): the picked seed, or the latest."""
    if one is None:
        return runs[-1] if runs else None
    return next((run for run in runs if run.seed == one), None)


def _stride(steps: int) -> np.ndarray:
    """At most MAX_POINTS step indices from 0 to steps - 1, always keeping the last."""
    if steps <= MAX_POINTS:
        return np.arange(steps)
    picked = np.linspace(0, steps - 1, MAX_POINTS).astype(int)
    return np.unique(picked)


def _rebased_stack(runs: Sequence[SeedRun], arm: str) -> tuple[np.ndarray, np.ndarray] | None:
    """(x in days, seeds x points) of ``arm`` rebased to 100, NaN past a seed's last step."""
    columns = [(r, r.arms.index(arm)) for r in runs if arm in r.arms and r.steps > 1]
    if len(columns) < 2:
        return None
    steps = max(r.steps for r, _ in columns)
    picked = _stride(steps)
    rows = []
    for run, j in columns:
        curve = np.full(picked.size, np.nan)
        ok = picked < run.steps
        curve[ok] = run.equity[picked[ok], j] / (run.equity[0, j] or 1.0) * 100
        rows.append(curve)
    return picked, np.vstack(rows)
