"""Stop adding seeds once the answer is settled: a confidence sequence on the paired mean.

A confidence sequence holds at every number of seeds at once, so it may be read
after every seed and the comparison stopped as soon as it says enough, without
the error rate growing with the number of looks (a fixed-n t-interval read after
every seed rejects a true null far more often than alpha).

The boundary is Lai's t-mixture (Lai 1976, "On confidence sequences", Annals of
Statistics 4(2); restated by Wang & Ramdas 2023, "Anytime-valid t-tests and
confidence sequences for Gaussian means with unknown variance"). For t paired
differences with mean m, sample standard deviation s (ddof=1), nu = t - 1 and
T(mu) = (m - mu) / (s / sqrt(t)), the scale-invariant Bayes factor with a normal
prior N(0, g) on the standardised effect (mu - mu0) / sigma,
    B_t(mu0) = (1 + t g)^(-1/2) * ((1 + T^2/nu) / (1 + T^2/(nu (1 + t g))))^(t/2),
is a nonnegative martingale under mu = mu0, so by Ville's inequality
P(exists t: B_t(mu) >= 1/alpha) <= alpha. B is increasing in T^2, so the
sequence is the interval m -/+ sqrt(c_t) * s / sqrt(t), with c_t solving
B = 1/alpha in closed form: with a = 1 + t g and K = (sqrt(a) / alpha)^(2/t),
    c_t = nu * (K - 1) / (1 - K / a)      (the whole line while K >= a).
It is exact for Gaussian differences whatever their variance, from two seeds
on; the suite checks by simulation that it stays below alpha for Gaussian and
heavy-tailed (Student t, 3 df) differences. g is chosen to make the interval
narrowest at the planned number of seeds (Howard, Ramdas, McAuliffe & Sekhon
2021, Annals of Statistics 49(2), section 3.5, tune a mixture to a target time
the same way). Their normal-mixture boundary with the standard deviation
plugged in was measured first and rejected here: it rejected a true null in 7 %
of runs at alpha = 5 % with 20 seeds planned, read from the fifth seed on.

With k arms each sequence runs at alpha / k (Bonferroni; the sequences are
time-uniform, so the union bound holds at every stopping time). An arm is
settled when its sequence excludes zero ("differs") or lies inside
(-margin, margin) ("within_margin"); the comparison stops when every arm is.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from workbench._checks import is_whole
from workbench.errors import ConfigError
from workbench.evaluation.paired import per_seed
from workbench.evaluation.results import Results

MIN_SEEDS = 2
Verdict = Literal["differs", "within_margin", "open"]


def critical_t2(seeds: int, prior: float, alpha: float) -> float:
    """c_t: the squared t statistic at which Lai's mixture reaches 1/alpha (inf if never)."""
    if seeds < MIN_SEEDS:
        return math.inf
    a = 1.0 + seeds * prior
    k = (math.sqrt(a) / alpha) ** (2.0 / seeds)
    if k >= a:
        return math.inf
    return (seeds - 1) * (k - 1.0) / (1.0 - k / a)


def tuned_prior(planned: int, alpha: float) -> float:
    """The prior variance g that makes the interval narrowest after ``planned`` seeds."""
    from scipy.optimize import minimize_scalar

    def width(log_g: float) -> float:
        c = critical_t2(planned, math.exp(log_g), alpha)
        return c if math.isfinite(c) else 1e300

    found = minimize_scalar(width, bounds=(-10.0, 10.0), method="bounded", options={"xatol": 1e-9})
    return float(math.exp(found.x))


def interval(differences: np.ndarray, alpha: float, prior: float) -> tuple[float, float]:
    """The confidence sequence's interval for the mean after these differences."""
    t = differences.size
    if t < MIN_SEEDS:
        return -math.inf, math.inf
    critical = critical_t2(t, prior, alpha)
    if not math.isfinite(critical):  # the mixture cannot reach 1/alpha yet, whatever the data
        return -math.inf, math.inf
    mean, spread = float(differences.mean()), float(differences.std(ddof=1))
    half = math.sqrt(critical) * spread / math.sqrt(t)
    return mean - half, mean + half


def verdict(
    differences: np.ndarray, alpha: float, prior: float, margin: float | None
) -> tuple[Verdict, float, float]:
    """What the sequence says after these differences: the verdict and the interval."""
    low, high = interval(differences, alpha, prior)
    if low > 0.0 or high < 0.0:
        return "differs", low, high
    if margin is not None and -margin < low and high < margin:
        return "within_margin", low, high
    return "open", low, high


@dataclass(frozen=True)
class Settled:
    """Where a stopped comparison ended: per arm its verdict and its last interval."""

    alpha: float
    margin: float | None
    seeds_planned: int
    seeds_used: int
    model_calls_used: int
    verdicts: Mapping[str, Verdict]
    intervals: Mapping[str, tuple[float, float]]

    @property
    def seeds_not_spent(self) -> int:
        return self.seeds_planned - self.seeds_used

    @property
    def model_calls_not_spent(self) -> float:
        """The calls the seeds not run would have made, at the mean per seed seen so far."""
        if not self.seeds_used:
            return 0.0
        return self.model_calls_used / self.seeds_used * self.seeds_not_spent

    @property
    def settled(self) -> bool:
        return all(v != "open" for v in self.verdicts.values())

    def summary(self) -> dict[str, Any]:
        return {
            "boundary": "Lai's t-mixture confidence sequence (Lai 1976), Bonferroni over arms",
            "alpha": round(self.alpha, 12),
            "margin": self.margin,
            "settled": self.settled,
            "seeds_planned": self.seeds_planned,
            "seeds_used": self.seeds_used,
            "seeds_not_spent": self.seeds_not_spent,
            "model_calls_used": self.model_calls_used,
            "model_calls_not_spent": self.model_calls_not_spent,
            "verdicts": dict(self.verdicts),
            "intervals": {
                arm: [x if math.isfinite(x) else None for x in iv]
                for arm, iv in self.intervals.items()
            },
        }


class Stopper:
    """Reads the per-seed differences of every arm after each seed and says when to stop."""

    def __init__(
        self, arms: Sequence[str], planned: int, alpha: float, margin: float | None
    ) -> None:
        check_stopping(alpha, margin, planned)
        self.arms, self.planned, self.margin = list(arms), planned, margin
        self.alpha = alpha / max(1, len(self.arms))
        self.prior = tuned_prior(planned, self.alpha)
        self.verdicts: dict[str, Verdict] = dict.fromkeys(self.arms, "open")
        self.intervals: dict[str, tuple[float, float]] = {}

    def update(self, differences: Mapping[str, np.ndarray]) -> bool:
        """True when every arm is settled."""
        for arm in self.arms:
            d = np.asarray(differences[arm], dtype=float)
            self.verdicts[arm], low, high = verdict(d, self.alpha, self.prior, self.margin)
            self.intervals[arm] = (low, high)
        return all(v != "open" for v in self.verdicts.values())


def run_until_settled(
    run_seed: Callable[[int], Results],
    seeds: Sequence[int],
    benchmark: str,
    *,
    alpha: float = 0.05,
    margin: float | None = None,
    metric: str = "return_pct",
) -> tuple[list[Results], Settled]:
    """``run_seed(seed)`` for the seeds in order until every arm's sequence on its paired
    mean difference in ``metric`` from ``benchmark`` is settled (or the seeds run out).
    Everything is checked before the first seed runs."""
    check_stopping(alpha, margin, len(seeds))
    runs: list[Results] = []
    stopper: Stopper | None = None
    for seed in seeds:
        runs.append(run_seed(seed))
        table = per_seed(runs, metric)
        if stopper is None:
            if benchmark not in table.columns:
                raise ConfigError(
                    f"benchmark arm {benchmark!r} is not in the runs; arms are "
                    f"{list(table.columns)}"
                )
            stopper = Stopper(
                [a for a in table.columns if a != benchmark], len(seeds), alpha, margin
            )
        if stopper.update(
            {arm: (table[arm] - table[benchmark]).to_numpy() for arm in stopper.arms}
        ):
            break
    calls = int(sum(run.scorecard["model_calls"].sum() for run in runs))
    verdicts = dict(stopper.verdicts) if stopper else {}
    return runs, Settled(
        alpha=alpha,
        margin=margin,
        seeds_planned=len(seeds),
        seeds_used=len(runs),
        model_calls_used=calls,
        verdicts=verdicts,
        intervals=dict(stopper.intervals) if stopper else {},
    )


def check_stopping(alpha: float, margin: float | None, planned: int) -> None:
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or not 0.0 < alpha < 1.0:
        raise ConfigError(f"alpha must be a number between 0 and 1, got {alpha!r}")
    if margin is not None and (
        isinstance(margin, bool)
        or not isinstance(margin, int | float)
        or not math.isfinite(margin)
        or margin <= 0.0
    ):
        raise ConfigError(
            f"margin must be a positive number (in the metric's units), got {margin!r}"
        )
    if not is_whole(planned) or planned <= MIN_SEEDS:
        raise ConfigError(
            f"stopping when settled needs more than {MIN_SEEDS} seeds to choose from, got "
            f"{planned!r}; pass more seeds (the unused ones are not run)"
        )


__all__ = [
    "MIN_SEEDS",
    "Settled",
    "Stopper",
    "critical_t2",
    "interval",
    "run_until_settled",
    "tuned_prior",
    "verdict",
]
