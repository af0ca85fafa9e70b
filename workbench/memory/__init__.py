"""Point-in-time memory: lessons from an arm's own outcomes, never from the future.

    >>> from workbench.memory import MemoryStore
    >>> store = MemoryStore()
    >>> _ = store.write(0, 0, "regime_expansion aaa_rise", "buying the riser lost", horizon=2)
    >>> store.recall("aaa_rise", 1, at=(1, 0))        # decided day 0, known from day 2
    []
    >>> [r.lesson.lesson for r in store.recall("aaa_rise", 1, at=(2, 0))]
    ['buying the riser lost']

Modules: ``store`` (lessons and point-in-time recall), ``similarity`` (BM25,
the embedding hook), ``settings`` (``Memory``: what an arm is given, fresh each
run unless it has a path), ``situation`` (a payload in words), ``reflection``
(pending decisions, outcomes and lessons) and ``adapter`` (``MemoryHook``, memory
for any adapter); privately, ``_persisted`` (the store file and the runs it learnt
from) and ``_running`` (the paths runs are learning right now, held across processes).
The committee's own phase is ``workbench.committee.reflection``.
"""

from workbench.errors import MemoryLeak
from workbench.memory.adapter import MemoryHook, memory_hook
from workbench.memory.reflection import (
    REFLECT_INSTRUCTIONS,
    REFLECTION_PHASE,
    Pending,
    Reflection,
    outcome,
    read_reflection,
    reflection_prompt,
)
from workbench.memory.settings import Memory, as_memory
from workbench.memory.similarity import (
    BM25,
    EmbeddingSimilarity,
    Similarity,
    bm25,
    embedding_similarity,
    words,
)
from workbench.memory.situation import describe
from workbench.memory.store import LESSON_COLUMNS, Lesson, MemoryStore, Recalled

__all__ = [  # noqa: RUF022 - grouped by topic
    # the store
    "MemoryStore",
    "Lesson",
    "Recalled",
    "LESSON_COLUMNS",
    # what an arm is given
    "Memory",
    "MemoryLeak",
    "as_memory",
    "MemoryHook",
    "memory_hook",
    # similarity
    "Similarity",
    "BM25",
    "bm25",
    "EmbeddingSimilarity",
    "embedding_similarity",
    "words",
    "describe",
    # reflection
    "Reflection",
    "Pending",
    "REFLECTION_PHASE",
    "REFLECT_INSTRUCTIONS",
    "outcome",
    "reflection_prompt",
    "read_reflection",
]
