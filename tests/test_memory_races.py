"""A persisted memory store met by two runs at once, or holding text it cannot write back:
refused with the run and the entry named, and nothing paid for lost or paid twice."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from workbench import World, aevaluate, evaluate
from workbench.errors import ConfigError, MemoryLeak
from workbench.evaluation.runner import run_world
from workbench.memory import Memory
from workbench.memory import _running as running
from workbench.testing.learner import (
    LEARNER_INSTRUCTIONS,
    Learner,
    learner_policy,
    learner_reflection,
    remembering_learner,
)
from workbench.testing.scripted import scripted_info
from workbench.transcript import Transcript

SMALL: dict[str, Any] = {"universe": 6, "days": 5, "preset": "standard-v1"}
SHORT: dict[str, Any] = {**SMALL, "days": 3}  # the same market path, saved sooner


def _learner(path: Path, **kwargs: Any) -> Learner:
    return remembering_learner(memory=Memory(path=path), **kwargs)


def _runs(path: Path) -> list[tuple[str, int, bool]]:
    return [(r["arm"], r["seed"], r["complete"]) for r in json.loads(path.read_text())["runs"]]


# --- item: two runs on one market path at once -------------------------------------------
Run = tuple[Any, dict[str, Any]]
HANG = 600  # seconds: a guard against a run that never signals, not a measure of speed


def _second_during_first(
    first: Run, second: Run, *, at_step: int = 10, first_saves_first: bool = False
) -> tuple[Any, Any]:
    """``second`` starts while ``first`` is going, from its ``on_step`` at ``at_step``; both
    outcomes. The order is set by events, not by scheduling: ``first`` waits there until
    ``second`` has ended, so ``second`` opens and saves the store while ``first`` holds it
    open; or, ``first_saves_first``, until ``second`` has passed its start (its first
    step), and then ``second`` waits until ``first`` has ended. Each runs on a loop of its
    own (``second`` in a thread), so either can wait without stopping the other."""

    world = World(**second[1])
    assert world.path.steps  # simulated now: the second begins at once, the first still going
    began, first_ended = threading.Event(), threading.Event()
    outcome: list[Any] = []

    def second_step(k: int, total: int, equity: dict[str, float]) -> None:
        if k == 0:
            began.set()
            if first_saves_first:
                assert first_ended.wait(HANG), "the first run ended"

    def run_second() -> None:
        try:
            outcome.append(asyncio.run(run_world(world, [second[0]], on_step=second_step)))
        except BaseException as exc:
            outcome.append(exc)
        finally:
            began.set()  # refused at its start: it never reached a step

    thread = threading.Thread(target=run_second)

    def on_step(k: int, total: int, equity: dict[str, float]) -> None:
        if k == at_step:
            thread.start()
            assert began.wait(HANG), "the second run passed its start or was refused there"
            if not first_saves_first:
                thread.join(HANG)
                assert not thread.is_alive(), "the second run ended"

    try:
        done: Any = asyncio.run(aevaluate([first[0]], **first[1], on_step=on_step))
    except AssertionError:
        raise
    except Exception as exc:
        done = exc
    finally:
        first_ended.set()
    assert thread.ident is not None, "the second run was started"
    thread.join(HANG)
    assert not thread.is_alive() and len(outcome) == 1, outcome
    return done, outcome[0]


@pytest.mark.slow
def test_a_second_run_on_a_path_being_learnt_is_refused_before_it_pays(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    first, second = _learner(path), _learner(path)
    done, refused = _second_during_first(
        (first, {"seed": 1, **SMALL}), (second, {"seed": 1, **SMALL})
    )
    assert not isinstance(done, BaseException), done
    assert isinstance(refused, MemoryLeak), refused
    message = str(refused)
    assert "is learning this market path right now, in the run of 'learner_memory'" in message
    assert "(preset 'standard-v1', seed 1, 5 days, process" in message and "this process" in message
    assert "refused before it pays for anything" in message
    # calls paid against calls made: the first paid for its 5 decisions and 4 lessons and
    # saved them; the second paid for nothing
    assert (first.calls_made, second.calls_made) == (9, 0)
    assert _runs(path) == [("learner_memory", 1, True)]
    assert len(json.loads(path.read_text())["lessons"]) == 4
    assert running.holding() == {}, "every hold let go"


def test_another_arm_on_the_path_in_another_evaluation_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    mine, other = _learner(path, name="mine"), _learner(path, name="other")
    _, refused = _second_during_first((mine, {"seed": 1, **SMALL}), (other, {"seed": 1, **SHORT}))
    assert isinstance(refused, MemoryLeak) and "arm 'other'" in str(refused)
    assert "in the run of 'mine' (preset" in str(refused)
    assert other.calls_made == 0 and _runs(path) == [("mine", 1, True)]


def test_a_run_on_another_path_at_once_is_saved_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    done, second = _second_during_first(
        (_learner(path), {"seed": 1, **SMALL}), (_learner(path), {"seed": 2, **SHORT})
    )
    assert not isinstance(done, BaseException) and not isinstance(second, BaseException)
    assert sorted(_runs(path)) == [("learner_memory", 1, True), ("learner_memory", 2, True)]


@pytest.mark.slow
def test_two_resumes_of_one_stopped_run_at_once_keep_one(tmp_path: Path) -> None:
    path, journal = tmp_path / "lessons.json", tmp_path / "run.json"

    def stop(k: int, total: int, equity: dict[str, float]) -> None:
        if k == 15:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        evaluate([_learner(path, mode="record", recorder=journal)], seed=1, **SMALL, on_step=stop)
    assert _runs(path) == [("learner_memory", 1, False)]
    resumes = [_learner(path, prior=journal) for _ in range(2)]
    done, refused = _second_during_first(*((arm, {"seed": 1, **SMALL}) for arm in resumes))
    assert not isinstance(done, BaseException) and isinstance(refused, MemoryLeak)
    assert resumes[1].calls_made == 0 and _runs(path) == [("learner_memory", 1, True)]


HOLDER = """
import sys, time
from pathlib import Path
from workbench import evaluate
from workbench.memory import Memory
from workbench.memory import _running as running
from workbench.testing.learner import remembering_learner

store, ready, go = map(Path, sys.argv[1:4])

def on_step(k, total, equity):
    if k == 10:
        ready.write_text("holding")
        deadline = time.monotonic() + 240
        while not go.exists() and time.monotonic() < deadline:
            time.sleep(0.05)

arm = remembering_learner(memory=Memory(path=store))
evaluate([arm], seed=1, universe=6, days=5, preset="standard-v1", on_step=on_step)
print(arm.calls_made)
"""


@pytest.mark.slow
def test_a_run_on_a_path_another_process_is_learning_is_refused_before_it_pays(
    tmp_path: Path,
) -> None:
    path, ready, go = tmp_path / "lessons.json", tmp_path / "ready", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(ready), str(go)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        deadline = time.monotonic() + 240
        while not ready.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ready.exists(), "the other process reached its tenth step"
        arm = _learner(path)
        pattern = r"right now, in the run of 'learner_memory' \(.*5 days, process \d+\), in another"
        with pytest.raises(MemoryLeak, match=pattern):
            evaluate([arm], seed=1, **SMALL)
        assert arm.calls_made == 0
        go.write_text("go")
        out, _ = child.communicate(timeout=240)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=60)
    assert child.returncode == 0 and out.strip() == "9"
    assert _runs(path) == [("learner_memory", 1, True)]
    evaluate([_learner(path)], seed=2, **SMALL)  # the lock went with the process


@pytest.mark.parametrize("first_saves_first", [False, True], ids=["shorter first", "longer first"])
@pytest.mark.slow
def test_without_locks_the_check_at_save_refuses_the_second_and_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first_saves_first: bool
) -> None:
    """Where no lock can be taken (no fcntl), two runs at once both run; the one that
    saves second is refused at its save, and what it paid for is in its transcript."""
    monkeypatch.setattr(running, "hold", lambda store, run: None)
    path = tmp_path / "lessons.json"
    journals = [tmp_path / "first.json", tmp_path / "second.json"]
    first, second = (_learner(path, mode="record", recorder=j) for j in journals)
    done, refused = _second_during_first(
        (first, {"seed": 1, **SMALL}),
        (second, {"seed": 1, **SHORT}),
        at_step=2,
        first_saves_first=first_saves_first,
    )
    # whichever saves second is refused at its save
    outcomes = [done, refused]
    loser = next(i for i, item in enumerate(outcomes) if isinstance(item, MemoryLeak))
    assert loser == int(first_saves_first), outcomes
    assert not isinstance(outcomes[1 - loser], BaseException), outcomes
    saved_days = (5, 3)[1 - loser]
    message = str(outcomes[loser])
    assert "was written, while this run was going, by another run on this market path" in message
    assert f"arm 'learner_memory', preset 'standard-v1', seed 1, {saved_days} days" in message
    assert "Nothing paid is lost" in message and "prior=" in message
    stored = json.loads(path.read_text())["runs"]
    assert [(r["arm"], r["days"]) for r in stored] == [("learner_memory", saved_days)]
    # calls paid against calls made: 5 + 4 and 3 + 2, every one in its run's transcript;
    # a resume of the refused run on a fresh store pays for none of them again
    made = [first.calls_made, second.calls_made]
    assert made == [9, 5] and [len(Transcript.load(j)) for j in journals] == made
    fresh = tmp_path / "fresh.json"
    again = _learner(fresh, mode="record", recorder=tmp_path / "again.json", prior=journals[loser])
    evaluate([again], seed=1, **(SMALL, SHORT)[loser])
    assert again.calls_made == 0, "resumed from the transcript, nothing paid twice"
    assert len(json.loads(fresh.read_text())["lessons"]) == made[loser] // 2


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
@pytest.mark.slow
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


@pytest.mark.slow
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
