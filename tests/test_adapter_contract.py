"""The adapter contract: every adapter takes the base keywords through ``AdapterOptions``
without re-declaring them, and ``exchange`` is the one protected exchange an adapter that
asks several questions per decision calls once per question (as the committee does)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import pkgutil
import warnings
from typing import Any, Unpack

import pytest

import workbench.committee
import workbench.integrations
import workbench.memory
from workbench._jsonio import digest
from workbench.agents import DecisionRequest
from workbench.evaluation import evaluate
from workbench.integrations import callable_agent
from workbench.integrations.base import OPTION_NAMES, AdapterOptions, BaseAdapter
from workbench.schema import Decision, parse_decision
from workbench.transcript import Transcript

MARKET: dict[str, Any] = {"seed": 3, "universe": 3, "days": 3}


def _adapters() -> list[type[BaseAdapter]]:
    for package in (workbench.integrations, workbench.committee, workbench.memory):
        for module in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            with warnings.catch_warnings():  # a deprecated alias module warns on import
                warnings.simplefilter("ignore", DeprecationWarning)
                importlib.import_module(module.name)
    found, todo = [], list(BaseAdapter.__subclasses__())
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("workbench."):
            found.append(cls)
    return sorted(found, key=lambda cls: cls.__qualname__)


def test_every_adapter_is_found() -> None:
    names = {cls.__name__ for cls in _adapters()}
    assert {"CallableAgentAdapter", "LangGraphAdapter", "OpenAIAgentsAdapter"} <= names
    assert {"PydanticAIAdapter", "ProcessAgentAdapter", "HttpAgentAdapter", "Committee"} <= names


@pytest.mark.parametrize("adapter", _adapters(), ids=lambda cls: cls.__name__)
def test_no_adapter_constructor_redeclares_the_base_keywords(adapter: type[BaseAdapter]) -> None:
    parameters = inspect.signature(adapter.__init__).parameters
    assert not OPTION_NAMES & set(parameters), "take them as **options: Unpack[AdapterOptions]"
    assert any(p.kind is p.VAR_KEYWORD for p in parameters.values())


def test_an_unknown_keyword_is_refused_by_name() -> None:
    with pytest.raises(TypeError, match="recoder"):
        callable_agent(lambda payload: {"actions": []}, recoder="run.json")


class TwoQuestions(BaseAdapter):
    """Asks a scout and a trader concurrently at each decision, then trades the scout's pick."""

    framework = "two-questions"

    def __init__(self, **options: Unpack[AdapterOptions]) -> None:
        self.asked_for: list[str] = []
        super().__init__(**options)

    async def adecide(self, request: DecisionRequest) -> Decision:
        questions = [{"who": who, "day": request.day} for who in ("scout", "trader")]
        entry = self.record_entry(request, digest(questions), questions=questions)
        pick, size = await asyncio.gather(*(self.exchange(request, q) for q in questions))
        symbol = sorted(request.payload["symbols"])[int(pick) % len(request.payload["symbols"])]
        decision = parse_decision(
            {"actions": [{"symbol": symbol, "side": "buy", "quantity": int(size)}]}
        )
        entry["decision"] = decision.to_json()
        return decision

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        self.asked_for.append(sent["who"])
        tokens = 7 if sent["who"] == "scout" else 100
        await asyncio.sleep(0.01 if sent["who"] == "scout" else 0)  # the trader answers first
        self.note_usage(input_tokens=tokens, output_tokens=tokens)
        return sent["day"] if sent["who"] == "scout" else 10


def test_two_exchanges_per_decision_record_their_own_usage_and_replay() -> None:
    live = TwoQuestions(name="two", mode="record")
    recorded = evaluate([live, "cash"], **MARKET)
    assert sorted(live.asked_for) == ["scout"] * 3 + ["trader"] * 3
    transcript = live.recorder
    assert isinstance(transcript, Transcript) and len(transcript) == 6
    for exchange in transcript:
        expected = 7 if exchange.input["who"] == "scout" else 100
        assert exchange.usage["input_tokens"] == expected  # concurrent calls keep their own
    assert recorded.scorecard.loc["two", "model_calls"] == 6
    assert recorded.scorecard.loc["two", "tokens"] == 3 * 2 * (7 + 100)

    again = TwoQuestions(name="two", mode="replay", transcript=transcript)
    replayed = evaluate([again, "cash"], **MARKET)
    assert again.asked_for == [] and replayed.digest() == recorded.digest()


def test_a_resumed_run_asks_only_the_questions_it_has_no_answer_for() -> None:
    first = TwoQuestions(name="two", mode="record")
    evaluate([first, "cash"], **{**MARKET, "days": 2})
    resumed = TwoQuestions(name="two", mode="record", prior=first.recorder)
    evaluate([resumed, "cash"], **MARKET)
    assert sorted(resumed.asked_for) == ["scout", "trader"]  # day 2 only


def test_the_budget_counts_every_exchange() -> None:
    arm = TwoQuestions(name="two", mode="record", max_calls=3)
    results = evaluate([arm, "cash"], **MARKET)
    assert len(arm.asked_for) == 3
    assert results.scorecard.loc["two", "errors"] == 1  # one budget stop, then it holds
