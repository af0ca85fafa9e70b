"""The live chart as a matplotlib PNG, for a kernel without plotly or anywidget.

The same frames as the interactive chart (``_curves``), drawn on one figure kept
for the whole run: each arm's line, its mean-and-range band with several seeds,
the news marks along the foot. No hover, zoom or legend toggles: install the
jupyter extra (``pip install "workbench[jupyter]"``) for those.
"""

from __future__ import annotations

import numpy as np

from workbench.report.plots import png_bytes
from workbench.widgets._curves import Frame, LiveChart
from workbench.widgets._news import EARNINGS_MARKER, LOOKS

_DPI = 100
_PX = 800


class PngChart(LiveChart):
    """An ``ipywidgets.Image`` showing each frame as a PNG."""

    def __init__(self, steps_per_day: int, title: str) -> None:
        import ipywidgets as w
        from matplotlib.figure import Figure

        self.figure = Figure(figsize=(8.0, 3.2), dpi=_DPI)
        self.axis = self.figure.add_axes((0.07, 0.15, 0.70, 0.75))
        self.widget = w.Image(format="png", layout=w.Layout(width=f"{_PX}px", height="auto"))
        self.colours: dict[str, str] = {}
        super().__init__(steps_per_day, title)

    def reset(self, steps_per_day: int, title: str) -> None:
        super().reset(steps_per_day, title)
        self.colours = {}

    def show(self, frame: Frame) -> None:
        axis = self.axis
        axis.clear()
        axis.set_xlabel("trading day", fontsize=8)
        axis.set_ylabel("equity (start = 100)", fontsize=8)
        axis.tick_params(labelsize=7)
        axis.grid(alpha=0.3)
        for curve in frame.curves:
            colour = self.colours.setdefault(curve.arm, f"C{len(self.colours) % 10}")
            axis.plot(curve.x, curve.y, color=colour, lw=1.6, label=curve.arm)
            if curve.low is not None and curve.high is not None:
                axis.fill_between(curve.x, curve.low, curve.high, color=colour, alpha=0.15)
        self._news(frame)
        axis.set_xlim(0, frame.x_end)
        axis.set_title(frame.title, fontsize=9)
        if frame.curves:
            axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
        self.widget.value = png_bytes(self.figure)
        self.drawn = frame.drawn

    def _news(self, frame: Frame) -> None:
        """The items released so far, along the foot of the axis."""
        news = frame.news
        if news is None:
            return
        from matplotlib.transforms import blended_transform_factory

        foot = blended_transform_factory(self.axis.transData, self.axis.transAxes)
        for look, (label, colour, marker) in LOOKS.items():
            for earnings, height in ((False, 0.03), (True, 0.07)):
                x = news.x[(news.look == look) & (news.earnings == earnings)]
                if x.size:
                    self.axis.scatter(
                        x, np.full(x.size, height), s=14, color=colour, transform=foot,
                        marker=EARNINGS_MARKER if earnings else marker, linewidths=0.8,
                        label=None if earnings else label, zorder=3,
                    )  # fmt: skip
