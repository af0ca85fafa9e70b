"""The run store: a folder of run directories, each with a ``manifest.json``.

    <store>/
        <run_id>/manifest.json      what was asked, by which version, and what came out
        <run_id>/results.json ...   artefacts: large outputs live here, returned by path
        trials.jsonl                the trial log: one line per request that ran (not a run)
        mcp_audit.jsonl             the MCP server's append-only audit log (not a run)

A run id is derived from the request (kind + arguments + package version), so the
same request always names the same directory and a repeated request reuses the run
it already made instead of writing a second copy. A run is built in a hidden
temporary directory and renamed into place when complete: a request that fails
leaves the store exactly as it was.

The store counts its *trials*: every evaluation or comparison request that
actually ran adds one line to ``trials.jsonl`` (a repeat answered from the store
adds none). The count travels with every ranking, because the best of many
trials looks good by luck alone. A last line torn by a writer that died mid-line
is ended before the next trial is appended, so no trial is glued onto it; the
torn line still counts (its trial ran).

Every path an outside caller names is resolved inside the store; anything that
would land outside it (``../../etc/passwd``, an absolute path, a symlink out) is
refused. Symbolic links are never followed: a linked run folder or manifest is
skipped when runs are listed and refused when named, a linked file is left out
of a run's files, and no message names where a link points.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench._checks import is_whole
from workbench._version import __version__
from workbench.errors import ConfigError, RecordingError
from workbench.evaluation.results import canonical_json

MANIFEST = "manifest.json"
TRIALS = "trials.jsonl"
MANIFEST_FORMAT = "workbench-run"
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def default_store() -> Path:
    """``$WORKBENCH_RUN_STORE`` or ``~/.workbench/runs``: one place for agents and people."""
    return Path(os.environ.get("WORKBENCH_RUN_STORE") or Path.home() / ".workbench" / "runs")


def package_version() -> str:
    return __version__


def request_digest(kind: str, request: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical request: the same request has the same digest in any process."""
    text = canonical_json({"kind": kind, "request": request, "version": package_version()})
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class RunStore:
    """A folder of runs; ``RunStore.open(path)`` creates it if missing and checks it is writable."""

    root: Path

    @classmethod
    def open(cls, path: str | os.PathLike[str] | RunStore) -> RunStore:
        if isinstance(path, RunStore):
            return path
        root = Path(path).expanduser().resolve()
        if root.exists() and not root.is_dir():
            raise ConfigError(f"run store {root} is a file; pass a directory")
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create run store {root}: {exc.strerror}") from None
        if not os.access(root, os.W_OK | os.X_OK):
            raise ConfigError(
                f"run store {root} is not writable; pass a folder you can write with --store"
            )
        return cls(root)

    def run_dir(self, run_id: str) -> Path:
        """The directory of an existing run, confined to the store."""
        path = self._confined(run_id, what="run id")
        if not (path / MANIFEST).is_file():
            near = ", ".join(self.run_ids()[:5]) or "none yet"
            raise ConfigError(f"no run {run_id!r} in the run store (recent runs: {near})")
        return path

    def folder(self, name: str) -> Path:
        """The folder ``name`` names at the store root, confined to it (it may hold no run)."""
        return self._confined(name, what="run id")

    def artefact(self, run_id: str, name: str) -> Path:
        """A file inside a run directory, confined to that run."""
        base = self.run_dir(run_id)
        path = (base / name).resolve()
        if not path.is_relative_to(base):
            raise ConfigError(f"artefact {name!r} is outside run {run_id!r}; name a file in it")
        return path

    def relative(self, path: Path) -> str:
        """``path`` relative to the store; a link out is refused without saying where to."""
        resolved = path.resolve()
        if path.is_symlink() or not resolved.is_relative_to(self.root):
            shown = path.relative_to(self.root) if path.is_relative_to(self.root) else path.name
            raise ConfigError(f"{shown} in the run store is a symbolic link; links are refused")
        return resolved.relative_to(self.root).as_posix()

    def _confined(self, run_id: str, *, what: str) -> Path:
        if not isinstance(run_id, str) or not _RUN_ID.match(run_id):
            raise ConfigError(
                f"{what} {run_id!r} is not a run id; run ids are letters, digits, '.', '_' "
                "and '-' (see list_runs). Paths outside the run store are refused."
            )
        if (self.root / run_id).is_symlink():
            raise ConfigError(f"{what} {run_id!r} is a symbolic link in the run store; refused")
        path = (self.root / run_id).resolve()
        if not path.is_relative_to(self.root) or path == self.root:
            raise ConfigError(f"{what} {run_id!r} points outside the run store; refused")
        return path

    def run_ids(self) -> list[str]:
        """Run ids, newest first (by manifest time, then id); unreadable runs are left out
        (``skipped`` says which and why), so one broken folder hides no other run."""
        manifests = []
        for path in self._run_paths():
            try:
                manifests.append((self.read_manifest_at(path), path.name))
            except RecordingError:
                continue
        manifests.sort(key=lambda item: (item[0].get("created_utc", ""), item[1]), reverse=True)
        return [name for _, name in manifests]

    def count(self, kind: str) -> int:
        """How many runs of ``kind`` the store holds (their ids start with the kind)."""
        return sum(1 for path in self._run_paths() if path.name.startswith(f"{kind}-"))

    def skipped(self) -> list[dict[str, str]]:
        """Folders at the store root that are not listed as runs: links, unreadable manifests."""
        rows = []
        for child in sorted(self.root.iterdir()):
            if child.name.startswith(".") or not (child.is_dir() or child.is_symlink()):
                continue
            if child.is_symlink():
                rows.append({"name": child.name, "why": "a symbolic link (never followed)"})
                continue
            try:
                self.read_manifest_at(child)
            except RecordingError as exc:
                rows.append({"name": child.name, "why": str(exc)})
        return rows

    def _run_paths(self) -> Iterator[Path]:
        for child in sorted(self.root.iterdir()):
            if child.is_symlink() or child.name.startswith("."):
                continue
            if child.is_dir() and (child / MANIFEST).is_file():
                yield child

    def manifest(self, run_id: str) -> dict[str, Any]:
        return self.read_manifest_at(self.run_dir(run_id))

    @staticmethod
    def read_manifest_at(path: Path) -> dict[str, Any]:
        if (path / MANIFEST).is_symlink():
            raise RecordingError(f"run manifest {path.name}/{MANIFEST} is a symbolic link; refused")
        try:
            data = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise RecordingError(f"run manifest {path / MANIFEST} is unreadable: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != MANIFEST_FORMAT:
            raise RecordingError(f"{path / MANIFEST} is not a workbench run manifest")
        return data

    def trials(self) -> int:
        """How many trials (requests that ran, repeats not counted) this store has logged."""
        path = self.root / TRIALS
        if not path.is_file():
            return 0
        with path.open("rb") as log:
            _lock(log, exclusive=False)
            return sum(1 for line in log if line.strip())

    def record_trial(self, kind: str, run_id: str | None, arms: int) -> int:
        """Log one trial (``kind``, the run it made, how many arms it looked at) and return
        the store's count including it. Appends under a lock, so concurrent writers each
        add exactly one line."""
        entry = {"arms": arms, "kind": kind, "run_id": run_id, "utc": _utc_now()}
        line = json.dumps(entry, sort_keys=True, separators=(",", ":"))
        with (self.root / TRIALS).open("a+b") as log:
            _lock(log, exclusive=True)
            log.write(_torn_tail(log) + line.encode() + b"\n")
            log.flush()
            os.fsync(log.fileno())
            log.seek(0)
            return sum(1 for text in log if text.strip())

    def create(
        self,
        kind: str,
        request: Mapping[str, Any],
        build: Callable[[Path], dict[str, Any]],
        *,
        trial: bool = False,
    ) -> tuple[str, dict[str, Any], bool]:
        """Make (or reuse) the run for ``request``: ``build(tmp_dir)`` writes artefacts and
        returns the manifest's ``outcome``. Returns (run id, manifest, reused). With
        ``trial``, a run that was made (not reused) is logged as a trial."""
        run_id = f"{kind}-{request_digest(kind, request)[:12]}"
        final = self.root / run_id
        if (final / MANIFEST).is_file():
            return run_id, self.read_manifest_at(final), True
        with self._staging(run_id) as staging:
            outcome = build(staging)
            manifest = {
                "format": MANIFEST_FORMAT,
                "run_id": run_id,
                "kind": kind,
                "request": dict(request),
                "version": package_version(),
                "created_utc": _utc_now(),
                "outcome": outcome,
            }
            (staging / MANIFEST).write_text(canonical_json(manifest), encoding="utf-8")
            try:
                os.replace(staging, final)
            except OSError:
                if (final / MANIFEST).is_file():  # another process made the same run first
                    return run_id, self.read_manifest_at(final), True
                raise
        if trial:
            self.record_trial(kind, run_id, len(request.get("arms", ())))
        return run_id, manifest, False

    @contextmanager
    def _staging(self, run_id: str) -> Iterator[Path]:
        staging = Path(tempfile.mkdtemp(prefix=f".{run_id}.", dir=self.root))
        try:
            yield staging
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)


def _torn_tail(log: Any) -> bytes:
    """The newline a log's last line lacks, when a writer died before ending it (else b"").

    The torn line stays and counts: it was a trial that ran, and counting one trial too
    many errs on the side of doubting a ranking, never of trusting one."""
    log.seek(0, os.SEEK_END)
    if log.tell() == 0:
        return b""
    log.seek(-1, os.SEEK_END)
    return b"" if log.read(1) == b"\n" else b"\n"


def _lock(handle: Any, *, exclusive: bool) -> None:
    """An advisory lock on an open file, released when it closes (POSIX; none elsewhere)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: appends of one short line stay whole
        return
    fcntl.flock(handle, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)


def _utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def capped(items: list[Any], limit: int, *, key: str) -> dict[str, Any]:
    """A list output capped at ``limit`` with the number left off, so nothing is cut silently."""
    if not is_whole(limit) or limit < 1:
        raise ConfigError(f"limit must be a whole number >= 1, got {limit!r}")
    shown = items[:limit]
    return {key: shown, "total": len(items), "truncated": len(items) - len(shown)}
