"""Matplotlib figures from a ``Results`` object (Agg backend, no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from workbench.evaluation.results import Results


def equity_figure(results: Results) -> Any:
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(9, 4.5))
    equity = results.equity.reset_index(drop=True)
    for arm in equity.columns:
        axis.plot(equity.index, equity[arm] / equity[arm].iloc[0] * 100, label=arm, lw=1.4)
    axis.set_xlabel("step")
    axis.set_ylabel("equity (start = 100)")
    axis.set_title(
        f"Equity by arm · preset {results.meta.get('preset')} · seed {results.meta.get('seed')}"
    )
    axis.grid(alpha=0.3)
    axis.legend(loc="best", fontsize=8)
    figure.tight_layout()
    return figure


def save_equity_plot(results: Results, path: str | Path) -> Path:
    import matplotlib.pyplot as plt

    figure = equity_figure(results)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(figure)
    return path
