"""Which market paths of a persisted store a run is learning right now, in any process.

A run holds its path for as long as it goes: an exclusive, non-blocking ``flock`` on
``.<store name>.running/<market path>`` beside the store, taken when its memory
opens and let go when it closes (or when its process dies: the system drops the
lock). The holder writes who it is into the file, so a refusal names that run. A
second run on that path, from another evaluation in this process or in any other, is
refused as it opens, before it pays for anything. The arms of one evaluation share
the hold: they are told the same roster object by the runner.

The files stay (removing a lock file another process may be opening would let two
runs hold one path); each is emptied as its run lets go. Where ``fcntl`` is missing
(Windows) nothing is held, and the check at save (``persisted.refuse_a_rival``) is
what refuses.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from workbench.agents import RunInfo
from workbench.errors import MemoryLeak


@dataclass
class _Hold:
    handle: IO[str]
    roster: tuple[str, ...]  # the evaluation holding it (by identity)
    holder: str  # the run holding it, in words
    arms: int


_HELD: dict[Path, _Hold] = {}
_MOST = 2_000  # characters of a holder's description read back
_GUARD = threading.Lock()


def hold(store: Path, run: RunInfo) -> Path | None:
    """Hold ``run``'s market path of ``store``; the returned key lets it go (``release``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: the check at save refuses instead
        return None
    folder = store.with_name(f".{store.name}.running")
    folder.mkdir(parents=True, exist_ok=True)
    key = (folder / run.market_path).resolve()
    with _GUARD:
        held = _HELD.get(key)
        if held is not None:
            if held.roster is not run.roster:
                raise MemoryLeak(_busy(store, run, f"{held.holder}, in this process"))
            held.arms += 1
            return key
        handle = open(key, "a+")  # noqa: SIM115 - held open for the run, closed in release
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _written_holder(handle)
            handle.close()
            raise MemoryLeak(_busy(store, run, f"{holder}, in another process")) from None
        except BaseException:
            handle.close()
            raise
        holder = _holder(run)
        handle.seek(0)
        handle.truncate()
        handle.write(holder)
        handle.flush()
        _HELD[key] = _Hold(handle, run.roster, holder, 1)
    return key


def release(key: Path | None) -> None:
    """Let go of a hold taken by ``hold`` (the last arm of the evaluation unlocks it)."""
    if key is None:
        return
    with _GUARD:
        held = _HELD.get(key)
        if held is None:
            return
        held.arms -= 1
        if held.arms == 0:
            del _HELD[key]
            held.handle.truncate(0)  # still locked: no reader meets a holder that is gone
            held.handle.close()  # closing the file drops its lock


def _holder(run: RunInfo) -> str:
    arms = ", ".join(repr(arm) for arm in run.roster)
    return (
        f"the run of {arms} (preset {run.preset.name!r}, seed {run.seed}, {run.days} days, "
        f"process {os.getpid()})"
    )


def _written_holder(handle: IO[str]) -> str:
    """Who holds the file, as it wrote itself in (a run between lock and write: unknown)."""
    handle.seek(0)
    return handle.read(_MOST).strip() or "a run"


def _busy(store: Path, run: RunInfo, who: str) -> str:
    return (
        f"arm {run.arm!r}: memory store {store} is learning this market path right now, in "
        f"{who}; two runs cannot both learn one path, so this one is refused before it pays "
        "for anything. Run on another seed or market, or give the arm a fresh store "
        "(another path, or none)"
    )


def holding() -> dict[str, Any]:
    """The paths this process holds and how many arms share each (for tests and repr)."""
    with _GUARD:
        return {str(key): held.arms for key, held in _HELD.items()}


__all__ = ["hold", "holding", "release"]
