"""The decision diff as a report section: where two runs parted, and what each parting made.

``diff_section(diff)`` is the HTML section (it fits any report page);
``write_diff_report(diff, path)`` writes it as one self-contained page;
``format_diff(diff)`` is the same as plain text for a terminal.
"""

from __future__ import annotations

import html
import math
from pathlib import Path
from typing import Any

from workbench.evaluation.divergence import DecisionDiff

TABLE_CSS = """
table.diff { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.diff td, table.diff th { border-bottom: 1px solid #ddd; padding: .3rem .5rem;
  text-align: left; vertical-align: top; overflow-wrap: break-word; }
table.diff td.num { text-align: right; font-variant-numeric: tabular-nums; }
"""
_CSS = (
    """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1050px; color: #222;
  padding: 0 1rem; }
"""
    + TABLE_CSS
)


def headline(diff: DecisionDiff) -> str:
    """One sentence: both P&Ls, the gap, how many partings, and how exact the split is."""
    exact = "exactly" if diff.residual == 0.0 else f"to within {abs(diff.residual):.3g}"
    return (
        f"P&L A {_money(diff.equity_a - diff.capital)}, B {_money(diff.equity_b - diff.capital)}: "
        f"a gap of {_money(diff.gap)} (B - A) over {len(diff.divergences)} parting(s) in "
        f"{diff.decisions} decision point(s); the parts sum to it {exact}."
    )


def diff_section(diff: DecisionDiff) -> str:
    """The section: the headline, the first parting side by side, every parting's part."""
    parts = [
        '<h2 id="decision-diff">Where the runs parted</h2>',
        f"<p>A: {_e(diff.a)} ({_e(diff.arm_a)}) &middot; B: {_e(diff.b)} ({_e(diff.arm_b)})</p>",
        f"<p>{_e(headline(diff))}</p>",
        *(f"<p><strong>Note:</strong> {_e(note)}</p>" for note in diff.notes),
    ]
    first = diff.first()
    if first is None:
        parts.append("<p>The two runs made the same decisions at every step.</p>")
        return "\n".join(parts)
    parts += [
        f"<h3>First parting: {_where(first)}</h3>",
        '<table class="diff"><tr><th></th><th>A</th><th>B</th></tr>',
        f"<tr><th>decision</th><td>{_e(first['a'])}</td><td>{_e(first['b'])}</td></tr>",
        f"<tr><th>rationale</th><td>{_e(first['rationale_a'])}</td>"
        f"<td>{_e(first['rationale_b'])}</td></tr></table>",
        "<h3>The gap, split over the partings</h3>",
        _table(diff),
    ]
    return "\n".join(parts)


def write_diff_report(diff: DecisionDiff, path: str | Path) -> Path:
    """The section as one HTML page (no external file, opens offline)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Decision diff</title><style>{_CSS}</style></head>\n"
        f"<body>\n<h1>Decision diff</h1>\n{diff_section(diff)}\n</body></html>\n"
    )
    target.write_text(page, encoding="utf-8")
    return target


def format_diff(diff: DecisionDiff) -> str:
    """The diff as text: headline, first parting with both rationales, the split table."""
    lines = [f"A: {diff.a} ({diff.arm_a})", f"B: {diff.b} ({diff.arm_b})", headline(diff)]
    lines += [f"note: {note}" for note in diff.notes]
    first = diff.first()
    if first is None:
        return "\n".join([*lines, "the two runs made the same decisions at every step"])
    lines += [
        f"first parting: {_where(first)}",
        f"  A: {first['a']}  -- {first['rationale_a']}",
        f"  B: {first['b']}  -- {first['rationale_b']}",
        "",
        diff.table().to_string(
            index=False,
            formatters={"pnl_part": _money, "share_of_gap": "{:.1%}".format},
        ),
    ]
    return "\n".join(lines)


def _table(diff: DecisionDiff) -> str:
    rows = [
        '<table class="diff"><tr><th>day</th><th>step</th><th>A</th><th>B</th>'
        "<th>part of the gap</th><th>share</th></tr>"
    ]
    for row in diff.table().to_dict(orient="records"):
        rows.append(
            f"<tr><td>{row['day']}</td><td>{row['step']}</td><td>{_e(row['a'])}</td>"
            f'<td>{_e(row["b"])}</td><td class="num">{_money(row["pnl_part"])}</td>'
            f'<td class="num">{row["share_of_gap"]:.1%}</td></tr>'
        )
    total = _money(math.fsum(diff.parts))
    rows.append(f'<tr><th colspan="4">sum</th><td class="num">{total}</td><td></td></tr>')
    return "\n".join([*rows, "</table>"])


def _where(parting: dict[str, Any]) -> str:
    """The report's words for a step: its trading day and its step counted from 1 (the
    ``step`` column of ``DecisionDiff.table()`` counts from 0)."""
    return f"trading day {parting['day']}, step {int(parting['step']) + 1}"


def _money(value: float) -> str:
    return f"{value:+,.2f}"


def _e(text: object) -> str:
    return html.escape(str(text))
