"""The report's section on the text leak report: words in the masked text that name a company.

A run on historical bars with news masks the symbols and the company names it was
given; the leak report (``workbench.evaluation.textleaks``) lists the words left
that still point at one name (a product, a city, a chief executive). The section
lists them per alias, with the real symbol beside it for the researcher, and says
how to extend the names map so the next run masks them too. A report is given
the table by its caller (``render_report(..., leaks=text_leaks(data))``); with no
table there is no section, and an empty table says that no word stood out.
"""

from __future__ import annotations

import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation.textleaks import LEAK_COLUMNS
from workbench.report._format import html_table

TITLE = "Text leak report"
EXTEND = (
    "To mask a listed word, add it to the names map as another name of its company: a "
    "<code>symbol,name</code> row in the company-names file (<code>--company-names</code>, "
    "the notebooks' <code>company_names</code>), or "
    "<code>names={&quot;ACME&quot;: [&quot;Acme Industries&quot;, &quot;Zephyrix&quot;]}"
    "</code> in Python; run again and the list empties."
)


def leak_report_section(table: pd.DataFrame | None) -> tuple[str, str] | None:
    """(title, HTML) of the leak report, or None when the run was given no table."""
    if table is None:
        return None
    check_leak_table(table)
    if table.empty:
        found = "<p>No word left in the masked text points at one name more than chance.</p>"
        return TITLE, found
    intro = (
        f"<p>{len(table)} word(s) left in the masked text still point at one name: each "
        "shows up in that name's items far more often than its share of the items.</p>"
    )
    listing = f'<div class="table">{html_table(per_alias(table), "leaks")}</div>'
    detail = f'<div class="table">{html_table(table, "leak-tokens", index=False)}</div>'
    return TITLE, intro + listing + f"<p>{EXTEND}</p>" + detail


def check_leak_table(table: object) -> None:
    """A leak report as ``text_leaks(data)`` gives it; anything else is refused by name."""
    fix = "pass leaks=text_leaks(data) (workbench.services), the table of a run with news"
    if not isinstance(table, pd.DataFrame):
        raise ConfigError(f"leaks= is a table of words, got {type(table).__name__}; {fix}")
    missing = [c for c in LEAK_COLUMNS if c not in table.columns]
    if missing:
        raise ConfigError(f"leaks= lacks the column(s) {', '.join(missing)}; {fix}")


def per_alias(table: pd.DataFrame) -> pd.DataFrame:
    """One row per alias, the alias of the most telling word first: its real symbol and the
    words that identify it, most telling first, each with the items it is seen in with that
    name and in all (``Roadrunner (10 of 10 items)``)."""
    ordered = table.sort_values(["p_value", "token"], kind="stable")
    rows = {
        alias: {
            "symbol": str(group["symbol"].iloc[0]),
            "tokens": ", ".join(
                f"{token} ({with_name} of {items} items)"
                for token, with_name, items in zip(
                    group["token"], group["with_name"], group["items"], strict=True
                )
            ),
        }
        for alias, group in ordered.groupby("alias", sort=False)
    }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "alias"
    return frame
