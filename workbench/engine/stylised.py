"""Stylised facts of daily returns, measured on a market path's own columns.

The statistics are the ones Cont (2001), "Empirical properties of asset returns:
stylized facts and statistical issues", Quantitative Finance 1(2), lists as
shared by real equities: heavy tails (excess kurtosis), volatility clustering
(slowly decaying autocorrelation of |r|), the leverage effect (today's return
against tomorrow's |r|), volume that follows volatility, and co-movement across
names. The overnight share of variance follows the close-to-open / open-to-close
split of e.g. Hansen & Lunde (2005), "A realized variance for the whole day based
on intermittent high-frequency data".

Skewness is measured on simple (arithmetic) daily returns, the day's gain or
loss as a holder sees it; real stocks' is negative (the gain/loss asymmetry, Cont
2001): big days are more often falls. The largest move is the largest absolute
simple daily return of any name on any day, the figure a ten-year table of a few
large stocks caps at about 40 %.

Every figure is computed per name (one column of one path) and summarised by the
median over all names of all paths given, as real-data tables report the median
across stocks; the mean pairwise correlation is computed per path and its median
taken over paths, and the largest move is the largest over every path. A maximum
grows with the sample it is taken over, so ``stylised_facts(..., block_name_days=n)``
gives instead the median over blocks of about ``n`` name-days (whole names, pooled
across paths) of each block's largest move: the figure a table of ``n`` name-days
would typically show; the largest over every path stays beside it as
``max_move_all``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.engine.market import MarketPath
from workbench.errors import ConfigError

FACTS: tuple[str, ...] = (
    "excess_kurtosis",
    "acf_abs_1",
    "acf_abs_5",
    "acf_abs_10",
    "overnight_share",
    "leverage",
    "abs_volume_corr",
    "skew",
    "max_move",
    "pairwise_corr",
)


@dataclass(frozen=True)
class DailyBars:
    """One row per trading day (warm-up dropped): log returns and traded volume."""

    close_to_close: np.ndarray  # (days, names), from the previous day's last close
    overnight: np.ndarray  # previous day's last close to this day's first open
    volume: np.ndarray  # shares traded over the day


def daily_bars(path: MarketPath) -> DailyBars:
    """Daily returns and volume from a path's step bars; the last warm-up day seeds day one."""
    spd, first = path.steps_per_day, path.warmup_days
    days = path.steps // spd
    if days - first < 2 or first < 1:
        raise ConfigError(
            "daily statistics need at least one warm-up day and two trading days; "
            "simulate with warmup_days >= 1 and days >= 2"
        )
    close = path.close[spd - 1 :: spd][first - 1 : days]
    opens = path.open[::spd][first:days]
    volume = path.volume[: days * spd].reshape(days, spd, -1).sum(axis=1)[first:]
    log_close = np.log(close)
    return DailyBars(
        close_to_close=np.diff(log_close, axis=0),
        overnight=np.log(opens) - log_close[:-1],
        volume=volume,
    )


def excess_kurtosis(r: np.ndarray) -> np.ndarray:
    """Per column: E[(r - mean)^4] / var^2 - 3 (0 for a Gaussian)."""
    centred = r - r.mean(axis=0)
    var = (centred**2).mean(axis=0)
    return (centred**4).mean(axis=0) / var**2 - 3.0


def skewness(r: np.ndarray) -> np.ndarray:
    """Per column: E[(r - mean)^3] / var^1.5 (0 for any symmetric distribution)."""
    centred = r - r.mean(axis=0)
    return (centred**3).mean(axis=0) / (centred**2).mean(axis=0) ** 1.5


def _corr_columns(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson correlation of matching columns of x and y."""
    xc, yc = x - x.mean(axis=0), y - y.mean(axis=0)
    return (xc * yc).sum(axis=0) / np.sqrt((xc**2).sum(axis=0) * (yc**2).sum(axis=0))


def acf(x: np.ndarray, lag: int) -> np.ndarray:
    """Per column sample autocorrelation at ``lag`` (the usual estimator, full-sample mean)."""
    centred = x - x.mean(axis=0)
    return (centred[lag:] * centred[:-lag]).sum(axis=0) / (centred**2).sum(axis=0)


def overnight_share(bars: DailyBars) -> np.ndarray:
    """Per column: the overnight return's variance over the close-to-close variance."""
    return bars.overnight.var(axis=0) / bars.close_to_close.var(axis=0)


def leverage(r: np.ndarray) -> np.ndarray:
    """Per column corr(r_t, |r_t+1|): negative when falls raise tomorrow's volatility."""
    return _corr_columns(r[:-1], np.abs(r[1:]))


def abs_volume_corr(bars: DailyBars) -> np.ndarray:
    """Per column corr(|r_t|, log volume_t): the day's volume follows its volatility."""
    return _corr_columns(np.abs(bars.close_to_close), np.log(np.maximum(bars.volume, 1.0)))


def mean_pairwise_corr(r: np.ndarray) -> float:
    """Mean off-diagonal correlation of the columns (nan with one name)."""
    names = r.shape[1]
    if names < 2:
        return float("nan")
    corr = np.corrcoef(r, rowvar=False)
    return float((corr.sum() - names) / (names * (names - 1)))


def largest_move_per_block(per_path: Sequence[tuple[np.ndarray, int]], name_days: int) -> float:
    """The median over blocks of whole names, about ``name_days`` name-days each (the
    nearest whole number of names, so a block is not systematically smaller), of each
    block's largest move; ``per_path`` holds each path's per-name largest moves and its
    days. Names left over after the last whole block are left out; with fewer names
    than a block, every name is one block."""
    days = per_path[0][1]
    moves = np.concatenate([per_name for per_name, _ in per_path])
    per_block = max(1, round(name_days / days))
    blocks = max(1, moves.size // per_block)
    kept = moves[: blocks * per_block] if moves.size >= per_block else moves
    return float(np.median(kept.reshape(blocks, -1).max(axis=1)))


def stylised_facts(
    paths: Sequence[MarketPath], *, block_name_days: int | None = None
) -> dict[str, float]:
    """Every statistic of FACTS: the median over names (and paths) of the per-name figure;
    with ``block_name_days`` the largest move is ``largest_move_per_block``'s, and the
    largest over every path is ``max_move_all``."""
    per_name: dict[str, list[np.ndarray]] = {fact: [] for fact in FACTS[:-2]}
    pairwise, largest, per_name_largest = [], [], []
    for path in paths:
        bars = daily_bars(path)
        r = bars.close_to_close
        per_name["excess_kurtosis"].append(excess_kurtosis(r))
        for lag in (1, 5, 10):
            per_name[f"acf_abs_{lag}"].append(acf(np.abs(r), lag))
        per_name["overnight_share"].append(overnight_share(bars))
        per_name["leverage"].append(leverage(r))
        per_name["abs_volume_corr"].append(abs_volume_corr(bars))
        simple = np.expm1(r)
        per_name["skew"].append(skewness(simple))
        per_name_largest.append((np.abs(simple).max(axis=0), r.shape[0]))
        largest.append(float(per_name_largest[-1][0].max()))
        pairwise.append(mean_pairwise_corr(r))
    out = {fact: float(np.median(np.concatenate(values))) for fact, values in per_name.items()}
    out["max_move"] = max(largest)
    if block_name_days is not None:
        out["max_move_all"] = out["max_move"]
        out["max_move"] = largest_move_per_block(per_name_largest, block_name_days)
    out["pairwise_corr"] = float(np.median(pairwise))
    return out
