"""The adapter's seams: a hook joins its decisions, each question has a kind, each
decision is validated once."""

from __future__ import annotations

from typing import Any

import pytest

from workbench import evaluate
from workbench.agents import Agent, DecisionRequest
from workbench.errors import ConfigError, DecisionError
from workbench.integrations.base import BaseAdapter
from workbench.integrations.callable import CallableAgentAdapter
from workbench.integrations.hooks import DecisionHook
from workbench.memory import Memory, MemoryHook
from workbench.schema import Action, Decision, parse_decision
from workbench.testing.learner import learner_policy, learner_reflection, remembering_learner

SMALL = {"universe": 6, "days": 5}


def _hold(payload: dict[str, Any]) -> dict[str, Any]:
    return {"actions": [], "rationale": "hold"}


class Audit(DecisionHook):
    """Asks one question of its own kind before each decision; notes the answer."""

    def __init__(self) -> None:
        self.decided: list[Decision] = []

    async def before_decision(
        self, adapter: BaseAdapter, request: DecisionRequest
    ) -> tuple[DecisionRequest, dict[str, Any]]:
        sent = {"audit": request.index}
        said = await adapter.exchange(request, sent, kind="audit")
        return request, {"audit": said}

    def after_decision(
        self, adapter: BaseAdapter, request: DecisionRequest, decision: Decision
    ) -> None:
        self.decided.append(decision)

    async def answer(self, adapter: BaseAdapter, kind: str, sent: Any) -> Any:
        return f"{kind} {sent['audit']}"


def test_a_hook_asks_questions_of_its_own_kind_and_notes_them_in_the_log() -> None:
    hook = Audit()
    arm = CallableAgentAdapter(_hold, name="audited", hook=hook, mode="record")
    evaluate([arm], seed=1, **SMALL)
    indices = [entry["index"] for entry in arm.decision_log]
    assert [entry["audit"] for entry in arm.decision_log] == [f"audit {i}" for i in indices]
    assert len(hook.decided) == 5 and all(not d.actions for d in hook.decided)
    assert arm.transcript is not None and len(arm.transcript) == 10  # 5 audits, 5 decisions


def test_a_question_of_a_kind_no_hook_answers_is_refused_by_name() -> None:
    class Stray(DecisionHook):
        async def before_decision(
            self, adapter: BaseAdapter, request: DecisionRequest
        ) -> tuple[DecisionRequest, dict[str, Any]]:
            await adapter.exchange(request, {"stray": 1}, kind="stray")
            return request, {}

    arm = CallableAgentAdapter(_hold, name="stray", hook=Stray())
    results = evaluate([arm], seed=1, **SMALL)
    assert "asked a 'stray' question it cannot answer" in results.errors["message"].iloc[0]


def test_memory_is_a_hook_on_any_adapter_and_matches_the_learner() -> None:
    hooked = CallableAgentAdapter(
        learner_policy,
        name="learner_memory",
        hook=MemoryHook(Memory(horizon=1, k=3), reflect=learner_reflection),
    )
    learner = remembering_learner()
    evaluate([hooked], seed=3, **SMALL)
    evaluate([learner], seed=3, **SMALL)
    for ours, theirs in zip(hooked.decision_log, learner.decision_log, strict=True):
        assert ours["recalled"] == theirs["recalled"]
        assert ours["reflections"] == theirs["reflections"]
        assert ours["decision"] == theirs["decision"]
    assert any(entry["reflections"] for entry in hooked.decision_log)


def test_a_memory_hook_without_a_writer_is_refused_unless_replaying() -> None:
    with pytest.raises(ConfigError, match="nothing to write its lessons"):
        CallableAgentAdapter(_hold, name="forgetful", hook=MemoryHook(True))


def test_an_inline_arm_that_overrides_adecide_is_refused_when_defined() -> None:
    with pytest.raises(ConfigError, match="inline = True and overrides adecide"):

        class Both(Agent):
            inline = True

            async def adecide(self, request: DecisionRequest) -> Decision:
                return Decision.of([])


def test_a_validated_decision_equals_the_same_decision_built_by_hand() -> None:
    action = {"symbol": "AAA", "side": "buy", "quantity": 3.0}
    checked = parse_decision({"actions": [action], "rationale": "r"})
    by_hand = Decision(actions=list(checked.actions), rationale="r")
    assert checked.is_validated() and not by_hand.is_validated()
    assert checked == by_hand and parse_decision(by_hand) == checked


def test_a_decision_a_subclass_built_without_validation_is_validated_once_answered() -> None:
    class Careless(CallableAgentAdapter):
        async def adecide(self, request: DecisionRequest) -> Decision:
            bad = Action.model_construct(symbol="AAA", side="buy", quantity=-5.0)
            return Decision.model_construct(actions=[bad], rationale="")

    results = evaluate([Careless(_hold, name="careless")], seed=1, **SMALL)
    assert len(results.errors) == 5
    assert "greater than or equal to 0" in results.errors["message"].iloc[0]


def test_a_validated_decision_copied_with_a_new_rationale_is_validated_again() -> None:
    checked = parse_decision({"actions": [], "rationale": "fine"})
    with pytest.raises(DecisionError, match="unpaired surrogate"):
        parse_decision(checked.model_copy(update={"rationale": "bad \udc80"}))
