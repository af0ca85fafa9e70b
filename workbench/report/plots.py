"""Matplotlib figures from ``Results``: equity, drawdowns, returns across seeds, orders on price.

Figures are built with ``matplotlib.figure.Figure`` directly, never pyplot, so
drawing touches no global state: safe in a kernel with any backend, in threads,
and in batch runs. ``png_bytes`` renders a figure to PNG with no timestamp, so
the same results give the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench.report._data import ResultsLike, as_results, as_runs, price_path

_DPI = 100


def _figure(width: float = 9.0, height: float = 4.2) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _title(results: Any, what: str) -> str:
    meta = results.meta
    return f"{what} · preset {meta.get('preset')} · seed {meta.get('seed')}"


def equity_figure(results: ResultsLike) -> Any:
    """Each arm's equity, rebased to 100 at the start."""
    results = as_results(results)
    figure = _figure()
    axis = figure.add_subplot()
    equity = results.equity.reset_index(drop=True)
    for arm in equity.columns:
        axis.plot(equity.index, equity[arm] / equity[arm].iloc[0] * 100, label=arm, lw=1.4)
    axis.set(xlabel="step", ylabel="equity (start = 100)", title=_title(results, "Equity"))
    axis.grid(alpha=0.3)
    axis.legend(loc="best", fontsize=8)
    return figure


def drawdown_table(results: ResultsLike) -> pd.DataFrame:
    """Per arm and step, the fall from the running peak of equity, in percent (<= 0)."""
    equity = as_results(results).equity.reset_index(drop=True)
    return (equity / equity.cummax() - 1.0) * 100.0


def drawdown_figure(results: ResultsLike) -> Any:
    results = as_results(results)
    figure = _figure(9.0, 3.6)
    axis = figure.add_subplot()
    table = drawdown_table(results)
    for arm in table.columns:
        axis.plot(table.index, table[arm], label=arm, lw=1.2)
    axis.set(xlabel="step", ylabel="drawdown %", title=_title(results, "Drawdown"))
    axis.grid(alpha=0.3)
    axis.legend(loc="lower left", fontsize=8)
    return figure


def returns_by_seed(runs: Sequence[ResultsLike] | ResultsLike) -> pd.DataFrame:
    """Total return % with one row per run (seed) and one column per arm."""
    rows = {}
    for i, run in enumerate(as_runs(runs)):
        label = run.meta.get("seed", i)
        rows[label if label not in rows else f"{label}#{i}"] = run.scorecard["return_pct"]
    table = pd.DataFrame(rows).T
    table.index.name = "seed"
    return table


def returns_figure(runs: Sequence[ResultsLike] | ResultsLike) -> Any:
    """Per arm, the distribution of total return across seeds (box plus every seed as a dot)."""
    table = returns_by_seed(runs)
    figure = _figure(9.0, 3.8)
    axis = figure.add_subplot()
    arms = list(table.columns)
    axis.boxplot([table[a].to_numpy() for a in arms], tick_labels=arms, widths=0.5)
    offsets = np.linspace(-0.12, 0.12, len(table)) if len(table) > 1 else np.zeros(1)
    for i, arm in enumerate(arms, start=1):
        axis.scatter(i + offsets, table[arm], s=14, alpha=0.7, zorder=3)
    axis.axhline(0.0, color="grey", lw=0.8)
    axis.set(ylabel="return %", title=f"Return across {len(table)} seed(s)")
    axis.grid(alpha=0.3, axis="y")
    axis.tick_params(axis="x", labelrotation=20)
    return figure


def busiest_symbol(results: ResultsLike) -> str | None:
    """The symbol with the most filled shares across arms (ties: alphabetical)."""
    orders = as_results(results).orders
    if orders.empty or "quantity" not in orders:
        return None
    filled = orders[orders["quantity"].astype(float) > 0]
    if filled.empty:
        return None
    volume = filled.groupby("symbol")["quantity"].sum()
    return str(volume[volume == volume.max()].sort_index().index[0])


def orders_figure(results: ResultsLike, symbol: str | None = None) -> Any:
    """One symbol's price with every arm's fills on it (▲ buy, ▼ sell)."""
    results = as_results(results)
    symbol = symbol or busiest_symbol(results) or (results.meta.get("symbols") or [None])[0]
    figure = _figure(9.0, 3.8)
    axis = figure.add_subplot()
    prices = price_path(results.meta, symbol) if symbol else None
    if prices is not None:
        axis.plot(np.arange(prices.size), prices, color="black", lw=1.0, label=f"{symbol} close")
    _draw_fills(axis, results, symbol, int(results.meta.get("steps_per_day") or 1))
    axis.set(xlabel="step", ylabel="price", title=_title(results, f"Orders on {symbol}"))
    axis.grid(alpha=0.3)
    axis.legend(loc="best", fontsize=8)
    return figure


def _draw_fills(axis: Any, results: Any, symbol: str | None, steps: int) -> None:
    orders = results.orders
    if orders.empty or symbol is None:
        return
    mine = orders[(orders["symbol"] == symbol) & (orders["quantity"].astype(float) > 0)]
    for arm, rows in mine.groupby("arm", sort=False):
        # an order decided at step k is executed against the next step's bar
        x = rows["day"].astype(int) * steps + rows["step"].astype(int) + 1
        for side, marker in (("buy", "^"), ("sell", "v")):
            pick = (rows["side"] == side).to_numpy()
            if pick.any():
                axis.scatter(
                    x[pick], rows["price"][pick], marker=marker, s=36, label=f"{arm} {side}"
                )


def png_bytes(figure: Any) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return buffer.getvalue()


def save_figure(figure: Any, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(png_bytes(figure))
    return path


def save_equity_plot(results: ResultsLike, path: str | Path) -> Path:
    return save_figure(equity_figure(results), path)


def all_figures(
    runs: Sequence[ResultsLike] | ResultsLike, symbol: str | None = None
) -> dict[str, Any]:
    """The report's figures by file stem; the distribution only for more than one run."""
    runs = as_runs(runs)
    first = runs[0]
    figures = {
        "equity": equity_figure(first),
        "drawdown": drawdown_figure(first),
        "orders": orders_figure(first, symbol),
    }
    if len(runs) > 1:
        figures["returns_by_seed"] = returns_figure(runs)
    return figures
