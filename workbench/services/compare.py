"""Compare arms against a benchmark arm across seeds: one evaluation run per seed, paired.

Each seed is an ordinary evaluation run in the store (made, or reused when the
same request was run before); the comparison run records which ones it read,
the per-seed table and the paired comparison (``workbench.evaluation.compare``),
with the data-snooping tests over its arms (``snooping``) and the probability of
backtest overfitting over the trial store (``overfitting``): every configuration
(an arm with its money settings) any evaluation in the store ran on this
comparison's market and seeds is one trial of the CSCV matrix.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Unpack

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.errors import ConfigError
from workbench.evaluation.columns import SCORECARD_COLUMNS
from workbench.evaluation.results import canonical_json
from workbench.services._answers import finish, plain_row
from workbench.services.agents import check_arm_names
from workbench.services.evaluation import (
    MarketKeywords,
    MarketRequest,
    evaluation_request,
    evaluation_run,
)
from workbench.services.glossary import CAVEATS
from workbench.services.store import RunStore

_NUMERIC = tuple(c for c in SCORECARD_COLUMNS if c not in ("last_error", "latency_s", "bust_step"))
MAX_SEEDS = 200


def compare_runs(
    store: RunStore | str | Path,
    arms: list[str],
    benchmark: str,
    seeds: list[int],
    *,
    metric: str = "return_pct",
    confidence: float = 0.95,
    method: str = "t",
    **market: Unpack[MarketKeywords],
) -> dict[str, Any]:
    """Every arm on every seed; per arm, the paired difference from ``benchmark`` with an
    interval, a p-value and the Holm-adjusted p-value over the arms compared, and the arm's
    pooled Sharpe ratio with its PSR and its DSR. The DSR deflates by the ``trials`` column:
    the trials this store had counted when the comparison ran (this one included), or the
    number of arms if larger. A comparison that runs counts as one trial; its seeds do not."""
    runs = RunStore.open(store)
    path = MarketRequest.of("compare_runs", **market)
    request: dict[str, Any] = {
        "arms": check_arm_names(arms),
        "benchmark": benchmark,
        "seeds": _check(arms, benchmark, seeds, metric, confidence, method),
        "metric": metric,
        "confidence": float(confidence),
        "method": method,
        **path.stored(),
    }
    path.check(arms, request["seeds"][0], seeds=len(request["seeds"]))

    def build(folder: Path) -> dict[str, Any]:
        return _compare(runs, request, path, folder)

    run_id, manifest, reused = runs.create("comparison", request, build, trial=True)
    return finish(runs, run_id, manifest, reused)


def _compare(
    runs: RunStore, request: Mapping[str, Any], market: MarketRequest, folder: Path
) -> dict[str, Any]:
    from workbench.evaluation.compare import paired_comparison, per_seed

    evaluations = [
        evaluation_run(
            runs, evaluation_request(request["arms"], seed=seed, market=market), trial=False
        )
        for seed in request["seeds"]
    ]
    results = [_load(runs, answer["artefacts"]["results"]) for answer in evaluations]
    table = per_seed(results, request["metric"])
    comparison = paired_comparison(
        results,
        request["benchmark"],
        metric=request["metric"],
        confidence=request["confidence"],
        method=request["method"],
        trials=max(len(request["arms"]), runs.trials() + 1),  # + 1: this comparison
    )
    table.to_csv(folder / "per_seed.csv", lineterminator="\n")
    comparison.to_csv(folder / "comparison.csv", lineterminator="\n")
    rows = [plain_row({"arm": arm, **row}) for arm, row in comparison.iterrows()]
    (folder / "comparison.json").write_text(canonical_json(rows), encoding="utf-8")
    return {
        "comparison": rows,
        "evaluation_runs": {
            str(seed): answer["run_id"]
            for seed, answer in zip(request["seeds"], evaluations, strict=True)
        },
        "results_digest": _digest(rows),
        "ranking": _caveats(request, rows),
        "artefacts": {
            "comparison_csv": "comparison.csv",
            "comparison_json": "comparison.json",
            "per_seed_csv": "per_seed.csv",
        },
        "snooping": comparison.attrs["snooping"],
        "overfitting": store_overfitting(runs, request["seeds"], market),
    }


def store_overfitting(runs: RunStore, seeds: list[int], market: MarketRequest) -> dict[str, Any]:
    """PBO (CSCV) over every configuration the store ran on these seeds and market; a
    ``skipped`` reason instead when there are too few trials or days. Runs whose equity
    cannot be read are left out and named in ``runs_unreadable``."""
    from workbench.evaluation.overfitting import blocks_for, pbo

    returns, unreadable = _trial_returns(runs, seeds, market)
    blocks = blocks_for(len(returns))
    if returns.shape[1] < 2 or not blocks:
        answer: dict[str, Any] = {
            "skipped": f"{returns.shape[1]} trials over {len(returns)} paired days: PBO needs "
            "at least two configurations on the same seeds and four days"
        }
    else:
        answer = pbo(returns, blocks=blocks).summary()
    return {**answer, "runs_unreadable": unreadable}


def trial_returns(runs: RunStore, seeds: list[int], market: MarketRequest) -> pd.DataFrame:
    """The trials x time matrix: day returns (rows: seed, day) of every configuration that
    an evaluation in the store ran on each of ``seeds`` with this market. A configuration is
    an arm with its capital, leverage cap and fee; the first run (by id) that ran it wins.
    An arm that went bust earns 0 on the days after it."""
    return _trial_returns(runs, seeds, market)[0]


def _trial_returns(
    runs: RunStore, seeds: list[int], market: MarketRequest
) -> tuple[pd.DataFrame, list[str]]:
    from workbench.evaluation.paired import run_day_returns

    found: dict[tuple[Any, ...], dict[int, np.ndarray]] = {}
    unreadable: list[str] = []
    for run_id, request in _evaluations_on(runs, seeds, market):
        run = _equity_run(runs, run_id)
        try:
            per_arm = run_day_returns(run, request["arms"], request["seed"]) if run else None
        except ConfigError:  # an arm of its request has no equity curve
            per_arm = None
        if per_arm is None:
            unreadable.append(run_id)
            continue
        money = tuple(request.get(k) for k in ("capital", "leverage_cap", "fee_bps"))
        for arm, returns in per_arm.items():
            found.setdefault((arm, *money), {}).setdefault(request["seed"], returns)
    complete = {key: per for key, per in found.items() if len(per) == len(seeds)}
    days = {s: max((per[s].size for per in complete.values()), default=0) for s in seeds}
    labels = _labels(list(complete))
    columns = {
        labels[key]: np.concatenate(
            [np.pad(per[s], (0, days[s] - per[s].size)) for s in sorted(seeds)]
        )
        for key, per in complete.items()
    }
    return pd.DataFrame(columns), unreadable


def _evaluations_on(
    runs: RunStore, seeds: list[int], market: MarketRequest
) -> list[tuple[str, dict[str, Any]]]:
    """(run id, request) of the store's evaluations on these seeds and market, by id."""
    wanted = market.stored()
    chosen = []
    for run_id in sorted(runs.run_ids()):
        manifest = runs.manifest(run_id)
        request = manifest["request"]
        if manifest["kind"] != "evaluation" or request.get("seed") not in seeds:
            continue
        if all(request.get(key) == value for key, value in wanted.items()):
            chosen.append((run_id, request))
    return chosen


def _equity_run(runs: RunStore, run_id: str) -> dict[str, Any] | None:
    """A stored run's equity and meta, as ``run_day_returns`` reads them; None when its
    files cannot be read (a damaged run hides no other)."""
    manifest = runs.manifest(run_id)
    try:
        outcome = manifest["outcome"]
        equity = pd.read_parquet(runs.artefact(run_id, outcome["artefacts"]["equity"]))
        curves = {arm: equity[arm].to_numpy(dtype=float) for arm in equity.columns}
        return {"equity": curves, "meta": dict(outcome["meta"])}
    except (KeyError, TypeError, OSError, ValueError):
        return None


def _labels(keys: list[tuple[Any, ...]]) -> dict[tuple[Any, ...], str]:
    """An arm's name, or with its money settings when the store ran it with several."""
    arms = [key[0] for key in keys]
    return {
        key: key[0]
        if arms.count(key[0]) == 1
        else f"{key[0]} (capital={key[1]}, leverage_cap={key[2]}, fee_bps={key[3]})"
        for key in keys
    }


def _caveats(request: Mapping[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any]:
    order = sorted(rows, key=lambda r: (-(r["mean_diff"] or 0.0), r["arm"]))
    return {
        "rank_by": f"mean paired difference in {request['metric']} vs {request['benchmark']}",
        "order": [row["arm"] for row in order],
        "arms_compared": len(rows),
        "seeds": len(request["seeds"]),
        "correction": "Holm over the arms compared (p_holm); 'significant' uses p_holm",
        "evidence": "in-sample: every arm on every listed seed, no held-out seeds",
        "caveats": [CAVEATS["multiple_testing"]],
    }


def _load(runs: RunStore, relative: str) -> dict[str, Any]:
    """The part of a seed's results a comparison reads (the scorecard, and the equity its
    pooled Sharpe ratio and PSR need): held for every seed at once, so the orders, the
    larger part, are let go."""
    run_id, name = relative.split("/", 1)
    data: dict[str, Any] = json.loads(runs.artefact(run_id, name).read_text(encoding="utf-8"))
    return {"meta": data["meta"], "scorecard": data["scorecard"], "equity": data["equity"]}


def _digest(rows: list[dict[str, Any]]) -> str:
    import hashlib

    return hashlib.sha256(canonical_json(rows).encode()).hexdigest()


def _check(
    arms: list[str], benchmark: str, seeds: Any, metric: str, confidence: float, method: str
) -> list[int]:
    if benchmark not in arms:
        raise ConfigError(f"benchmark {benchmark!r} must be one of the arms {arms}")
    if len(arms) < 2:
        raise ConfigError("a comparison needs the benchmark and at least one other arm")
    if not isinstance(seeds, list | tuple) or not seeds:
        raise ConfigError(f"seeds must be a non-empty list of whole numbers, got {seeds!r}")
    if any(not is_whole(s) or s < 0 for s in seeds):
        raise ConfigError(f"seeds must be non-negative whole numbers, got {seeds!r}")
    if len(set(seeds)) != len(seeds) or len(seeds) > MAX_SEEDS:
        raise ConfigError(f"seeds must be unique and at most {MAX_SEEDS}, got {len(seeds)}")
    if metric not in _NUMERIC:
        raise ConfigError(f"metric {metric!r} is not a numeric scorecard column: {_NUMERIC}")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ConfigError(f"confidence must be a number between 0 and 1, got {confidence!r}")
    if not 0.0 < confidence < 1.0:
        raise ConfigError(f"confidence must be between 0 and 1, got {confidence!r}")
    if method not in ("t", "bootstrap"):
        raise ConfigError(f"method must be 't' or 'bootstrap', got {method!r}")
    return list(seeds)
