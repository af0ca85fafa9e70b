"""The decision diff of two runs on one path: two recordings, or two stored evaluation runs.

``decision_diff(a, b)`` takes two recording folders, or two run ids of the run
store (``store=``); it returns a ``DecisionDiff`` (see
``workbench.evaluation.divergence``): where the compared arm's decisions first
parted, both rationales, and the P&L gap split exactly over every parting.
``diff_runs`` is the same as JSON-safe data. A stored run is re-executed from its
request (its arms are baselines or offline committees: no model is called) and must
reproduce its stored results digest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, RecordingError
from workbench.evaluation import Results
from workbench.evaluation.divergence import DecisionDiff, Taped, final_equity, split_gap
from workbench.services.agents import build_arms
from workbench.services.evaluation import MarketRequest
from workbench.services.store import RunStore, default_store


def decision_diff(
    a: str | Path,
    b: str | Path,
    *,
    arm: str | None = None,
    arm_b: str | None = None,
    store: RunStore | str | Path | None = None,
) -> DecisionDiff:
    """Where ``b``'s decisions parted from ``a``'s, and the split of B's P&L minus A's.

    ``a`` and ``b`` are both recording folders, or both run ids in ``store`` (default
    ``$WORKBENCH_RUN_STORE`` or ``~/.workbench/runs``). ``arm`` names the arm compared
    when the default (each recording's one recorded arm; each stored run's one arm the
    other lacks) does not apply; ``arm_b`` names B's arm when it is another (two arms of
    one run: ``decision_diff(r, r, arm="x", arm_b="y")``)."""
    recordings = [_is_recording(x) for x in (a, b)]
    if all(recordings):
        from workbench.recordings.diff import diff_recordings

        return diff_recordings(a, b, arm=arm, arm_b=arm_b)
    if any(recordings):
        raise ConfigError("diff two recordings or two stored runs, not one of each")
    for name in (a, b):
        if Path(name).exists() or "/" in str(name):
            raise ConfigError(
                f"{name} is neither a recording folder (it holds no recording manifest) nor "
                "a run id; pass two recording folders, or two run ids from `workbench runs list`"
            )
    runs = RunStore.open(default_store() if store is None else store)
    return _diff_stored(runs, str(a), str(b), arm, arm_b)


def diff_runs(
    a: str,
    b: str,
    *,
    arm: str | None = None,
    arm_b: str | None = None,
    store: RunStore | str | Path | None = None,
) -> dict[str, Any]:
    """``decision_diff`` as JSON-safe data (its ``summary``)."""
    return decision_diff(a, b, arm=arm, arm_b=arm_b, store=store).summary()


def _is_recording(name: str | Path) -> bool:
    """Whether ``name`` is a folder holding a recording's manifest (else: a run id)."""
    from workbench.recordings.manifest import MANIFEST, RECORDING_FORMAT

    try:
        manifest = json.loads((Path(name) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(manifest, dict) and manifest.get("format") == RECORDING_FORMAT


def _diff_stored(
    runs: RunStore, a: str, b: str, arm: str | None, arm_b: str | None
) -> DecisionDiff:
    requests = [_evaluation_request(runs, run_id) for run_id in (a, b)]
    moved = [
        f"{key} {_shown(key, requests[0].get(key))} vs {_shown(key, requests[1].get(key))}"
        for key in sorted(set(requests[0]) | set(requests[1]))
        if key != "arms" and requests[0].get(key) != requests[1].get(key)
    ]
    if moved:
        raise ConfigError(
            f"runs {a} and {b} are not on the same market path, so their decisions cannot be "
            f"compared step by step; they differ in: {'; '.join(moved)}"
        )
    arms = _compared(requests[0]["arms"], requests[1]["arms"], arm, arm_b)
    (tape_a, results_a), (tape_b, results_b) = (
        _taped(runs, run_id, request, name)
        for run_id, request, name in zip((a, b), requests, arms, strict=True)
    )
    return split_gap(
        lambda agents: _run(requests[0], agents),
        (tape_a, tape_b),
        (final_equity(results_a, arms[0]), final_equity(results_b, arms[1])),
        labels=(a, b),
        capital=float(requests[0]["capital"]),
        runs=(results_a, results_b),
    )


def _evaluation_request(runs: RunStore, run_id: str) -> dict[str, Any]:
    manifest = runs.manifest(run_id)
    if manifest["kind"] != "evaluation":
        raise ConfigError(
            f"run {run_id} is a {manifest['kind']}; a decision diff compares two evaluation runs "
            "(one market path each); a comparison's per-seed runs are in its evaluation_runs"
        )
    request = dict(manifest["request"])
    if "preset" in request and request["preset"] is None:  # made before the default was named
        ran = manifest["outcome"].get("meta", {}).get("preset")
        request["preset"] = MarketRequest.from_stored(request, ran=ran).preset
    return request


def _compared(
    arms_a: list[str], arms_b: list[str], arm: str | None, arm_b: str | None
) -> tuple[str, str]:
    if arm is not None:
        chosen = (arm, arm_b or arm)
        for name, names, which in zip(chosen, (arms_a, arms_b), "AB", strict=True):
            if name not in names:
                raise ConfigError(f"arm {name!r} is not among {which}'s arms {names}")
        return chosen
    if arm_b is not None:
        raise ConfigError("arm_b (--arm-b) names B's arm beside arm (--arm); pass both")
    only_a = [name for name in arms_a if name not in arms_b]
    only_b = [name for name in arms_b if name not in arms_a]
    if len(only_a) == 1 and len(only_b) == 1:
        return only_a[0], only_b[0]
    raise ConfigError(
        f"name the arm to compare with arm=... (--arm): the runs' arms are {arms_a} and "
        f"{arms_b}, and each does not hold exactly one arm the other lacks"
    )


def _taped(runs: RunStore, run_id: str, request: dict[str, Any], arm: str) -> tuple[Taped, Results]:
    arms = build_arms(request["arms"])
    taped = Taped(next(a for a in arms if a.name == arm))
    results = _run(request, [taped if a.name == arm else a for a in arms])
    stored = runs.manifest(run_id)["outcome"].get("results_digest")
    if results.digest() != stored:
        raise RecordingError(
            f"run {run_id} does not reproduce its stored results (digest {stored}); it was "
            "made by another version or its files were edited, so its decisions are not known"
        )
    return taped, results


def _run(request: dict[str, Any], agents: list[Any]) -> Results:
    from workbench.bridge import run_sync
    from workbench.evaluation import run_world

    market = MarketRequest.from_stored(request)
    money = {key: request[key] for key in ("capital", "leverage_cap", "fee_bps")}
    return run_sync(run_world(market.world(request["seed"]), agents, **money))


def _shown(key: str, value: Any) -> str:
    """A path field as ``runs list`` says it: no preset is a run on historical data."""
    if key == "preset" and value is None:
        return "(historical data)"
    return repr(value)
