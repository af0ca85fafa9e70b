"""Run an evaluation into the run store and report it as data, with its caveats attached."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError
from workbench.evaluation import Results, World
from workbench.evaluation.results import VOLATILE_COLUMNS
from workbench.services._answers import finish, plain_row
from workbench.services.agents import COMMITTEE_PREFIX, build_arms, check_arm_names
from workbench.services.glossary import CAVEATS
from workbench.services.store import RunStore

RANK_BY = "sharpe"
# A service run simulates at most this many name-ticks (tens of seconds on one core); the
# library itself has no such limit.
MAX_NAME_TICKS = 200_000_000
_ERRORS_SHOWN = 10


def evaluate_arms(
    arms: list[str],
    *,
    seed: int = 7,
    preset: str | None = None,
    names: int = 40,
    days: int = 10,
    steps_per_day: int = 6,
    ticks_per_step: int = 65,
    capital: float = 1_000_000.0,
    leverage_cap: float = 2.0,
    fee_bps: float = 0.5,
    progress: bool = False,
) -> Results:
    """The shared code path of every front end: check everything, then run once in process.

    ``progress`` draws a bar (step, arms waiting, calls, tokens) on stderr.
    """
    from workbench.bridge import run_sync
    from workbench.evaluation import run_world

    check_arm_names(arms)
    world = World(
        seed=seed,
        universe=_names(names),
        days=days,
        steps_per_day=steps_per_day,
        ticks_per_step=ticks_per_step,
        model=preset,
    )
    agents = build_arms(arms)
    money = _numbers({"capital": capital, "leverage_cap": leverage_cap, "fee_bps": fee_bps})
    return run_sync(
        run_world(
            world,
            agents,
            capital=money["capital"],
            leverage_cap=money["leverage_cap"],
            fee_bps=money["fee_bps"],
            progress=progress,
        )
    )


def run_evaluation(
    store: RunStore | str | Path,
    arms: list[str],
    *,
    seed: int = 7,
    preset: str | None = None,
    names: int = 40,
    days: int = 10,
    steps_per_day: int = 6,
    ticks_per_step: int = 65,
    capital: float = 1_000_000.0,
    leverage_cap: float = 2.0,
    fee_bps: float = 0.5,
) -> dict[str, Any]:
    """Run the arms on one market path; artefacts go to a run directory, a summary comes back."""
    runs = RunStore.open(store)
    request: dict[str, Any] = {
        "arms": check_arm_names(arms),
        "seed": seed,
        "preset": preset,
        "names": names,
        "days": days,
        "steps_per_day": steps_per_day,
        "ticks_per_step": ticks_per_step,
        "capital": capital,
        "leverage_cap": leverage_cap,
        "fee_bps": fee_bps,
    }
    check_request(arms, seed, preset, names, days, steps_per_day, ticks_per_step)

    def build(folder: Path) -> dict[str, Any]:
        results = evaluate_arms(**request)
        return summarise(results, folder)

    run_id, manifest, reused = runs.create("evaluation", request, build)
    return finish(runs, run_id, manifest, reused)


def check_request(
    arms: list[str],
    seed: int,
    preset: str | None,
    names: int,
    days: int,
    steps_per_day: int,
    ticks_per_step: int,
) -> None:
    """Every argument checked (market built lazily, arms built) before the store is touched."""
    _refuse_oversized(names, days, steps_per_day, ticks_per_step)
    World(
        seed=seed,
        universe=_names(names),
        days=days,
        steps_per_day=steps_per_day,
        ticks_per_step=ticks_per_step,
        model=preset,
    )
    build_arms(arms)


def _refuse_oversized(*sizes: Any) -> None:
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in sizes):
        return  # the World names the bad argument
    names, days, steps, ticks = sizes
    total = names * days * steps * ticks
    if total > MAX_NAME_TICKS:
        raise ConfigError(
            f"this run would simulate {total:,} name-ticks ({names} names x {days} days x "
            f"{steps} steps x {ticks} ticks), above the service limit of {MAX_NAME_TICKS:,}; "
            "use fewer names, days or ticks, or call workbench.evaluate directly"
        )


def summarise(results: Results, folder: Path) -> dict[str, Any]:
    """Save ``results`` into ``folder`` and return the small, JSON-safe part of them."""
    saved = results.save(folder)
    card = results.scorecard.drop(columns=list(VOLATILE_COLUMNS)).reset_index()
    rows = [plain_row(row) for row in card.to_dict(orient="records")]
    return {
        "meta": {k: v for k, v in results.meta.items() if k not in ("symbols", "preset_vector")},
        "scorecard": rows,
        "results_digest": results.digest(),
        "ranking": ranking(rows),
        "counts": {"orders": len(results.orders), "errors": len(results.errors)},
        "errors": [plain_row(r) for r in results.errors.head(_ERRORS_SHOWN).to_dict("records")],
        "errors_truncated": max(0, len(results.errors) - _ERRORS_SHOWN),
        "artefacts": {key: path.name for key, path in saved.items()},
    }


def ranking(rows: list[dict[str, Any]], sources: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Arms ordered by Sharpe, with what the ordering rests on carried beside it as data.

    ``sources`` says where each arm's decisions came from ("baseline" when not given).
    """
    order = sorted(rows, key=lambda r: (-(r[RANK_BY] or 0.0), r["arm"]))
    sources = {row["arm"]: (sources or {}).get(row["arm"], _source(row["arm"])) for row in rows}
    caveats = [CAVEATS["single_path"], CAVEATS["multiple_testing"]]
    if "replayed" in sources.values():
        caveats.append(CAVEATS["replayed"])
    return {
        "rank_by": RANK_BY,
        "order": [row["arm"] for row in order],
        "arms_compared": len(rows),
        "seeds": 1,
        "evidence": "in-sample, one market path",
        "arm_sources": sources,
        "caveats": caveats,
    }


def _source(arm: str) -> str:
    return "scripted committee" if arm.startswith(COMMITTEE_PREFIX) else "baseline"


def _names(names: Any) -> int:
    if isinstance(names, bool) or not isinstance(names, int):
        raise ConfigError(f"names must be a whole number of synthetic names, got {names!r}")
    return names


def _numbers(options: dict[str, Any]) -> dict[str, float]:
    out = {}
    for key, value in options.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        out[key] = float(value)
    return out
