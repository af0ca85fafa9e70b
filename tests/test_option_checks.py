"""Nonsense numbers refused where they enter, by one shared check; a bad Retry-After cannot stall.

Each refusal is a ``ConfigError`` naming the option, the value given and the range
allowed, raised when the object is built (before any run, before any money).
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from workbench.errors import ConfigError
from workbench.integrations._http import MAX_RETRY_AFTER_S, RetryingTransport, retry_after
from workbench.integrations._retries import RateLimit
from workbench.integrations.callable import callable_agent
from workbench.integrations.endpoints import Endpoint
from workbench.integrations.http_agent import http_agent
from workbench.integrations.process import process_agent

URL = "http://127.0.0.1:9/v1"
NAN, INF = math.nan, math.inf


def hold(payload: dict[str, Any]) -> dict[str, Any]:
    return {"actions": []}


def transport(**kwargs: Any) -> RetryingTransport:
    options = {"retries": 1, "backoff_s": 0.0, "limit": RateLimit(None), "counter": [], **kwargs}
    return RetryingTransport(httpx.AsyncHTTPTransport(), **options)


REFUSED: list[tuple[str, Callable[[], object], str]] = [
    (
        "endpoint timeout -1",
        lambda: Endpoint(URL, "m", timeout=-1),
        r"Endpoint timeout .*> 0; got -1",
    ),
    (
        "endpoint timeout nan",
        lambda: Endpoint(URL, "m", timeout=NAN),
        r"Endpoint timeout .*got nan",
    ),
    ("endpoint timeout inf", lambda: Endpoint(URL, "m", timeout=INF), r"Endpoint timeout .*finite"),
    (
        "negative backoff",
        lambda: Endpoint(URL, "m", backoff_s=-0.5),
        r"Endpoint backoff_s .*>= 0; got -0.5",
    ),
    ("nan backoff", lambda: Endpoint(URL, "m", backoff_s=NAN), r"Endpoint backoff_s .*got nan"),
    (
        "retries -1",
        lambda: Endpoint(URL, "m", retries=-1),
        r"Endpoint retries .*whole number >= 0; got -1",
    ),
    (
        "max_tokens -5",
        lambda: Endpoint(URL, "m", max_tokens=-5),
        r"Endpoint max_tokens .*>= 1, or None; got -5",
    ),
    (
        "max_tokens 2.5",
        lambda: Endpoint(URL, "m", max_tokens=2.5),
        r"Endpoint max_tokens .*got 2.5",
    ),
    (
        "temperature hot",
        lambda: Endpoint(URL, "m", temperature="hot"),
        r"Endpoint temperature .*>= 0, or None; got 'hot'",
    ),
    (
        "temperature nan",
        lambda: Endpoint(URL, "m", temperature=NAN),
        r"Endpoint temperature .*got nan",
    ),
    (
        "seed 1.5",
        lambda: Endpoint(URL, "m", seed=1.5),
        r"Endpoint seed .*whole number, or None; got 1.5",
    ),
    (
        "rate 0",
        lambda: Endpoint(URL, "m", max_requests_per_s=0),
        r"max_requests_per_s .*requests a second > 0",
    ),
    ("rate nan", lambda: RateLimit(NAN), r"max_requests_per_s .*got nan"),
    (
        "adapter timeout -1",
        lambda: callable_agent(hold, timeout=-1),
        r"CallableAgentAdapter timeout .*> 0, or None; got -1",
    ),
    (
        "adapter timeout nan",
        lambda: callable_agent(hold, timeout=NAN),
        r"CallableAgentAdapter timeout .*got nan",
    ),
    (
        "adapter max_calls -3",
        lambda: callable_agent(hold, max_calls=-3),
        r"CallableAgentAdapter max_calls .*whole number >= 0, or None; got -3",
    ),
    (
        "adapter max_calls True",
        lambda: callable_agent(hold, max_calls=True),
        r"max_calls .*got True",
    ),
    (
        "http timeout -1",
        lambda: http_agent("http://127.0.0.1:9/", timeout=-1),
        r"timeout .*> 0; got -1",
    ),
    (
        "process timeout nan",
        lambda: process_agent([sys.executable], timeout=NAN),
        r"timeout .*got nan",
    ),
    (
        "process start_timeout 0",
        lambda: process_agent([sys.executable], start_timeout=0),
        r"start_timeout .*> 0; got 0",
    ),
    (
        "process max_restarts -1",
        lambda: process_agent([sys.executable], max_restarts=-1),
        r"max_restarts .*>= 0; got -1",
    ),
    (
        "env value 3",
        lambda: process_agent([sys.executable], env={"THREADS": 3}),
        r"env= takes strings only: 'THREADS': 3 is a int",
    ),
    (
        "env value None",
        lambda: process_agent([sys.executable], env={"X": None}),
        r"env= takes strings only: 'X': None",
    ),
    ("transport backoff nan", lambda: transport(backoff_s=NAN), r"backoff_s .*got nan"),
]


@pytest.mark.parametrize(("case", "build", "message"), REFUSED, ids=[c[0] for c in REFUSED])
@pytest.mark.slow
def test_a_nonsense_number_is_refused_naming_option_value_and_range(
    case: str, build: Callable[[], object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        build()


def test_sensible_numbers_pass_and_keep_their_meaning() -> None:
    ep = Endpoint(URL, "m", timeout=5, backoff_s=0, max_tokens=64, temperature=0.7, seed=-1)
    assert (ep.timeout, ep.backoff_s, ep.max_tokens, ep.temperature) == (5.0, 0.0, 64, 0.7)
    arm = callable_agent(hold, timeout=None, max_calls=0)
    assert arm.timeout is None and arm.max_calls == 0


@pytest.mark.parametrize(
    "header", ["nan", "NaN", "inf", "-inf", "-5", "Wed, 21 Oct 2015 07:28:00 GMT"]
)
@pytest.mark.slow
def test_a_retry_after_that_is_no_finite_number_of_seconds_counts_as_absent(header: str) -> None:
    assert retry_after(header) is None
    transport = RetryingTransport(
        httpx.AsyncHTTPTransport(), retries=3, backoff_s=0.25, limit=RateLimit(None), counter=[]
    )
    refused = httpx.Response(429, headers={"Retry-After": header})
    assert transport._pause(1, refused) == 0.5  # the backoff, as if the header were absent


def test_every_pause_is_capped() -> None:
    transport = RetryingTransport(
        httpx.AsyncHTTPTransport(), retries=99, backoff_s=10, limit=RateLimit(None), counter=[]
    )
    assert transport._pause(0, httpx.Response(429, headers={"Retry-After": "1e9"})) == 30.0
    assert transport._pause(80, None) == MAX_RETRY_AFTER_S == 30.0
    assert retry_after("2.5") == 2.5 and retry_after(None) is None


def test_retry_after_nan_does_not_stall_the_request() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return httpx.Response(429, headers={"Retry-After": "nan"})
        return httpx.Response(200, json={"ok": True})

    async def ask() -> int:
        transport = RetryingTransport(
            httpx.MockTransport(handler),
            retries=2,
            backoff_s=0.01,
            limit=RateLimit(None),
            counter=(seen := []),
        )
        async with httpx.AsyncClient(transport=transport) as client:
            response = await asyncio.wait_for(client.get("http://127.0.0.1:9/x"), 60)
        assert seen == ["HTTP 429 (attempt 1)"]
        return response.status_code

    assert asyncio.run(ask()) == 200  # today: asyncio.sleep(nan) never wakes
    assert calls[1] - calls[0] < 30
