"""The tearsheet's tables in the report: headline metrics with their spread over seeds,
returns by month and year as a heatmap, and each arm's worst drawdowns.

Each function takes the runs (one per seed) and returns a section's title and HTML,
or None when it has nothing to show. The numbers come from
``workbench.evaluation.tearsheet_frames``; the formats from ``_format``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench.evaluation import tearsheet_frames as frames
from workbench.report._format import number


def spread_section(
    runs: Sequence[Any], sheets: Sequence[pd.DataFrame] | None = None
) -> tuple[str, str] | None:
    """Per arm, each headline metric as mean ± sd over seeds, and its 95 % interval with
    three seeds or more; None for one run. ``sheets`` are the runs' tearsheets (or
    ``key_metrics``) when the caller has them."""
    from workbench.report.tearsheet import defined_table

    if len(runs) < 2:
        return None
    spread = frames.seed_spread(sheets or [run.tearsheet() for run in runs])
    cells = {
        arm: {m: _spread_text(m, spread.loc[(arm, m)], len(runs)) for m in frames.HEADLINE}
        for arm in dict.fromkeys(spread.index.get_level_values("arm"))
    }
    table = pd.DataFrame.from_dict(cells, orient="index")
    table.index.name = "arm"
    interval = "; [low, high] is the 95 % Student-t interval of the mean" if len(runs) >= 3 else ""
    note = (
        f'<p class="note">Mean ± sample standard deviation over {len(runs)} seeds{interval} '
        "(seed_mean, seed_sd, seed_ci_low, seed_ci_high in the glossary); a cell over fewer "
        "seeds (a metric a seed could not measure) says how many, and one with a single "
        "seed has no spread. Per seed: the tearsheet of each run.</p>"
    )
    name = f"Headline metrics (mean ± sd over {len(runs)} seeds)"
    return name, note + defined_table(table, "spread")


def _spread_text(metric: str, row: pd.Series, total: int) -> str:
    """``mean ± sd [low, high]``; no ``±`` without a spread, and the count of seeds when
    fewer than ``total`` measured the metric."""
    text = number(metric, row["seed_mean"])
    if np.isfinite(row["seed_sd"]):
        text += " ± " + number(metric, abs(row["seed_sd"])).lstrip("+")  # a spread has no sign
    if np.isfinite(row["seed_ci_low"]):
        text += f" [{number(metric, row['seed_ci_low'])}, {number(metric, row['seed_ci_high'])}]"
    seeds = int(row["seeds"])
    if text and seeds < total:
        text += f" ({seeds} of {total} seeds)"
    return text


def calendar_section(runs: Sequence[Any]) -> tuple[str, str]:
    """Each arm's compounded return by month and year, cells shaded by sign and size;
    calendar months on historical bars, trading months of 21 days otherwise."""
    dated = bool(runs[0].meta.get("dates"))
    parts = []
    for arm in runs[0].equity.columns:
        tables = [frames.calendar_returns(run, arm) for run in runs]
        table = tables[0] if len(tables) == 1 else _mean_of(tables)
        parts.append(f"<h3>{html.escape(str(arm))}</h3>{heatmap(table)}")
    how = (
        "calendar months of the bars' dates"
        if dated
        else f"trading months of {frames.TRADING_MONTH} day returns (M1..M12 of a 252-day "
        "trading year; the simulator has no calendar)"
    )
    seeds = "" if len(runs) == 1 else f"; the mean over {len(runs)} seeds"
    note = (
        f'<p class="note">Day returns compounded over {how}{seeds}; "year" compounds the '
        "whole year (monthly_return_pct in the glossary).</p>"
    )
    return "Returns by month and year", note + "".join(parts)


def _mean_of(tables: list[pd.DataFrame]) -> pd.DataFrame:
    stacked = pd.concat(tables, keys=range(len(tables)))
    return stacked.groupby(level=1, sort=False).mean()


def heatmap(table: pd.DataFrame) -> str:
    """Return % by (year, month) as a table whose cells are green for gains and red for
    losses, darker for larger moves (scaled to the largest month)."""
    months = [c for c in table.columns if c != "year"]
    scale = float(np.nanmax(np.abs(table[months].to_numpy(dtype=float)), initial=0.0)) or 1.0
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in table.columns)
    rows = []
    for label, values in table.iterrows():
        cells = "".join(
            _heat_cell(values[c], scale if c != "year" else None) for c in table.columns
        )
        rows.append(f"<tr><th>{html.escape(str(label))}</th>{cells}</tr>")
    index = html.escape(str(table.index.name or ""))
    return (
        f'<div class="table"><table class="readable heatmap"><thead><tr><th>{index}</th>'
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _heat_cell(value: float, scale: float | None) -> str:
    text = html.escape(number("return_pct", value))
    if scale is None or not np.isfinite(value):
        return f"<td>{text}</td>"
    alpha = min(1.0, abs(value) / scale) * 0.6
    colour = "0, 140, 60" if value >= 0 else "200, 30, 30"
    return f'<td style="background: rgba({colour}, {alpha:.2f})">{text}</td>'


def drawdowns_section(runs: Sequence[Any], top: int = 5) -> tuple[str, str]:
    """The first run's ``top`` deepest drawdowns of every arm: peak, trough, recovery."""
    from workbench.report.tearsheet import defined_table

    first = runs[0]
    table = pd.concat(
        {arm: frames.worst_drawdowns(first, arm, top) for arm in first.equity.columns},
        names=["arm", "rank"],
    )
    when = "dates" if first.meta.get("dates") else "trading days (fractions are steps)"
    seed = "" if len(runs) == 1 else f" of seed {first.meta.get('seed')}"
    title = "Worst drawdowns" + ("" if len(runs) == 1 else f" (seed {first.meta.get('seed')})")
    note = (
        f'<p class="note">The {top} deepest falls from a running peak{seed}, in {when}; '
        '"not recovered" is a drawdown still open at the end.</p>'
    )
    return title, note + defined_table(table, "drawdowns")


__all__ = ["calendar_section", "drawdowns_section", "heatmap", "spread_section"]
