"""How a situation is matched against remembered ones: BM25 by default, or your embedding.

A similarity is a function ``(query, documents) -> scores``, one score per
document, higher is closer. Two ship here:

- ``bm25`` (the default): Okapi BM25 over the words of the situation text, with
  k1 = 1.5 and b = 0.75 and the non-negative idf ``ln(1 + (N - n + 0.5) / (n + 0.5))``
  (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and
  Beyond", eq. 3.32, with Lucene's +1 inside the log so a word in every document
  scores 0, never below). No dependency, and the same bits on every machine: the
  logarithm is ``workbench.engine.portable.log`` and every sum is ``math.fsum``.
- ``embedding_similarity(embed)``: cosine similarity of the vectors your
  ``embed(texts) -> vectors`` returns (any model or library; vectors are cached by
  text, and the cosine is summed with ``math.fsum``, so the ranking follows your
  vectors exactly).

The corpus is only what the caller passes: the memory store passes the lessons
visible at the asking step, so word statistics never include a later lesson.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from workbench.engine.portable import log
from workbench.errors import ConfigError

_WORD = re.compile(r"[a-z][a-z0-9_]*")
K1, B = 1.5, 0.75


class Similarity(Protocol):
    """Scores of ``documents`` against ``query``; ``name`` is recorded with the settings."""

    name: str

    def __call__(self, query: str, documents: Sequence[str]) -> list[float]: ...


def words(text: str) -> list[str]:
    """The lower-cased words of ``text``; numbers on their own are not words."""
    return _WORD.findall(text.lower())


class BM25:
    """Okapi BM25 over ``words``; see the module docstring for the formula."""

    name = "bm25"

    def __call__(self, query: str, documents: Sequence[str]) -> list[float]:
        bags = [Counter(words(doc)) for doc in documents]
        if not bags:
            return []
        lengths = [sum(bag.values()) for bag in bags]
        average = math.fsum(lengths) / len(bags) or 1.0
        terms = sorted(set(words(query)))
        held = [sum(1 for bag in bags if term in bag) for term in terms]
        idf = _idf(len(bags), held)
        return [
            math.fsum(
                _term_score(bag[t], w, length / average) for t, w in zip(terms, idf, strict=True)
            )
            for bag, length in zip(bags, lengths, strict=True)
        ]

    def __repr__(self) -> str:
        return "BM25()"


def _idf(documents: int, held: list[int]) -> list[float]:
    if not held:
        return []
    n = np.asarray(held, dtype=np.float64)
    return [float(v) for v in log(1.0 + (documents - n + 0.5) / (n + 0.5))]


def _term_score(frequency: int, idf: float, relative_length: float) -> float:
    if not frequency:
        return 0.0
    return idf * frequency * (K1 + 1) / (frequency + K1 * (1 - B + B * relative_length))


bm25 = BM25()


class EmbeddingSimilarity:
    """Cosine similarity of ``embed(texts)`` vectors, cached by text."""

    def __init__(self, embed: Callable[[Sequence[str]], Sequence[Sequence[float]]], name: str):
        if not callable(embed):
            raise ConfigError(f"embed must be a function from texts to vectors, got {embed!r}")
        self.embed, self.name = embed, f"embedding:{name}"
        self._vectors: dict[str, tuple[float, ...]] = {}

    def __call__(self, query: str, documents: Sequence[str]) -> list[float]:
        self._cache([query, *documents])
        target = self._vectors[query]
        return [_cosine(target, self._vectors[doc]) for doc in documents]

    def _cache(self, texts: Sequence[str]) -> None:
        missing = sorted({t for t in texts if t not in self._vectors})
        if not missing:
            return
        vectors = list(self.embed(missing))
        if len(vectors) != len(missing):
            raise ConfigError(
                f"embed returned {len(vectors)} vectors for {len(missing)} texts; it must "
                "return one vector per text, in order"
            )
        for text, vector in zip(missing, vectors, strict=True):
            self._vectors[text] = tuple(float(v) for v in vector)

    def __repr__(self) -> str:
        return f"EmbeddingSimilarity({self.name!r})"


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        raise ConfigError(f"embed returned vectors of lengths {len(a)} and {len(b)}; use one")
    norms = math.sqrt(math.fsum(x * x for x in a)) * math.sqrt(math.fsum(y * y for y in b))
    return math.fsum(x * y for x, y in zip(a, b, strict=True)) / norms if norms else 0.0


def embedding_similarity(
    embed: Callable[[Sequence[str]], Sequence[Sequence[float]]], name: str | None = None
) -> EmbeddingSimilarity:
    """A similarity from your embedding function; ``name`` (default: the function's) is
    recorded, so a replay is built with the same one."""
    label = name or f"{getattr(embed, '__module__', '?')}.{getattr(embed, '__qualname__', '?')}"
    return EmbeddingSimilarity(embed, label)


__all__ = [
    "BM25",
    "EmbeddingSimilarity",
    "Similarity",
    "bm25",
    "embedding_similarity",
    "words",
]
