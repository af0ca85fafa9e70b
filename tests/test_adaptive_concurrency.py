"""An endpoint's in-flight limit that adapts: cut on 429 answers (once per debounce window),
grown back by clean answers (doubling before the first 429, then one at a time), slots
that bound what is in flight on any loop, and a loopback server answering 429."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from workbench.errors import ConfigError
from workbench.integrations._concurrency import AdaptiveConcurrency, concurrency_of


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_429_cuts_the_limit_once_per_episode_and_clean_answers_grow_it_back() -> None:
    clock = Clock()
    limit = AdaptiveConcurrency(4, 16, cut=0.5, debounce_s=10.0, clock=clock)
    for _ in range(4):  # a full round of clean answers before any 429: slow start doubles
        limit.answered_clean()
    assert limit.limit == 8
    clock.now = 1.0
    limit.rate_limited()  # 8 * 0.5
    clock.now = 2.0
    limit.rate_limited()  # the same episode: debounced
    assert limit.limit == 4
    clock.now = 5.0
    for _ in range(10):  # in flight before the cut: they say nothing of the new limit
        limit.answered_clean()
    assert limit.limit == 4
    clock.now = 12.0
    limit.rate_limited()  # a new episode once the window has passed
    assert limit.limit == 2
    clock.now = 30.0
    for _ in range(2 + 3 + 4):  # after a 429, one more slot per full round of clean answers
        limit.answered_clean()
    assert limit.limit == 5
    assert limit.changes == [
        (4, 8, "slow start"), (8, 4, "429"), (4, 2, "429"),
        (2, 3, "additive"), (3, 4, "additive"), (4, 5, "additive"),
    ]  # fmt: skip


def test_the_limit_stays_between_one_and_the_cap() -> None:
    clock = Clock()
    limit = AdaptiveConcurrency(2, 3, cut=0.5, debounce_s=1.0, clock=clock)
    for step in range(5):
        clock.now = 10.0 * step
        limit.rate_limited()
    assert limit.limit == 1
    clock.now = 100.0
    for _ in range(50):
        limit.answered_clean()
    assert limit.limit == 3
    fixed = concurrency_of(5)
    assert fixed is not None
    fixed.rate_limited()
    assert fixed.limit == 5 and fixed.changes == []  # cut=1: a fixed limit


def test_slots_bound_what_is_in_flight_and_a_cancelled_waiter_leaks_none() -> None:
    limit = AdaptiveConcurrency(2, 2)
    busy, peak = [0], [0]

    async def request(hold: float) -> None:
        async with limit.slot():
            busy[0] += 1
            peak[0] = max(peak[0], busy[0])
            await asyncio.sleep(hold)
            busy[0] -= 1

    async def main() -> None:
        waiting = asyncio.create_task(request(0.0))
        await asyncio.gather(*(request(0.01) for _ in range(2)), asyncio.sleep(0.001))
        tasks = [asyncio.create_task(request(0.01)) for _ in range(6)]
        await asyncio.sleep(0)
        tasks[-1].cancel()  # gives up while queued
        await asyncio.gather(*tasks, waiting, return_exceptions=True)

    asyncio.run(main())
    assert peak[0] == 2 and limit.in_flight == 0 and not limit._waiters


def test_one_limit_holds_across_event_loops_in_threads() -> None:
    limit = AdaptiveConcurrency(3, 3)
    lock, busy, peak = threading.Lock(), [0], [0]

    async def request() -> None:
        async with limit.slot():
            with lock:
                busy[0] += 1
                peak[0] = max(peak[0], busy[0])
            await asyncio.sleep(0.005)
            with lock:
                busy[0] -= 1

    async def many() -> None:
        await asyncio.gather(*(request() for _ in range(10)))

    threads = [threading.Thread(target=asyncio.run, args=(many(),)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert peak[0] == 3 and limit.in_flight == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (0, "whole number >= 1"),
        ("fast", "'adaptive'"),
        (True, "whole number >= 1"),
    ],
)
def test_a_bad_concurrency_is_refused_with_the_choices(value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        concurrency_of(value)


def test_bad_bounds_are_refused_by_name() -> None:
    with pytest.raises(ConfigError, match=r"cap \(2\) must be >= start \(4\)"):
        AdaptiveConcurrency(4, 2)
    with pytest.raises(ConfigError, match=r"cut must be in \(0, 1\]"):
        AdaptiveConcurrency(cut=0.0)
    with pytest.raises(ConfigError, match="debounce_s"):
        AdaptiveConcurrency(debounce_s=-1.0)
    assert concurrency_of("adaptive").limit == 4  # type: ignore[union-attr]


@pytest.mark.slow
def test_an_endpoint_answering_429_shrinks_then_grows_back_and_the_retries_are_recorded() -> None:
    pytest.importorskip("httpx")
    from workbench.evaluation import evaluate
    from workbench.integrations import callable_agent
    from workbench.integrations.endpoints import Endpoint
    from workbench.testing.stub_endpoint import StubServer, failing_first

    clock = Clock()
    adaptive = AdaptiveConcurrency(4, 8, cut=0.5, debounce_s=10.0, clock=clock)
    market: dict[str, Any] = {"seed": 2, "universe": 4, "days": 3}
    with StubServer(failing_first([429, 429, 429])) as server:
        ep = Endpoint(server.url, "stub-model", output_mode="json", backoff_s=0.2,
                      concurrency=adaptive)  # fmt: skip
        arms = [callable_agent(endpoint=ep, name=f"c{k}", mode="record") for k in range(3)]
        first = evaluate(arms, **market)
        # the three arms asked at once on day 0: three 429s, one episode, one cut
        assert adaptive.changes == [(4, 2, "429")]
        assert len(ep.retried) == 3 and all(r.startswith("HTTP 429") for r in ep.retried)
        recorded = [e.usage.get("retries", 0) for arm in arms for e in arm.recorder.exchanges]
        assert sum(recorded) == 3  # as before: each exchange records its own retries
        clock.now = 100.0  # the 429s have stopped
        again = [callable_agent(endpoint=ep, name=f"c{k}") for k in range(3)]
        second = evaluate(again, **market)
        ep.close()
    assert first.scorecard["errors"].sum() == 0 and second.scorecard["errors"].sum() == 0
    # 9 clean answers after the cut: 2 -> 3 (2 answers), 3 -> 4 (3), 4 -> 5 (4)
    assert adaptive.changes[1:] == [(2, 3, "additive"), (3, 4, "additive"), (4, 5, "additive")]
    assert adaptive.limit == 5 and adaptive.in_flight == 0


@pytest.mark.slow
def test_a_429_given_up_on_cuts_too() -> None:
    pytest.importorskip("httpx")
    from workbench.evaluation import evaluate
    from workbench.integrations import callable_agent
    from workbench.integrations.endpoints import Endpoint
    from workbench.testing.stub_endpoint import StubServer, failing_first

    adaptive = AdaptiveConcurrency(4, 4, clock=Clock())
    with StubServer(failing_first([429])) as server:
        ep = Endpoint(server.url, "m", output_mode="json", retries=0, concurrency=adaptive)
        results = evaluate([callable_agent(endpoint=ep, name="c")], seed=1, universe=3, days=1)
        ep.close()
    assert results.scorecard.loc["c", "errors"] == 1  # no retries: the 429 is the answer
    assert adaptive.changes == [(4, 2, "429")] and adaptive.in_flight == 0
