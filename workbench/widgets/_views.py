"""The HTML the panel shows: the scorecard, the failure list and the status line."""

from __future__ import annotations

import html
import os
import posixpath
import urllib.parse
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from workbench.report._format import TABLE_CSS, html_table

_MAX_FAILURES = 50
_SCROLL = '<div style="max-width:100%; overflow-x:auto">'
_HIDDEN = ("latency_s",)
RED = "#b00020"
AMBER = "#8a5a00"


def scorecard_html(card: pd.DataFrame) -> str:
    """The scorecard formatted for reading, fitted to the cell (last_error wraps)."""
    if card.empty:
        return ""
    shown = card.drop(columns=[c for c in _HIDDEN if c in card.columns])
    table = html_table(shown, "workbench-scorecard-table")
    return f"<style>{TABLE_CSS}</style>{_SCROLL}{table}</div>"


def failures_html(failures: pd.DataFrame) -> str:
    """A collapsed list of every failed decision; each opens on the agent's traceback."""
    if failures.empty:
        return ""
    by_arm = failures.groupby("arm", sort=False).size()
    counts = ", ".join(f"{html.escape(str(arm))}: {n:,}" for arm, n in by_arm.items())
    items = [_failure(row) for row in failures.head(_MAX_FAILURES).to_dict("records")]
    more = len(failures) - _MAX_FAILURES
    if more > 0:
        items.append(f"<li>… and {more:,} more (all of them are in results.errors)</li>")
    return (
        f'<details class="workbench-failure-list"><summary style="color:{RED}">'
        f"{len(failures):,} failed decision(s) — {counts} (click to expand)</summary>"
        f'<ul style="margin:0.3em 0">{"".join(items)}</ul></details>'
    )


def _failure(row: dict) -> str:
    where = f"seed {row['seed']} · {row['arm']} · day {row['day']} step {row['step']}"
    head = html.escape(f"{where} · {row['kind']}: {row['message']}")
    trace = str(row.get("traceback") or "") or "(no traceback: the answer itself was invalid)"
    return (
        f'<li><details class="workbench-failure"><summary>{head}</summary>'
        f'<pre style="white-space:pre-wrap; font-size:0.8em">{html.escape(trace)}</pre>'
        "</details></li>"
    )


def status_html(text: str, *, colour: str = "inherit", link: str = "") -> str:
    anchor = ""
    if link:
        target = html.escape(link, quote=True)
        anchor = (
            f' · <a href="{target}" target="_blank" style="text-decoration:underline">report</a>'
        )
    return f'<span style="color:{colour}">{html.escape(text)}</span>{anchor}'


def report_href(report: Path, environ: Mapping[str, str] = os.environ) -> str:
    """Where the status line's link finds the report.

    In JupyterLab: the path relative to the kernel's folder, which is the notebook's,
    so Lab opens it from there. Under Voilà (its kernels carry ``VOILA_SERVER_URL``):
    the same path under Voilà's ``voila/files/`` route, which serves the folder it was
    started on, so from the notebook's folder below it (read from the page's URL).
    """
    try:
        relative = Path(os.path.relpath(report.resolve(), Path.cwd())).as_posix()
    except ValueError:  # another drive
        return str(report.resolve())
    server = environ.get("VOILA_SERVER_URL")
    if server is None:
        return relative
    page = urllib.parse.urlparse(environ.get("VOILA_REQUEST_URL", "")).path
    _, rendered, notebook = page.partition("/voila/render/")
    folder = posixpath.dirname(notebook) if rendered else ""
    return posixpath.join(server if server.endswith("/") else server + "/", "voila/files",
                          folder, relative)  # fmt: skip
