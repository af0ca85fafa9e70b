"""``Memory``: what an arm remembers with — the settings, and the store it opens each run.

``Memory(horizon=1, k=2)`` gives an arm a fresh, empty store at the start of
every run: nothing persists by default. ``Memory(path="lessons.json")`` keeps the
store in that file across runs; the file records the runs it learnt from, and a
run on one of their market paths is refused (``MemoryLeak``). ``embed=`` swaps
BM25 for your embedding function; ``roles=`` picks a committee's reflecting roles.

``settings()`` is what a recording keeps (horizon, k, the similarity's name and
the roles); a replay is built with them and a replay under other settings is
refused. A replay never reads or writes a store file: the lessons a persisted
store carried into the recorded run are in its transcript.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench._checks import is_whole
from workbench.agents import RunInfo
from workbench.errors import ConfigError
from workbench.memory import _persisted, _running
from workbench.memory.similarity import Similarity, bm25, embedding_similarity
from workbench.memory.store import Lesson, MemoryStore, _check_horizon

SETTINGS = ("horizon", "k", "similarity", "roles")


class Memory:
    """Point-in-time memory for one arm; see the module docstring."""

    def __init__(
        self,
        *,
        horizon: int = 1,
        k: int = 2,
        roles: Sequence[str] | None = None,
        path: str | os.PathLike[str] | None = None,
        embed: Callable[[Sequence[str]], Sequence[Sequence[float]]] | None = None,
        embed_name: str | None = None,
    ) -> None:
        _check_horizon(horizon)
        if not is_whole(k) or k < 1:
            raise ConfigError(f"k is how many lessons to recall, a whole number >= 1; got {k!r}")
        self.horizon, self.k = horizon, k
        self.roles = _roles(roles)
        self.path = Path(path) if path is not None else None
        self.similarity: Similarity = (
            bm25 if embed is None else embedding_similarity(embed, embed_name)
        )
        self.store = MemoryStore(self.similarity)
        self._entry: dict[str, Any] | None = None  # this run, in a persisted store's runs
        self._replaced: list[dict[str, Any]] = []  # the stopped runs it takes the place of
        self._met: list[dict[str, Any]] = []  # the runs the store listed when this run opened
        self._held: Path | None = None  # this run's hold on its market path (see _running)
        self._arm: str | None = None  # the arm using this memory in the current run
        self._planted: list[Lesson] = []  # canaries: never saved, never carried

    def settings(self) -> dict[str, Any]:
        """The settings a recording keeps and a replay must share."""
        out: dict[str, Any] = {"horizon": self.horizon, "k": self.k}
        out["similarity"] = self.similarity.name
        if self.roles is not None:
            out["roles"] = list(self.roles)
        return out

    # --- one run ---------------------------------------------------------------------
    def open(
        self,
        run: RunInfo,
        *,
        carried: Sequence[Mapping[str, Any]] | None = None,
        resumed: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """A store for this run: fresh, loaded from ``path``, or (a replay) the lessons the
        recorded run carried in. ``resumed`` is what a ``prior=`` transcript says its run
        carried in: a run taking a stopped run's place starts with exactly that."""
        if self._arm is not None:
            raise ConfigError(
                f"arm {run.arm!r}: this Memory is already in use by arm {self._arm!r} in a "
                "run; give each arm its own Memory"
            )
        self.store, self._planted = MemoryStore(self.similarity), []
        if carried is not None:
            if self.path is not None:
                raise ConfigError(
                    f"arm {run.arm!r}: a replay rebuilds its memory from the transcript; "
                    "build it with a Memory without path="
                )
            self.store.carry([Lesson.from_json(item, run=int(item["run"])) for item in carried])
        elif self.path is not None:
            self._open_persisted(run, resumed)
        self._arm = run.arm

    def plant(self, lessons: Sequence[Mapping[str, Any]], roles: Sequence[str]) -> None:
        """Write each memory canary for each of ``roles``, visible from its ``day`` on (as a
        lesson on the day before, known only at its day); a persisted store never saves
        them."""
        for canary in lessons:
            day = int(canary["day"])
            for role in roles:
                self._planted.append(
                    self.store.write(
                        day - 1,
                        0,
                        str(canary["situation"]),
                        str(canary["lesson"]),
                        role=role,
                        known_at=(day, 0),
                    )
                )

    def _open_persisted(self, run: RunInfo, resumed: Sequence[Mapping[str, Any]] | None) -> None:
        assert self.path is not None
        _persisted.claim(self.path, _persisted.read(self.path)[0], run)  # before touching a file
        entry = _persisted.run_entry(run)
        _persisted.check_writable(self.path)
        self._held = _running.hold(self.path, run)
        try:  # read again under the hold: a run that ended meanwhile is in the file now
            stored = _persisted.read(self.path)
            self._replaced = _persisted.claim(self.path, stored[0], run)
            self.store.carry(_persisted.carried_into(stored, self._replaced, resumed))
        except BaseException:
            _running.release(self._held)
            self._held = None
            raise
        self._entry, self._met = entry, stored[0]

    def carried(self) -> list[dict[str, Any]]:
        """The lessons this run started with (from earlier runs), as JSON."""
        return [
            {**entry.to_json(), "run": entry.run} for entry in self.store if entry.run is not None
        ]

    def close(self, *, complete: bool = False) -> None:
        """End the run: a persisted store is written with this run added to its runs,
        ``complete`` if the run reached its last step (a stopped run may be resumed)."""
        if self._arm is None:
            return
        self._arm = None
        if self.path is not None and self._entry is not None:
            entry = {**self._entry, "complete": complete}
            planted = {id(lesson) for lesson in self._planted}
            learnt = [e for e in self.store if e.run is None and id(e) not in planted]
            try:
                _persisted.save(self.path, entry, learnt, self._replaced, self._met)
            finally:
                _running.release(self._held)
                self._entry, self._replaced, self._met, self._held = None, [], [], None

    def __repr__(self) -> str:
        where = f", path={str(self.path)!r}" if self.path else ""
        return f"Memory(horizon={self.horizon}, k={self.k}, {self.similarity.name}{where})"


def _roles(roles: Sequence[str] | None) -> tuple[str, ...] | None:
    if roles is None:
        return None
    if isinstance(roles, str) or not all(isinstance(role, str) for role in roles):
        raise ConfigError(f"roles is a list of role names, e.g. roles=['trader']; got {roles!r}")
    return tuple(roles)


def carried_by(transcript: Any) -> list[dict[str, Any]] | None:
    """The lessons the run that wrote ``transcript`` carried in (None: none recorded)."""
    if transcript is None:
        return None
    carried = transcript.meta.get("memory", {}).get("carried")
    return list(carried) if isinstance(carried, list) else None


def as_memory(value: Memory | Mapping[str, Any] | bool | None) -> Memory | None:
    """``memory=`` as given to an arm: a Memory, True (the defaults), recorded settings, or
    None/False (no memory: exactly the arm without it)."""
    if value is None or value is False:
        return None
    if value is True:
        return Memory()
    if isinstance(value, Memory):
        return value
    if isinstance(value, Mapping):
        return from_settings(value)
    raise ConfigError(f"memory must be a Memory, True or None; got {type(value).__name__}")


def from_settings(settings: Mapping[str, Any]) -> Memory:
    """The Memory a recording's settings describe (BM25 only: an embedding is your code)."""
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise ConfigError(f"memory settings {unknown} are unknown; they are {list(SETTINGS)}")
    similarity = settings.get("similarity", bm25.name)
    if similarity != bm25.name:
        raise ConfigError(
            f"this memory was recorded with similarity {similarity!r}, which is your own "
            "embedding: build the arm yourself with Memory(embed=<the same function>, "
            "embed_name=...) and replay it"
        )
    return Memory(
        horizon=int(settings.get("horizon", 1)),
        k=int(settings.get("k", 2)),
        roles=settings.get("roles"),
    )


__all__ = ["SETTINGS", "Memory", "as_memory", "from_settings"]
