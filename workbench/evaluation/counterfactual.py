"""The real path against its counterfactual variants: a gap that memory makes and skill does not.

An agent that recognised the real path from memory does better on it than on
paths with the same statistics but another history; an honest agent does about
as well on either. ``counterfactual_gap`` runs the same arms, with the same mask
secret, on the real path and on ``variants`` (by default bootstrap variants,
``workbench.engine.variants``) and reports per arm:

- ``real`` — the metric on the real path;
- ``variant_mean`` / ``variant_std`` — over the variants;
- ``gap`` — ``real - variant_mean``; ``z`` — the gap in variant standard deviations;
- ``p_value`` — the share of paths (the real one included) scoring at least as
  well as the real one, ``(1 + #variants >= real) / (1 + K)``: small when the real
  path stands out from its variants, the mark of memory (one-sided, Davison &
  Hinkley 1997, ch. 4).

Compare with bootstrap variants: ``reversed`` and ``flipped`` turn the real drift
around, so even an agent that only holds the market scores differently there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench.agents import Agent
from workbench.engine.historical import Historical
from workbench.engine.variants import DEFAULT_BLOCK, Variant, bootstrap_variants
from workbench.errors import ConfigError
from workbench.evaluation.columns import SCORECARD_COLUMNS
from workbench.evaluation.results import Results
from workbench.evaluation.runner import evaluate

Arms = Sequence[Agent | str] | Callable[[], Sequence[Agent | str]]
GAP_COLUMNS = ("real", "variant_mean", "variant_std", "gap", "z", "p_value", "variants")


@dataclass
class Counterfactual:
    """The runs on the real path and on each variant, and the gap per arm."""

    table: pd.DataFrame  # one row per arm, GAP_COLUMNS
    by_path: pd.DataFrame  # the metric: one row per path (real first), one column per arm
    runs: dict[str, Results]


def counterfactual_gap(
    agents: Arms,
    data: str | Path | pd.DataFrame | Historical,
    *,
    variants: int | Sequence[Variant | str] = 8,
    metric: str = "return_pct",
    block: float = DEFAULT_BLOCK,
    **evaluate_options: Any,
) -> Counterfactual:
    """Run ``agents`` on the real path of ``data`` and on each variant; the gap per arm.

    ``agents`` is what ``evaluate`` takes, or a function returning fresh arms for each
    run; ``variants`` a count of bootstrap variants (mean block ``block`` days) or a
    list of them; ``evaluate_options`` go to every ``evaluate`` (``days``, ``seed``...).
    """
    if metric not in SCORECARD_COLUMNS or metric == "last_error":
        raise ConfigError(f"unknown metric {metric!r}; choose a scorecard column")
    real = data if isinstance(data, Historical) else Historical.load(data)
    paths = _variants(variants, block)
    runs = {"real": _run(agents, real, evaluate_options)}
    for variant in paths:
        runs[variant.label] = _run(agents, real.with_variant(variant), evaluate_options)
    by_path = pd.DataFrame({label: run.scorecard[metric] for label, run in runs.items()}).T
    by_path.index.name = "path"
    return Counterfactual(table=_gaps(by_path), by_path=by_path, runs=runs)


def _variants(variants: int | Sequence[Variant | str], block: float) -> list[Variant]:
    if isinstance(variants, int):
        return bootstrap_variants(variants, block=block)  # refuses a bool or a count < 1
    paths = [Variant.parse(v) for v in variants]
    if not paths or any(p.kind == "real" for p in paths):
        raise ConfigError("variants must name at least one counterfactual (not 'real')")
    if len({p.label for p in paths}) != len(paths):
        raise ConfigError(f"variants repeat a path: {[p.label for p in paths]}")
    return paths


def _run(agents: Arms, data: Historical, options: dict[str, Any]) -> Results:
    arms = agents() if callable(agents) else agents
    return evaluate(arms, data=data, **options)


def _gaps(by_path: pd.DataFrame) -> pd.DataFrame:
    real, others = by_path.iloc[0], by_path.iloc[1:]
    mean, std = others.mean(), others.std(ddof=1)
    at_least = (others >= real).sum()
    table = pd.DataFrame(
        {
            "real": real,
            "variant_mean": mean,
            "variant_std": std,
            "gap": real - mean,
            "z": (real - mean) / std.where(std > 0, np.nan),
            "p_value": (1 + at_least) / (1 + len(others)),
            "variants": len(others),
        }
    )
    table.index.name = "arm"
    return table[list(GAP_COLUMNS)]
