"""Paired comparison of arms against a benchmark arm across seeds.

Every seed is one market path that all arms traded, so the comparison is
paired: for each arm, the per-seed difference ``metric(arm) - metric(benchmark)``
is the unit of analysis. Reported per arm: the mean difference, a confidence
interval (Student t on the differences, or a percentile bootstrap over seeds),
the two-sided p-value of the paired t-test, and that p-value adjusted for the
number of arms compared with Holm's step-down method (Holm 1979), which
controls the family-wise error rate without assuming independence.

Beside the paired test, each arm's day returns pooled over the seeds give its
Sharpe ratio, the probability that its true Sharpe ratio is positive (PSR) and
that probability deflated for the number of trials (DSR); ``trials``, the number
it deflates by, is a column (``workbench.evaluation.deflated``).

Across all arms at once, the data-snooping tests (``workbench.evaluation.many_arms``:
Hansen's SPA with White's Reality Check, StepM and the model confidence set, from
``arch``) read the paired day returns; ``table.attrs["snooping"]`` holds their
settings and the family's answer. Beside every row, how far it is from an answer
(``workbench.evaluation.power``): the seeds the paired test needs to detect the
observed difference, and the arm's minimum track-record length.

``compare`` runs the seeds and compares; with ``stop="settled"`` it adds seeds one
at a time and stops once a confidence sequence settles every arm
(``workbench.evaluation.sequential``).

A plain function from runs to a ``DataFrame``: the notebooks, the CLI and the
MCP server all call it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.engine.market import TRADING_DAYS
from workbench.errors import ConfigError
from workbench.evaluation import deflated, many_arms, metrics
from workbench.evaluation.paired import Run, card_and_meta, equity_and_meta, per_seed
from workbench.evaluation.power import seeds_needed_per_arm, track_records
from workbench.evaluation.results import Results
from workbench.evaluation.sequential import Settled, run_until_settled

Method = Literal["t", "bootstrap"]
COMPARISON_COLUMNS = (
    "benchmark",
    "seeds",
    "mean_arm",
    "mean_benchmark",
    "mean_diff",
    "ci_low",
    "ci_high",
    "p_value",
    "p_holm",
    "significant",
    "failed_decisions",
    "pooled_sharpe",
    "psr",
    "dsr",
    "trials",
    "sharpe_hurdle",
    "pooled_days",
    "seeds_needed",
    "min_track_record_days",
    *many_arms.SNOOPING_COLUMNS,
)


def paired_comparison(
    runs: Sequence[Run] | pd.DataFrame,
    benchmark: str,
    *,
    metric: str = "return_pct",
    confidence: float = 0.95,
    method: Method = "t",
    resamples: int = 10_000,
    seed: int = 0,
    trials: int | None = None,
    power: float = 0.8,
    snooping: bool | None = None,
    snooping_reps: int = 1000,
) -> pd.DataFrame:
    """One row per arm (benchmark excluded): mean paired difference, interval, p and Holm p,
    and the arm's pooled Sharpe ratio with its PSR and DSR.

    ``runs`` is a list of ``Results`` (one per seed) or a table from ``per_seed``.
    With a single seed there is no spread: intervals and p-values are NaN. Differences
    identical on every seed leave the t statistic degenerate: p is 1 when they are all
    zero, and NaN (interval too) when they are one nonzero value, as no spread is seen to
    measure doubt by; read ``mean_diff`` and add seeds (or choose a metric that varies).
    ``failed_decisions`` counts the arm's failed decisions over the runs (NaN when
    given a ``per_seed`` table, which carries no error counts, as are the Sharpe
    columns, which need the equity curves). ``trials`` is the number of trials the
    DSR deflates by: at least the number of arms (benchmark included), which is
    the default; pass a campaign's count (e.g. a run store's) to deflate by it.

    ``seeds_needed`` is for the paired t-test at (1 - confidence) / arms with ``power``;
    ``min_track_record_days`` is at ``confidence``. ``snooping``: True runs the SPA,
    StepM and MCS columns (``arch`` needed, at least ``many_arms.MIN_DAYS`` paired
    days); False leaves them null; None (the default) runs them when ``arch`` is
    installed and there are enough days, and warns when ``arch`` is missing.
    """
    table = runs if isinstance(runs, pd.DataFrame) else per_seed(runs, metric)
    _check(table, benchmark, confidence, method, resamples)
    many_arms.check_wanted(snooping, given_a_table=isinstance(runs, pd.DataFrame))
    trials = _trials(trials, len(table.columns))
    alpha = 1.0 - confidence
    others = [arm for arm in table.columns if arm != benchmark]
    rows = {
        arm: _compare(table[arm], table[benchmark], confidence, method, resamples, seed)
        for arm in others
    }
    result = pd.DataFrame.from_dict(rows, orient="index")
    result.index.name = "arm"
    result.insert(0, "benchmark", benchmark)
    result.insert(1, "seeds", len(table))
    result["p_holm"] = holm(result["p_value"].to_numpy(dtype=float)) if len(result) else []
    result["significant"] = result["p_holm"] < alpha
    result["seeds_needed"] = seeds_needed_per_arm(table, benchmark, alpha, power)
    snooping_summary: dict[str, Any] | None = None
    if not isinstance(runs, pd.DataFrame):
        result["failed_decisions"] = _failed_decisions(runs).reindex(result.index)
        pooled = pooled_returns(runs, list(table.columns))
        deflation = deflate(pooled, trials).join(track_records(pooled, confidence))
        result = result.join(deflation.drop(index=benchmark))
        tests = many_arms.for_comparison(
            runs, list(table.columns), benchmark, alpha, snooping, snooping_reps, seed
        )
        if tests is not None:
            result = result.join(tests.per_arm(others))
            snooping_summary = tests.summary()
    result["trials"] = trials
    result = result.reindex(columns=list(COMPARISON_COLUMNS))
    result.attrs["snooping"] = snooping_summary
    return result


def pooled_returns(runs: Sequence[Run], arms: Sequence[str]) -> dict[str, np.ndarray]:
    """Each arm's day returns (``metrics.daily_returns``) over every run, one after another;
    nothing after a bust (the metrics' convention)."""
    pooled: dict[str, list[np.ndarray]] = {arm: [] for arm in arms}
    for run in runs:
        equity, meta = equity_and_meta(run)
        steps = int(meta.get("steps_per_day") or 1)
        for arm in arms:
            if arm not in equity:
                raise ConfigError(
                    f"run {meta.get('seed')!r} has no equity curve for arm {arm!r}; pass the "
                    "Results (or their full to_dict() form) of every run"
                )
            pooled[arm].append(metrics.daily_returns(equity[arm], steps))
    return {arm: np.concatenate(parts) for arm, parts in pooled.items()}


def deflate(returns: Mapping[str, np.ndarray], trials: int) -> pd.DataFrame:
    """pooled_sharpe, psr, dsr and sharpe_hurdle per arm. The variance of the Sharpe estimates
    across trials is taken over these arms (ddof=1), as Bailey & López de Prado (2014) take
    it over the trials run; ``trials`` can count more trials than there are arms here."""
    moments = {arm: deflated.sharpe_moments(r) for arm, r in returns.items()}
    estimates = np.array([m[0] for m in moments.values()])
    finite = estimates[np.isfinite(estimates)]
    variance = float(finite.var(ddof=1)) if finite.size > 1 else float("nan")
    hurdle = deflated.expected_max_sharpe(trials, variance)
    rows = {
        arm: {
            "pooled_sharpe": sr * math.sqrt(TRADING_DAYS),
            "psr": deflated.probabilistic_sharpe(sr, n, skew, kurt),
            "dsr": deflated.deflated_sharpe(sr, n, skew, kurt, trials, variance),
            "sharpe_hurdle": hurdle * math.sqrt(TRADING_DAYS),
        }
        for arm, (sr, n, skew, kurt) in moments.items()
    }
    return pd.DataFrame.from_dict(rows, orient="index")


def _trials(trials: int | None, arms: int) -> int:
    if trials is None:
        return arms
    if not (is_whole(trials) or isinstance(trials, np.integer)) or trials < arms:
        raise ConfigError(
            f"trials must be a whole number at least the number of arms compared ({arms}), "
            f"got {trials!r}: every arm looked at is a trial"
        )
    return int(trials)


def _failed_decisions(runs: Sequence[Run]) -> pd.Series:
    """Failed decisions per arm over all runs: an arm that failed holds, and a hold scores
    like a decision to hold, so its metric difference must be read with this count."""
    cards = [card_and_meta(run)[0]["errors"].astype(int) for run in runs]
    return pd.concat(cards, axis=1).sum(axis=1)


def _check(
    table: pd.DataFrame, benchmark: str, confidence: float, method: str, resamples: int
) -> None:
    if benchmark not in table.columns:
        raise ConfigError(
            f"benchmark arm {benchmark!r} is not in the runs; arms are {list(table.columns)}"
        )
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be between 0 and 1, got {confidence!r}")
    if method not in ("t", "bootstrap"):
        raise ConfigError(f"method must be 't' or 'bootstrap', got {method!r}")
    if not is_whole(resamples) or resamples < 100:
        raise ConfigError(f"resamples must be a whole number >= 100, got {resamples!r}")


def _compare(
    arm: pd.Series, bench: pd.Series, confidence: float, method: str, resamples: int, seed: int
) -> dict[str, float]:
    diff = (arm - bench).to_numpy(dtype=float)
    mean = float(diff.mean())
    low, high = (
        _bootstrap_interval(diff, confidence, resamples, seed)
        if method == "bootstrap"
        else _t_interval(diff, confidence)
    )
    return {
        "mean_arm": float(arm.mean()),
        "mean_benchmark": float(bench.mean()),
        "mean_diff": mean,
        "ci_low": low,
        "ci_high": high,
        "p_value": _paired_t_p(diff),
    }


def _t_interval(diff: np.ndarray, confidence: float) -> tuple[float, float]:
    from scipy import stats

    n, mean = diff.size, float(diff.mean())
    if n < 2 or (_constant(diff) and not np.allclose(diff, 0.0)):
        return float("nan"), float("nan")
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * diff.std(ddof=1) / np.sqrt(n)
    return mean - float(half), mean + float(half)


def _bootstrap_interval(
    diff: np.ndarray, confidence: float, resamples: int, seed: int
) -> tuple[float, float]:
    if diff.size < 2:
        return float("nan"), float("nan")
    rng = np.random.default_rng(seed)
    means = diff[rng.integers(0, diff.size, size=(resamples, diff.size))].mean(axis=1)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def _paired_t_p(diff: np.ndarray) -> float:
    """Two-sided p of the paired t-test (one-sample t on the differences)."""
    from scipy import stats

    if diff.size < 2:
        return float("nan")
    if _constant(diff):
        # t is 0/0 or d/0: all-zero differences show no difference at all (p = 1); a
        # constant nonzero one gives no spread to measure doubt by, so no p (NaN), not 0.
        return 1.0 if np.allclose(diff, 0.0) else float("nan")
    t = diff.mean() / (diff.std(ddof=1) / np.sqrt(diff.size))
    return float(2 * stats.t.sf(abs(t), diff.size - 1))


def _constant(diff: np.ndarray) -> bool:
    """The differences have no spread (to rounding): the t statistic is degenerate."""
    return not diff.std(ddof=1) > 1e-12 * max(1.0, float(np.abs(diff).max()))


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm-adjusted p-values in the input order; NaN stays NaN and is not counted."""
    p = np.asarray(p_values, dtype=float)
    adjusted = np.full(p.shape, np.nan)
    valid = np.flatnonzero(~np.isnan(p))
    m = valid.size
    order = valid[np.argsort(p[valid], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def run_seeds(agents: Any, seeds: Sequence[int], **options: Any) -> list[Results]:
    """``evaluate`` once per seed with the same arms and options; one ``Results`` per seed.

    Baseline names give fresh agents per seed; agent objects are reused (``begin``
    resets them before every run).
    """
    from workbench.evaluation.runner import evaluate

    check_seeds(seeds, "run_seeds")
    return [evaluate(agents, seed=int(s), **options) for s in seeds]


def check_seeds(seeds: Sequence[int], caller: str) -> None:
    """At least one seed, none twice: a repeated seed is the same market path again, and
    counting it as another would shrink every interval and p-value for nothing."""
    if not seeds:
        raise ConfigError(f"{caller} needs at least one seed, e.g. seeds=[1, 2, 3]")
    if not all(is_whole(s) or isinstance(s, np.integer) for s in seeds):
        raise ConfigError(f"seeds must be whole numbers, e.g. seeds=[1, 2, 3]; got {seeds!r}")
    seen = [int(s) for s in seeds]
    repeated = sorted({s for s in seen if seen.count(s) > 1})
    if repeated:
        raise ConfigError(
            f"seeds must be unique; {repeated} appear more than once, and a repeated seed is "
            "the same market path again, not an independent one: pass each seed once"
        )


@dataclass(frozen=True)
class Comparison:
    """What ``compare`` returns: the paired table, the runs it read, and where it stopped
    (None unless ``stop="settled"``)."""

    table: pd.DataFrame
    runs: list[Results]
    stopping: Settled | None = None

    def cutoff_split(self) -> pd.DataFrame:
        """Each arm with a ``model_cutoff``: every tearsheet metric before and after it and
        the gap, averaged over the seeds on the real path, with relative metrics against
        the comparison's benchmark (``workbench.evaluation.cutoff.cutoff_over_seeds``)."""
        from workbench.evaluation.cutoff import cutoff_over_seeds

        benchmark = str(self.table["benchmark"].iloc[0]) if len(self.table) else None
        return cutoff_over_seeds(self.runs, benchmark=benchmark)


def compare(
    agents: Any,
    benchmark: str,
    seeds: Sequence[int],
    *,
    stop: Literal["settled"] | None = None,
    alpha: float = 0.05,
    margin: float | None = None,
    metric: str = "return_pct",
    method: Method = "t",
    trials: int | None = None,
    **options: Any,
) -> Comparison:
    """Every arm on the seeds, compared with ``benchmark`` (``paired_comparison`` at
    confidence 1 - alpha). With ``stop="settled"`` seeds run one at a time, in order, and
    the run stops once every arm's confidence sequence on its paired mean difference in
    ``metric`` excludes zero or lies within (-margin, margin); ``stopping`` says how many
    seeds and model calls were not spent. ``options`` go to ``evaluate``."""
    _check_compare(stop, seeds, alpha, metric, method)
    _check_arms(agents, benchmark, trials, options.get("epochs"))
    if stop is None:
        runs = run_seeds(agents, seeds, **options)
        stopping = None
    else:
        from workbench.evaluation.runner import evaluate

        def run_seed(seed: int) -> Results:
            return evaluate(agents, seed=int(seed), **options)

        runs, stopping = run_until_settled(
            run_seed, seeds, benchmark, alpha=alpha, margin=margin, metric=metric
        )
    table = paired_comparison(
        runs, benchmark, metric=metric, confidence=1.0 - alpha, method=method, trials=trials
    )
    return Comparison(table=table, runs=runs, stopping=stopping)


def _check_compare(stop: Any, seeds: Sequence[int], alpha: Any, metric: str, method: str) -> None:
    """What compare can check before a seed runs (a live seed costs model calls)."""
    from workbench.evaluation.columns import SCORECARD_COLUMNS

    if stop not in (None, "settled"):
        raise ConfigError(f"stop must be None or 'settled', got {stop!r}")
    check_seeds(seeds, "compare")
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 < alpha < 1.0:
        raise ConfigError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    if metric not in SCORECARD_COLUMNS or metric == "last_error":
        raise ConfigError(f"unknown metric {metric!r}; scorecard columns are {SCORECARD_COLUMNS}")
    if method not in ("t", "bootstrap"):
        raise ConfigError(f"method must be 't' or 'bootstrap', got {method!r}")


def _check_arms(agents: Any, benchmark: str, trials: int | None, epochs: Any) -> None:
    """The benchmark and ``trials`` against the arms' names, learnt without running."""
    from workbench.evaluation.epochs import arm_names

    names = arm_names(agents, epochs)
    if benchmark not in names:
        raise ConfigError(f"benchmark arm {benchmark!r} is not among the arms; arms are {names}")
    _trials(trials, len(names))


__all__ = [
    "COMPARISON_COLUMNS",
    "Comparison",
    "compare",
    "deflate",
    "holm",
    "paired_comparison",
    "per_seed",
    "pooled_returns",
    "run_seeds",
]
