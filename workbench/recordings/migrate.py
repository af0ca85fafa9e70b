"""Accept newly derived columns into a recording, and nothing else.

When the workbench learns to derive something new from a run (a scorecard
column, a table), every recording's expected results and digest change although
nothing it recorded did. ``accept_new_columns(path)`` replays the recording
offline and rewrites its expected results, digest and scorecard only when the
replay holds every recorded value unchanged, at the same place: the recorded
results (checked against the recorded digest first) and the manifest's
scorecard must each be contained in the replayed ones, which may only add keys
(a column in every scorecard row, a new table). Any changed or missing value, or
a different number of rows, refuses the migration and lists the differences;
nothing is written. Transcripts and the rest of the manifest are never touched.

When the workbench changes the definition of a derived scorecard column (how
the attribution splits the P&L, say), ``accept_redefined(path, columns)`` does
the same for those columns' values: the replay must hold every recorded value
other than the named scorecard columns unchanged (the equity, every order and
error, the meta), and may add no key; only then are the new values written. A
recording whose run moved is refused and has to be recorded again.

Each file is written atomically, the expected results first and the manifest
last; a migration stopped between the two leaves a recording that replays as
differing (its manifest names the old digest), never one that passes, and that
a second migration refuses until both files are restored.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from workbench._jsonio import atomic_write
from workbench.errors import ConfigError, RecordingError
from workbench.evaluation.columns import SCORECARD_COLUMNS
from workbench.recordings import manifest as mf
from workbench.recordings.service import replay

_MAX_LINES = 12
Status = Literal["current", "accepted", "refused"]


@dataclass
class Migration:
    """What ``accept_new_columns`` found and did for one recording."""

    path: Path
    status: Status
    added: list[str] = field(default_factory=list)  # where new keys appeared
    differences: list[str] = field(default_factory=list)  # recorded values that moved
    redefined: list[str] = field(default_factory=list)  # columns whose new values were taken

    def summary(self) -> str:
        if self.status == "current":
            return f"{self.path}: replay matches the recording; nothing to accept"
        if self.status == "accepted" and self.redefined:
            columns = ", ".join(f"scorecard[*].{c}" for c in self.redefined)
            return f"{self.path}: every other recorded value unchanged; accepted new {columns}"
        if self.status == "accepted":
            return f"{self.path}: every recorded value unchanged; accepted {_listed(self.added)}"
        lines = "\n".join(f"  - {line}" for line in _capped(self.differences))
        return f"{self.path}: refused, recorded values differ (nothing written):\n{lines}"


def accept_new_columns(path: str | Path) -> Migration:
    """Replay the recording at ``path``; if only new keys appeared, rewrite its expected
    results, digest and scorecard to include them (see the module docstring)."""
    folder = Path(path)
    manifest = mf.load_manifest(folder)
    recorded = _recorded_results(folder, manifest)
    report = replay(folder, check=False)
    if report.matched:
        return Migration(folder, "current")
    now = json.loads(report.results.to_json())
    added: list[str] = []
    differences = contained(recorded, now, "results", added)
    card = json.loads(report.results.scorecard_json())
    differences += contained(manifest["expected"]["scorecard"], card, "manifest scorecard", [])
    if not differences and not added:
        differences = ["the results digest differs, but no value and no key does"]
    if differences:
        return Migration(folder, "refused", added, differences)
    manifest = {**manifest, "expected": {"digest": report.results.digest(), "scorecard": card}}
    _write(folder, mf.EXPECTED, report.results.to_json())
    _write(folder, mf.MANIFEST, mf.manifest_text(manifest))  # last, as record does
    return Migration(folder, "accepted", added)


def accept_redefined(path: str | Path, columns: Sequence[str]) -> Migration:
    """Replay the recording at ``path``; if only the scorecard ``columns`` changed value,
    rewrite its expected results, digest and scorecard (see the module docstring)."""
    check_scorecard_columns(columns)
    folder = Path(path)
    manifest = mf.load_manifest(folder)
    recorded = _recorded_results(folder, manifest)
    report = replay(folder, check=False)
    if report.matched:
        return Migration(folder, "current")
    now, card = json.loads(report.results.to_json()), json.loads(report.results.scorecard_json())
    added: list[str] = []
    recorded["scorecard"] = _redefined(recorded.get("scorecard"), now.get("scorecard"), columns)
    differences = contained(recorded, now, "results", added)
    old_card = _redefined(manifest["expected"]["scorecard"], card, columns)
    differences += contained(old_card, card, "manifest scorecard", added)
    differences += [f"{key}: not recorded; accept new columns first" for key in added]
    if differences:
        return Migration(folder, "refused", [], differences)
    manifest = {**manifest, "expected": {"digest": report.results.digest(), "scorecard": card}}
    _write(folder, mf.EXPECTED, report.results.to_json())
    _write(folder, mf.MANIFEST, mf.manifest_text(manifest))  # last, as record does
    return Migration(folder, "accepted", redefined=list(columns))


def check_scorecard_columns(columns: Sequence[str]) -> None:
    """Refuse anything but a non-empty list of scorecard columns, naming them."""
    unknown = sorted(set(columns) - set(SCORECARD_COLUMNS))
    if unknown or not columns:
        raise ConfigError(
            f"redefined columns must be scorecard columns, got {unknown or 'none'}; name "
            f"some of {', '.join(SCORECARD_COLUMNS)}"
        )


def _redefined(recorded: Any, now: Any, columns: Sequence[str]) -> Any:
    """The recorded scorecard rows with ``columns`` taken from the replay's rows (rows
    paired by position; any other difference is left for ``contained`` to report)."""
    if not (isinstance(recorded, list) and isinstance(now, list) and len(recorded) == len(now)):
        return recorded
    rows = []
    for old, new in zip(recorded, now, strict=True):
        if isinstance(old, dict) and isinstance(new, dict):
            old = {**old, **{c: new[c] for c in columns if c in old and c in new}}
        rows.append(old)
    return rows


def _write(folder: Path, name: str, text: str) -> None:
    """One file of the migration, atomically; a failure names what was (not) written."""
    try:
        atomic_write(folder / name, text)
    except OSError as exc:
        done = "nothing was written" if name == mf.EXPECTED else f"{mf.EXPECTED} was written"
        raise RecordingError(
            f"recording {folder}: cannot write {name} ({exc.strerror or exc}); {done}. Make "
            "the folder writable and accept again"
            + (" after restoring both files from version control" if name == mf.MANIFEST else "")
        ) from exc


def _recorded_results(folder: Path, manifest: dict[str, Any]) -> Any:
    """The recorded results, refused unless they are the ones the recorded digest names."""
    expected = mf.recording_file(folder, mf.EXPECTED, "the expected results")
    if not expected.is_file():
        raise RecordingError(
            f"recording {folder} has no {mf.EXPECTED}, so its recorded values cannot be "
            "checked one by one; record it again"
        )
    text = expected.read_bytes()
    if hashlib.sha256(text).hexdigest() != manifest["expected"]["digest"]:
        raise RecordingError(
            f"recording {folder}: {mf.EXPECTED} is not the results the manifest's digest names: "
            "it was edited, or a migration stopped between its two writes. Restore both files "
            f"({mf.EXPECTED} and {mf.MANIFEST}) from version control and accept again, or "
            "record again"
        )
    return json.loads(text)


def contained(recorded: Any, now: Any, where: str, added: list[str]) -> list[str]:
    """Every way ``now`` fails to hold ``recorded`` unchanged; new dict keys go to ``added``."""
    if isinstance(recorded, dict) and isinstance(now, dict):
        lines = [f"{where}.{key}: recorded, missing now" for key in recorded if key not in now]
        added += [f"{where}.{key}" for key in now if key not in recorded]
        for key in (k for k in recorded if k in now):
            lines += contained(recorded[key], now[key], f"{where}.{key}", added)
        return lines
    if isinstance(recorded, list) and isinstance(now, list):
        if len(recorded) != len(now):
            return [f"{where}: {len(recorded)} rows recorded, {len(now)} now"]
        lines = []
        for i, (a, b) in enumerate(zip(recorded, now, strict=True)):
            lines += contained(a, b, f"{where}[{i}]", added)
        return lines
    if type(recorded) is not type(now) or recorded != now:
        return [f"{where}: {_short(recorded)} -> {_short(now)}"]
    return []


def _listed(added: list[str]) -> str:
    """New keys with row numbers folded: results.scorecard[*].pnl_market_pct, once."""
    folded = dict.fromkeys(re.sub(r"\[\d+\]", "[*]", key) for key in added)
    return ", ".join(folded) or "nothing"


def _capped(lines: list[str]) -> list[str]:
    if len(lines) <= _MAX_LINES:
        return lines
    return [*lines[:_MAX_LINES], f"... and {len(lines) - _MAX_LINES} more"]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 100 else text[:97] + "…"
