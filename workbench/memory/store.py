"""The memory store: lessons about past decisions, recalled strictly point in time.

A lesson is about one decision, taken at ``(day, step)``; its outcome was
measured over ``horizon`` days, so it is visible from ``(day + horizon, step)``
on, and never before the step whose data the outcome used (``known_at``), if
that is later. ``recall(situation, k, at=(day, step))`` looks only at lessons
visible at ``at``: the similarity's word statistics too are computed over them
alone, so a lesson written later cannot change what is recalled earlier.

Lessons carried from earlier runs (a persisted store, see ``workbench.memory.Memory``)
are visible from the start: their outcomes were known before this run began.

Ranking: the highest score first; equal scores (no shared word included) go to
the most recent decision, then to the lesson written first. ``k`` lessons at most.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import pandas as pd

from workbench._checks import is_whole
from workbench._jsonio import printable
from workbench.errors import ConfigError
from workbench.memory.similarity import Similarity, bm25

At = tuple[int, int]
LESSON_COLUMNS = (
    "role",
    "day",
    "step",
    "horizon",
    "visible_day",
    "visible_step",
    "run",
    "situation",
    "lesson",
)


@dataclass(frozen=True)
class Lesson:
    """One remembered lesson; ``run`` is None for this run, else the earlier run's index."""

    day: int
    step: int
    horizon: int
    situation: str
    lesson: str
    role: str = ""
    visible: At = (0, 0)
    outcome: dict[str, Any] = field(default_factory=dict)
    run: int | None = None

    def visible_at(self, at: At) -> bool:
        return self.run is not None or self.visible <= at

    def brief(self) -> dict[str, Any]:
        """What a role is shown when this lesson is recalled."""
        return {"day": self.day, "step": self.step, "lesson": self.lesson}

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["visible"] = list(self.visible)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, run: int | None) -> Lesson:
        visible = data.get("visible", (0, 0))
        return cls(
            day=int(data["day"]),
            step=int(data["step"]),
            horizon=int(data["horizon"]),
            situation=str(data["situation"]),
            lesson=str(data["lesson"]),
            role=str(data.get("role", "")),
            visible=(int(visible[0]), int(visible[1])),
            outcome=dict(data.get("outcome") or {}),
            run=run,
        )


@dataclass(frozen=True)
class Recalled:
    lesson: Lesson
    score: float


class MemoryStore:
    """Lessons in the order written; ``similarity`` ranks them (BM25 by default)."""

    def __init__(self, similarity: Similarity | None = None) -> None:
        self.similarity: Similarity = similarity or bm25
        self.lessons: list[Lesson] = []

    def __len__(self) -> int:
        return len(self.lessons)

    def __iter__(self) -> Iterator[Lesson]:
        return iter(self.lessons)

    def write(
        self,
        day: int,
        step: int,
        situation: str,
        lesson: str,
        *,
        horizon: int = 1,
        role: str = "",
        known_at: At | None = None,
        outcome: Mapping[str, Any] | None = None,
    ) -> Lesson:
        """Remember ``lesson`` about the decision at ``(day, step)`` in ``situation``.

        An unpaired surrogate in the text (a model may write one) is kept escaped
        (``\\ud800``), so the lesson can always be shown again and saved."""
        _check_horizon(horizon)
        for name, text in (("situation", situation), ("lesson", lesson)):
            if not isinstance(text, str):
                raise ConfigError(f"a lesson's {name} is text, got {type(text).__name__}")
        visible = max((int(day) + horizon, int(step)), tuple(known_at or (0, 0)))
        entry = Lesson(
            int(day),
            int(step),
            horizon,
            printable(situation),
            printable(lesson),
            printable(role),
            (int(visible[0]), int(visible[1])),
            dict(outcome or {}),
        )
        self.lessons.append(entry)
        return entry

    def visible(self, at: At, role: str | None = None) -> list[Lesson]:
        """The lessons visible at ``at`` (of ``role`` only, when given), in the order written."""
        at = _at(at)
        return [
            entry
            for entry in self.lessons
            if entry.visible_at(at) and (role is None or entry.role == role)
        ]

    def recall(
        self, situation: str, k: int = 2, *, at: At, role: str | None = None
    ) -> list[Recalled]:
        """The ``k`` lessons closest to ``situation`` among those visible at ``at``."""
        if not is_whole(k) or k < 0:
            raise ConfigError(f"k is how many lessons to recall, a whole number >= 0; got {k!r}")
        seen = self.visible(at, role)
        if not seen or k == 0:
            return []
        scores = self.similarity(situation, [entry.situation for entry in seen])
        order = sorted(
            range(len(seen)),
            key=lambda i: (-scores[i], -seen[i].day, -seen[i].step, i),
        )
        return [Recalled(seen[i], float(scores[i])) for i in order[:k]]

    def carry(self, lessons: list[Lesson]) -> None:
        """Start from lessons of earlier runs (each keeps its run index)."""
        self.lessons = [*lessons, *self.lessons]

    def frame(self) -> pd.DataFrame:
        """One row per lesson, in the order written."""
        rows = [
            {
                "role": e.role,
                "day": e.day,
                "step": e.step,
                "horizon": e.horizon,
                "visible_day": e.visible[0],
                "visible_step": e.visible[1],
                "run": e.run,
                "situation": e.situation,
                "lesson": e.lesson,
            }
            for e in self.lessons
        ]
        return pd.DataFrame(rows, columns=list(LESSON_COLUMNS))

    def __repr__(self) -> str:
        return f"MemoryStore({len(self)} lessons, similarity={self.similarity.name!r})"


def _check_horizon(horizon: Any) -> None:
    if not is_whole(horizon) or horizon < 1:
        raise ConfigError(
            f"horizon is the days until a decision's outcome is known, a whole number >= 1; "
            f"got {horizon!r} (an outcome is never known at the step it was decided)"
        )


def _at(at: Any) -> At:
    try:
        day, step = at
        return int(day), int(step)
    except (TypeError, ValueError):
        raise ConfigError(f"at is the asking (day, step), e.g. at=(3, 0); got {at!r}") from None


__all__ = ["LESSON_COLUMNS", "At", "Lesson", "MemoryStore", "Recalled"]
