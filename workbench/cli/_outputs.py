"""The paths a command writes: checked before it starts, and a run that cannot be written kept.

Every path a command will write is checked before any work (``check_file``,
``check_folder``): it must not be the wrong kind of thing (a folder where a file
goes, or a file where a folder goes), and the nearest folder that exists must
take a new file, which is tried for real (a probe file, removed at once), since
permissions alone do not say it (a read-only mount, a full disk, running as
root). A bad path is a ``ConfigError`` naming the flag, the path and the fix, so
nothing is computed only to be lost.

If writing still fails after the run (the disk filled up, another program took
the path meanwhile), ``keep_run`` saves what was computed in a new folder under
``~/.workbench/rescued/`` (or the system's temporary folder when that cannot be
written) and names it in the error, so a computed run is never lost.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from workbench.errors import ConfigError

RESCUE_PARENT = Path("~/.workbench/rescued")


def check_file(path: Path, flag: str) -> Path:
    """``path`` if a file can be written there (its folders are made on writing)."""
    if path.is_dir():
        raise ConfigError(
            f"{flag} {path}: is an existing folder, and {flag} takes a file; "
            f"pass a file path such as {path / 'scorecard.json'}"
        )
    if path.exists() and not path.is_file():
        raise ConfigError(f"{flag} {path}: is not a regular file; pass a file path")
    _check_nearest_folder(path.parent, path, flag)
    return path


def check_folder(path: Path, flag: str) -> Path:
    """``path`` if it is, or can become, a folder that takes new files."""
    if path.exists() and not path.is_dir():
        raise ConfigError(
            f"{flag} {path}: is an existing file, and {flag} takes a folder; "
            "pass the path of a folder (it is created if missing)"
        )
    _check_nearest_folder(path, path, flag)
    return path


def _check_nearest_folder(folder: Path, path: Path, flag: str) -> None:
    nearest = folder
    while not nearest.exists() and nearest != nearest.parent:
        nearest = nearest.parent
    if not nearest.is_dir():
        raise ConfigError(
            f"{flag} {path}: {nearest} is a file, so no folder can be made inside it; "
            "pass a path whose folders are folders"
        )
    try:
        with tempfile.TemporaryFile(dir=nearest, prefix=".workbench-probe-"):
            pass
    except OSError as exc:
        raise ConfigError(
            f"{flag} {path}: cannot create files in {nearest} ({exc.strerror or exc}); "
            "pass a path in a folder you can write to"
        ) from None


def keep_run(save: Callable[[Path], object], what: str, write: Callable[[], object]) -> bool:
    """``write()``; if it fails, ``save(folder)`` keeps what was computed in a new folder
    and the error says where. Returns True when ``write`` succeeded."""
    try:
        write()
    except OSError as exc:
        kept = rescue(save)
        where = f"the computed run is saved in {kept}/" if kept else "the run could not be saved"
        print(f"workbench: error: could not write {what}: {_reason(exc)}; {where}", file=sys.stderr)
        return False
    return True


def rescue(save: Callable[[Path], object]) -> Path | None:
    """``save`` into a new folder under RESCUE_PARENT (else the temp folder): that folder."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    for parent in (RESCUE_PARENT.expanduser(), Path(tempfile.gettempdir())):
        try:
            parent.mkdir(parents=True, exist_ok=True)
            folder = Path(tempfile.mkdtemp(prefix=f"run-{stamp}-", dir=parent))
            save(folder)
        except OSError:
            continue
        return folder
    return None


def _reason(exc: OSError) -> str:
    if exc.filename is not None:
        return f"{exc.strerror or exc}: {exc.filename}"
    return str(exc)
