"""OpenAI-compatible endpoints end to end against loopback stub servers (no model, no network).

Every adapter on one ``Endpoint``; arms reused across event loops; retries that are
counted, recorded and replayed; the rate limit; timeouts that end; output-mode
detection and the request each mode sends.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench.bridge import run_sync
from workbench.errors import ConfigError, DecisionError
from workbench.evaluation import aevaluate, evaluate
from workbench.integrations._retries import RateLimit
from workbench.integrations.callable import Answer, callable_agent
from workbench.integrations.endpoints import Endpoint
from workbench.integrations.langgraph import langgraph_agent
from workbench.integrations.openai_agents import openai_agent
from workbench.integrations.pydantic_ai import MANDATE, PydanticAIAdapter, mandate
from workbench.testing.stub_endpoint import (
    StubServer,
    answer_decisions,
    completion,
    failing_first,
)
from workbench.transcript import Transcript

MARKET: dict[str, Any] = {"seed": 3, "universe": 3, "days": 1}


@pytest.fixture
def endpoint() -> Iterator[Callable[..., Endpoint]]:
    """Make endpoints; their connections are closed when the test ends."""
    made: list[Endpoint] = []

    def make(*args: Any, **kwargs: Any) -> Endpoint:
        made.append(Endpoint(*args, **kwargs))
        return made[-1]

    yield make
    for ep in made:
        ep.close()


def refusing_json_schema(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Like llama-cpp-python's server: json_object (with a schema) yes, json_schema no."""
    if (body.get("response_format") or {}).get("type") == "json_schema":
        return 500, {"error": {"message": "Input should be 'text' or 'json_object'"}}
    return answer_decisions(body)


def slow_decisions(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    time.sleep(0.1)  # requests overlap, so pooled connections are contended
    return answer_decisions(body)


def endpoint_arms(ep: Endpoint) -> list[Any]:
    from agents import Agent as AgentsAgent
    from pydantic_ai import Agent as PydanticAgent

    return [
        callable_agent(endpoint=ep, name="callable"),
        openai_agent(AgentsAgent(name="openai-agents"), endpoint=ep),
        PydanticAIAdapter(PydanticAgent(name="pydantic-ai"), endpoint=ep),
        langgraph_agent(endpoint=ep, name="langgraph"),
    ]


# --- every adapter, first class ----------------------------------------------------------
@pytest.mark.slow
def test_every_adapter_decides_through_one_endpoint_in_the_detected_json_mode(
    endpoint: Callable[..., Endpoint],
) -> None:
    with StubServer(refusing_json_schema) as server:
        ep = endpoint(server.url, "stub-model")
        arms = endpoint_arms(ep)
        results = evaluate(arms, **MARKET)
    card = results.scorecard
    assert ep.detect_output_mode() == "json"
    assert card["errors"].sum() == 0 and (card["decisions"] == 1).all()
    assert (card["tokens"] == 120).all()  # the server's usage, for every arm
    asked = [body for body in server.requests if body.get("max_tokens") != 1]
    assert len(asked) == 4
    for body in asked:
        assert body["response_format"]["type"] == "json_object"
        quantity = body["response_format"]["schema"]["$defs"]["Action"]["properties"]["quantity"]
        assert quantity["type"] == "integer"
        system = [m["content"] for m in body["messages"] if m["role"] == "system"]
        assert not any("output tool" in text for text in system)
    assert {arm.info.model for arm in arms} == {"stub-model"}


@pytest.mark.slow
def test_the_same_arms_run_through_evaluate_await_aevaluate_and_asyncio_run(
    endpoint: Callable[..., Endpoint],
) -> None:
    from agents import Agent as AgentsAgent
    from agents import OpenAIChatCompletionsModel
    from openai import AsyncOpenAI
    from pydantic_ai import Agent as PydanticAgent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    with StubServer(slow_decisions) as server:
        client = AsyncOpenAI(base_url=server.url, api_key="unused")  # one pool, shared
        provider = OpenAIProvider(openai_client=client)
        arms = [
            *[
                openai_agent(
                    AgentsAgent(name=f"agents-{i}"),
                    model=OpenAIChatCompletionsModel(model="m", openai_client=client),
                )
                for i in range(2)
            ],
            *[
                PydanticAIAdapter(
                    PydanticAgent(name=f"pydantic-{i}"),
                    model=OpenAIChatModel("m", provider=provider),
                    output_mode="json",
                )
                for i in range(2)
            ],
            *endpoint_arms(endpoint(server.url, "m", output_mode="json")),
        ]

        async def in_a_notebook() -> Any:
            return await aevaluate(arms, **MARKET)

        runs = [
            evaluate(arms, **MARKET),
            asyncio.run(in_a_notebook()),
            asyncio.run(aevaluate(arms, **MARKET)),
        ]
        run_sync(client.close())
    for results in runs:
        assert results.scorecard["errors"].sum() == 0, results.scorecard["last_error"].tolist()
    assert runs[0].digest() == runs[1].digest() == runs[2].digest()


# --- retries, rate limit ------------------------------------------------------------------
@pytest.mark.slow
def test_a_429_then_200_is_retried_counted_recorded_and_replayed_the_same(
    endpoint: Callable[..., Endpoint],
) -> None:
    with StubServer(failing_first([429])) as server:
        ep = endpoint(server.url, "stub-model", output_mode="json", backoff_s=0.01)
        arm = callable_agent(endpoint=ep, name="c", mode="record")
        live = evaluate([arm], **MARKET)
    assert live.scorecard.loc["c", "errors"] == 0
    assert ep.retried == ["HTTP 429 (attempt 1)"] and arm.usage.retries == 1
    (exchange,) = arm.recorder.exchanges
    assert exchange.usage["retries"] == 1
    replay = callable_agent(
        None,
        name="c",
        mode="replay",
        transcript=arm.recorder,
        info=arm.info,
        postprocess=arm.postprocess,
    )
    replayed = evaluate([replay], **MARKET)
    assert replay.usage.retries == 1 and replayed.digest() == live.digest()


@pytest.mark.slow
def test_a_5xx_through_the_openai_agents_sdk_is_retried_by_the_workbench_alone(
    endpoint: Callable[..., Endpoint],
) -> None:
    from agents import Agent as AgentsAgent

    with StubServer(failing_first([503, 502])) as server:
        ep = endpoint(server.url, "m", output_mode="json", backoff_s=0.01)
        arm = openai_agent(AgentsAgent(name="a"), endpoint=ep)
        results = evaluate([arm], **MARKET)
    assert results.scorecard.loc["a", "errors"] == 0
    assert arm.usage.retries == 2 and len(server.requests) == 3  # no SDK retries on top


def test_connection_errors_are_retried_then_fail_as_a_framework_error(
    endpoint: Callable[..., Endpoint],
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed below: nothing listens there
    ep = endpoint(
        f"http://127.0.0.1:{port}/v1",
        "m",
        output_mode="json",
        retries=2,
        backoff_s=0,
        on_unreachable="count",
    )
    arm = callable_agent(endpoint=ep, name="c", mode="record")
    results = evaluate([arm], **MARKET)
    assert results.scorecard.loc["c", "errors"] == 1
    assert "ConnectError" in results.scorecard.loc["c", "last_error"]
    assert ep.retried == ["ConnectError (attempt 1)", "ConnectError (attempt 2)"]
    (exchange,) = arm.recorder.exchanges
    assert exchange.usage["retries"] == 2 and exchange.error["base"] == "FrameworkError"


def test_the_rate_limit_spaces_requests_by_its_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(asyncio, "sleep", sleep)
    limit = RateLimit(4.0, clock=lambda: 100.0)  # a frozen clock: every request at once

    async def three() -> None:
        for _ in range(3):
            await limit.wait()

    asyncio.run(three())
    assert waits == [0.25, 0.5]
    with pytest.raises(ConfigError, match="max_requests_per_s"):
        RateLimit(0)


# --- timeouts that end ----------------------------------------------------------------------
@pytest.mark.slow
def test_a_silent_server_times_out_as_a_counted_framework_error(
    endpoint: Callable[..., Endpoint],
) -> None:
    with StubServer(silent=True) as server:
        ep = endpoint(server.url, "m", output_mode="json")
        arm = callable_agent(endpoint=ep, name="c", timeout=0.5)
        results = evaluate([arm], **MARKET)
    assert results.scorecard.loc["c", "errors"] == 1
    assert "gave no answer within 0.5s" in results.scorecard.loc["c", "last_error"]


@pytest.mark.slow
def test_a_timed_out_sync_call_never_keeps_the_process_alive(tmp_path: Path) -> None:
    script = tmp_path / "silent.py"
    script.write_text(
        textwrap.dedent(
            """
            import socket, urllib.request
            from workbench.evaluation import evaluate
            from workbench.integrations.callable import callable_agent

            server = socket.create_server(("127.0.0.1", 0))  # listens, never answers
            url = f"http://127.0.0.1:{server.getsockname()[1]}/"

            def ask(payload):
                return urllib.request.urlopen(url, timeout=600).read()

            results = evaluate([callable_agent(ask, timeout=1)], seed=1, universe=2, days=1)
            print(results.scorecard.loc["ask", "last_error"])
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "gave no answer within 1s" in done.stdout


def test_adapters_have_a_default_timeout() -> None:
    from workbench.integrations.base import DEFAULT_TIMEOUT

    assert callable_agent(lambda p: p).timeout == DEFAULT_TIMEOUT > 0


# --- output modes ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("refused", "detected"),
    [
        ((), "structured"),
        (("json_schema",), "json"),
        (("json_schema", "json_object"), "tool"),
        (("json_schema", "json_object", "tools"), "text"),
    ],
)
@pytest.mark.slow
def test_the_output_mode_is_detected_from_what_the_server_accepts(
    refused: tuple[str, ...], detected: str, endpoint: Callable[..., Endpoint]
) -> None:
    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        kind = (body.get("response_format") or {}).get("type")
        if kind in refused or ("tools" in refused and body.get("tools")):
            return 400, {"error": {"message": "unsupported"}}
        return answer_decisions(body)

    with StubServer(answer) as server:
        assert endpoint(server.url, "m").detect_output_mode() == detected


@pytest.mark.slow
def test_tool_and_text_modes_ask_and_read_their_own_way(endpoint: Callable[..., Endpoint]) -> None:
    def prose_around_json(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        status, reply = answer_decisions(body)
        if not body.get("tools"):
            message = reply["choices"][0]["message"]
            message["content"] = f"Sure! Here it is:\n```json\n{message['content']}\n```"
        return status, reply

    with StubServer(prose_around_json) as server:
        tool = callable_agent(endpoint=endpoint(server.url, "m", output_mode="tool"), name="t")
        text = callable_agent(endpoint=endpoint(server.url, "m", output_mode="text"), name="x")
        results = evaluate([tool, text], **MARKET)
    assert results.scorecard["errors"].sum() == 0
    by_tools = {bool(body.get("tools")): body for body in server.requests}
    assert by_tools[True]["tool_choice"]["function"]["name"] == "submit_decision"
    assert "response_format" not in by_tools[False]
    assert '"quantity"' in by_tools[False]["messages"][0]["content"]  # the schema in the prompt


@pytest.mark.slow
def test_openai_agents_json_mode_sends_json_object_and_binds_no_output_type() -> None:
    from agents import Agent as AgentsAgent
    from agents import OpenAIChatCompletionsModel
    from openai import AsyncOpenAI

    with StubServer(refusing_json_schema) as server:
        client = AsyncOpenAI(base_url=server.url, api_key="x")
        model = OpenAIChatCompletionsModel(model="served-name", openai_client=client)
        arm = openai_agent(AgentsAgent(name="a"), model=model, output_mode="json")
        results = evaluate([arm], **MARKET)
        run_sync(client.close())
    assert results.scorecard.loc["a", "errors"] == 0
    (body,) = server.requests
    assert body["response_format"]["type"] == "json_object" and "schema" in body["response_format"]
    assert arm.info.model == "served-name"  # the model's name, not its class
    assert arm.brief.endswith("Reply with one JSON object, the decision, and nothing else.")


@pytest.mark.slow
def test_a_pydantic_ai_prose_answer_is_recorded_with_the_last_correction(
    endpoint: Callable[..., Endpoint],
) -> None:
    from pydantic_ai import Agent as PydanticAgent

    prose = "I think the market looks good, so buying some shares is wise."

    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, completion(prose)

    with StubServer(answer) as server:
        ep = endpoint(server.url, "m", output_mode="json")
        arm = PydanticAIAdapter(PydanticAgent(name="p"), endpoint=ep, mode="record")
        results = evaluate([arm], **MARKET)
    error = results.scorecard.loc["p", "last_error"]
    assert error.startswith("DecisionError") and "last correction:" in error
    assert "no JSON object" in error
    (exchange,) = arm.recorder.exchanges
    assert exchange.response == f"{prose}"  # the model's own words, not null
    assert exchange.usage["model_calls"] == 2  # the first answer and the retry


def test_instructions_never_mention_an_output_tool_that_is_not_there() -> None:
    assert "output tool" in MANDATE and mandate("tool") == MANDATE
    for mode in (None, "structured", "json", "text"):
        assert "output tool" not in mandate(mode)


def test_a_plain_function_may_report_its_tokens() -> None:
    def ask(payload: dict[str, Any]) -> Answer:
        return Answer(json.dumps({"actions": []}), input_tokens=30, output_tokens=5)

    results = evaluate([callable_agent(ask)], **MARKET)
    assert results.scorecard.loc["ask", "tokens"] == 35


def test_a_replayed_scorecard_shows_the_recorded_latency() -> None:
    def ask(payload: dict[str, Any]) -> dict[str, Any]:
        time.sleep(0.05)
        return {"actions": []}

    live_arm = callable_agent(ask, mode="record")
    live = evaluate([live_arm], **MARKET)
    transcript = Transcript.from_json(live_arm.recorder.to_json())
    replayed = evaluate(
        [callable_agent(None, name="ask", mode="replay", transcript=transcript)], **MARKET
    )
    assert replayed.scorecard.loc["ask", "latency_s"] == live.scorecard.loc["ask", "latency_s"]
    assert live.scorecard.loc["ask", "latency_s"] >= 0.05


def test_endpoint_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="http"):
        Endpoint("127.0.0.1:8080", "m")
    with pytest.raises(ConfigError, match="output_mode"):
        Endpoint("http://127.0.0.1:1/v1", "m", output_mode="yaml")
    with pytest.raises(ConfigError, match="MY_KEY"):
        Endpoint("https://api.example.com/v1", "m", api_key_env="MY_KEY").api_key()
    with pytest.raises(DecisionError, match="prose"):
        from workbench.integrations.output_modes import decision_from_text

        decision_from_text("no json here")


@pytest.mark.slow
def test_the_smollm2_run_records_every_adapter_and_replays_them(tmp_path: Path) -> None:
    from workbench.recordings import find_recordings
    from workbench.testing import smollm2

    with StubServer() as server:  # the model's place, answering every arm the same way
        rows = smollm2.run(server.url, tmp_path, ("adapters", "committee"))
    assert [row["arm"] for row in rows] == [
        "callable-smollm2",
        "openai-agents-smollm2",
        "pydantic-ai-smollm2",
        "langgraph-smollm2",
        "committee-smollm2",
    ]
    assert all(row["replay_matches"] for row in rows)
    assert [row["valid"] for row in rows[:4]] == [3, 3, 3, 3]
    assert rows[4]["DecisionError"] == 1  # JSON where the portfolio manager owes RATING lines
    assert len(find_recordings(tmp_path)) == 5
    assert "| callable-smollm2 | 3 | 3/3 | 0 | 0 |" in smollm2.table(rows)
