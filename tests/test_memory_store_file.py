"""A persisted store file met carelessly: damaged, shared, or left by a run that stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench import evaluate
from workbench.errors import ConfigError, MemoryLeak
from workbench.memory import Memory
from workbench.testing.learner import remembering_learner
from workbench.transcript import Transcript

SMALL = {"universe": 6, "days": 5}


def _stop_at(step: int):
    def on_step(k: int, total: int, equity: dict[str, float]) -> None:
        if k == step:
            raise KeyboardInterrupt  # a kernel interrupt mid-run

    return on_step


def _stopped_run(tmp_path: Path) -> tuple[Path, Path]:
    """A store that learnt seed 9 to the end, and seed 1 until it was interrupted."""
    path, journal = tmp_path / "lessons.json", tmp_path / "run.jsonl"
    evaluate([remembering_learner(memory=Memory(path=path))], seed=9, **SMALL)
    arm = remembering_learner(memory=Memory(path=path), mode="record", recorder=journal)
    with pytest.raises(KeyboardInterrupt):
        evaluate([arm], seed=1, **SMALL, on_step=_stop_at(15))
    return path, journal


@pytest.mark.slow
def test_a_stopped_run_is_listed_as_incomplete_with_what_it_learnt(tmp_path: Path) -> None:
    path, _ = _stopped_run(tmp_path)
    stored = json.loads(path.read_text())
    assert [(r["seed"], r["complete"]) for r in stored["runs"]] == [(9, True), (1, False)]
    assert [lesson["run"] for lesson in stored["lessons"]].count(1) == 2


@pytest.mark.slow
def test_a_stopped_run_resumes_on_its_store_and_takes_its_own_place(tmp_path: Path) -> None:
    path, journal = _stopped_run(tmp_path)
    memory = Memory(path=path)
    arm = remembering_learner(memory=memory, mode="record", recorder=journal, prior=journal)
    evaluate([arm], seed=1, **SMALL)
    assert [e.run for e in memory.store][:4] == [0] * 4, "only the seed-9 lessons carried in"
    assert arm.calls_made == 4, "the stopped run's answers were resumed, not paid again"
    stored = json.loads(path.read_text())
    assert [(r["seed"], r["complete"]) for r in stored["runs"]] == [(9, True), (1, True)]
    assert [lesson["run"] for lesson in stored["lessons"]] == [0] * 4 + [1] * 4


@pytest.mark.slow
def test_a_run_saved_between_the_stop_and_the_resume_does_not_make_it_pay_again(
    tmp_path: Path,
) -> None:
    """The resumed run starts with what the stopped one started with, so its prompts and
    the answers ``prior=`` holds for them are the same."""
    path, journal = _stopped_run(tmp_path)
    evaluate([remembering_learner(memory=Memory(path=path))], seed=5, **SMALL)  # saved since
    memory = Memory(path=path)
    arm = remembering_learner(memory=memory, mode="record", recorder=journal, prior=journal)
    evaluate([arm], seed=1, **SMALL)
    assert {e.run for e in memory.store if e.run is not None} == {0}, "seed 5 not carried in"
    assert arm.calls_made == 4, "as without the run in between"
    stored = json.loads(path.read_text())
    assert [(r["seed"], r["complete"]) for r in stored["runs"]] == [(9, True), (5, True), (1, True)]


@pytest.mark.slow
def test_a_run_stopped_twice_resumes_with_what_it_first_started_with(tmp_path: Path) -> None:
    """Each resume carries in what its ``prior=`` transcript says the stopped run carried,
    whatever was saved to the store since (here a whole run between the two stops)."""
    path, first = _stopped_run(tmp_path)
    carried_first = Transcript.load(first).meta["memory"]["carried"]
    evaluate([remembering_learner(memory=Memory(path=path))], seed=5, **SMALL)
    second = tmp_path / "second.jsonl"
    arm = remembering_learner(memory=Memory(path=path), mode="record", recorder=second, prior=first)
    with pytest.raises(KeyboardInterrupt):
        evaluate([arm], seed=1, **SMALL, on_step=_stop_at(20))
    memory = Memory(path=path)
    third = remembering_learner(memory=memory, mode="record", recorder=second, prior=second)
    evaluate([third], seed=1, **SMALL)
    again = [e.to_json() for e in memory.store if e.run is not None]
    assert [item["lesson"] for item in again] == [item["lesson"] for item in carried_first]
    assert third.calls_made <= 4, "the answers of both stopped runs were resumed"


def test_a_run_that_reached_its_end_is_complete_though_its_arm_stopped_early(
    tmp_path: Path,
) -> None:
    """An arm out of budget (or bust) is not asked at the last step, but the run went on
    to the end: its path is learnt, and running it again is refused."""
    path = tmp_path / "lessons.json"
    evaluate([remembering_learner(memory=Memory(path=path), max_calls=3)], seed=1, **SMALL)
    assert [r["complete"] for r in json.loads(path.read_text())["runs"]] == [True]
    with pytest.raises(MemoryLeak, match="remember the future"):
        evaluate([remembering_learner(memory=Memory(path=path))], seed=1, **SMALL)


@pytest.mark.slow
def test_only_the_stopped_run_itself_may_run_again_on_its_path(tmp_path: Path) -> None:
    path, _ = _stopped_run(tmp_path)
    before = path.read_bytes()
    arm = remembering_learner(memory=Memory(path=path), name="stranger")
    with pytest.raises(MemoryLeak, match="stopped before its end: only it may run here again"):
        evaluate([arm], seed=1, **SMALL)
    assert path.read_bytes() == before


@pytest.mark.slow
def test_a_complete_run_is_still_refused_when_run_again(tmp_path: Path) -> None:
    path, _ = _stopped_run(tmp_path)
    evaluate([remembering_learner(memory=Memory(path=path))], seed=1, **SMALL)  # runs again

    with pytest.raises(MemoryLeak, match="remember the future"):
        evaluate([remembering_learner(memory=Memory(path=path))], seed=1, **SMALL)


def test_runs_sharing_a_store_at_once_keep_each_others_lessons(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    arms = [
        remembering_learner(memory=Memory(path=path)),
        remembering_learner(name="twin", memory=Memory(path=path)),
    ]
    evaluate(arms, seed=1, **SMALL)  # both open the store before either writes it
    stored = json.loads(path.read_text())
    assert sorted(r["arm"] for r in stored["runs"]) == ["learner_memory", "twin"]
    assert sorted({lesson["run"] for lesson in stored["lessons"]}) == [0, 1]
    assert len(stored["lessons"]) == 8


def _edited(text: str, edit) -> str:
    data = json.loads(text)
    edit(data)
    return json.dumps(data)


DAMAGE = {
    "no lessons": (lambda d: d.pop("lessons"), "has no list of lessons"),
    "runs not a list": (lambda d: d.update(runs=5), "has no list of runs"),
    "a run is text": (lambda d: d.update(runs=["x"]), "run 0 is not an object"),
    "no market path": (lambda d: d["runs"][0].pop("market_path"), "run 0 has no market_path"),
    "runs emptied": (lambda d: d.update(runs=[]), "names run 0, which the file does not list"),
    "run index text": (lambda d: d["lessons"][0].update(run="0"), "lesson 0: run is '0'"),
    "day a fraction": (lambda d: d["lessons"][1].update(day=1.5), "lesson 1: day is 1.5"),
    "no horizon": (lambda d: d["lessons"][0].update(horizon=0), "lesson 0: horizon is 0"),
    "situation a list": (lambda d: d["lessons"][0].update(situation=[1]), "situation is not"),
    "visible a number": (lambda d: d["lessons"][0].update(visible=5), "visible is not"),
    "outcome text": (lambda d: d["lessons"][0].update(outcome="up"), "outcome is not"),
    "a lesson is a number": (lambda d: d["lessons"].append(3), "lesson 4 is not an object"),
}


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
@pytest.mark.slow
def test_a_damaged_store_is_refused_naming_the_entry(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "lessons.json"
    evaluate([remembering_learner(memory=Memory(path=path))], seed=9, **SMALL)
    edit, said = DAMAGE[damage]
    path.write_text(_edited(path.read_text(), edit))
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=said) as error:
        evaluate([remembering_learner(memory=Memory(path=path))], seed=2, **SMALL)
    assert "edited or damaged" in str(error.value) and str(path) in str(error.value)
    assert path.read_bytes() == before, "a refused store is left as it was"


def test_a_folder_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is a folder; pass the path of a file"):
        evaluate([remembering_learner(memory=Memory(path=tmp_path))], seed=2, **SMALL)


def test_roles_are_a_list_of_names_not_one_string() -> None:
    with pytest.raises(ConfigError, match=r"roles is a list of role names.*'trader'"):
        Memory(roles="trader")


def test_a_store_that_could_not_be_written_is_refused_before_the_run(tmp_path: Path) -> None:
    """Found at the start, not after the run has paid for its model calls."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the store's folder should be")
    steps: list[int] = []
    arm = remembering_learner(memory=Memory(path=blocker / "lessons.json"))
    with pytest.raises(ConfigError, match="cannot be written"):
        evaluate([arm], seed=1, on_step=lambda k, total, equity: steps.append(k), **SMALL)
    assert steps == [] and blocker.read_text().startswith("a file")
