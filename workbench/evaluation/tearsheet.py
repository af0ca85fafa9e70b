"""The tearsheet: one row per arm of the metrics a researcher reads before the scorecard's.

A pure function of the equity frame (and, when the run recorded it, the gross
exposure frame), so it can be recomputed from any saved run. The formulas and
their sources are in ``workbench.evaluation.metrics`` and ``risk``; the tables over
time (calendar returns, drawdowns, rolling risk, activity, seed spread) are in
``tearsheet_frames``; the wording of every
column is in ``workbench.evaluation.glossary``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.errors import ConfigError
from workbench.evaluation import metrics, risk

DEFAULT_BENCHMARK = "buy_and_hold"
TEARSHEET_COLUMNS = (
    "return_pct",
    "annual_return_pct",
    "annual_volatility_pct",
    "sharpe",
    "sortino",
    "max_drawdown_pct",
    "calmar",
    "hit_rate_pct",
    "best_day_pct",
    "worst_day_pct",
    "var_95_pct",
    "cvar_95_pct",
    "skew",
    "kurtosis",
    "avg_gross_exposure",
    "benchmark",
    "beta",
    "alpha_pct",
    "tracking_error_pct",
    "information_ratio",
)

_OWN: dict[str, Callable[[np.ndarray, int], float]] = {
    "return_pct": lambda curve, _steps: metrics.total_return_pct(curve),
    "annual_return_pct": metrics.annual_return_pct,
    "annual_volatility_pct": metrics.annual_volatility_pct,
    "sharpe": metrics.sharpe,
    "sortino": metrics.sortino,
    "max_drawdown_pct": lambda curve, _steps: metrics.max_drawdown_pct(curve),
    "calmar": metrics.calmar,
    "hit_rate_pct": metrics.hit_rate_pct,
    "best_day_pct": risk.best_day_pct,
    "worst_day_pct": risk.worst_day_pct,
    "var_95_pct": risk.value_at_risk_pct,
    "cvar_95_pct": risk.conditional_value_at_risk_pct,
    "skew": risk.skew,
    "kurtosis": risk.kurtosis,
}
_RELATIVE: dict[str, Callable[[np.ndarray, np.ndarray, int], float]] = {
    "beta": metrics.beta,
    "alpha_pct": metrics.alpha_pct,
    "tracking_error_pct": metrics.tracking_error_pct,
    "information_ratio": metrics.information_ratio,
}


def tearsheet(
    equity: pd.DataFrame,
    steps_per_day: int,
    *,
    exposure: pd.DataFrame | None = None,
    benchmark: str | None = None,
) -> pd.DataFrame:
    """One row per arm (TEARSHEET_COLUMNS).

    ``benchmark`` names the arm the relative columns (beta, alpha, tracking error,
    information ratio) are measured against; by default ``buy_and_hold`` when it
    is an arm, otherwise those columns are NaN. Without ``exposure`` (gross
    exposure in currency per step close, one column per arm) the average gross
    exposure is NaN.
    """
    _check(equity, steps_per_day, benchmark)
    against = benchmark or (DEFAULT_BENCHMARK if DEFAULT_BENCHMARK in equity.columns else None)
    rows = {arm: _row(equity, arm, steps_per_day, exposure, against) for arm in equity.columns}
    sheet = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=list(TEARSHEET_COLUMNS))
    sheet.index.name = "arm"
    return sheet


def _row(
    equity: pd.DataFrame,
    arm: str,
    steps: int,
    exposure: pd.DataFrame | None,
    against: str | None,
) -> dict[str, object]:
    curve = equity[arm].to_numpy(dtype=float)
    row: dict[str, object] = {name: fn(curve, steps) for name, fn in _OWN.items()}
    gross = exposure[arm].to_numpy(dtype=float) if exposure is not None else None
    row["avg_gross_exposure"] = (
        metrics.average_gross_exposure(gross, curve) if gross is not None else metrics.NAN
    )
    row["benchmark"] = against
    bench = equity[against].to_numpy(dtype=float) if against else None
    for name, fn in _RELATIVE.items():
        row[name] = fn(curve, bench, steps) if bench is not None else metrics.NAN
    return row


def _check(equity: pd.DataFrame, steps_per_day: int, benchmark: str | None) -> None:
    if equity.empty:
        raise ConfigError("a tearsheet needs an equity frame with at least one step per arm")
    if not (is_whole(steps_per_day) or isinstance(steps_per_day, np.integer)):
        raise ConfigError(f"steps_per_day must be a whole number, got {steps_per_day!r}")
    if steps_per_day < 1:
        raise ConfigError(f"steps_per_day must be at least 1, got {steps_per_day}")
    if benchmark is not None and benchmark not in equity.columns:
        raise ConfigError(
            f"benchmark arm {benchmark!r} is not in the run; arms are {list(equity.columns)}"
        )


__all__ = ["DEFAULT_BENCHMARK", "TEARSHEET_COLUMNS", "tearsheet"]
