"""Memory across runs: fresh by default, persisted only with a path, never on a learnt path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench import evaluate
from workbench.errors import ConfigError, MemoryLeak, RunError
from workbench.memory import Memory
from workbench.recordings import record, replay
from workbench.testing.learner import learner_agent, remembering_learner, style_from

SMALL = {"universe": 6, "days": 5}


def _first_recall(arm) -> list:
    return arm.decision_log[0]["recalled"]


@pytest.mark.slow
def test_without_a_path_every_run_starts_empty() -> None:
    memory = Memory()
    arm = remembering_learner(memory=memory)
    evaluate([arm], seed=1, **SMALL)
    assert len(memory.store) == 4  # four decisions reflected on; the fifth had no outcome yet
    evaluate([arm], seed=2, **SMALL)
    assert _first_recall(arm) == [] and all(e.run is None for e in memory.store)


@pytest.mark.slow
def test_a_persisted_store_carries_lessons_into_the_next_run_and_names_its_runs(
    tmp_path: Path,
) -> None:
    path = tmp_path / "lessons.json"
    first = remembering_learner(memory=Memory(path=path))
    evaluate([first], seed=1, **SMALL)
    second = remembering_learner(memory=Memory(path=path))
    evaluate([second], seed=2, **SMALL)
    assert _first_recall(second), "lessons of the seed-1 run are known before seed 2 begins"
    stored = json.loads(path.read_text())
    assert [(r["seed"], r["arm"], r["days"]) for r in stored["runs"]] == [
        (1, "learner_memory", 5),
        (2, "learner_memory", 5),
    ]
    assert sorted({lesson["run"] for lesson in stored["lessons"]}) == [0, 1]


@pytest.mark.parametrize("again", [{}, {"universe": 12}, {"days": 8}])
@pytest.mark.slow
def test_a_store_is_refused_on_a_market_path_it_learnt_from(tmp_path: Path, again) -> None:
    path = tmp_path / "lessons.json"
    evaluate([remembering_learner(memory=Memory(path=path))], seed=1, **SMALL)
    before = path.read_bytes()
    arm = remembering_learner(memory=Memory(path=path))
    with pytest.raises(MemoryLeak, match=r"already learnt from this market path .*seed 1") as e:
        evaluate([arm], seed=1, **{**SMALL, **again})
    assert str(path) in str(e.value) and "remember the future" in str(e.value)
    assert path.read_bytes() == before, "a refused run writes nothing"


def test_one_memory_serves_one_arm_at_a_time() -> None:
    shared = Memory()
    arms = [remembering_learner(memory=shared), remembering_learner(name="twin", memory=shared)]
    with pytest.raises(ConfigError, match="already in use by arm 'learner_memory'"):
        evaluate(arms, seed=1, **SMALL)


def test_roles_are_refused_on_an_arm_that_reflects_as_one() -> None:
    with pytest.raises(ConfigError, match="picks a committee's reflecting roles"):
        remembering_learner(memory=Memory(roles=["trader"]))


@pytest.mark.slow
def test_a_replay_rebuilds_a_persisted_memory_from_its_transcript_alone(tmp_path: Path) -> None:
    path = tmp_path / "lessons.json"
    evaluate([remembering_learner(memory=Memory(path=path))], seed=1, **SMALL)
    arms = [remembering_learner(memory=Memory(path=path), mode="record")]
    recorded = record(tmp_path / "rec", arms, seed=2, **SMALL)
    path.unlink()  # the replay never reads the store file
    again = replay(tmp_path / "rec")
    assert again.matched and again.digest == recorded.digest()


@pytest.mark.slow
def test_the_learners_lessons_change_what_it_does() -> None:
    without, with_memory = learner_agent(), remembering_learner()
    evaluate([without, with_memory], seed=2, preset="turbulent-v1", universe=20, days=10)
    styles = [e["decision"]["rationale"].split(":")[0] for e in with_memory.decision_log]
    assert {e["decision"]["rationale"].split(":")[0] for e in without.decision_log} == {
        "style follow"
    }
    assert "style fade" in styles
    for entry, style in zip(with_memory.decision_log, styles, strict=True):
        assert style == f"style {style_from(entry['recalled'])}"
    assert with_memory.usage.model_calls == 10 + 9  # decisions and lessons, each one exchange


@pytest.mark.slow
def test_the_manifest_keeps_the_memory_settings_and_a_replay_refuses_others(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "rec"
    record(folder, ["workbench.testing.learner:remembering_learner"], seed=3, **SMALL)
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["roster"][0]["memory"] == {"horizon": 1, "k": 3, "similarity": "bm25"}
    manifest["roster"][0]["memory"]["k"] = 5
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(RunError, match=r"other adapter settings \(memory .*'k': 5"):
        replay(folder)


@pytest.mark.slow
def test_an_arm_without_memory_records_exactly_what_it_did_before(tmp_path: Path) -> None:
    arm = learner_agent(mode="record")
    evaluate([arm], seed=1, **SMALL)
    assert "memory" not in arm.recorder.meta and "memory" not in arm.state()
    assert "lessons" not in arm.decision_log[0]["input"] and "recalled" not in arm.decision_log[0]
