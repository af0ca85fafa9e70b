"""What differs between a replay's results and the recorded ones, in readable lines."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.evaluation import Results
from workbench.recordings import manifest as mf

_MAX_LINES = 12


def differences(folder: Path, manifest: Mapping[str, Any], results: Results) -> list[str]:
    """Scorecard cells, the first equity divergence per arm, orders and errors that moved."""
    now = json.loads(results.to_json())
    lines = _scorecard(manifest["expected"]["scorecard"], now["scorecard"])
    expected_path = mf.recording_file(folder, mf.EXPECTED, "the expected results")
    if expected_path.exists():
        expected = mf.read_json(expected_path, "expected results")
        lines += _meta(expected.get("meta", {}), now["meta"])
        lines += _equity(expected.get("equity", {}), now["equity"], results)
        lines += _rows("orders", expected.get("orders", []), now["orders"])
        lines += _rows("errors", expected.get("errors", []), now["errors"])
    if not lines:
        lines = ["the results digest differs, but no table cell does (a column was added?)"]
    if len(lines) > _MAX_LINES:
        lines = [*lines[:_MAX_LINES], f"... and {len(lines) - _MAX_LINES} more"]
    return lines


def edited_expected(folder: Path, digest: str) -> list[str]:
    """The expected results file, where there is one, must be the results the digest
    names: a replay that matches the manifest does not vouch for an edited file."""
    expected_path = mf.recording_file(folder, mf.EXPECTED, "the expected results")
    if not expected_path.is_file():
        return []
    if hashlib.sha256(expected_path.read_bytes()).hexdigest() == digest:
        return []
    return [
        f"{mf.EXPECTED} is not the results the manifest's digest names, though the replay is: "
        "it was edited (or a migration stopped half way); restore it from version control"
    ]


def _scorecard(expected: list[dict[str, Any]], now: list[dict[str, Any]]) -> list[str]:
    before = {row["arm"]: row for row in expected}
    after = {row["arm"]: row for row in now}
    lines = []
    if list(before) != list(after):
        lines.append(f"roster: recorded {list(before)}, replayed {list(after)}")
    for arm in [a for a in before if a in after]:
        for column, value in before[arm].items():
            if after[arm].get(column) != value:
                lines.append(f"scorecard[{arm}].{column}: {value!r} -> {after[arm].get(column)!r}")
    return lines


def _meta(expected: Mapping[str, Any], now: Mapping[str, Any]) -> list[str]:
    keys = sorted(set(expected) | set(now))
    return [
        f"experiment {key}: recorded {_short(expected.get(key))}, replayed {_short(now.get(key))}"
        for key in keys
        if expected.get(key) != now.get(key)
    ]


def _equity(expected: Mapping[str, list], now: Mapping[str, list], results: Results) -> list[str]:
    steps = int(results.meta.get("steps_per_day", 6))
    lines = []
    for arm, curve in expected.items():
        replayed = now.get(arm, [])
        for k, (a, b) in enumerate(zip(curve, replayed, strict=False)):
            if a != b:
                day, step = divmod(k, steps)
                lines.append(f"equity[{arm}] first differs on day {day}, step {step}: {a} -> {b}")
                break
    return lines


def _rows(what: str, expected: list[Any], now: list[Any]) -> list[str]:
    if len(expected) != len(now):
        return [f"{what}: {len(expected)} rows recorded, {len(now)} replayed"]
    for index, (a, b) in enumerate(zip(expected, now, strict=True)):
        if a != b:
            return [f"{what} row {index} differs: {_short(a)} -> {_short(b)}"]
    return []


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 100 else text[:97] + "…"
