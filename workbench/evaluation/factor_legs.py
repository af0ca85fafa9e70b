"""The two legs of every trading step, per share, with their log components.

Attribution (``workbench.evaluation.attribution``) needs, for the gap (last close
to open) and the session (open to close) of every step, each name's move and
the factors behind it. Two sources:

- ``exact_legs``: the simulator's own paths (``MarketPath.market_factor``,
  ``sector_factors``, their ``*_open`` parts, ``betas``, ``drift``,
  ``variance_drag`` and ``mispricing``), which are how the engine built every
  price, so the split is the truth;
- ``estimated_legs``: historical bars, where nothing is known but prices. The
  market factor is the equal-weight index of the names' log returns over each
  leg; a sector with at least ``MIN_SECTOR_NAMES`` names has an equal-weight
  index too, and its factor is that index less the market's (names in smaller
  sectors have no sector factor: an index of one or two names is mostly the name
  itself). Each name's loadings at a step come from an ordinary least-squares
  regression, with an intercept, of its close-to-close log returns on the
  close-to-close market and sector factors over the ``WINDOW`` steps before that
  step: nothing at or after the step is used, so there is no look-ahead. With
  fewer than ``MIN_OBSERVATIONS`` returns (or a degenerate window) the loadings
  are 1, the equal-weight index's own. The split is an estimate and says so
  (``estimated``): the intercept and the estimation error land in selection.
"""

from __future__ import annotations

import numpy as np

from workbench.engine import portable
from workbench.engine.market import MarketPath
from workbench.evaluation.attribution import Leg, per_log_move

WINDOW = 60
MIN_OBSERVATIONS = 20
MIN_SECTOR_NAMES = 3


def exact_legs(path: MarketPath, first: int, steps: int) -> tuple[Leg, Leg]:
    """Gap and session legs of rows ``first .. first + steps - 1`` from the engine's paths."""
    f, f_open = path.market_factor, path.market_factor_open
    g, g_open = path.sector_factors, path.sector_factors_open
    m, m_open = path.mispricing, path.mispricing_open
    if f is None or f_open is None or g is None or g_open is None or m is None or m_open is None:
        raise ValueError("exact attribution needs a simulated path; use estimated_legs")
    assert path.betas is not None and path.drift is not None and path.variance_drag is not None
    if first < 1:
        raise ValueError("the gap leg of the first step needs the close before it; first >= 1")
    rows, before = slice(first, first + steps), slice(first - 1, first + steps - 1)
    sector = np.asarray(path.universe.sector_index())
    beta = np.broadcast_to(path.betas, (steps, path.betas.size))
    day_start = (np.arange(first, first + steps) % path.steps_per_day == 0)[:, None]
    drift = path.drift[rows, None] + day_start * path.variance_drag
    # both legs' moves from one log call (portable maths has a fixed cost per call)
    starts = np.concatenate([path.close[before], path.open[rows]])
    ends = np.concatenate([path.open[rows], path.close[rows]])
    move, per_log = per_log_move(starts, ends)
    news, news_open = _news_paths(path, rows)
    gap = Leg(
        move[:steps], per_log[:steps], beta, f_open[rows], None, g_open[rows], sector, drift,
        m_open[rows] - m[before], news_open,
    )  # fmt: skip
    session = Leg(
        move[steps:], per_log[steps:], beta, f[rows] - f_open[rows], None,
        g[rows] - g_open[rows], sector, None, m[rows] - m_open[rows], news - news_open,
    )  # fmt: skip
    return gap, session


def _news_paths(path: MarketPath, rows: slice) -> tuple[np.ndarray, np.ndarray]:
    """Each step's log move from published items, and the part in by its open (0 on a
    market that publishes nothing)."""
    if path.news is None or path.news_open is None:
        zero = np.zeros((rows.stop - rows.start, path.universe.size))
        return zero, zero
    return path.news[rows], path.news_open[rows]


def estimated_legs(path: MarketPath, first: int, steps: int) -> tuple[Leg, Leg]:
    """Gap and session legs with factors and loadings estimated from the prices alone."""
    rows = np.arange(first, first + steps)
    close, open_ = path.close[: first + steps], path.open[: first + steps]
    gap_log = _log_returns(close[:-1], open_[1:])
    session_log = portable.log(close / open_)
    sector, kept = _sector_groups(path)
    gap_market, gap_sectors = _indices(gap_log, sector, kept)
    session_market, session_sectors = _indices(session_log, sector, kept)
    beta, loading = trailing_loadings(
        gap_log + session_log, gap_market + session_market, gap_sectors + session_sectors,
        sector, kept, rows,
    )  # fmt: skip
    legs = []
    for start, end, market, sectors in (
        (close[rows - 1], open_[rows], gap_market, gap_sectors),
        (open_[rows], close[rows], session_market, session_sectors),
    ):
        move, per_log = per_log_move(start, end)
        legs.append(
            Leg(move, per_log, beta, market[rows], loading, sectors[rows], sector, None, None)
        )
    return legs[0], legs[1]


def _log_returns(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Log returns with a zero first row, so row r is the move into row r."""
    return np.vstack([np.zeros((1, start.shape[1])), portable.log(end / start)])


def _sector_groups(path: MarketPath) -> tuple[np.ndarray, np.ndarray]:
    """Each name's sector index, and which sectors are large enough for an index."""
    sector = np.asarray(path.universe.sector_index())
    counts = np.bincount(sector)
    return sector, counts >= MIN_SECTOR_NAMES


def _indices(
    log_returns: np.ndarray, sector: np.ndarray, kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Equal-weight market index (R,) and sector factors over it (R, S): 0 where not kept."""
    market = log_returns.mean(axis=1)
    sectors = np.zeros((log_returns.shape[0], kept.size))
    for s in np.flatnonzero(kept):
        sectors[:, s] = log_returns[:, sector == s].mean(axis=1) - market
    return market, sectors


def trailing_loadings(
    returns: np.ndarray,
    market: np.ndarray,
    sectors: np.ndarray,
    sector: np.ndarray,
    kept: np.ndarray,
    rows: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(K, N) market and sector loadings at ``rows`` from the WINDOW returns before each.

    Row 0 holds no return (nothing before the first bar), so windows start at row 1.
    Sums over a window are differences of running sums; the two-regressor solution
    is written out (Cramer's rule on the centred normal equations), so the result
    is the same on every machine.
    """
    names = returns.shape[1]
    x1 = np.broadcast_to(market[:, None], returns.shape)
    x2 = sectors[:, sector] * kept[sector]
    y = returns
    start = np.maximum(rows - WINDOW, 1)
    count = (rows - start)[:, None]
    n = np.maximum(count, 1).astype(float)

    def window(values: np.ndarray) -> np.ndarray:
        running = np.vstack([np.zeros((1, names)), np.cumsum(values, axis=0)])
        return running[rows] - running[start]

    s1, s2, sy = window(x1), window(x2), window(y)
    c11 = window(x1 * x1) - s1 * s1 / n
    c22 = window(x2 * x2) - s2 * s2 / n
    c12 = window(x1 * x2) - s1 * s2 / n
    c1y = window(x1 * y) - s1 * sy / n
    c2y = window(x2 * y) - s2 * sy / n
    with np.errstate(divide="ignore", invalid="ignore"):
        det = c11 * c22 - c12 * c12
        two = np.where(kept[sector], det > 1e-12 * c11 * c22, False)
        beta = np.where(two, (c22 * c1y - c12 * c2y) / det, c1y / c11)
        loading = np.where(two, (c11 * c2y - c12 * c1y) / det, 0.0)
    enough = (count >= MIN_OBSERVATIONS) & (c11 > 0)
    prior = np.broadcast_to(kept[sector].astype(float), loading.shape)
    beta = np.where(enough, beta, 1.0)
    loading = np.where(enough & two, loading, prior)
    return beta, loading
