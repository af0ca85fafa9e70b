"""Role models on every backend: scripted, callable (also named in YAML), PydanticAI,
OpenAI Agents and LangGraph, all offline. The deep roles (research manager and
portfolio manager) run on the framework; the answers come from the same scripts,
so every backend must reach the same decisions as the scripted committee."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.committee import (
    CallableModel,
    Committee,
    LangGraphModel,
    OpenAIAgentsModel,
    PydanticAIModel,
    load_spec,
)
from workbench.committee.models import read_prompt
from workbench.committee.scripted import REFERENCE_SCRIPTS
from workbench.errors import ConfigError
from workbench.evaluation import evaluate

MARKET: dict[str, Any] = {"seed": 2, "universe": 4, "days": 2}


def answer(prompt: str) -> str:
    """A text model standing in for a provider: the reference script for the prompt's role."""
    role, briefing = read_prompt(prompt)
    return REFERENCE_SCRIPTS[role](briefing)


def decisions(committee: Committee) -> list[Any]:
    evaluate([committee], **MARKET)
    assert all("error" not in entry for entry in committee.decision_log)
    return [entry["decision"] for entry in committee.decision_log]


def _pydantic_agent() -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import FunctionModel

    def reply(messages: list[Any], info: Any) -> ModelResponse:
        return ModelResponse(parts=[TextPart(answer(messages[-1].parts[-1].content))])

    return Agent(FunctionModel(reply))


PYDANTIC_AGENT = _pydantic_agent()  # named in YAML below as "<this module>:PYDANTIC_AGENT"


@pytest.fixture(scope="module")
def reference() -> list[Any]:
    return decisions(Committee())


def test_a_callable_model_named_in_yaml(tmp_path: Path, reference: list[Any]) -> None:
    spec = load_spec("tradingagents").to_json()
    spec["models"]["deep"] = {
        "backend": "callable",
        "target": f"{__name__}:answer",
        "name": "callable-deep",
    }
    committee = Committee(spec)
    assert decisions(committee) == reference
    models = {r["model"] for r in committee.decision_log[0]["roles"]}
    assert models == {"scripted-quick", "callable-deep"}
    spec["models"]["deep"] = {"backend": "callable"}
    with pytest.raises(ConfigError, match="needs target"):
        Committee(spec)


def test_a_pydantic_ai_agent_answers_the_deep_roles(reference: list[Any]) -> None:
    deep = PydanticAIModel(PYDANTIC_AGENT, name="pydantic-deep")
    committee = Committee(models={"deep": deep})
    assert decisions(committee) == reference
    assert committee.usage.input_tokens > 0


def test_a_pydantic_ai_agent_named_in_yaml(tmp_path: Path, reference: list[Any]) -> None:
    text = (Path(__file__).parents[1] / "workbench/committee/tradingagents.yaml").read_text()
    target = f"{__name__}:PYDANTIC_AGENT"
    line = "  deep: {backend: scripted, name: scripted-deep}"
    assert line in text
    edited = text.replace(line, f"  deep: {{backend: pydantic_ai, target: '{target}', name: pa}}")
    (tmp_path / "committee.yaml").write_text(edited, encoding="utf-8")
    committee = Committee(tmp_path / "committee.yaml")
    assert decisions(committee) == reference
    assert committee.decision_log[0]["executor"]["model"] == "pa"


def test_an_openai_agents_agent_answers_the_deep_roles(reference: list[Any]) -> None:
    from agents import Agent
    from agents.testing import ModelStep, ScriptedModel, assistant_message

    class Scripted(ScriptedModel):
        async def get_response(self, *args: Any, **kwargs: Any) -> Any:
            self.enqueue(ModelStep.respond(self._respond))
            return await super().get_response(*args, **kwargs)

        async def _respond(self, call: Any) -> ModelStep:
            sent = call.input if isinstance(call.input, str) else call.input[-1]["content"]
            return ModelStep(output=[assistant_message(answer(sent))])

    deep = OpenAIAgentsModel(Agent(name="deep", model=Scripted()), name="agents-deep")
    assert decisions(Committee(models={"deep": deep})) == reference


def test_a_langgraph_graph_answers_the_deep_roles(reference: list[Any]) -> None:
    from langgraph.graph import END, START, MessagesState, StateGraph

    def node(state: MessagesState) -> dict[str, Any]:
        return {
            "messages": [{"role": "assistant", "content": answer(state["messages"][-1].content)}]
        }

    graph = StateGraph(MessagesState)
    graph.add_node("answer", node)
    graph.add_edge(START, "answer")
    graph.add_edge("answer", END)
    deep = LangGraphModel(graph.compile(), name="langgraph-deep")
    assert decisions(Committee(models={"deep": deep})) == reference
    with pytest.raises(ConfigError, match="compiled graph"):
        LangGraphModel(graph)


def test_an_unknown_model_key_or_role_is_refused() -> None:
    with pytest.raises(ConfigError, match="not in the committee"):
        Committee(models={"huge": CallableModel(answer)})
    with pytest.raises(ConfigError, match="not roles of the committee"):
        Committee(advisors={"oracle": object()})  # type: ignore[dict-item]


@pytest.mark.slow
def test_a_framework_failure_is_mapped_at_its_boundary_and_kept_in_the_memo() -> None:
    from pydantic_ai import Agent, ModelRetry
    from pydantic_ai.messages import ModelResponse, TextPart
    from pydantic_ai.models.function import FunctionModel

    agent = Agent(FunctionModel(lambda m, i: ModelResponse(parts=[TextPart("vague")])), retries=1)

    @agent.output_validator
    def insist(text: str) -> str:
        raise ModelRetry("cite the snapshot")

    quick = PydanticAIModel(agent, name="pydantic-quick")
    committee = Committee(models={"quick": quick})
    results = evaluate([committee], **MARKET)
    entry = committee.decision_log[0]
    assert len(entry["failed_roles"]) == 9  # every quick role failed, none was dropped
    assert all(r["error"].startswith("DecisionError") for r in entry["roles"] if not r["ok"])
    assert "pydantic-ai raised UnexpectedModelBehavior" in entry["memo"]
    assert results.errors.empty and "decision" in entry  # the deep executor still decided
