"""How far a comparison is from an answer: seeds needed and minimum track-record length.

- Seeds needed: the smallest number of seeds n at which the two-sided paired
  t-test at level ``alpha`` detects the observed mean difference ``d`` with
  probability ``power``, taking the observed standard deviation ``s`` of the
  per-seed differences as the truth. Under the alternative the t statistic is
  noncentral t with n - 1 degrees of freedom and noncentrality d / s * sqrt(n)
  (Cohen 1988, ch. 2), so the power at n is
      P(|T| > t(1 - alpha/2, n - 1)),  T ~ nct(n - 1, d / s * sqrt(n)).
  The search starts from the normal approximation n0 = ((z(1 - alpha/2) +
  z(power)) * s / d)^2, a lower bound, and steps up to the first n that reaches
  ``power``. Infinite when d is 0 (no number of seeds detects no difference).
- Minimum track-record length (Bailey & López de Prado 2012, "The Sharpe Ratio
  Efficient Frontier", Journal of Risk 15(2)): the number of day returns after
  which PSR(threshold) reaches ``confidence`` for a Sharpe ratio SR estimated with
  skewness g3 and non-excess kurtosis g4,
      MinTRL = 1 + (1 - g3 * SR + (g4 - 1) / 4 * SR^2) * (z(confidence) / (SR - SR*))^2,
  SR per day (not annualised). Infinite when SR <= SR*: no track record is long
  enough. At exactly MinTRL days ``deflated.probabilistic_sharpe`` equals
  ``confidence``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from workbench.errors import ConfigError
from workbench.evaluation import deflated

MAX_SEEDS_SEARCHED = 1_000_000


def power_at(seeds: int, effect: float, alpha: float) -> float:
    """Power of the two-sided paired t-test with ``seeds`` seeds at standardised ``effect``."""
    from scipy import stats

    df = seeds - 1
    critical = stats.t.ppf(1.0 - alpha / 2.0, df)
    shift = effect * math.sqrt(seeds)
    return float(stats.nct.sf(critical, df, shift) + stats.nct.cdf(-critical, df, shift))


def seeds_needed(mean_diff: float, sd: float, *, alpha: float, power: float = 0.8) -> float:
    """The seeds the paired t-test needs to detect ``mean_diff`` (sd ``sd``) at ``alpha``
    with probability ``power``; NaN when there is no spread to judge by, inf when the
    difference is zero."""
    from scipy import stats

    _check_level("alpha", alpha)
    _check_level("power", power)
    if not (math.isfinite(mean_diff) and math.isfinite(sd)) or sd <= 0.0:
        return math.nan
    if mean_diff == 0.0:
        return math.inf
    effect = abs(mean_diff) / sd
    normal = ((stats.norm.ppf(1.0 - alpha / 2.0) + stats.norm.ppf(power)) / effect) ** 2
    seeds = max(2, math.floor(normal))
    while power_at(seeds, effect, alpha) < power:
        seeds += 1
        if seeds > MAX_SEEDS_SEARCHED:
            return math.inf
    return float(seeds)


def min_track_record(
    sharpe: float, skew: float, kurtosis: float, *, confidence: float, threshold: float = 0.0
) -> float:
    """MinTRL in periods (day returns) for a per-period ``sharpe``; inf when sharpe <=
    threshold, NaN when the moments are undefined."""
    from scipy import stats

    _check_level("confidence", confidence)
    if not all(math.isfinite(x) for x in (sharpe, skew, kurtosis)):
        return math.nan
    if sharpe <= threshold:
        return math.inf
    spread = 1.0 - skew * sharpe + (kurtosis - 1.0) / 4.0 * sharpe**2
    if not spread > 0.0:
        return math.nan
    z = stats.norm.ppf(confidence)
    return float(1.0 + spread * (z / (sharpe - threshold)) ** 2)


def seeds_needed_per_arm(
    table: pd.DataFrame, benchmark: str, alpha: float, power: float
) -> list[float]:
    """Per arm of a per-seed table (benchmark left out), the seeds needed at alpha / arms:
    the strictest level Holm applies, so reaching it makes the arm significant."""
    others = [arm for arm in table.columns if arm != benchmark]
    level = alpha / max(1, len(others))
    needed = []
    for arm in others:
        diff = (table[arm] - table[benchmark]).to_numpy(dtype=float)
        spread = float(diff.std(ddof=1)) if diff.size > 1 else math.nan
        needed.append(seeds_needed(float(diff.mean()), spread, alpha=level, power=power))
    return needed


def track_records(returns: Mapping[str, np.ndarray], confidence: float) -> pd.DataFrame:
    """pooled_days and min_track_record_days per arm, from its pooled day returns."""
    rows = {}
    for arm, r in returns.items():
        sharpe, n, skew, kurt = deflated.sharpe_moments(r)
        needed = min_track_record(sharpe, skew, kurt, confidence=confidence)
        rows[arm] = {"pooled_days": n, "min_track_record_days": needed}
    return pd.DataFrame.from_dict(rows, orient="index")


def _check_level(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < value < 1.0:
        raise ConfigError(f"{name} must be a number between 0 and 1, got {value!r}")


__all__ = [
    "min_track_record",
    "power_at",
    "seeds_needed",
    "seeds_needed_per_arm",
    "track_records",
]
