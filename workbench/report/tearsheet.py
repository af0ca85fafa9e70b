"""The sections of the HTML tearsheet, each a function from runs to HTML.

Provenance first (what produced the numbers, so a shared file can be checked),
then the key metrics with their definitions from the one glossary
(``workbench.evaluation.glossary``: a hover title on every header and numbered
definitions under the table), then the trade list, each arm's failures and the
committee's memos. Plots are added by ``html``.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from workbench.evaluation.results import Results
from workbench.report._data import attribution_of, errors_by_arm, key_metrics_over, trade_list
from workbench.report._format import html_table, shortened

MAX_TRADES = 100
MAX_ERRORS = 20
MAX_MEMOS = 20


def glossary_entries() -> dict[str, tuple[str, str]]:
    """Every metric definition the glossary holds (scorecard, information, tearsheet,
    comparison, attribution)."""
    from workbench.evaluation.glossary import (
        ATTRIBUTION,
        COMPARISON,
        INFORMATION,
        METRICS,
        OVER_TIME,
        TEARSHEET,
    )

    return {**METRICS, **INFORMATION, **TEARSHEET, **OVER_TIME, **COMPARISON, **ATTRIBUTION}


def header(facts: Mapping[str, str]) -> str:
    """The provenance table; a digest shows its first characters, the whole on hover (and
    in the footer)."""
    rows = "".join(f"<tr><th>{html.escape(k)}</th>{_fact(v)}</tr>" for k, v in facts.items())
    return f'<table class="provenance"><tbody>{rows}</tbody></table>'


def _fact(value: str) -> str:
    shown = shortened(value)
    hover = f' title="{html.escape(value)}"' if shown != value else ""
    return f"<td{hover}>{html.escape(shown)}</td>"


def defined_table(frame: pd.DataFrame, css: str, *, index: bool = True) -> str:
    """A table whose headers carry their glossary definition (hover), numbered below."""
    entries = glossary_entries()
    defined = [str(c) for c in frame.columns if str(c) in entries]
    titles = {name: f"{entries[name][0]} Pitfall: {entries[name][1]}" for name in defined}
    table = html_table(frame, css, index=index, titles=titles)
    notes = "".join(
        f"<li><b>{html.escape(n)}</b>: {html.escape(entries[n][0])} "
        f'<span class="pitfall">Pitfall: {html.escape(entries[n][1])}</span></li>'
        for n in defined
    )
    return f'<div class="table">{table}</div><ol class="definitions">{notes}</ol>'


# the key metrics in groups of a few columns each, so every table fits the page
KEY_GROUPS = {
    "Return": ("return_pct", "pnl", "annual_return_pct", "sharpe", "sortino", "calmar",
               "hit_rate_pct"),
    "Risk": ("annual_volatility_pct", "max_drawdown_pct", "var_95_pct", "cvar_95_pct",
             "best_day_pct", "worst_day_pct", "skew", "kurtosis"),
    "Against the benchmark": ("benchmark", "beta", "alpha_pct", "tracking_error_pct",
                              "information_ratio"),
    "Activity": ("avg_gross_exposure", "turnover", "trades", "errors", "decisions",
                 "model_calls", "tokens", "cost_usd"),
}  # fmt: skip


def key_metrics_section(
    runs: Sequence[Results], sheets: Sequence[pd.DataFrame] | None = None
) -> tuple[str, str]:
    """The key metrics as one table per group of ``KEY_GROUPS`` (columns the run lacks are
    left out, any the groups do not name go last), one row per arm; ``sheets`` are the
    runs' ``key_metrics`` when the caller has them. A seed stopped before the others'
    length (a stopped run) is left out of the mean and named in the title."""
    whole = complete_seeds(runs)
    name = _key_title(runs, whole)
    picked = [runs[k] for k in whole]
    table = key_metrics_over(picked, None if sheets is None else [sheets[k] for k in whole])
    named = {column for group in KEY_GROUPS.values() for column in group}
    groups = {**KEY_GROUPS, "Other": tuple(c for c in table.columns if c not in named)}
    parts = []
    for group, columns in groups.items():
        shown = [c for c in columns if c in table.columns]
        if shown:
            css = "key-metrics key-" + group.split()[0].lower()
            parts.append(f"<h3>{html.escape(group)}</h3>{defined_table(table[shown], css)}")
    return name, "".join(parts)


def _key_title(runs: Sequence[Results], whole: list[int]) -> str:
    if len(runs) == 1:
        return "Key metrics"
    cut = [str(run.meta.get("seed")) for k, run in enumerate(runs) if k not in whole]
    stopped = f"; seed {', '.join(cut)} stopped early, left out" if cut else ""
    return f"Key metrics (mean over {len(whole)} seeds{stopped})"


def complete_seeds(runs: Sequence[Results]) -> list[int]:
    """Positions of the runs that reached the longest run's length (all of them when
    every run did)."""
    longest = max(len(run.equity) for run in runs)
    return [k for k, run in enumerate(runs) if len(run.equity) == longest]


_ATTRIBUTION_SHOWN = (
    "market", "sector", "selection", "timing", "costs", "bust_floor", "pnl",
    "lost_to_clips", "lost_to_refusals",
)  # fmt: skip


def attribution_section(runs: Sequence[Results]) -> tuple[str, str] | None:
    """Each arm's P&L by source over the run (the mean over seeds), or None when the runs
    cannot be attributed (historical results read back from a file)."""
    from workbench.evaluation.attribution_frame import attribution_totals

    frames = [attribution_of(run) for run in runs]
    if any(frame.empty for frame in frames):
        return None
    totals = [attribution_totals(frame) for frame in frames]
    table = pd.concat(totals).groupby(level=0, sort=False)[list(_ATTRIBUTION_SHOWN)].mean()
    estimated = any(bool(t["estimated"].any()) for t in totals)
    how = (
        "a regression estimate (equal-weight market and sector indices, trailing loadings)"
        if estimated
        else "exact, from the simulator's own factor paths"
    )
    note = (
        f'<p class="note">The sources sum to each arm\'s P&amp;L; the split is {how}. '
        "Lost opportunity is measured beside the sum, never in it. Per step: "
        "results.attribution.</p>"
    )
    name = "P&L by source" + ("" if len(runs) == 1 else f" (mean over {len(runs)} seeds)")
    return name, note + defined_table(table, "attribution")


def trades_section(runs: Sequence[Results]) -> tuple[str, str]:
    trades = trade_list(runs)
    if trades.empty:
        return "Trades (0)", "<p>No order was filled.</p>"
    shown = trades.head(MAX_TRADES)
    note = (
        f'<p class="note">Showing the first {len(shown):,} of {len(trades):,} fills; every '
        "order is in orders.parquet.</p>"
        if len(trades) > MAX_TRADES
        else ""
    )
    table = html_table(shown, "trades", index=False)
    return f"Trades ({len(trades):,})", f'{note}<div class="table">{table}</div>'


def errors_section(runs: Sequence[Results]) -> tuple[str, str]:
    summary = errors_by_arm(runs)
    failed = int(summary["errors"].sum())
    parts = [f'<div class="table">{html_table(summary, "errors-by-arm")}</div>']
    if failed:
        rows = pd.concat(
            [r.errors.assign(seed=r.meta.get("seed")) for r in runs if not r.errors.empty]
        )
        columns = [c for c in ("seed", "arm", "day", "step", "kind", "message") if c in rows]
        shown = rows[columns].head(MAX_ERRORS)
        more = f" (first {len(shown):,} of {failed:,})" if failed > len(shown) else ""
        parts.append(f"<h3>Failed decisions{more}</h3>")
        parts.append(f'<div class="table">{html_table(shown, "errors", index=False)}</div>')
    return f"Errors per arm ({failed:,} failed decisions)", "".join(parts)


def memos_section(memos: Mapping[str, Sequence[Mapping[str, Any]]]) -> tuple[str, str]:
    """The committee's memos: what every role said before the executor traded."""
    parts, total = [], 0
    for arm, entries in memos.items():
        total += len(entries)
        parts.append(f"<h3>{html.escape(arm)} ({len(entries):,} decisions)</h3>")
        for entry in list(entries)[:MAX_MEMOS]:
            where = f"day {entry.get('day')} · step {entry.get('step')}"
            text = html.escape(str(entry.get("memo", "")))
            parts.append(f'<div class="memo"><b>{where}</b><pre>{text}</pre></div>')
        if len(entries) > MAX_MEMOS:
            parts.append(f'<p class="note">… and {len(entries) - MAX_MEMOS:,} more memos.</p>')
    return f"Committee memos ({total:,})", "".join(parts)


def memos_of(agents: Sequence[Any]) -> dict[str, list[dict[str, Any]]]:
    """The memos a committee arm kept (``agent.decision_log``), by arm name; others are skipped."""
    found = {}
    for agent in agents:
        log = getattr(agent, "decision_log", None)
        if isinstance(log, list) and any("memo" in entry for entry in log):
            found[str(agent.name)] = [e for e in log if "memo" in e]
    return found
