"""An endpoint where no server ever answered stops the run with one clear error."""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from workbench.errors import ConfigError, EndpointUnreachable
from workbench.evaluation import evaluate
from workbench.integrations.callable import callable_agent
from workbench.integrations.endpoints import Endpoint
from workbench.integrations.langgraph import langgraph_agent
from workbench.integrations.openai_agents import openai_agent
from workbench.testing.stub_endpoint import StubServer

MARKET: dict[str, Any] = {"seed": 3, "universe": 3, "days": 3}


@pytest.fixture
def endpoint() -> Iterator[Callable[..., Endpoint]]:
    made: list[Endpoint] = []

    def make(*args: Any, **kwargs: Any) -> Endpoint:
        made.append(Endpoint(*args, output_mode="json", retries=1, backoff_s=0, **kwargs))
        return made[-1]

    yield make
    for ep in made:
        ep.close()


def nothing_listening() -> str:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]  # closed on leaving: nothing listens there
    return f"http://127.0.0.1:{port}/v1"


def openai_arm(ep: Endpoint) -> Any:
    from agents import Agent

    return openai_agent(Agent(name="openai-agents"), endpoint=ep)


ARMS: dict[str, Callable[[Endpoint], Any]] = {
    "callable": lambda ep: callable_agent(endpoint=ep, name="callable"),
    "openai-agents": openai_arm,  # the SDK wraps the connection error in its own
    "langgraph": lambda ep: langgraph_agent(endpoint=ep, name="langgraph"),
}


@pytest.mark.parametrize("kind", sorted(ARMS))
def test_no_server_stops_the_run_at_the_first_call_naming_the_url_and_the_option(
    kind: str, endpoint: Callable[..., Endpoint]
) -> None:
    url = nothing_listening()
    ep = endpoint(url, "m")
    with pytest.raises(EndpointUnreachable) as caught:
        evaluate([ARMS[kind](ep), "momentum"], **MARKET)
    message = str(caught.value)
    assert url in message and 'on_unreachable="count"' in message
    assert caught.value.results is not None  # the steps before the stop are kept
    assert ep.retried == ["ConnectError (attempt 1)"]  # one call, its retries, no more


def test_counting_goes_on_past_every_failed_decision(endpoint: Callable[..., Endpoint]) -> None:
    ep = endpoint(nothing_listening(), "m", on_unreachable="count")
    results = evaluate([callable_agent(endpoint=ep, name="c")], **MARKET)
    assert results.scorecard.loc["c", "errors"] == 3  # every decision, each counted


@pytest.mark.slow
def test_a_server_answers_and_marks_the_endpoint_as_answered(
    endpoint: Callable[..., Endpoint],
) -> None:
    with StubServer() as server:
        ep = endpoint(server.url, "m")
        assert not ep.answered
        results = evaluate([callable_agent(endpoint=ep, name="c")], **MARKET)
    assert results.scorecard.loc["c", "errors"] == 0 and ep.answered


def test_an_endpoint_that_has_answered_counts_a_later_outage(
    endpoint: Callable[..., Endpoint],
) -> None:
    ep = endpoint(nothing_listening(), "m")
    ep.answered = True  # as after a first answer: an outage in a long run is not a setup error
    results = evaluate([callable_agent(endpoint=ep, name="c")], **MARKET)
    assert results.scorecard.loc["c", "errors"] == 3


def test_an_unknown_choice_is_refused_with_the_nearest() -> None:
    with pytest.raises(ConfigError, match=r"'stop' or 'count'.*Did you mean 'count'"):
        Endpoint("http://127.0.0.1:1/v1", "m", on_unreachable="cont")


def test_no_server_stops_the_run_when_the_output_mode_is_probed_too() -> None:
    ep = Endpoint(nothing_listening(), "m", retries=1, backoff_s=0)  # output_mode="auto"
    try:
        with pytest.raises(EndpointUnreachable, match="no server answered"):
            evaluate([callable_agent(endpoint=ep, name="x"), "momentum"], **MARKET)
    finally:
        ep.close()
