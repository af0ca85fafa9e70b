"""The parts every report figure is built from: a figure with fixed margins, the legend
beside the plot, and the title naming the runs' preset and seeds (``plots`` and
``information`` draw with them).
"""

from __future__ import annotations

from typing import Any


def _figure(width: float = 9.0, height: float = 4.2, **margins: float) -> Any:
    """A figure with fixed margins in inches (see ``margins``): a constrained layout would
    measure every label before drawing, which costs more than the drawing itself."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height))
    set_margins(figure, **margins)
    return figure


def set_margins(
    figure: Any,
    *,
    left: float = 0.75,
    right: float = 1.9,
    top: float = 0.45,
    bottom: float = 0.55,
    hspace: float = 0.35,
    wspace: float = 0.25,
) -> None:
    """Margins in inches: room on the right for the legend beside the plot (``_legend``),
    on top for a one-line title, below for the axis label."""
    width, height = figure.get_size_inches()
    figure.subplots_adjust(
        left=left / width, right=1 - right / width, top=1 - top / height,
        bottom=bottom / height, hspace=hspace, wspace=wspace,
    )  # fmt: skip


def _title(runs: Any, what: str) -> str:
    runs = runs if isinstance(runs, list) else [runs]
    meta = runs[0].meta
    seeds = ", ".join(str(run.meta.get("seed")) for run in runs)
    plural = "s" if len(runs) > 1 else ""
    return f"{what} · {meta.get('preset')} · seed{plural} {seeds}"


def _legend(axis: Any) -> None:
    """The legend beside the plot (never over a line), when anything is labelled."""
    if axis.get_legend_handles_labels()[0]:
        axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)


__all__ = ["_figure", "_legend", "_title", "set_margins"]
