"""The payload's reading: news, fundamentals and the earnings calendar, point in time.

Built from ``MarketPath.information`` up to the decision row only: an item is in
a payload when it was released by that row's close, a report's figures once it
was released, a consensus once it was published. Days are the payload's own
(trading day 0 is the first decision day; warm-up days are negative). What an
item is worth never leaves the engine.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any

import numpy as np

from workbench.engine.information import Information
from workbench.engine.market import MarketPath
from workbench.engine.newswire import render
from workbench.schema import NEWS_CAP


def news(path: MarketPath, after: int, until: int) -> dict[str, Any]:
    """``news`` (items released after row ``after`` up to the close of ``until``, newest
    first, at most NEWS_CAP) and ``news_omitted`` (how many more there were); on historical
    bars, the researcher's items seen by then (``workbench.engine.textfeed``)."""
    if path.text is not None:
        return path.text.news(after, until)
    info = _information(path)
    rows = _rows(info, "items", lambda: info.items.row)
    low, high = bisect.bisect_right(rows, after), bisect.bisect_right(rows, until)
    newest = range(high - 1, max(low, high - NEWS_CAP) - 1, -1)
    return {"news": [item(path, i) for i in newest], "news_omitted": max(0, high - low - NEWS_CAP)}


def parts(path: MarketPath, row: int) -> dict[str, Any] | None:
    """What a payload reads beside the prices at row ``row``: ``fundamentals`` and
    ``calendar`` on a market that publishes information; on historical bars with a
    researcher's text, the reports if any (no calendar is known in advance); None on prices
    alone. The news is the arm's (``news``): it depends on when the arm last decided."""
    if path.information is not None:
        return {"fundamentals": fundamentals(path, row), "calendar": calendar(path, row)}
    if path.text is None:
        return None
    return {"fundamentals": path.text.fundamentals(row)} if path.text.has_fundamentals else {}


def parts_by_row(path: MarketPath) -> list[dict[str, Any] | None] | None:
    """``parts`` at every row of a path that publishes no information (prices alone, or
    historical bars with a researcher's text), looked up once for the run: a run asks at
    every decision, and the reports change only when one is seen. None on a market that
    publishes information, whose calendars are built as its decisions ask for them."""
    if path.information is not None:
        return None
    if path.text is None:
        return [None] * path.steps
    return [parts(path, row) for row in range(path.steps)]


def item(path: MarketPath, i: int) -> dict[str, Any]:
    """Item ``i`` as the payload carries it (rendered once per path, then reused)."""
    info = _information(path)
    cache = info.rendered
    if i not in cache:
        row = int(info.items.row[i]) - path.warmup_steps
        day, step = divmod(row, path.steps_per_day)
        universe = path.universe
        cache[i] = {
            "id": i,
            "day": day,
            "step": step,
            **render(info, i, universe.symbols, universe.sectors),
        }
    return cache[i]


def fundamentals(path: MarketPath, row: int) -> dict[str, Any]:
    """Each symbol's last report released by the close of ``row`` (None before its first).

    It changes only when a report is released, so it is built once per report."""
    info = _information(path)
    released = bisect.bisect_right(_report_rows(path, info), row)
    key = ("fundamentals", released)
    if key not in info.memo:
        info.memo[key] = _fundamentals(path, info, released)
    return info.memo[key]


def _fundamentals(path: MarketPath, info: Information, count: int) -> dict[str, Any]:
    e, figures = info.earnings, info.earnings.figures
    released = np.arange(count)
    last = np.full(path.universe.size, -1)
    np.maximum.at(last, e.name[released], released)
    out: dict[str, Any] = {}
    for n, symbol in enumerate(path.universe.symbols):
        r = int(last[n])
        out[symbol] = None if r < 0 else {
            "report_day": int(e.day[r]) - path.warmup_days,
            "eps": float(figures["eps"][r]),
            "consensus_eps": float(figures["consensus_eps"][r]),
            "revenue": float(figures["revenue"][r]),
            "net_margin": float(figures["margin"][r]),
            "guidance_eps": float(figures["guidance_eps"][r]),
        }  # fmt: skip
    return out


def calendar(path: MarketPath, row: int) -> dict[str, Any]:
    """Each symbol's next report date and, once published, its consensus EPS (built once
    per change: a report released or a consensus published)."""
    info = _information(path)
    steps = path.steps_per_day
    released = bisect.bisect_right(_report_rows(path, info), row)
    consensus = _rows(info, "consensus", lambda: _consensus_days(info) * steps + steps - 1)
    key = ("calendar", released, bisect.bisect_right(consensus, row))
    if key not in info.memo:
        info.memo[key] = _calendar(path, info, row)
    return info.memo[key]


def _calendar(path: MarketPath, info: Information, row: int) -> dict[str, Any]:
    """Every symbol's next report: one the run simulates, or else its first after the run
    (the calendar is known in advance, so the run's length never shows in it)."""
    e, steps = info.earnings, path.steps_per_day
    coming = np.flatnonzero(e.day * steps - 1 > row)
    none = np.iinfo(np.int64).max
    first = np.full(path.universe.size, none)
    np.minimum.at(first, e.name[coming], coming)
    in_run = first != none  # the name's next report is one the run simulates
    at = np.where(in_run, first, 0)
    after = info.after_run

    def next_report(run: np.ndarray, after_run: np.ndarray) -> np.ndarray:
        return np.where(in_run, run[at], after_run) if run.size else after_run

    days = next_report(e.day, after["day"]).astype(np.int64).tolist()
    consensus_days = next_report(e.figures["consensus_day"], after["consensus_day"])
    consensus = next_report(e.figures["consensus_eps"], after["consensus_eps"])
    published = (consensus_days * steps + steps - 1 <= row).tolist()
    consensus = consensus.astype(float).tolist()
    return {
        symbol: {
            "report_day": day - path.warmup_days,
            "consensus_eps": eps if shown else None,
        }
        for symbol, day, eps, shown in zip(
            path.universe.symbols, days, consensus, published, strict=True
        )
    }


def _consensus_days(info: Information) -> np.ndarray:
    """The days a consensus is published, in order: the run's reports' and the first
    after the run's that fall inside it."""
    after = info.after_run
    inside = ~np.isnan(after["consensus_eps"])  # published in the run
    return np.sort(
        np.concatenate([info.earnings.figures["consensus_day"], after["consensus_day"][inside]])
    )


def _report_rows(path: MarketPath, info: Information) -> list[int]:
    """The rows after whose close each report is released, in order."""
    return _rows(info, "reports", lambda: info.earnings.day * path.steps_per_day - 1)


def _rows(info: Information, name: str, rows: Callable[[], np.ndarray]) -> list[int]:
    """A sorted row column as a list, kept: a scalar bisect is many times a NumPy call's
    speed, and a run asks at every decision."""
    key = ("rows", name)
    if key not in info.memo:
        info.memo[key] = rows().tolist()
    return info.memo[key]


def _information(path: MarketPath) -> Information:
    if path.information is None:
        raise ValueError("this market publishes no information")
    return path.information
