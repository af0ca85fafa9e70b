"""Synthetic news and fundamentals for the example bars, to try text on bars offline.

No third-party text ships with the workbench; this stands in for it. Every item
is written from the bars themselves and dated with its time zone:

- after each close, a market wrap on a name whose move was large (its price and
  the move, published 16:05–19:00 New York time, so it is first seen at the next
  close);
- before some opens, a company item naming the company and one of its products
  (07:00–09:25), the product being the kind of token the leak report finds;
- each quarter, an earnings report per name: a news item and a fundamentals row
  (``eps``, ``revenue`` in millions, ``net_margin``), published 07:30.

The company names (``COMPANY_NAMES``) are what ``names=`` would mask.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.engine import portable

COMPANY_NAMES = {
    "ACME": "Acme Industries",
    "BOLT": "Bolt Systems",
    "CRUX": "Crux Materials",
    "DUNE": "Dune Energy",
    "EMBR": "Ember Power",
    "FJRD": "Fjord Outfitters",
    "GLOW": "Glow Labs",
    "HALO": "Halo Networks",
}
PRODUCTS = {
    "ACME": "Roadrunner",
    "BOLT": "Thunderbox",
    "CRUX": "Keystone",
    "DUNE": "Sandpiper",
    "EMBR": "Hearthline",
    "FJRD": "Polarwear",
    "GLOW": "Lumina",
    "HALO": "Skymesh",
}
ZONE = "America/New_York"
_QUARTER = 63  # business days
_WRAP_MOVE = 0.02  # a close-to-close move at least this large gets a wrap


def sample_news(bars: pd.DataFrame, *, seed: int = 2024) -> pd.DataFrame:
    """``published, symbols, headline, body, kind`` for ``bars`` (``sample_bars``' shape)."""
    rng = np.random.default_rng(seed)
    close = bars.pivot(index="date", columns="symbol", values="close")
    reports = _reports(close, np.random.default_rng([seed, 1]))
    items = _wraps(close, rng) + _company_items(close, rng) + _earnings_items(reports)
    frame = pd.DataFrame(items, columns=["published", "symbols", "headline", "body", "kind"])
    return frame.sort_values(["published", "symbols"], kind="stable").reset_index(drop=True)


def sample_fundamentals(bars: pd.DataFrame, *, seed: int = 2024) -> pd.DataFrame:
    """``published, symbol, eps, revenue, net_margin``: one report a quarter per name."""
    close = bars.pivot(index="date", columns="symbol", values="close")
    reports = _reports(close, np.random.default_rng([seed, 1]))
    rows = [report[:5] for report in reports]
    return pd.DataFrame(rows, columns=["published", "symbol", "eps", "revenue", "net_margin"])


def _stamp(date: str, minutes: int) -> str:
    """``date`` at ``minutes`` past midnight New York time, with its offset."""
    local = pd.Timestamp(date) + pd.Timedelta(minutes=minutes)
    return local.tz_localize(ZONE).isoformat()


def _wraps(close: pd.DataFrame, rng: np.random.Generator) -> list[tuple]:
    prices = close.to_numpy(float)
    moves = prices[1:] / prices[:-1] - 1.0
    out = []
    for day in range(1, len(close.index)):
        date = str(close.index[day])
        for n, symbol in enumerate(map(str, close.columns)):
            move, price = float(moves[day - 1, n]), float(prices[day, n])
            if abs(move) < _WRAP_MOVE:
                continue
            verb = "jump" if move > 0 else "slide"
            headline = f"{symbol} shares {verb} {abs(move):.1%} to ${price:,.2f}"
            body = (
                f"{COMPANY_NAMES[symbol]} closed at ${price:,.2f} on "
                f"{pd.Timestamp(date):%B %-d, %Y}, a {'gain' if move > 0 else 'loss'} of "
                f"{abs(move):.1%} on the day."
            )
            out.append(
                (_stamp(date, int(rng.integers(965, 1140))), symbol, headline, body, "market")
            )
    return out


def _company_items(close: pd.DataFrame, rng: np.random.Generator) -> list[tuple]:
    out = []
    for date in map(str, close.index[rng.random(len(close.index)) < 0.25]):
        symbol = str(rng.choice(close.columns))
        product = PRODUCTS[symbol]
        good = rng.random() < 0.5
        headline = f"{COMPANY_NAMES[symbol]} {'expands' if good else 'delays'} {product} rollout"
        body = (
            f"{COMPANY_NAMES[symbol]} said the {product} programme is "
            f"{'ahead of' if good else 'behind'} plan; {product} orders were "
            f"{'strong' if good else 'soft'}, the company said in a statement."
        )
        out.append((_stamp(date, int(rng.integers(420, 565))), symbol, headline, body, "company"))
    return out


def _earnings_items(reports: list[tuple]) -> list[tuple]:
    out = []
    for when, symbol, eps, revenue, margin, consensus in reports:
        beat = "beats" if eps >= consensus else "misses"
        headline = f"{symbol} {beat} estimates with EPS ${eps:.2f}"
        body = (
            f"{COMPANY_NAMES[symbol]} reported earnings of ${eps:.2f} a share against a "
            f"consensus of ${consensus:.2f}, on revenue of ${revenue:,.1f} million and a net "
            f"margin of {margin:.1%}."
        )
        out.append((when, symbol, headline, body, "earnings"))
    return out


def _reports(close: pd.DataFrame, rng: np.random.Generator) -> list[tuple]:
    """(published, symbol, eps, revenue, net margin, consensus) a quarter per name (the news
    and the fundamentals draw them from one generator of their own, so they agree)."""
    out, prices = [], close.to_numpy(float)
    for n, symbol in enumerate(close.columns):
        for day in range(_QUARTER // 2 + 7 * n, len(close.index), _QUARTER):
            price = float(prices[day, n])
            eps = round(price / 20 * float(portable.exp(rng.normal(0, 0.15))), 2)
            consensus = round(eps * float(portable.exp(rng.normal(0, 0.05))), 2)
            revenue = round(eps * 400 * float(rng.uniform(0.8, 1.2)), 1)
            margin = round(float(rng.uniform(0.04, 0.2)), 4)
            out.append(
                (_stamp(str(close.index[day]), 450), str(symbol), eps, revenue, margin, consensus)
            )
    return out
