"""LangGraphAdapter on compiled graphs with a scripted chat model: live, replay, errors."""

from __future__ import annotations

from typing import Any, TypedDict

import pytest
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

from workbench.agents import DecisionRequest, PresetStamp
from workbench.bridge import run_sync
from workbench.errors import (
    ConfigError,
    DecisionError,
    FrameworkError,
    ReplayMiss,
    UntrustedRecording,
)
from workbench.evaluation import evaluate
from workbench.integrations._frameworks import exception_classes
from workbench.integrations.langgraph import (
    DEFAULT_INPUT_KEYS,
    ERRORS,
    INSTRUCTIONS,
    INTERRUPT_KEY,
    GraphInterruptedError,
    LangGraphAdapter,
    default_input_builder,
    default_output_parser,
    langgraph_agent,
)
from workbench.recordings import distrust, trust
from workbench.schema import Decision, parse_decision
from workbench.testing import stumbling_policy, trend_policy
from workbench.testing.framework_arms import langgraph_arm
from workbench.testing.langgraph import DecisionState, ScriptedChatModel, scripted_graph

MARKET: dict[str, Any] = {"seed": 3, "universe": 4, "days": 2}
PAYLOAD: dict[str, Any] = {
    "day": 0,
    "symbols": {"AAA": {"history": [10.0, 11.0], "max_order": 50}},
    "portfolio": {"positions": {}},
}
HOLD = {"actions": [], "rationale": "hold"}


def observation_only(payload: dict[str, Any], instructions: str) -> dict[str, Any]:
    """A custom input builder, defined at module level so a replay can find it again."""
    return {"observation": payload, "instructions": instructions.upper()}


def _ask(adapter: LangGraphAdapter, payload: dict[str, Any] = PAYLOAD) -> Any:
    request = DecisionRequest("arm", 2, 3, 0, payload, PresetStamp("test", {"dial": 1.0}))
    return run_sync(adapter.adecide(request))


def _one_node(node: Any, state: type = DecisionState) -> Any:
    builder = StateGraph(state)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder.compile()


@pytest.mark.parametrize("shape", ["messages", "state"])
def test_a_live_offline_run_through_evaluate_for_both_input_shapes(shape: str) -> None:
    graph = scripted_graph(trend_policy, shape=shape)  # type: ignore[arg-type]
    arm = langgraph_agent(graph, name="arm")
    results = evaluate([arm, "buy_and_hold"], **MARKET)
    row = results.scorecard.loc["arm"]
    assert (row["errors"], row["model_calls"], row["decisions"]) == (0, 2, 2)
    assert row["trades"] > 0
    assert bool(row["tokens"] > 0) == (shape == "messages")  # only messages carry usage


def test_record_then_replay_matches_bit_for_bit_without_a_graph() -> None:
    live = langgraph_arm(name="arm", mode="record")
    recorded = evaluate([live, "momentum"], **MARKET)
    assert live.recorder is not None and len(live.recorder) == 2
    again = LangGraphAdapter.from_replay_spec(live.replay_spec(), live.recorder)
    replayed = evaluate([again, "momentum"], **MARKET)
    assert again.calls_made == 0
    assert replayed.digest() == recorded.digest()


def test_the_instructions_are_in_the_keyed_input_so_a_change_misses() -> None:
    live = langgraph_arm(name="arm", mode="record")
    evaluate([live], **MARKET)
    edited = LangGraphAdapter(
        None, mode="replay", name="arm", transcript=live.recorder, instructions="Be bold."
    )
    with pytest.raises(ReplayMiss, match="day 0, step 0"):
        evaluate([edited], **MARKET)
    sent = default_input_builder(PAYLOAD, INSTRUCTIONS)
    assert set(sent) == set(DEFAULT_INPUT_KEYS)
    assert sent["messages"][0] == {"role": "system", "content": INSTRUCTIONS}


def test_a_bad_answer_is_a_decision_error_in_the_scorecard() -> None:
    results = evaluate([langgraph_arm(stumbling_policy, name="arm")], **MARKET)
    row = results.scorecard.loc["arm"]
    assert row["errors"] == 1
    assert row["last_error"].startswith("DecisionError: the decision is not valid JSON")


def test_a_failing_node_is_a_framework_error_with_the_chain_intact() -> None:
    def broken(state: DecisionState) -> dict[str, Any]:
        return {"decision": state["no-such-key"]}  # type: ignore[typeddict-item]

    with pytest.raises(FrameworkError) as caught:
        _ask(langgraph_agent(_one_node(broken), name="arm"))
    assert isinstance(caught.value.__cause__, KeyError)


def test_an_interrupt_names_the_unanswered_question_before_any_stale_decision() -> None:
    def ask_a_human(state: DecisionState) -> dict[str, Any]:
        return {"decision": interrupt("May I buy AAA?")}

    arm = langgraph_agent(_one_node(ask_a_human), name="arm")
    with pytest.raises(GraphInterruptedError, match="May I buy AAA") as caught:
        _ask(arm)
    assert caught.value.questions == ("May I buy AAA?",)
    with pytest.raises(GraphInterruptedError):
        default_output_parser({"decision": HOLD, INTERRUPT_KEY: [{"question": "again?"}]})
    results = evaluate([langgraph_agent(_one_node(ask_a_human), name="arm")], **MARKET)
    assert results.scorecard.loc["arm", "last_error"].startswith("GraphInterruptedError")


def test_a_graph_that_never_finishes_is_a_decision_error() -> None:
    class Loop(TypedDict, total=False):
        observation: dict[str, Any]
        turns: int

    builder = StateGraph(Loop)
    builder.add_node("again", lambda state: {"turns": state.get("turns", 0) + 1})
    builder.add_edge(START, "again")
    builder.add_edge("again", "again")
    arm = langgraph_agent(builder.compile(), name="arm", config={"recursion_limit": 4})
    with pytest.raises(DecisionError, match="GraphRecursionError"):
        _ask(arm)


def test_the_mapping_names_every_langgraph_exception() -> None:
    assert ERRORS.unclassified() == [], "langgraph.errors gained a class; classify it in ERRORS"
    named = set(exception_classes(ERRORS.module)) & set(ERRORS.categories)
    assert len(named) >= len(ERRORS.categories) // 2  # the table is this release's, mostly


def test_run_identity_goes_into_metadata_merged_with_the_callers_config() -> None:
    seen: dict[str, Any] = {}

    def decide(state: DecisionState, config: RunnableConfig) -> dict[str, Any]:
        seen.update(metadata=dict(config["metadata"]), tags=list(config["tags"]))
        return {"decision": HOLD}

    arm = langgraph_agent(
        _one_node(decide),
        name="arm",
        run_id="run-7",
        config={"metadata": {"team": "macro"}, "tags": ["mine"]},
    )
    _ask(arm)
    assert seen["metadata"]["team"] == "macro"
    assert {k: v for k, v in seen["metadata"].items() if k.startswith("workbench")} == {
        "workbench_run_id": "run-7",
        "workbench_arm": "arm",
        "workbench_day": 2,
        "workbench_step": 3,
        "workbench_decision_schema": "2",
    }
    assert "mine" in seen["tags"] and "workbench" in seen["tags"]
    assert arm.config == {"metadata": {"team": "macro"}, "tags": ["mine"]}  # yours untouched


def test_any_object_with_invoke_or_ainvoke_is_accepted_and_a_builder_is_refused() -> None:
    class SyncOnly:
        def invoke(self, sent: Any) -> Any:
            return Decision.model_validate(HOLD)

    class AsyncOnly:
        async def ainvoke(self, sent: Any, config: Any) -> Any:
            return {"actions": [], "rationale": config["metadata"]["workbench_arm"]}

    assert _ask(langgraph_agent(SyncOnly(), name="sync")) == parse_decision(HOLD)
    assert _ask(langgraph_agent(AsyncOnly(), name="async")).rationale == "async"
    with pytest.raises(ConfigError, match="uncompiled StateGraph"):
        langgraph_agent(StateGraph(DecisionState), name="arm")
    with pytest.raises(ConfigError, match="invoke or ainvoke"):
        langgraph_agent(object(), name="arm")


@pytest.mark.parametrize(
    ("state", "expected"),
    [
        (Decision.model_validate(HOLD), HOLD),
        ({"actions": [], "rationale": "r"}, {"actions": [], "rationale": "r"}),
        ({"decision": '{"actions": []}'}, '{"actions": []}'),
        ({"messages": [{"role": "assistant", "content": "{}"}]}, "{}"),
    ],
)
def test_the_default_parser_reads_each_known_state_shape(state: Any, expected: Any) -> None:
    assert default_output_parser(state) == expected


def test_the_default_parser_refuses_anything_else_by_name() -> None:
    with pytest.raises(DecisionError, match="input_builder"):
        default_output_parser(None)
    with pytest.raises(DecisionError, match=r"\['observation', 'score'\]"):
        default_output_parser({"observation": {}, "score": 1})


def test_a_custom_input_builder_is_named_in_the_recording_and_used_on_replay() -> None:
    graph = scripted_graph(trend_policy, shape="state")
    live = langgraph_agent(graph, name="arm", mode="record", input_builder=observation_only)
    recorded = evaluate([live], **MARKET)
    spec = live.replay_spec()
    assert spec["input_builder"].endswith(":observation_only")
    with pytest.raises(UntrustedRecording, match="input_builder"):  # named by data: trust it
        LangGraphAdapter.from_replay_spec(spec, live.recorder)  # type: ignore[arg-type]
    trust(observation_only)
    try:
        again = LangGraphAdapter.from_replay_spec(spec, live.recorder)  # type: ignore[arg-type]
    finally:
        distrust(observation_only)
    assert evaluate([again], **MARKET).digest() == recorded.digest()
    unnamed = langgraph_agent(graph, name="arm", input_builder=lambda p, i: {"observation": p})
    with pytest.raises(ConfigError, match="module level"):
        unnamed.replay_spec()


def test_a_checkpointed_thread_answers_each_decision_from_its_latest_reply() -> None:
    model = ScriptedChatModel(policy=lambda p: {"actions": [], "rationale": f"day {p['day']}"})

    async def reply(state: dict[str, Any]) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    builder.add_edge("reply", END)
    graph = builder.compile(checkpointer=InMemorySaver())
    arm = langgraph_agent(graph, name="arm", thread_id="desk-1")
    results = evaluate([arm], **MARKET)
    assert results.scorecard.loc["arm", "errors"] == 0
    assert [entry["decision"]["rationale"] for entry in arm.decision_log] == ["day 0", "day 1"]
    history = graph.get_state({"configurable": {"thread_id": "desk-1"}}).values["messages"]
    assert len(history) == 6  # system, user and reply, twice: one thread across the run
    assert results.scorecard.loc["arm", "model_calls"] == 2
