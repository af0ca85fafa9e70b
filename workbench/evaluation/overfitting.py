"""The probability of backtest overfitting, by combinatorially symmetric cross-validation.

Bailey, Borwein, López de Prado & Zhu (2017), "The Probability of Backtest
Overfitting", Journal of Computational Finance 20(4). The trials (the
configurations tried on the same market paths) form a T x N matrix of returns,
one column per trial. The procedure, as in the paper's section 2:

1. Split the rows, in time order, into S blocks of equal size (S even); the
   first T mod S rows are dropped so every block has T // S rows.
2. For each of the C(S, S/2) ways to choose half the blocks, the chosen rows are
   the training set J and the others the test set J-bar.
3. Each trial's performance on J and on J-bar is its Sharpe ratio there (mean
   over sample standard deviation, ddof=1, per row: not annualised).
4. n* is the trial with the best training performance (the first one on ties).
5. Its relative rank in the test set is w = rank / (N + 1), rank 1 the worst
   test performance (ties share their average rank), and its logit is
   lambda = ln(w / (1 - w)).
6. PBO is the share of combinations with lambda < 0, plus half the share with
   lambda exactly 0: the trial chosen in sample does worse than the median out of
   sample. The paper defines PBO as the integral of the logits' density up to 0
   (its section 2.2), which gives no weight to 0 itself; an empirical estimate has
   a point mass there whenever N is odd (the median rank, w = 1/2) or trials tie,
   and splitting it in half (the mid-rank convention) keeps pure noise at 1/2 for
   every N. Counting it whole, as lambda <= 0 does, gave 0.735 for three noise
   trials and 1.0 for three identical ones.

The performance degradation is the least-squares line of the chosen trial's test
Sharpe ratio on its training Sharpe ratio over the combinations (the paper's
section 3.2): a slope below zero says the better a trial looked in sample, the
worse it did out of sample. ``probability_of_loss`` is the share of combinations
in which the chosen trial's test Sharpe ratio is negative.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.errors import ConfigError

DEFAULT_BLOCKS = 16
MIN_ROWS_PER_BLOCK = 1  # each half holds S/2 blocks, so two rows at least


@dataclass(frozen=True)
class Overfitting:
    """PBO and what it is made of: one logit, one training and one test Sharpe per split."""

    trials: tuple[str, ...]
    observations: int
    blocks: int
    logits: np.ndarray
    train_sharpe: np.ndarray  # the chosen trial's, per combination
    test_sharpe: np.ndarray
    chosen: tuple[str, ...]

    @property
    def combinations(self) -> int:
        return int(self.logits.size)

    @property
    def pbo(self) -> float:
        below, at = np.mean(self.logits < 0.0), np.mean(self.logits == 0.0)
        return float(below + at / 2)

    @property
    def degradation(self) -> tuple[float, float]:
        """(slope, intercept) of test Sharpe on training Sharpe; NaN when training is flat."""
        x, y = self.train_sharpe, self.test_sharpe
        spread = float(np.sum((x - x.mean()) ** 2))
        if not spread > 0.0:
            return math.nan, math.nan
        slope = float(np.sum((x - x.mean()) * (y - y.mean())) / spread)
        return slope, float(y.mean() - slope * x.mean())

    @property
    def probability_of_loss(self) -> float:
        return float(np.mean(self.test_sharpe < 0.0))

    def summary(self) -> dict[str, Any]:
        """JSON-safe: PBO, the slope, the logit distribution's quantiles and its settings."""
        slope, intercept = self.degradation
        levels = {"q10": 0.1, "q25": 0.25, "q50": 0.5, "q75": 0.75, "q90": 0.9}
        quantiles = np.quantile(self.logits, list(levels.values()))
        picked = pd.Series(self.chosen).value_counts()
        return {
            "pbo": self.pbo,
            "degradation_slope": _plain(slope),
            "degradation_intercept": _plain(intercept),
            "probability_of_loss": self.probability_of_loss,
            "logit_quantiles": {name: float(q) for name, q in zip(levels, quantiles, strict=True)},
            "trials": len(self.trials),
            "observations": self.observations,
            "blocks": self.blocks,
            "combinations": self.combinations,
            "chosen_in_sample": {str(k): int(v) for k, v in picked.items()},
        }


def pbo(returns: pd.DataFrame, *, blocks: int = DEFAULT_BLOCKS) -> Overfitting:
    """CSCV over ``returns``: one row per period (in time order), one column per trial."""
    matrix = _checked(returns, blocks)
    rows = (len(matrix) // blocks) * blocks
    data = matrix[len(matrix) - rows :]
    per_block = data.reshape(blocks, rows // blocks, data.shape[1])
    sums, squares = per_block.sum(axis=1), (per_block**2).sum(axis=1)
    chosen_blocks = np.array(list(itertools.combinations(range(blocks), blocks // 2)))
    train = np.zeros((len(chosen_blocks), blocks))
    np.put_along_axis(train, chosen_blocks, 1.0, axis=1)
    half = rows // 2
    in_sample = _sharpe(train @ sums, train @ squares, half)
    out_sample = _sharpe((1 - train) @ sums, (1 - train) @ squares, rows - half)
    best = np.argmax(in_sample, axis=1)
    picked = np.arange(len(best))
    from scipy.stats import rankdata

    ranks = rankdata(out_sample, axis=1)[picked, best]
    relative = ranks / (matrix.shape[1] + 1)
    names = [str(c) for c in returns.columns]
    return Overfitting(
        trials=tuple(names),
        observations=rows,
        blocks=blocks,
        logits=np.log(relative / (1.0 - relative)),
        train_sharpe=in_sample[picked, best],
        test_sharpe=out_sample[picked, best],
        chosen=tuple(names[i] for i in best),
    )


def blocks_for(periods: int, most: int = DEFAULT_BLOCKS) -> int:
    """The even block count up to ``most`` that drops the fewest periods (the largest such
    count on ties), with two periods a block at least; 0 when there are fewer than four."""
    counts = [s for s in range(2, most + 1, 2) if periods // s >= 2]
    if not counts:
        return 0
    return max(counts, key=lambda s: ((periods // s) * s, s))


def _sharpe(total: np.ndarray, squares: np.ndarray, n: int) -> np.ndarray:
    """Mean over sample standard deviation (ddof=1) from sums; 0 where there is no spread."""
    mean = total / n
    variance = np.maximum(squares - n * mean**2, 0.0) / (n - 1)
    spread = np.sqrt(variance)
    flat = spread <= 1e-15 * np.maximum(1.0, np.abs(mean))
    return np.where(flat, 0.0, mean / np.where(flat, 1.0, spread))


def _checked(returns: pd.DataFrame, blocks: int) -> np.ndarray:
    if not isinstance(returns, pd.DataFrame):
        raise ConfigError("PBO needs a DataFrame of returns: one row per period, a column a trial")
    if not is_whole(blocks) or blocks < 2 or blocks % 2:
        raise ConfigError(f"blocks must be an even whole number >= 2, got {blocks!r}")
    if returns.shape[1] < 2:
        raise ConfigError(
            f"PBO needs at least two trials to choose between, got {returns.shape[1]}; "
            "run more configurations on the same paths"
        )
    if len(returns) < blocks * MIN_ROWS_PER_BLOCK:
        raise ConfigError(
            f"PBO with {blocks} blocks needs at least {blocks * MIN_ROWS_PER_BLOCK} periods, "
            f"got {len(returns)}; pass fewer blocks or more days or seeds"
        )
    matrix = returns.to_numpy(dtype=float)
    if not np.isfinite(matrix).all():
        raise ConfigError("the returns hold NaN or infinite values; PBO needs every period")
    return matrix


def _plain(value: float) -> float | None:
    return value if math.isfinite(value) else None


__all__ = ["DEFAULT_BLOCKS", "Overfitting", "blocks_for", "pbo"]
