"""A small equity chart rendered to PNG, redrawn while a run goes on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from workbench.report.plots import png_bytes


def equity_png(curves: Mapping[str, Sequence[float]], total: int, title: str = "") -> bytes:
    """Each arm's equity so far (rebased to 100) on an x axis fixed at ``total`` steps."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 3.0), dpi=80)
    axis = figure.add_axes((0.08, 0.14, 0.68, 0.76))
    for arm, values in curves.items():
        if values:
            start = values[0] or 1.0
            axis.plot(range(len(values)), [v / start * 100 for v in values], lw=1.3, label=arm)
    axis.set_xlim(0, max(total - 1, 1))
    axis.set_xlabel("step", fontsize=8)
    axis.set_ylabel("equity (start = 100)", fontsize=8)
    axis.set_title(title, fontsize=9)
    axis.tick_params(labelsize=7)
    axis.grid(alpha=0.3)
    if curves:
        axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    return png_bytes(figure)
