"""PydanticAIAdapter on a real pydantic_ai.Agent with scripted models: live, replay, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import Agent, RunContext
from pydantic_ai.models.test import TestModel

from workbench.agents import DecisionRequest, PresetStamp
from workbench.bridge import run_sync
from workbench.errors import (
    ConfigError,
    DecisionError,
    FrameworkError,
    RunError,
    UsageLimitReached,
)
from workbench.evaluation import evaluate
from workbench.integrations._frameworks import exception_classes
from workbench.integrations.pydantic_ai import (
    ERRORS,
    MANDATE,
    OUTPUT_TOOL,
    PydanticAIAdapter,
    render,
)
from workbench.schema import parse_decision
from workbench.testing import stumbling_policy, trend_policy
from workbench.testing.framework_arms import TRADER_INSTRUCTIONS, pydantic_ai_arm
from workbench.testing.pydantic_ai import ScriptedPydanticModel

MARKET: dict[str, Any] = {"seed": 3, "universe": 4, "days": 2}
PAYLOAD: dict[str, Any] = {
    "day": 0,
    "symbols": {"AAA": {"history": [10.0, 11.0], "max_order": 50}},
    "portfolio": {"positions": {}},
}
COERCIBLE = {"actions": [{"symbol": "AAA", "side": "buy", "quantity": "5"}], "rationale": ""}


def _agent(**kwargs: Any) -> Agent[Any, Any]:
    return Agent(name="arm", instructions=kwargs.pop("instructions", TRADER_INSTRUCTIONS), **kwargs)


def _ask(adapter: PydanticAIAdapter, payload: dict[str, Any] = PAYLOAD) -> Any:
    request = DecisionRequest("arm", 0, 0, 0, payload, PresetStamp("test", {"dial": 1.0}))
    return run_sync(adapter.adecide(request))


def test_a_live_offline_run_through_evaluate_drives_the_real_agent() -> None:
    model = ScriptedPydanticModel(trend_policy)
    agent = _agent()
    arm = PydanticAIAdapter(agent, model=model)
    results = evaluate([arm, "buy_and_hold"], **MARKET)
    row = results.scorecard.loc["arm"]
    assert (row["errors"], row["model_calls"], row["decisions"]) == (0, 2, 2)
    assert row["trades"] > 0 and row["tokens"] > 0
    assert [p["day"] for p in model.payloads] == [0, 1]
    assert agent.output_type is str  # the run's output type was bound for that run only


def test_pydantic_ais_own_test_model_drives_the_output_tool() -> None:
    plain = {"actions": [], "rationale": "from TestModel"}
    arm = PydanticAIAdapter(_agent(), model=TestModel(custom_output_args=plain))
    assert _ask(arm) == parse_decision(plain)
    assert arm.decision_log[0]["input"] == render(PAYLOAD)


@pytest.mark.slow
def test_record_then_replay_matches_bit_for_bit_without_a_model() -> None:
    live = pydantic_ai_arm(name="arm", mode="record")
    recorded = evaluate([live, "momentum"], **MARKET)
    assert live.recorder is not None and len(live.recorder) == 2
    with_agent = PydanticAIAdapter(_agent(), mode="replay", transcript=live.recorder)
    spec_only = PydanticAIAdapter.from_replay_spec(live.replay_spec(), live.recorder)
    for again in (with_agent, spec_only):
        replayed = evaluate([again, "momentum"], **MARKET)
        assert again.calls_made == 0
        assert replayed.digest() == recorded.digest()


def test_a_bad_answer_is_a_decision_error_naming_the_last_correction() -> None:
    results = evaluate([pydantic_ai_arm(stumbling_policy, name="arm")], **MARKET)
    row = results.scorecard.loc["arm"]
    assert row["errors"] == 1
    assert row["last_error"].startswith("DecisionError: the agent answered badly")
    assert row["model_calls"] == 3  # the failed day spent a call and a retry
    with pytest.raises(DecisionError, match="UnexpectedModelBehavior") as caught:
        _ask(PydanticAIAdapter(_agent(), model=ScriptedPydanticModel(lambda p: COERCIBLE)))
    assert "quantity: Input should be a valid number" in str(caught.value)
    assert type(caught.value.__cause__).__name__ == "UnexpectedModelBehavior"


def test_pydantic_coercion_does_not_change_what_is_accepted() -> None:
    with pytest.raises(DecisionError):
        parse_decision(COERCIBLE)  # our validator refuses a quantity sent as text ...
    calls: list[int] = []

    def coercible_then_fixed(payload: dict[str, Any]) -> Any:
        calls.append(1)
        fixed = {"actions": [{"symbol": "AAA", "side": "buy", "quantity": 5}], "rationale": ""}
        return COERCIBLE if len(calls) == 1 else fixed

    arm = PydanticAIAdapter(_agent(), model=ScriptedPydanticModel(coercible_then_fixed))
    decision = _ask(arm)  # ... so PydanticAI's retry loop asked again with our message
    assert len(calls) == 2 and decision.actions[0].quantity == 5.0
    assert arm.decision_log[0]["response"]["actions"][0]["quantity"] == 5


def test_a_framework_failure_is_a_framework_error_with_the_chain_intact() -> None:
    outage = ConnectionError("provider unreachable")
    arm = PydanticAIAdapter(_agent(), model=ScriptedPydanticModel(lambda p: outage))
    with pytest.raises(FrameworkError) as caught:
        _ask(arm)
    assert caught.value.__cause__ is outage
    assert not isinstance(caught.value, UsageLimitReached)


def test_the_request_limit_is_a_budget_stop_caught_by_name() -> None:
    arm = PydanticAIAdapter(
        _agent(retries=5), model=ScriptedPydanticModel(lambda p: COERCIBLE), request_limit=2
    )
    with pytest.raises(UsageLimitReached) as caught:
        _ask(arm)
    assert type(caught.value.__cause__).__name__ == "UsageLimitExceeded"
    results = evaluate(
        [PydanticAIAdapter(_agent(retries=5), model=ScriptedPydanticModel(lambda p: COERCIBLE),
                           request_limit=2)],
        **MARKET,
    )  # fmt: skip
    assert results.scorecard.loc["arm", "last_error"].startswith("UsageLimitReached")


def test_the_mapping_names_every_pydantic_ai_exception() -> None:
    assert ERRORS.unclassified() == [], (
        "pydantic_ai.exceptions gained a class; classify it in ERRORS"
    )
    named = set(exception_classes(ERRORS.module)) & set(ERRORS.categories)
    assert len(named) >= len(ERRORS.categories) // 2  # the table is this release's, mostly
    assert ERRORS.categories["UnexpectedModelBehavior"] == "decision"
    assert ERRORS.categories["UsageLimitExceeded"] == "budget"


def test_changed_instructions_are_refused_when_the_replay_is_built() -> None:
    live = pydantic_ai_arm(name="arm", mode="record")
    evaluate([live], **MARKET)
    assert live.recorder is not None and "instructions_digest" in live.recorder.meta
    with pytest.raises(RunError, match="instructions"):
        PydanticAIAdapter(_agent(instructions="Be bold."), mode="replay", transcript=live.recorder)
    with pytest.raises(RunError, match="instructions"):
        PydanticAIAdapter(
            _agent(), mode="replay", transcript=live.recorder, instructions=MANDATE + " Hurry."
        )
    with pytest.raises(RunError, match="request_limit"):
        PydanticAIAdapter(_agent(), mode="replay", transcript=live.recorder, request_limit=3)


@dataclass
class Desk:
    """A user's own deps object: the adapter must hand it to the run untouched."""

    seen: list[Any] = field(default_factory=list)


def test_deps_reach_the_run_unchanged_and_the_agent_is_not_modified() -> None:
    agent = Agent(name="arm", deps_type=Desk)

    @agent.instructions
    def note(ctx: RunContext[Desk]) -> str:
        ctx.deps.seen.append(ctx.deps)
        return TRADER_INSTRUCTIONS

    desk = Desk()
    _ask(PydanticAIAdapter(agent, deps=desk, model=ScriptedPydanticModel(trend_policy)))
    assert desk.seen and all(item is desk for item in desk.seen)
    assert agent.output_type is str


def test_an_output_validator_is_refused_with_the_way_out() -> None:
    class Plan(BaseModel):
        actions: list[dict[str, Any]]
        rationale: str = ""

    agent = Agent(name="arm", output_type=Plan)

    @agent.output_validator
    def keep(plan: Plan) -> Plan:
        return plan

    with pytest.raises(ConfigError, match="bind_output_type=False"):
        PydanticAIAdapter(agent, model=ScriptedPydanticModel(trend_policy))
    kept = PydanticAIAdapter(
        agent, model=ScriptedPydanticModel(trend_policy), bind_output_type=False
    )
    assert _ask(kept) == parse_decision(trend_policy(PAYLOAD))


def test_the_model_sees_the_decision_schema_through_the_output_tool() -> None:
    seen: dict[str, Any] = {}

    def inspect(messages: list[Any], info: Any) -> Any:
        from pydantic_ai.messages import ModelResponse, ToolCallPart

        tool = info.output_tools[0]
        seen.update(name=tool.name, schema=tool.parameters_json_schema)
        return ModelResponse(parts=[ToolCallPart(tool.name, {"actions": []})])

    from pydantic_ai.models.function import FunctionModel

    _ask(PydanticAIAdapter(_agent(), model=FunctionModel(inspect)))
    assert seen["name"] == OUTPUT_TOOL
    action = seen["schema"]["properties"]["actions"]["items"]
    assert action["properties"]["side"]["enum"] == ["buy", "sell"]
    assert action["properties"]["quantity"]["minimum"] == 0
    assert seen["schema"]["required"] == ["actions"]


def test_bad_construction_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError, match="needs a pydantic_ai"):
        PydanticAIAdapter(object())
    with pytest.raises(ConfigError, match="request_limit"):
        PydanticAIAdapter(_agent(), request_limit=0)
    with pytest.raises(ConfigError, match="name= is required"):
        PydanticAIAdapter(Agent(), model=ScriptedPydanticModel(trend_policy))
