"""Is any arm better than the benchmark, after trying them all? Data-snooping tests.

Every arm traded the same market paths as the benchmark, so each paired day
gives one excess return per arm, ``r_arm - r_benchmark``. Stacked over the seeds
(each seed's days one after another) they form a T x k matrix, and three tests of
``arch.bootstrap`` read it through one stationary bootstrap (Politis & Romano
1994) of whole days, so the arms' dependence on each other is kept:

- Hansen's test of superior predictive ability (Hansen 2005, "A Test for
  Superior Predictive Ability", JBES 23(4)): H0 "no arm beats the benchmark".
  ``spa_p`` is its consistent p-value; ``reality_check_p`` is the upper p-value,
  which recentres every arm at its own mean: White's Reality Check (White 2000,
  Econometrica 68(5)).
- StepM (Romano & Wolf 2005, Econometrica 73(4)): which arms beat the benchmark,
  with the family-wise error rate held at ``size``.
- The model confidence set (Hansen, Lunde & Nason 2011, Econometrica 79(2)) over
  every arm, benchmark included: the arms that cannot be told from the best at
  level ``size``, each with its MCS p-value.

Losses are negative day returns (arch ranks smaller losses as better). Note that
arch 8 does not divide the statistic by each arm's standard error (its
``studentize`` flag only changes a label), so the SPA here is Hansen's
recentring on White's raw statistic; when arms differ much in volatility the
noisiest weighs most. The bootstrap's mean block length defaults to
sqrt(T), capped at the days of one seed so a block rarely spans two paths.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.errors import ConfigError, MissingDependency
from workbench.evaluation.paired import Run, day_returns

MIN_DAYS = 10  # paired days below which a block bootstrap has nothing to resample
SNOOPING_COLUMNS = ("spa_p", "reality_check_p", "stepm_superior", "mcs_p", "in_mcs")


@dataclass(frozen=True)
class SnoopingTests:
    """The family's answers (SPA, Reality Check) and each arm's (StepM, MCS)."""

    benchmark: str
    observations: int
    block_size: int
    reps: int
    size: float
    seed: int
    spa: Mapping[str, float]  # lower, consistent and upper p-values
    superior: tuple[str, ...]
    mcs_pvalues: Mapping[str, float]  # every arm, benchmark included

    @property
    def spa_p(self) -> float:
        return float(self.spa["consistent"])

    @property
    def reality_check_p(self) -> float:
        return float(self.spa["upper"])

    @property
    def included(self) -> tuple[str, ...]:
        """The model confidence set: arms whose MCS p-value is above ``size``."""
        return tuple(arm for arm, p in self.mcs_pvalues.items() if p > self.size)

    def per_arm(self, arms: Sequence[str]) -> pd.DataFrame:
        """The SNOOPING_COLUMNS for ``arms``, one row each."""
        rows = {
            arm: {
                "spa_p": self.spa_p,
                "reality_check_p": self.reality_check_p,
                "stepm_superior": arm in self.superior,
                "mcs_p": float(self.mcs_pvalues[arm]),
                "in_mcs": arm in self.included,
            }
            for arm in arms
        }
        return pd.DataFrame.from_dict(rows, orient="index").reindex(columns=SNOOPING_COLUMNS)

    def summary(self) -> dict[str, Any]:
        """JSON-safe: the settings the tests ran with and what each concluded."""
        return {
            "benchmark": self.benchmark,
            "paired_days": self.observations,
            "block_size": self.block_size,
            "bootstrap": "stationary",
            "reps": self.reps,
            "size": round(self.size, 12),
            "seed": self.seed,
            "spa_p": {k: float(v) for k, v in self.spa.items()},
            "reality_check_p": self.reality_check_p,
            "stepm_superior": list(self.superior),
            "model_confidence_set": list(self.included),
            "mcs_p": {k: float(v) for k, v in self.mcs_pvalues.items()},
        }


def snooping_tests(
    returns: pd.DataFrame,
    benchmark: str,
    *,
    size: float = 0.05,
    reps: int = 1000,
    block_size: int | None = None,
    seed: int = 0,
) -> SnoopingTests:
    """SPA, Reality Check, StepM and MCS on ``returns`` (``paired.day_returns``'s matrix).

    Arms with identical day returns cannot be told apart: the MCS reads one of each kind
    (its range statistic divides by the spread of their difference, which is zero) and
    gives the others the same p-value. When every arm equals the benchmark on every day
    there is nothing to find: the SPA p-values are 1 and no arm is superior."""
    bootstrap = _require_arch()
    _check(returns, benchmark, size, reps)
    block = _block_size(block_size, returns)
    options = {"block_size": block, "reps": reps, "bootstrap": "stationary", "seed": seed}
    spa, superior = _spa_and_stepm(bootstrap, returns, benchmark, size, options)
    return SnoopingTests(
        benchmark=benchmark,
        observations=len(returns),
        block_size=block,
        reps=reps,
        size=size,
        seed=seed,
        spa=spa,
        superior=superior,
        mcs_pvalues=_mcs(bootstrap, returns, size, options),
    )


def _spa_and_stepm(
    bootstrap: Any, returns: pd.DataFrame, benchmark: str, size: float, options: dict[str, Any]
) -> tuple[dict[str, float], tuple[str, ...]]:
    others = [arm for arm in returns.columns if arm != benchmark]
    bench = -returns[benchmark].to_numpy(dtype=float)
    models = pd.DataFrame(-returns[others].to_numpy(dtype=float), columns=others)
    if not np.any(models.to_numpy() != bench[:, None]):
        return dict.fromkeys(("lower", "consistent", "upper"), 1.0), ()
    spa = bootstrap.SPA(bench, models, **options)
    spa.compute()
    pvalues = {str(k): float(v) for k, v in spa.pvalues.items()}
    stepm = bootstrap.StepM(bench, models, size=size, **options)
    stepm.spa = spa  # the same bootstrap draws: StepM reuses them instead of drawing again
    stepm.compute()
    return pvalues, tuple(str(arm) for arm in stepm.superior_models)


def _mcs(
    bootstrap: Any, returns: pd.DataFrame, size: float, options: dict[str, Any]
) -> dict[str, float]:
    kinds: dict[bytes, str] = {}
    kind_of = {
        str(arm): kinds.setdefault(returns[arm].to_numpy(dtype=float).tobytes(), str(arm))
        for arm in returns.columns
    }
    distinct = list(kinds.values())
    if len(distinct) < 2:
        return dict.fromkeys(kind_of, 1.0)
    mcs = bootstrap.MCS(-returns[distinct], size, method="R", **options)
    mcs.compute()
    pvalues = mcs.pvalues["Pvalue"]
    return {arm: float(pvalues[kind]) for arm, kind in kind_of.items()}


def check_wanted(snooping: Any, *, given_a_table: bool) -> None:
    """``paired_comparison``'s ``snooping=``: True, False or None, and True needs runs."""
    if snooping is not None and not isinstance(snooping, bool):
        raise ConfigError(
            f"snooping must be True, False or None (when arch is installed), got {snooping!r}"
        )
    if snooping and given_a_table:
        raise ConfigError(
            "snooping=True needs the runs (Results), not a per-seed table: the tests read "
            "every arm's day returns"
        )


def for_comparison(
    runs: Sequence[Run],
    arms: list[str],
    benchmark: str,
    size: float,
    wanted: bool | None,
    reps: int,
    seed: int,
) -> SnoopingTests | None:
    """The tests a comparison of ``runs`` carries: None when not wanted, or (``wanted`` None)
    when arch is missing (with a warning naming the install line) or days are too few."""
    if wanted is False:
        return None
    if wanted is None and not arch_installed():
        warnings.warn(
            "the SPA, StepM and MCS columns are null: they need arch (pip install "
            '"workbench[stats]"); pass snooping=False to leave them out silently',
            stacklevel=3,  # the caller of paired_comparison
        )
        return None
    returns = day_returns(runs, arms)
    if wanted is None and len(returns) < MIN_DAYS:
        return None
    return snooping_tests(returns, benchmark, size=size, reps=reps, seed=seed)


def arch_installed() -> bool:
    try:
        _require_arch()
    except MissingDependency:
        return False
    return True


def _require_arch() -> Any:
    try:
        from arch import bootstrap
    except ImportError as exc:
        raise MissingDependency("arch", "stats", "SPA, StepM and the model confidence set") from exc
    return bootstrap


def _block_size(block_size: int | None, returns: pd.DataFrame) -> int:
    if block_size is not None:
        if not is_whole(block_size) or not 1 <= block_size <= len(returns):
            raise ConfigError(
                f"block_size must be a whole number from 1 to the {len(returns)} paired days, "
                f"got {block_size!r}"
            )
        return block_size
    shortest = int(returns.groupby(level=0).size().min()) if returns.index.nlevels > 1 else 0
    root = int(math.sqrt(len(returns)))
    return max(1, min(root, shortest) if shortest else root)


def _check(returns: pd.DataFrame, benchmark: str, size: float, reps: int) -> None:
    if benchmark not in returns.columns:
        raise ConfigError(
            f"benchmark arm {benchmark!r} is not among the arms {list(returns.columns)}; "
            "pass one of them"
        )
    if len(returns.columns) < 2:
        raise ConfigError("data-snooping tests need the benchmark and at least one other arm")
    if len(returns) < MIN_DAYS:
        raise ConfigError(
            f"data-snooping tests need at least {MIN_DAYS} paired days, got {len(returns)}; "
            "run more seeds or more days"
        )
    if not np.isfinite(returns.to_numpy(dtype=float)).all():
        raise ConfigError(
            "the day returns hold NaN or infinite values; the bootstrap needs a finite "
            "return for every arm on every paired day (paired.day_returns gives one)"
        )
    if isinstance(size, bool) or not isinstance(size, int | float) or not 0.0 < size < 1.0:
        raise ConfigError(f"size must be a number between 0 and 1, got {size!r}")
    if not is_whole(reps) or reps < 100:
        raise ConfigError(f"reps must be a whole number >= 100, got {reps!r}")


__all__ = [
    "MIN_DAYS",
    "SNOOPING_COLUMNS",
    "SnoopingTests",
    "arch_installed",
    "check_wanted",
    "for_comparison",
    "snooping_tests",
]
