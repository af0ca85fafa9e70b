"""OpenAIAgentsAdapter on the real Runner with scripted models: live, replay, errors, checks."""

from __future__ import annotations

from typing import Any

import pytest
from agents import Agent, GuardrailFunctionOutput, InputGuardrail, function_tool
from agents.models.interface import ModelTracing
from agents.testing import ScriptedModel, assistant_message, function_call
from pydantic import BaseModel

from workbench.agents import DecisionRequest, PresetStamp
from workbench.errors import ConfigError, DecisionError, FrameworkError, RunError
from workbench.evaluation import evaluate
from workbench.integrations._frameworks import exception_classes
from workbench.integrations.openai_agents import (
    BRIEF,
    ERRORS,
    OpenAIAgentsAdapter,
    input_items,
    openai_agent,
    payload_of,
)
from workbench.schema import parse_decision
from workbench.testing import Refusal, stumbling_policy, trend_policy
from workbench.testing.framework_arms import TRADER_INSTRUCTIONS, openai_agents_arm
from workbench.testing.openai_agents import ScriptedAgentsModel

MARKET: dict[str, Any] = {"seed": 3, "universe": 4, "days": 2}
PAYLOAD: dict[str, Any] = {
    "day": 0,
    "symbols": {"AAA": {"history": [10.0, 11.0], "max_order": 50}},
    "portfolio": {"positions": {}},
}
SEVEN = {
    "ModelBehaviorError",
    "ModelRefusalError",
    "MaxTurnsExceeded",
    "InputGuardrailTripwireTriggered",
    "OutputGuardrailTripwireTriggered",
    "ToolInputGuardrailTripwireTriggered",
    "ToolOutputGuardrailTripwireTriggered",
}


def _request(payload: dict[str, Any] = PAYLOAD) -> DecisionRequest:
    return DecisionRequest("arm", 0, 0, 0, payload, PresetStamp("test", {"dial": 1.0}))


def _ask(adapter: OpenAIAgentsAdapter, payload: dict[str, Any] = PAYLOAD) -> Any:
    from workbench.bridge import run_sync

    return run_sync(adapter.adecide(_request(payload)))


def _agent(**kwargs: Any) -> Agent[Any]:
    return Agent(name="arm", instructions=kwargs.pop("instructions", TRADER_INSTRUCTIONS), **kwargs)


def test_a_live_offline_run_through_evaluate_drives_the_real_runner() -> None:
    model = ScriptedAgentsModel(trend_policy)
    agent = _agent()
    arm = openai_agent(agent, model=model)
    results = evaluate([arm, "buy_and_hold"], **MARKET)
    row = results.scorecard.loc["arm"]
    assert (row["errors"], row["model_calls"], row["decisions"]) == (0, 2, 2)
    assert row["trades"] > 0 and row["tokens"] > 0
    assert [p["day"] for p in model.payloads] == [0, 1]
    assert agent.output_type is None  # the agent itself is left unchanged
    assert model.last_call is not None
    assert model.last_call.tracing is ModelTracing.DISABLED
    assert model.last_call.system_instructions == TRADER_INSTRUCTIONS


def test_record_then_replay_matches_bit_for_bit_without_a_model() -> None:
    live = openai_agents_arm(name="arm", mode="record")
    recorded = evaluate([live, "momentum"], **MARKET)
    assert live.recorder is not None and len(live.recorder) == 2
    with_agent = OpenAIAgentsAdapter(_agent(), mode="replay", transcript=live.recorder)
    spec_only = OpenAIAgentsAdapter.from_replay_spec(live.replay_spec(), live.recorder)
    for again in (with_agent, spec_only):
        replayed = evaluate([again, "momentum"], **MARKET)
        assert again.calls_made == 0
        assert replayed.digest() == recorded.digest()


def test_the_recorded_answer_is_the_models_text_byte_for_byte() -> None:
    text = '{"actions": [], "rationale": "spaced  out"}'
    arm = openai_agent(_agent(), model=ScriptedAgentsModel(lambda p: text), mode="record")
    _ask(arm)
    assert arm.decision_log[0]["response"] == text
    assert arm.decision_log[0]["input"] == input_items(PAYLOAD, BRIEF)


def test_a_bad_answer_is_a_decision_error_in_the_scorecard() -> None:
    arm = openai_agents_arm(stumbling_policy, name="arm")
    results = evaluate([arm], **MARKET)
    row = results.scorecard.loc["arm"]
    assert row["errors"] == 1
    assert row["last_error"].startswith("DecisionError: the decision is not valid JSON")
    with pytest.raises(DecisionError):
        evaluate([openai_agents_arm(stumbling_policy, name="arm")], **MARKET, on_error="raise")


def test_a_framework_failure_is_a_framework_error_with_the_chain_intact() -> None:
    outage = ConnectionError("provider unreachable")
    arm = openai_agent(_agent(), model=ScriptedAgentsModel(lambda p: outage))
    with pytest.raises(FrameworkError) as caught:
        _ask(arm)
    assert caught.value.__cause__ is outage
    results = evaluate(
        [openai_agent(_agent(), model=ScriptedAgentsModel(lambda p: outage))], **MARKET
    )
    assert results.scorecard.loc["arm", "last_error"].startswith("FrameworkError")


def test_a_refusal_is_the_agents_own_outcome() -> None:
    arm = openai_agent(
        _agent(), model=ScriptedAgentsModel(lambda p: Refusal("not financial advice"))
    )
    with pytest.raises(DecisionError, match="ModelRefusalError") as caught:
        _ask(arm)
    assert type(caught.value.__cause__).__name__ == "ModelRefusalError"


def test_max_turns_caps_a_decision_and_is_a_decision_error() -> None:
    @function_tool
    def look_again() -> str:
        """Look at the market again."""
        return "nothing new"

    loops = [[function_call("look_again", {}, call_id=f"c{i}")] for i in range(3)]
    arm = openai_agent(_agent(tools=[look_again]), model=ScriptedModel(loops), max_turns=2)
    with pytest.raises(DecisionError, match="MaxTurnsExceeded"):
        _ask(arm)
    assert arm.state()["max_turns"] == 2


def test_a_tripped_guardrail_is_a_decision_error_not_a_hold() -> None:
    async def trip(context: Any, agent: Any, sent: Any) -> GuardrailFunctionOutput:
        return GuardrailFunctionOutput(output_info="blocked", tripwire_triggered=True)

    agent = _agent(input_guardrails=[InputGuardrail(guardrail_function=trip)])
    arm = openai_agent(agent, model=ScriptedAgentsModel(trend_policy))
    with pytest.raises(DecisionError, match="InputGuardrailTripwireTriggered"):
        _ask(arm)
    assert "decision" not in arm.decision_log[0]


def test_a_handoff_to_another_agent_is_refused_by_name() -> None:
    desk = Agent(name="desk", instructions="Answer in prose.")
    script = ScriptedModel(
        [[function_call("transfer_to_desk", {}, call_id="h1")], [assistant_message("done")]]
    )
    arm = openai_agent(_agent(handoffs=[desk]), model=script)
    with pytest.raises(DecisionError, match="ended on agent 'desk'"):
        _ask(arm)


def test_the_mapping_names_every_sdk_exception_and_exactly_seven_agent_outcomes() -> None:
    assert ERRORS.unclassified() == [], "agents.exceptions gained a class; classify it in ERRORS"
    named = set(exception_classes(ERRORS.module)) & set(ERRORS.categories)
    assert len(named) >= len(ERRORS.categories) // 2  # the table is this release's, mostly
    assert {name for name, kind in ERRORS.categories.items() if kind == "decision"} == SEVEN


@pytest.mark.parametrize(
    ("answer", "accepted"),
    [
        ('{"actions":[{"symbol":"AAA","side":"buy","quantity":5}],"rationale":""}', True),
        ('{"actions":[{"symbol":"AAA","side":"buy","quantity":"5"}],"rationale":""}', False),
        ('{"actions":[{"symbol":"AAA","side":"buy","quantity":5.5}],"rationale":""}', False),
        ('{"actions":[],"rationale":"","mood":"calm"}', False),
        ('{"actions":[]}', True),
    ],
)
def test_sdk_strictness_does_not_change_what_is_accepted(answer: str, accepted: bool) -> None:
    arm = openai_agent(_agent(), model=ScriptedAgentsModel(lambda p: answer))
    try:
        parse_decision(answer)
        ours = True
    except DecisionError:
        ours = False
    assert ours is accepted
    if accepted:
        assert _ask(arm) == parse_decision(answer)
    else:
        with pytest.raises(DecisionError):
            _ask(arm)


def test_the_provider_sees_the_strict_decision_schema() -> None:
    model = ScriptedAgentsModel(trend_policy)
    _ask(openai_agent(_agent(), model=model))
    assert model.last_call is not None and model.last_call.output_schema is not None
    schema = model.last_call.output_schema.json_schema()
    action = schema["$defs"]["Action"]
    assert schema["additionalProperties"] is False and action["additionalProperties"] is False
    assert action["properties"]["side"]["enum"] == ["buy", "sell"]
    assert payload_of(model.last_call) == PAYLOAD


def test_changed_instructions_or_brief_are_refused_when_the_replay_is_built() -> None:
    live = openai_agents_arm(name="arm", mode="record")
    evaluate([live], **MARKET)
    with pytest.raises(RunError, match="instructions"):
        OpenAIAgentsAdapter(
            _agent(instructions="Be bold."), mode="replay", transcript=live.recorder
        )
    with pytest.raises(RunError, match="brief_digest"):
        OpenAIAgentsAdapter(_agent(), mode="replay", transcript=live.recorder, brief="Trade fast.")
    with pytest.raises(RunError, match="max_turns"):
        OpenAIAgentsAdapter(_agent(), mode="replay", transcript=live.recorder, max_turns=3)


def test_an_agent_with_its_own_output_type_is_refused_unless_kept_on_purpose() -> None:
    class Order(BaseModel):
        symbol: str
        side: str
        quantity: float

    class Plan(BaseModel):
        actions: list[Order]
        rationale: str

    agent = _agent(output_type=Plan)
    with pytest.raises(ConfigError, match="bind_output_type=False"):
        openai_agent(agent, model=ScriptedAgentsModel(trend_policy))
    kept = openai_agent(agent, model=ScriptedAgentsModel(trend_policy), bind_output_type=False)
    assert _ask(kept) == parse_decision(trend_policy(PAYLOAD))


def test_tracing_is_switched_off_per_run_unless_asked_for() -> None:
    import agents

    quiet = openai_agent(_agent(), model=ScriptedAgentsModel(trend_policy))
    loud = openai_agent(_agent(), model=ScriptedAgentsModel(trend_policy), tracing=True)
    assert quiet._run_config(agents, _request()).tracing_disabled is True
    assert loud._run_config(agents, _request()).tracing_disabled is False


def test_the_adapter_is_live_by_default_like_every_adapter() -> None:
    assert OpenAIAgentsAdapter(_agent()).mode == "live" == openai_agent(_agent()).mode


def test_bad_construction_is_refused_with_the_fix() -> None:
    with pytest.raises(ConfigError, match=r"needs an agents\.Agent"):
        openai_agent(object())
    with pytest.raises(ConfigError, match="max_turns"):
        openai_agent(_agent(), max_turns=0)
    with pytest.raises(ConfigError, match=r"needs the agents\.Agent"):
        OpenAIAgentsAdapter(None, mode="live", name="arm")
    with pytest.raises(ConfigError, match="needs transcript="):
        OpenAIAgentsAdapter(_agent(), mode="replay")
