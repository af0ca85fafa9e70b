"""How much a Sharpe ratio can be believed: the probabilistic and the deflated Sharpe ratio.

- PSR, Bailey & López de Prado (2012), "The Sharpe Ratio Efficient Frontier",
  Journal of Risk 15(2): the probability that the true Sharpe ratio exceeds a
  threshold SR*, given the estimate SR from T returns with skewness g3 and
  (non-excess) kurtosis g4:
      PSR(SR*) = Phi((SR - SR*) * sqrt(T - 1) / sqrt(1 - g3 * SR + (g4 - 1) / 4 * SR**2))
- DSR, Bailey & López de Prado (2014), "The Deflated Sharpe Ratio: Correcting for
  Selection Bias, Backtest Overfitting and Non-Normality", Journal of Portfolio
  Management 40(5): PSR with SR* the Sharpe ratio the best of N skill-less
  trials is expected to reach,
      SR0 = sqrt(V) * ((1 - gamma) * Phi^-1(1 - 1/N) + gamma * Phi^-1(1 - 1/(N e)))
  where V is the variance of the Sharpe estimates across the trials and gamma is
  the Euler-Mascheroni constant.

Every Sharpe ratio here is per period (not annualised): the formulas count
periods, and an annualised ratio fed to them would overstate the certainty by
sqrt(252). One trial has nothing to deflate by: SR0 is 0 and DSR equals PSR(0).
"""

from __future__ import annotations

import math

import numpy as np

from workbench._checks import is_whole
from workbench.errors import ConfigError

EULER_GAMMA = 0.5772156649015329


def sharpe_moments(returns: np.ndarray) -> tuple[float, int, float, float]:
    """(per-period Sharpe with ddof=1, T, skewness, non-excess kurtosis) of ``returns``;
    the moments are the sample (biased) moments the papers use. NaNs when T < 2 or flat."""
    r = np.asarray(returns, dtype=float)
    if r.size < 2 or not r.std(ddof=1) > 1e-15:
        return math.nan, int(r.size), math.nan, math.nan
    centred = r - r.mean()
    second = float(np.mean(centred**2))
    skew = float(np.mean(centred**3)) / second**1.5
    kurtosis = float(np.mean(centred**4)) / second**2
    return float(r.mean() / r.std(ddof=1)), int(r.size), skew, kurtosis


def probabilistic_sharpe(
    sharpe: float, observations: int, skew: float, kurtosis: float, threshold: float = 0.0
) -> float:
    """PSR(threshold): the probability that the true per-period Sharpe exceeds ``threshold``."""
    from scipy.stats import norm

    if observations < 2 or math.isnan(sharpe):
        return math.nan
    spread = 1.0 - skew * sharpe + (kurtosis - 1.0) / 4.0 * sharpe**2
    if not spread > 0.0:
        return math.nan
    z = (sharpe - threshold) * math.sqrt(observations - 1) / math.sqrt(spread)
    return float(norm.cdf(z))


def expected_max_sharpe(trials: int, variance: float) -> float:
    """SR0: the expected largest per-period Sharpe of ``trials`` skill-less trials whose
    Sharpe estimates have ``variance`` across trials (0.0 for one trial)."""
    from scipy.stats import norm

    if not (is_whole(trials) or isinstance(trials, np.integer)) or trials < 1:
        raise ConfigError(f"trials must be a whole number >= 1, got {trials!r}")
    if trials == 1:
        return 0.0
    if math.isnan(variance) or variance < 0.0:
        return math.nan
    quantiles = (1.0 - EULER_GAMMA) * norm.ppf(1.0 - 1.0 / trials) + EULER_GAMMA * norm.ppf(
        1.0 - 1.0 / (trials * math.e)
    )
    return float(math.sqrt(variance) * quantiles)


def deflated_sharpe(
    sharpe: float, observations: int, skew: float, kurtosis: float, trials: int, variance: float
) -> float:
    """DSR: PSR against the expected maximum Sharpe of ``trials`` skill-less trials."""
    hurdle = expected_max_sharpe(trials, variance)
    if math.isnan(hurdle):
        return math.nan
    return probabilistic_sharpe(sharpe, observations, skew, kurtosis, threshold=hurdle)


__all__ = [
    "EULER_GAMMA",
    "deflated_sharpe",
    "expected_max_sharpe",
    "probabilistic_sharpe",
    "sharpe_moments",
]
