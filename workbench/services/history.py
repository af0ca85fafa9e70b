"""The store's past runs as one table, filtered, and two runs side by side.

Every folder at the store root is a row: a run (evaluation, comparison or replay)
with what it asked and what came out; an output folder holding saved results (a
panel's ``run-N``, an ``evaluate --out`` folder: kind ``saved``, see
``_saved_runs``), so ``--store out/panel`` lists the panel's runs; or an unreadable
folder with the reason, so one damaged run never hides the others.

A run's *family* is the market it ran on (preset or data digest, names, days,
cadence): the runs of one family are the trials that the deflated Sharpe ratio and
the PBO count against each other.

The key metrics are the top arm's: for an evaluation or a replay, the arm its
ranking puts first (by Sharpe) with that arm's Sharpe, return and drawdown; for a
comparison, the arm with the largest mean paired difference, with that difference
and its Holm-adjusted p-value.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError, RecordingError
from workbench.services._saved_runs import SAVED, read_saved
from workbench.services.runs import KINDS
from workbench.services.store import MANIFEST, RunStore, default_store

ROW_COLUMNS = (
    "run_id",
    "status",
    "kind",
    "when",
    "arms",
    "market",
    "seeds",
    "top_arm",
    "sharpe",
    "return_pct",
    "max_drawdown_pct",
    "mean_diff",
    "p_holm",
    "digest",
    "family",
    "version",
    "why",
)
ARM_METRICS = ("return_pct", "pnl", "sharpe", "max_drawdown_pct", "turnover", "trades", "errors")
_KEY_METRICS = ("sharpe", "return_pct", "max_drawdown_pct")
_COMPARISON_METRICS = ("mean_diff", "ci_low", "ci_high", "p_value", "p_holm", "sharpe_pooled")


def run_rows(store: RunStore | str | Path) -> list[dict[str, Any]]:
    """One row per folder at the store root: runs newest first (an output folder with saved
    results among them, as kind ``saved``), then unreadable ones, with why."""
    runs = _existing(store)
    found = [(run_id, runs.manifest(run_id)) for run_id in runs.run_ids()]
    unreadable = []
    for item in runs.skipped():
        try:
            found.append((item["name"], _skipped_as_saved(runs, item)))
        except ValueError as exc:
            unreadable.append(_unreadable({"name": item["name"], "why": str(exc)}))
    found.sort(key=lambda pair: (str(pair[1].get("created_utc") or ""), pair[0]), reverse=True)
    rows = []
    for name, manifest in found:
        try:
            rows.append(_run_row(runs, _checked(name, manifest)))
        except ConfigError as exc:
            unreadable.insert(0, _unreadable({"name": name, "why": str(exc)}))
    return rows + unreadable


def _existing(store: RunStore | str | Path) -> RunStore:
    """The run store at ``store``, which must exist (reading never creates one)."""
    if not isinstance(store, RunStore) and not Path(store).expanduser().is_dir():
        raise ConfigError(
            f"run store {store} does not exist; pass the folder runs were stored in "
            "(--store; the default is $WORKBENCH_RUN_STORE or ~/.workbench/runs)"
        )
    return RunStore.open(store)


def _skipped_as_saved(runs: RunStore, item: Mapping[str, str]) -> dict[str, Any]:
    """A folder with no readable run manifest read as saved results; ValueError saying why
    it cannot be (a folder with a damaged manifest.json is a damaged run, never saved)."""
    folder = runs.root / item["name"]
    if folder.is_symlink() or (folder / MANIFEST).exists() or (folder / MANIFEST).is_symlink():
        raise ValueError(item["why"])
    return read_saved(folder)


def _checked(name: str, manifest: Any) -> dict[str, Any]:
    """``manifest`` if it has the fields every listing reads; else a ConfigError naming
    the damaged field."""
    if not isinstance(manifest, dict):
        raise ConfigError(f"run {name}: its manifest is not an object")
    for field, kind in (("run_id", str), ("kind", str), ("request", dict)):
        if not isinstance(manifest.get(field), kind):
            raise ConfigError(
                f"run {name}: its manifest is incomplete ({field} is "
                f"{json.dumps(manifest.get(field))}, not {kind.__name__})"
            )
    outcome = manifest.get("outcome", {})
    if not isinstance(outcome, dict):
        raise ConfigError(f"run {name}: its manifest is incomplete (outcome is not an object)")
    return manifest


def filter_rows(
    rows: list[dict[str, Any]],
    *,
    arm: str | None = None,
    preset: str | None = None,
    since: str | None = None,
    until: str | None = None,
    family: str | None = None,
    kind: str | None = None,
) -> list[dict[str, Any]]:
    """The rows that match every filter given. ``preset`` matches the market (a preset
    fingerprint or ``data:<digest>``) by prefix; ``since`` and ``until`` are ISO dates or
    times (UTC), ``until`` inclusive of its day. Unreadable folders match no filter."""
    if kind is not None and kind not in (*KINDS, SAVED):
        raise ConfigError(f"kind must be one of {', '.join((*KINDS, SAVED))}, got {kind!r}")
    start, end = _instant(since, "since"), _instant(until, "until", end_of_day=True)
    filtering = any(v is not None for v in (arm, preset, since, until, family, kind))
    kept = []
    for row in rows:
        if row["status"] != "ok":
            if not filtering:
                kept.append(row)
            continue
        when = row["when"] or ""
        if (
            (arm is None or arm in row["arms"])
            and (preset is None or str(row["market"]).startswith(preset))
            and (family is None or row["family"] == family)
            and (kind is None or row["kind"] == kind)
            and (start is None or when >= start)
            and (end is None or when <= end)
        ):
            kept.append(row)
    return kept


def runs(
    store: RunStore | str | Path | None = None,
    *,
    arm: str | None = None,
    preset: str | None = None,
    since: str | None = None,
    until: str | None = None,
    family: str | None = None,
    kind: str | None = None,
) -> Any:
    """Every run in ``store`` (default ``$WORKBENCH_RUN_STORE`` or ``~/.workbench/runs``)
    as a DataFrame indexed by run id, newest first, filtered (see ``filter_rows``)."""
    import pandas as pd

    chosen = {"arm": arm, "preset": preset, "since": since, "until": until}
    rows = filter_rows(
        run_rows(default_store() if store is None else store),
        **chosen,
        family=family,
        kind=kind,
    )
    frame = pd.DataFrame(rows, columns=list(ROW_COLUMNS))
    frame["when"] = pd.to_datetime(frame["when"], utc=True, format="ISO8601")
    return frame.set_index("run_id")


def show_run(store: RunStore | str | Path, run_id: str) -> dict[str, Any]:
    """One run in full: its row, its request, and every arm's key metrics."""
    runs = _existing(store)
    folder = runs.folder(run_id)
    if not (folder.is_dir() or folder.is_symlink()):
        runs.run_dir(run_id)  # raises "no run", naming recent ones
    try:
        manifest = runs.read_manifest_at(folder)
    except RecordingError as exc:
        try:
            manifest = _skipped_as_saved(runs, {"name": run_id, "why": str(exc)})
        except ValueError as why:
            raise ConfigError(
                f"run {run_id} is unreadable: {why}; `workbench runs list` lists the readable ones"
            ) from None
    manifest = _checked(run_id, manifest)
    return {
        **_run_row(runs, manifest),
        "request": manifest["request"],
        "arm_metrics": _arm_metrics(manifest),
    }


def compare_stored_runs(store: RunStore | str | Path, a: str, b: str) -> dict[str, Any]:
    """Two runs side by side: provenance (field, a, b, differs) and each arm's key metrics
    (arm, metric, a, b, differs); an arm one run lacks shows null on that side."""
    runs = _existing(store)
    first, second = show_run(runs, a), show_run(runs, b)
    fields = ("kind", "when", "version", "market", "family", "seeds", "arms", "digest")
    provenance = [_side_by_side(f, first[f], second[f]) for f in fields]
    asked = sorted(set(first["request"]) | set(second["request"]))
    provenance += [
        _side_by_side(f"request.{key}", first["request"].get(key), second["request"].get(key))
        for key in asked
        if key != "arms"
    ]
    metrics = []
    for arm in _union(first["arm_metrics"], second["arm_metrics"]):
        left, right = first["arm_metrics"].get(arm, {}), second["arm_metrics"].get(arm, {})
        for name in _union(left, right):
            metrics.append({"arm": arm, **_side_by_side(name, left.get(name), right.get(name))})
    return {"a": a, "b": b, "provenance": provenance, "metrics": metrics}


def _side_by_side(name: str, a: Any, b: Any) -> dict[str, Any]:
    return {"field": name, "a": a, "b": b, "differs": a != b}


def _union(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    return [*a, *(key for key in b if key not in a)]


def _run_row(runs: RunStore, manifest: Mapping[str, Any]) -> dict[str, Any]:
    request, outcome = manifest["request"], manifest.get("outcome", {})
    meta = _meta(runs, manifest)
    row = dict.fromkeys(ROW_COLUMNS)
    row.update(
        run_id=manifest["run_id"],
        status="ok",
        kind=manifest["kind"],
        when=manifest.get("created_utc"),
        arms=tuple(request.get("arms") or (r["arm"] for r in outcome.get("scorecard", ()))),
        market=_market(meta, request),
        seeds=tuple(request["seeds"]) if "seeds" in request else (meta.get("seed"),),
        digest=outcome.get("results_digest"),
        family=_family(meta, request),
        version=manifest.get("version"),
        why="",
    )
    row.update(_key_metrics(manifest))
    return row


def _unreadable(item: Mapping[str, str]) -> dict[str, Any]:
    row = dict.fromkeys(ROW_COLUMNS)
    row.update(run_id=item["name"], status="unreadable", arms=(), seeds=(), why=item["why"])
    return row


def _meta(runs: RunStore, manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The run's market meta; a comparison's comes from its first seed's evaluation."""
    outcome = manifest.get("outcome", {})
    if "meta" in outcome:
        return dict(outcome["meta"])
    for run_id in outcome.get("evaluation_runs", {}).values():
        try:
            return dict(runs.manifest(run_id)["outcome"]["meta"])
        except (ConfigError, RecordingError, KeyError):
            continue
    return {}


def _market(meta: Mapping[str, Any], request: Mapping[str, Any]) -> str | None:
    data = meta.get("data")
    if isinstance(data, Mapping) and data.get("bars_sha256"):
        return f"data:{str(data['bars_sha256'])[:12]}"
    return meta.get("preset") or request.get("preset")


def _family(meta: Mapping[str, Any], request: Mapping[str, Any]) -> str:
    """The market a run traded, as text: runs with the same family are rival trials."""
    shape = {k: meta.get(k, request.get(k)) for k in ("names", "days", "steps_per_day")}
    ticks = meta.get("ticks_per_step", request.get("ticks_per_step"))
    return (
        f"{_market(meta, request) or 'default'}/{shape['names']}n/{shape['days']}d/"
        f"{shape['steps_per_day']}x{ticks}"
    )


def _key_metrics(manifest: Mapping[str, Any]) -> dict[str, Any]:
    outcome = manifest.get("outcome", {})
    if manifest["kind"] == "comparison":
        rows = outcome.get("comparison", [])
        order = outcome.get("ranking", {}).get("order", [])
        top: dict[str, Any] = next((r for r in rows if order and r["arm"] == order[0]), {})
        return {"top_arm": top.get("arm"), **{k: top.get(k) for k in ("mean_diff", "p_holm")}}
    card = {row["arm"]: row for row in outcome.get("scorecard", [])}
    order = outcome.get("ranking", {}).get("order", [])
    top = card.get(order[0], {}) if order else {}
    return {"top_arm": top.get("arm"), **{k: top.get(k) for k in _KEY_METRICS}}


def _arm_metrics(manifest: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    outcome = manifest.get("outcome", {})
    if manifest["kind"] == "comparison":
        return {
            row["arm"]: {k: row.get(k) for k in _COMPARISON_METRICS}
            for row in outcome.get("comparison", [])
        }
    return {
        row["arm"]: {k: row.get(k) for k in ARM_METRICS} for row in outcome.get("scorecard", [])
    }


def _instant(text: str | None, name: str, *, end_of_day: bool = False) -> str | None:
    """An ISO date or time as the store's UTC text form, for comparing with ``when``."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"{name} must be an ISO date or time such as 2026-12-01 or 2026-12-01T09:30, "
            f"got {text!r}"
        ) from None
    if end_of_day and len(str(text)) == 10:
        moment = moment.replace(hour=23, minute=59, second=59, microsecond=999999)
    if moment.tzinfo is not None:
        from datetime import UTC

        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
