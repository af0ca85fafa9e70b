"""A persisted memory store met by two runs at once, or holding text it cannot write back:
refused with the run and the entry named, and nothing paid for lost or paid twice."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from workbench import aevaluate, evaluate
from workbench.errors import ConfigError, MemoryLeak
from workbench.memory import Memory
from workbench.testing.learner import (
    LEARNER_INSTRUCTIONS,
    Learner,
    learner_policy,
    learner_reflection,
    remembering_learner,
)
from workbench.testing.scripted import scripted_info
from workbench.transcript import Transcript

SMALL: dict[str, Any] = {"universe": 6, "days": 5}
SHORT: dict[str, Any] = {"universe": 6, "days": 3}  # the same market path, saved sooner


def _learner(path: Path, **kwargs: Any) -> Learner:
    return remembering_learner(memory=Memory(path=path), **kwargs)


def _runs(path: Path) -> list[tuple[str, int, bool]]:
    return [(r["arm"], r["seed"], r["complete"]) for r in json.loads(path.read_text())["runs"]]


# --- item: two runs on one market path at once -------------------------------------------
def _at_once(*runs: tuple[Any, dict[str, Any]]) -> list[Any]:
    """Evaluations run concurrently in one loop: each opens the store at its start, before
    any has saved. Each one's results, or its error."""

    async def together() -> list[Any]:
        started = [aevaluate([arm], **market) for arm, market in runs]
        return await asyncio.gather(*started, return_exceptions=True)

    return asyncio.run(together())


def _one_refused(outcomes: list[Any]) -> tuple[int, MemoryLeak]:
    """The one run refused at its save (the other saved), whichever saved second."""
    refused = [i for i, item in enumerate(outcomes) if isinstance(item, MemoryLeak)]
    others = [item for item in outcomes if isinstance(item, BaseException)]
    assert len(refused) == 1 and len(others) == 1, outcomes
    return refused[0], outcomes[refused[0]]


def test_a_second_run_on_the_same_path_at_once_is_refused_at_save_and_loses_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lessons.json"
    journals = [tmp_path / "five_days.json", tmp_path / "three_days.json"]
    arms = [_learner(path, mode="record", transcript=journal) for journal in journals]
    outcomes = _at_once((arms[0], {"seed": 1, **SMALL}), (arms[1], {"seed": 1, **SHORT}))
    loser, refused = _one_refused(outcomes)
    saved_days = (5, 3)[1 - loser]
    message = str(refused)
    assert "was written, while this run was going, by another run on this market path" in message
    assert f"arm 'learner_memory', preset 'standard-v1', seed 1, {saved_days} days" in message
    assert "prior=" in message and "Nothing paid is lost" in message
    stored = json.loads(path.read_text())
    assert [(r["arm"], r["days"]) for r in stored["runs"]] == [("learner_memory", saved_days)]
    # calls paid against calls made: each run paid for its decisions and reflections
    # (days + days - 1); every answer the refused run paid for is in its transcript, and a
    # resume on a fresh store pays for none of them again
    made = [arm.calls_made for arm in arms]
    assert made == [9, 5] and [len(Transcript.load(j)) for j in journals] == made
    fresh = tmp_path / "fresh.json"
    market = {"seed": 1, **(SMALL, SHORT)[loser]}
    again = _learner(
        fresh, mode="record", transcript=tmp_path / "again.json", prior=journals[loser]
    )
    evaluate([again], **market)
    assert again.calls_made == 0, "resumed from the transcript, nothing paid twice"
    assert len(json.loads(fresh.read_text())["lessons"]) == made[loser] // 2
    assert _runs(fresh) == [("learner_memory", 1, True)]


def test_another_arm_run_at_once_in_another_evaluation_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    outcomes = _at_once(
        (_learner(path, name="mine"), {"seed": 1, **SMALL}),
        (_learner(path, name="other"), {"seed": 1, **SHORT}),
    )
    loser, refused = _one_refused(outcomes)
    saved, refused_arm = ("mine", "other")[1 - loser], ("mine", "other")[loser]
    assert f"arm {refused_arm!r}: memory store" in str(refused)
    assert f"another run on this market path (arm {saved!r}" in str(refused)
    assert _runs(path) == [(saved, 1, True)]


def test_a_run_on_another_path_at_once_is_saved_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    outcomes = _at_once(
        (_learner(path), {"seed": 1, **SMALL}), (_learner(path), {"seed": 2, **SHORT})
    )
    assert not any(isinstance(item, BaseException) for item in outcomes), outcomes
    assert sorted(_runs(path)) == [("learner_memory", 1, True), ("learner_memory", 2, True)]


def test_two_resumes_of_one_stopped_run_at_once_keep_one(tmp_path: Path) -> None:
    path, journal = tmp_path / "lessons.json", tmp_path / "run.json"

    def stop(k: int, total: int, equity: dict[str, float]) -> None:
        if k == 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate([_learner(path, mode="record", transcript=journal)], seed=1, **SMALL, on_step=stop)
    assert _runs(path) == [("learner_memory", 1, False)]
    resumes = [_learner(path, prior=journal) for _ in range(2)]
    _, refused = _one_refused(_at_once(*((arm, {"seed": 1, **SMALL}) for arm in resumes)))
    assert "two runs cannot both learn one path" in str(refused)
    assert _runs(path) == [("learner_memory", 1, True)]


# --- item: text a store cannot write back ---------------------------------------------------
def _stored(tmp_path: Path) -> Path:
    path = tmp_path / "lessons.json"
    evaluate([_learner(path)], seed=9, **SMALL)
    return path


SURROGATES = {
    "lesson text": (lambda d: d["lessons"][1].update(lesson="@"), r"lesson 1: lesson holds"),
    "situation": (lambda d: d["lessons"][0].update(situation="@"), r"lesson 0: situation holds"),
    "role": (lambda d: d["lessons"][2].update(role="@"), r"lesson 2: role holds"),
    "in the outcome": (
        lambda d: d["lessons"][3]["outcome"].update(note="@"),
        r"lesson 3: outcome\.note holds",
    ),
    "a key": (
        lambda d: d["lessons"][0]["outcome"].update({"@": 1}),
        r"lesson 0: outcome\..* holds",
    ),
    "the run's arm": (lambda d: d["runs"][0].update(arm="@"), r"run 0: arm holds"),
}


@pytest.mark.parametrize("where", SURROGATES, ids=list(SURROGATES))
def test_a_store_with_an_escaped_lone_surrogate_is_refused_at_load_naming_the_entry(
    tmp_path: Path, where: str
) -> None:
    path = _stored(tmp_path)
    edit, said = SURROGATES[where]
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data).replace("@", "\\ud800 x"))  # escaped, as JSON allows
    before = path.read_bytes()
    arm, steps = _learner(path), []
    with pytest.raises(ConfigError, match=said) as caught:
        evaluate([arm], seed=1, on_step=lambda k, total, equity: steps.append(k), **SMALL)
    message = str(caught.value)
    assert str(path) in message and "unpaired surrogate" in message and "'\\\\ud800 x'" in message
    assert steps == [] and arm.calls_made == 0, "refused before the run paid for anything"
    assert path.read_bytes() == before


def test_an_arm_name_a_store_cannot_write_is_refused_before_the_run(tmp_path: Path) -> None:
    arm = _learner(tmp_path / "lessons.json", name="bad\ud800name")
    with pytest.raises(ConfigError, match=r"arm 'bad\\\\ud800name'.*rename it before the run"):
        evaluate([arm], seed=1, **SMALL)
    assert arm.calls_made == 0 and not (tmp_path / "lessons.json").exists()


def test_a_lesson_written_with_a_lone_surrogate_is_kept_escaped_and_saved(tmp_path: Path) -> None:
    """A model may write any text: the run ends, its store is written, and a replay of the
    recording rebuilds the same lessons without paying."""
    path, recorded = tmp_path / "lessons.json", tmp_path / "run.json"

    def reflect(prompt: str) -> str:
        return learner_reflection(prompt) + " \ud800"

    info = scripted_info("scripted-learner", LEARNER_INSTRUCTIONS)
    common = {"info": info, "name": "learner_memory", "reflect_name": "odd-lessons"}
    arm = Learner(
        learner_policy,
        memory=Memory(path=path, horizon=1, k=3),
        reflect=reflect,
        mode="record",
        recorder=recorded,
        **common,
    )
    results = evaluate([arm], seed=1, **SMALL)
    lessons = json.loads(path.read_text(encoding="utf-8"))["lessons"]
    assert len(lessons) == 4 and all(item["lesson"].endswith(" \\ud800") for item in lessons)
    assert arm.calls_made == len(Transcript.load(recorded)) == 9  # 5 decisions, 4 lessons
    twin = Learner(
        None, memory=Memory(horizon=1, k=3), mode="replay", transcript=recorded, **common
    )
    assert evaluate([twin], seed=1, **SMALL).digest() == results.digest()
    assert twin.calls_made == 0
