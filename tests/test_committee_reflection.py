"""The committee with reflection: lessons through its models, recorded, replayed with none."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench import evaluate
from workbench.committee import Committee, ScriptedModel
from workbench.committee.lessons import REFLECTING_ROLES, CommitteeMemory
from workbench.errors import ConfigError, RunError
from workbench.integrations.hooks import DecisionHook
from workbench.memory import Memory
from workbench.recordings import record, replay

MARKET = {"seed": 7, "universe": 5, "days": 4}


@pytest.fixture(scope="module")
def recorded() -> tuple[Committee, object]:
    committee = Committee(memory=Memory(horizon=1, k=2), mode="record")
    return committee, evaluate([committee, "momentum"], **MARKET)


def test_every_reflecting_role_writes_one_lesson_per_known_outcome(recorded) -> None:
    committee, _ = recorded
    lessons = committee.lessons()
    roles = list(REFLECTING_ROLES)
    assert sorted(set(lessons["role"])) == sorted(roles)
    assert lessons.groupby("day").size().to_dict() == {0: 5, 1: 5, 2: 5}  # day 3's is pending
    assert (lessons["visible_day"] == lessons["day"] + 1).all()
    reflected = [r for entry in committee.decision_log for r in entry["reflections"]]
    assert [(r["role"], r["day"]) for r in reflected[:5]] == [(role, 0) for role in roles]
    phases = {e.input["phase"] for e in committee.recorder if isinstance(e.input, dict)}
    assert "reflection" in phases


def test_a_reflecting_role_is_briefed_with_its_own_recalled_lessons(recorded) -> None:
    committee, _ = recorded
    last = committee.decision_log[-1]
    assert set(last["recalled"]) == set(REFLECTING_ROLES)
    for role, lessons in last["recalled"].items():
        assert len(lessons) == 2 and all(f"Lesson for {role}:" in x["lesson"] for x in lessons)
    analyst = next(r for r in last["roles"] if r["role"] == "market_analyst")
    assert '"lessons"' not in analyst["prompt"]  # an analyst does not reflect
    assert "Recalled 2 lesson(s)" in last["executor"]["response"]


def test_a_replay_rebuilds_the_same_memory_bit_for_bit_with_no_model_call(
    recorded, monkeypatch
) -> None:
    committee, results = recorded

    async def no_model(self, prompt):
        raise AssertionError("a replay asked a model")

    monkeypatch.setattr(ScriptedModel, "complete", no_model)
    again = Committee.from_replay_spec(committee.replay_spec(), committee.recorder)
    replayed = evaluate([again, "momentum"], **MARKET)
    assert replayed.digest() == results.digest() and again.calls_made == 0
    assert again.lessons().equals(committee.lessons())
    assert [e["reflections"] for e in again.decision_log] == [
        e["reflections"] for e in committee.decision_log
    ]
    assert [e["recalled"] for e in again.decision_log] == [
        e["recalled"] for e in committee.decision_log
    ]


@pytest.mark.parametrize(
    "memory",
    [None, Memory(k=3), Memory(horizon=2), Memory(roles=["trader"])],
    ids=["none", "k", "horizon", "roles"],
)
def test_a_replay_with_other_memory_settings_is_refused(recorded, memory) -> None:
    committee, _ = recorded
    with pytest.raises(RunError, match=r"recorded with other adapter settings .*memory"):
        Committee(mode="replay", transcript=committee.recorder, memory=memory)


def test_a_recording_without_memory_refuses_a_replay_with_it() -> None:
    plain = Committee(mode="record")
    evaluate([plain], seed=7, universe=5, days=2)
    with pytest.raises(RunError, match=r"memory None -> \{"):
        Committee(mode="replay", transcript=plain.recorder, memory=Memory())


def test_a_committee_without_memory_is_exactly_the_committee_it_was() -> None:
    plain = Committee()
    assert plain.memory is None and "memory" not in plain.state()
    assert "memory" not in plain.replay_spec()
    evaluate([plain], seed=7, universe=5, days=2)
    assert all("reflections" not in e and "recalled" not in e for e in plain.decision_log)


def test_the_recorded_committee_replays_from_its_folder(tmp_path: Path) -> None:
    arms = [Committee(memory=Memory(), mode="record"), "buy_and_hold"]
    results = record(tmp_path / "rec", arms, **MARKET)
    report = replay(tmp_path / "rec")
    assert report.matched and report.digest == results.digest()


@pytest.mark.parametrize(
    ("roles", "message"),
    [
        (["market_analyst"], "speak in the first phase"),
        (["nobody"], "are not roles of the committee"),
        ([], "at least one reflecting role"),
    ],
)
def test_reflecting_roles_are_checked(roles, message) -> None:
    with pytest.raises(ConfigError, match=message):
        Committee(memory=Memory(roles=roles))


def test_a_failed_reflection_fails_that_decision_visibly_and_replays_the_same(monkeypatch) -> None:
    real = ScriptedModel.complete

    async def refuses_to_reflect(self, prompt):
        if "| PHASE reflection |" in prompt.split("\n", 1)[0]:
            raise RuntimeError("the model is down")
        return await real(self, prompt)

    monkeypatch.setattr(ScriptedModel, "complete", refuses_to_reflect)
    committee = Committee(memory=Memory(), mode="record")
    results = evaluate([committee], seed=7, universe=5, days=4)
    errors = results.errors  # day 1 fails reflecting on day 0, so day 2 has nothing to reflect on
    assert list(errors["day"]) == [1, 3] and set(errors["kind"]) == {"FrameworkError"}
    assert errors["message"].str.contains("role 'bull_researcher' failed: RuntimeError").all()
    assert len(committee.lessons()) == 0, "a failed reflection writes no lesson"
    monkeypatch.setattr(ScriptedModel, "complete", real)
    again = Committee.from_replay_spec(committee.replay_spec(), committee.recorder)
    assert evaluate([again], seed=7, universe=5, days=4).digest() == results.digest()


def test_the_committee_memory_is_its_decision_hook() -> None:
    committee = Committee(memory=Memory(horizon=1, k=2))
    assert isinstance(committee.hook, CommitteeMemory) and isinstance(committee.hook, DecisionHook)
    assert committee.memory is committee.hook and committee.memory.roles
    assert committee.memory.reflection is committee.hook.reflection
    assert committee.memory.memory.settings()["k"] == 2
    given = Memory()
    assert Committee(memory=given, hook=None).hook.memory is given  # type: ignore[union-attr]
    assert committee.recorded_state()["memory"] == committee.hook.settings()
    with pytest.raises(ConfigError, match="a committee's memory= is its hook"):
        Committee(memory=Memory(), hook=DecisionHook())


def test_the_shipped_recording_replays_through_the_committee_hook(monkeypatch) -> None:
    stages: list[str] = []

    def spied(stage: str) -> Any:
        original = getattr(CommitteeMemory, stage)

        def spy(self: CommitteeMemory, *args: Any) -> Any:
            stages.append(stage)
            return original(self, *args)

        return spy

    for stage in ("begin", "before_decision", "after_decision", "executed", "end"):
        monkeypatch.setattr(CommitteeMemory, stage, spied(stage))
    report = replay(Path(__file__).resolve().parents[1] / "recordings" / "committee-memory")
    assert report.matched
    decisions = ["before_decision", "after_decision", "executed"] * 4  # 4 days, once a day
    assert stages == ["begin", *decisions, "end"]
