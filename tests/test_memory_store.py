"""The memory store: point-in-time visibility, BM25 ranking, ties and the embedding hook."""

from __future__ import annotations

import math

import pytest

from workbench.errors import ConfigError
from workbench.memory import Memory, MemoryStore, bm25, words
from workbench.memory.settings import from_settings


@pytest.mark.parametrize("horizon", [1, 2, 3])
def test_a_lesson_at_day_d_with_horizon_h_is_invisible_before_d_plus_h(horizon: int) -> None:
    store = MemoryStore()
    store.write(2, 3, "regime_expansion aaa_rise", "buying the riser lost", horizon=horizon)
    for day in range(8):
        for step in range(6):
            seen = store.recall("aaa_rise", 5, at=(day, step))
            assert bool(seen) == ((day, step) >= (2 + horizon, 3)), (day, step)
            assert store.visible((day, step)) == [r.lesson for r in seen]


def test_a_lesson_written_later_than_its_horizon_is_visible_only_from_then() -> None:
    store = MemoryStore()
    late = store.write(0, 0, "aaa_rise", "measured on day 3", horizon=1, known_at=(3, 2))
    assert late.visible == (3, 2)
    assert not store.visible((3, 1)) and store.visible((3, 2)) == [late]


@pytest.mark.parametrize("horizon", [0, -1, 1.5, True])
def test_an_outcome_is_never_known_at_the_step_it_was_decided(horizon: object) -> None:
    with pytest.raises(ConfigError, match="horizon is the days until"):
        MemoryStore().write(0, 0, "s", "l", horizon=horizon)  # type: ignore[arg-type]


def test_recall_ranks_by_bm25_and_breaks_ties_by_the_most_recent_decision() -> None:
    store = MemoryStore()
    store.write(0, 0, "regime_expansion aaa_rise bbb_fall", "first")
    store.write(1, 0, "regime_contraction aaa_rise bbb_rise", "second")
    store.write(2, 0, "regime_expansion aaa_rise bbb_fall", "third: same words as the first")
    store.write(3, 0, "volatility_stressed", "fourth: no word in common")
    recalled = store.recall("regime_expansion aaa_rise", 4, at=(9, 0))
    assert [r.lesson.lesson[:5] for r in recalled] == ["third", "first", "secon", "fourt"]
    assert recalled[0].score == recalled[1].score > recalled[2].score > recalled[3].score == 0.0


def test_bm25_matches_an_independent_computation() -> None:
    documents = ["aaa_rise bbb_fall aaa_rise", "aaa_fall ccc_rise", "bbb_fall"]
    query = "aaa_rise bbb_fall"
    bags = [words(d) for d in documents]
    average = sum(len(b) for b in bags) / len(bags)

    def expected(bag: list[str]) -> float:
        total = 0.0
        for term in set(words(query)):
            n = sum(term in b for b in bags)
            idf = math.log(1 + (len(bags) - n + 0.5) / (n + 0.5))
            f = bag.count(term)
            total += idf * f * 2.5 / (f + 1.5 * (0.25 + 0.75 * len(bag) / average))
        return total

    assert bm25(query, documents) == pytest.approx([expected(b) for b in bags], rel=1e-13)


def test_word_statistics_come_from_the_visible_lessons_only() -> None:
    """A later lesson would change BM25's idf; recall at t must not see it at all."""
    early, crowded = MemoryStore(), MemoryStore()
    for store in (early, crowded):
        store.write(0, 0, "aaa_rise bbb_fall", "one")
        store.write(1, 0, "aaa_rise ccc_fall", "two")
    for day in range(2, 9):
        crowded.write(day, 0, "aaa_rise " * day, f"future {day}")
    for at in [(2, 0), (2, 5)]:
        assert early.recall("aaa_rise ccc_fall", 2, at=at) == crowded.recall(
            "aaa_rise ccc_fall", 2, at=at
        )


def test_lessons_are_recalled_by_role() -> None:
    store = MemoryStore()
    store.write(0, 0, "aaa_rise", "bull's", role="bull")
    store.write(0, 0, "aaa_rise", "bear's", role="bear")
    assert [r.lesson.lesson for r in store.recall("aaa_rise", 5, at=(1, 0), role="bear")] == [
        "bear's"
    ]


def test_an_embedding_function_replaces_bm25_and_is_named_in_the_settings() -> None:
    def embed(texts):  # two "dimensions": how bullish and how bearish the words are
        return [[t.count("rise"), t.count("fall")] for t in texts]

    memory = Memory(embed=embed, embed_name="toy")
    store = memory.store
    store.write(0, 0, "aaa_fall bbb_fall", "bearish day")
    store.write(1, 0, "aaa_rise bbb_rise", "bullish day")
    assert store.recall("ccc_rise", 1, at=(5, 0))[0].lesson.lesson == "bullish day"
    assert memory.settings()["similarity"] == "embedding:toy"
    with pytest.raises(ConfigError, match="build the arm yourself with Memory\\(embed="):
        from_settings(memory.settings())


def test_an_embedding_must_give_one_vector_per_text() -> None:
    store = Memory(embed=lambda texts: [[1.0]]).store
    store.write(0, 0, "a", "x")
    with pytest.raises(ConfigError, match="one vector per text"):
        store.recall("b", 1, at=(3, 0))


def test_bad_recall_arguments_name_the_fix() -> None:
    with pytest.raises(ConfigError, match="whole number >= 0"):
        MemoryStore().recall("s", -1, at=(0, 0))
    with pytest.raises(ConfigError, match="at is the asking"):
        MemoryStore().recall("s", 1, at=3)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="k is how many"):
        Memory(k=0)


def test_the_package_docstring_session_runs() -> None:
    import doctest

    import workbench.memory

    assert doctest.testmod(workbench.memory).failed == 0
