"""evaluate(): arms on one path, a scorecard, failures kept apart from declines."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import json
import time
from typing import Any

import numpy as np
import pytest

from workbench import Agent, DecisionRequest, World, aevaluate, baseline, evaluate
from workbench.errors import ConfigError, DecisionError, FrameworkError
from workbench.evaluation.columns import SCORECARD_COLUMNS
from workbench.evaluation.observation import MarketPayloads, market_payload
from workbench.schema import HISTORY_STEPS, OBSERVABLE_MACRO

SMALL = {"seed": 3, "universe": 8, "days": 3, "preset": "standard-v1"}  # prices only


class Scripted(Agent):
    """Answers with whatever ``reply(payload)`` returns; raises what it returns if an exception."""

    def __init__(self, name: str, reply: Any, every: int = 1) -> None:
        super().__init__(name, every=every)
        self.reply = reply
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> Any:
        self.seen.append(payload)
        answer = self.reply(payload)
        if isinstance(answer, Exception):
            raise answer
        return answer


def test_scorecard_has_one_row_per_arm_and_every_column() -> None:
    results = evaluate(
        ["cash", "buy_and_hold", "equal_weight", "momentum", "mean_reversion", "random"], **SMALL
    )
    assert list(results.scorecard.index) == [
        "cash",
        "buy_and_hold",
        "equal_weight",
        "momentum",
        "mean_reversion",
        "random",
    ]
    assert list(results.scorecard.columns) == list(SCORECARD_COLUMNS)
    assert results.equity.shape == (3 * 6, 6)
    assert results.scorecard.loc["cash", "return_pct"] == 0.0
    assert results.scorecard.loc["buy_and_hold", "trades"] == 8


def test_a_failed_arm_never_scores_like_a_declining_arm() -> None:
    declines = Scripted("declines", lambda p: {"actions": [], "rationale": "wait"})
    fails = Scripted("fails", lambda p: "this is not json")
    breaks = Scripted("breaks", lambda p: RuntimeError("socket closed"))
    card = evaluate([declines, fails, breaks], **SMALL).scorecard
    assert card.loc["declines", "errors"] == 0 and card.loc["declines", "last_error"] == ""
    assert card.loc["fails", "errors"] == card.loc["fails", "decisions"] == 17
    assert card.loc["fails", "last_error"].startswith("DecisionError")
    assert card.loc["breaks", "last_error"].startswith(
        "FrameworkError: arm 'breaks' raised Runtime"
    )
    assert not card.loc["declines"].equals(card.loc["fails"])


def test_on_error_raise_stops_at_the_first_failure_with_the_original_chain() -> None:
    breaks = Scripted("breaks", lambda p: KeyError("missing"))
    with pytest.raises(FrameworkError) as caught:
        evaluate([breaks], on_error="raise", **SMALL)
    assert isinstance(caught.value.__cause__, KeyError)
    with pytest.raises(DecisionError):
        evaluate(
            [Scripted("bad", lambda p: {"actions": [{"side": "buy"}]})], on_error="raise", **SMALL
        )


def test_failures_are_listed_with_day_and_step() -> None:
    flaky = Scripted("flaky", lambda p: ValueError("x") if p["step"] == 2 else {"actions": []})
    errors = evaluate([flaky], **SMALL).errors
    assert errors[["day", "step"]].values.tolist() == [[0, 2], [1, 2], [2, 2]]
    assert set(errors["kind"]) == {"FrameworkError"}


def test_every_asks_an_arm_at_every_nth_decision_point() -> None:
    daily = Scripted("daily", lambda p: {"actions": []}, every=6)
    evaluate([daily], **SMALL)
    assert [(p["day"], p["step"]) for p in daily.seen] == [(0, 0), (1, 0), (2, 0)]


def test_payload_is_plain_json_with_the_allowlisted_fields_only() -> None:
    spy = Scripted("spy", lambda p: {"actions": []})
    evaluate([spy], **SMALL)
    payload = spy.seen[0]
    assert json.loads(json.dumps(payload)) == payload
    assert set(payload) == {
        "schema_version",
        "day",
        "step",
        "steps_per_day",
        "macro",
        "symbols",
        "portfolio",
    }
    assert set(payload["macro"]) == set(OBSERVABLE_MACRO)
    quote = next(iter(payload["symbols"].values()))
    assert set(quote) == {"sector", "history", "last", "bid", "ask", "volume", "max_order"}
    assert len(quote["history"]) == HISTORY_STEPS and quote["bid"] < quote["ask"]


def test_no_look_ahead_the_payload_at_step_t_is_blind_to_every_later_row() -> None:
    world = World(seed=5, universe=6, days=2)
    honest = world.path
    for row in range(honest.warmup_steps, honest.steps):
        poisoned = dataclasses.replace(
            honest,
            **{
                name: _poison_after(getattr(honest, name), row)
                for name in ("open", "high", "low", "close", "volume", "half_spread", "depth")
            },
            macro={
                k: _poison_after(v, row // honest.steps_per_day) for k, v in honest.macro.items()
            },
        )
        assert market_payload(poisoned, row) == market_payload(honest, row)
        assert MarketPayloads(poisoned).at(row) == market_payload(honest, row)


@pytest.mark.parametrize("market", [{"seed": 3, "universe": 7, "days": 3}, {"seed": 4, "days": 2}])
def test_the_run_payloads_rounded_once_are_market_payload_to_the_bit(market: Any) -> None:
    path = World(**market).path
    payloads = MarketPayloads(path)
    for row in range(path.warmup_steps, path.steps):
        assert json.dumps(payloads.at(row)) == json.dumps(market_payload(path, row))


def test_a_write_to_one_steps_macro_reaches_no_other_step() -> None:
    """A day's macro is worked out once for its steps; each payload holds its own copy."""
    path = World(seed=3, universe=4, days=2).path
    payloads = MarketPayloads(path)
    first = path.warmup_steps
    shown = payloads.at(first)
    shown["macro"]["vix"] = -1.0
    shown["macro"]["extra"] = "written by an arm"
    for row in range(first + 1, first + path.steps_per_day):
        assert payloads.at(row)["macro"] == market_payload(path, row)["macro"]


def _poison_after(values: np.ndarray, row: int) -> np.ndarray:
    poisoned = values.copy()
    poisoned[row + 1 :] = np.nan
    return poisoned


def test_orders_decided_at_t_execute_at_t_plus_one() -> None:
    once = Scripted(
        "once",
        lambda p: (
            {"actions": [{"symbol": next(iter(p["symbols"])), "side": "buy", "quantity": 10}]}
            if (p["day"], p["step"]) == (0, 3)
            else {"actions": []}
        ),
    )
    results = evaluate([once], **SMALL)
    world = World(**SMALL)
    (order,) = results.orders.to_dict(orient="records")
    touch = world.path.open[world.path.warmup_steps + 4, 0] * (
        1 + world.path.half_spread[world.path.warmup_steps + 4, 0]
    )
    assert (order["day"], order["step"]) == (0, 3)
    assert order["price"] == pytest.approx(touch)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"universe": 0}, "universe must be between 1"),
        ({"days": 0}, "days must be between 1"),
        ({"days": -2}, "days must be between 1"),
        ({"steps_per_day": 0}, "steps_per_day"),
        ({"preset": "nope"}, "unknown preset 'nope'"),
        ({"preset": {"spred_bps": 1}}, "unknown dial"),
        ({"seed": -1}, "seed must be a non-negative"),
        ({"on_error": "ignore"}, "on_error must be"),
        ({"capital": float("nan")}, "capital"),
        ({"leverage_cap": 0}, "leverage_cap must be a positive number"),
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"rate_limit": -1.0}, "rate_limit"),
        ({"capitol": 5.0}, "unknown option 'capitol'. Did you mean 'capital'"),
    ],
)
def test_bad_experiment_input_is_refused_before_the_market_opens(
    kwargs: dict, fragment: str
) -> None:
    with pytest.raises(ConfigError, match=fragment):
        evaluate(["cash"], **{**SMALL, **kwargs})


def test_model_is_the_old_name_of_preset_for_one_release() -> None:
    market = {k: v for k, v in SMALL.items() if k != "preset"}
    with pytest.warns(DeprecationWarning, match=r"evaluate\(model=\.\.\.\) is deprecated.*preset="):
        old = evaluate(["momentum"], **market, model="calm-v1")
    assert old.digest() == evaluate(["momentum"], **market, preset="calm-v1").digest()
    with pytest.warns(DeprecationWarning, match=r"World\(model=\.\.\.\)"):
        assert World(model="calm-v1").preset.fingerprint == "calm-v1"
    with pytest.raises(ConfigError, match="pass preset= only"):
        evaluate(["cash"], **market, preset="calm-v1", model="calm-v1")


def test_evaluate_aevaluate_and_world_share_one_market_signature() -> None:
    from workbench.evaluation.options import EvaluateOptions, RunKeywords, RunOptions
    from workbench.evaluation.world import MARKET_KEYS

    run_fields = {field.name for field in dataclasses.fields(RunOptions)}
    assert set(RunKeywords.__optional_keys__) == run_fields
    assert set(EvaluateOptions.__optional_keys__) == MARKET_KEYS | run_fields | {"epochs"}
    with pytest.raises(TypeError, match=r"'univers'\. Did you mean 'universe'"):
        World(univers=3)


def test_unknown_and_duplicate_arms_are_refused() -> None:
    with pytest.raises(ConfigError, match="unknown arm 'buy_and_hodl'"):
        evaluate(["buy_and_hodl"], **SMALL)
    with pytest.raises(ConfigError, match="'cash' appear more than once"):
        evaluate(["cash", "cash"], **SMALL)
    with pytest.raises(ConfigError, match="must be a workbench Agent"):
        evaluate([lambda payload: None], **SMALL)  # type: ignore[list-item]


def test_a_mapping_names_the_arms() -> None:
    card = evaluate({"hold": "cash", "all-in": "buy_and_hold"}, **SMALL).scorecard
    assert list(card.index) == ["hold", "all-in"]


class Sleepy(Agent):
    async def adecide(self, request: DecisionRequest) -> dict:
        await asyncio.sleep(0.05)
        return {"actions": []}


class Counted(Agent):
    """Notes how many asks of the run are in flight whenever one starts."""

    def __init__(self, name: str, flight: list[int], peaks: list[int]) -> None:
        super().__init__(name, every=6)
        self.flight, self.peaks = flight, peaks

    async def adecide(self, request: DecisionRequest) -> dict:
        self.flight[0] += 1
        self.peaks.append(self.flight[0])
        await asyncio.sleep(0.01)
        self.flight[0] -= 1
        return {"actions": []}


@pytest.mark.parametrize("limit", [1, 3, 5])
@pytest.mark.slow
def test_aevaluate_asks_due_arms_concurrently_up_to_the_limit(limit: int) -> None:
    flight, peaks = [0], []
    arms = [Counted(f"s{i}", flight, peaks) for i in range(5)]
    asyncio.run(aevaluate(arms, seed=1, universe=4, days=2, max_concurrency=limit))
    assert len(peaks) == 10  # five arms, once a day, two days
    assert max(peaks) == limit  # every due arm asked at once, never more than the limit


def test_evaluate_works_inside_a_running_event_loop() -> None:
    async def main() -> float:
        return float(evaluate(["buy_and_hold"], **SMALL).scorecard.loc["buy_and_hold", "pnl"])

    assert (
        asyncio.run(main())
        == evaluate(["buy_and_hold"], **SMALL).scorecard.loc["buy_and_hold", "pnl"]
    )


def test_an_arm_that_mutates_its_payload_cannot_change_what_another_sees() -> None:
    def vandal(payload: dict[str, Any]) -> dict[str, Any]:
        for quote in payload["symbols"].values():
            quote["last"] = -1.0
        payload["macro"].clear()
        return {"actions": []}

    spy = Scripted("spy", lambda p: {"actions": []})
    evaluate([Scripted("vandal", vandal), spy], **SMALL)
    assert all(quote["last"] > 0 for p in spy.seen for quote in p["symbols"].values())
    assert all(p["macro"] for p in spy.seen)


@pytest.mark.slow
def test_rate_limit_spaces_the_asks() -> None:
    async def main() -> float:
        started = time.perf_counter()
        await aevaluate(
            [Sleepy(f"s{i}", every=6) for i in range(5)],
            seed=1,
            universe=4,
            days=2,
            rate_limit=20.0,
        )
        return time.perf_counter() - started

    # ten asks at 20 per second cannot start in less than nine intervals of 50 ms
    assert asyncio.run(main()) >= 9 * 0.05


@pytest.mark.parametrize("steps_per_day", [4, 13])
@pytest.mark.slow
def test_portfolio_baselines_rebalance_once_a_day_whatever_the_session(steps_per_day: int) -> None:
    results = evaluate(["equal_weight"], seed=2, universe=5, days=3, steps_per_day=steps_per_day)
    assert results.scorecard.loc["equal_weight", "decisions"] == 3
    assert set(results.orders["step"]) == {0}


def test_failures_are_listed_in_roster_order_whichever_arm_finishes_first() -> None:
    class Late(Agent):
        def __init__(self, name: str, delay: float) -> None:
            super().__init__(name, every=6)
            self.delay = delay

        async def adecide(self, request: DecisionRequest) -> dict:
            await asyncio.sleep(self.delay)
            raise FrameworkError(f"{self.name} timed out")

    results = evaluate([Late("slow", 0.05), Late("fast", 0.0)], **SMALL)
    assert results.errors["arm"].tolist() == ["slow", "fast"] * 3


def test_on_error_raise_keeps_what_ran_and_says_where_it_stopped() -> None:
    late = Scripted("late", lambda p: RuntimeError("boom") if p["day"] == 2 else {"actions": []})
    with pytest.raises(FrameworkError) as caught:
        evaluate([late, "buy_and_hold"], on_error="raise", **SMALL)
    partial = caught.value.results
    assert partial is not None and len(partial.equity) == 2 * 6 + 1
    assert partial.scorecard.loc["buy_and_hold", "trades"] == 8
    notes = "\n".join(caught.value.__notes__)
    assert "day 2, step 0" in notes and "on_error='skip'" in notes


def test_slow_synchronous_arms_do_not_hold_each_other_up() -> None:
    class SlowSync(Agent):
        def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
            time.sleep(0.05)
            return {"actions": []}

    started = time.perf_counter()
    evaluate([SlowSync(f"s{i}", every=6) for i in range(5)], seed=1, universe=4, days=2)
    assert time.perf_counter() - started < 5 * 2 * 0.05  # one after another would take 0.5 s


def test_no_look_ahead_payloads_do_not_depend_on_the_horizon() -> None:
    # an agent asked on day 2 of a 3-day run and of a 6-day run must see the same thing;
    # anything drawn for the later days would show up here
    short, long = Scripted("a", lambda p: {"actions": []}), Scripted("a", lambda p: {"actions": []})
    evaluate([short], seed=4, universe=6, days=3, preset="crisis-v1")
    evaluate([long], seed=4, universe=6, days=6, preset="crisis-v1")
    assert short.seen == long.seen[: len(short.seen)]


def _on_a_thread(name: str) -> Agent:
    """The baseline ``name`` asked like any arm: in a worker thread, as a task."""
    arm = baseline(name)
    arm.inline = False
    return arm


def test_arms_that_answer_on_the_loop_are_asked_in_turn_with_the_same_results() -> None:
    names = ["cash", "buy_and_hold", "equal_weight", "momentum", "mean_reversion", "random"]
    in_turn = evaluate(names, **SMALL)
    as_tasks = evaluate([_on_a_thread(name) for name in names], **SMALL)
    assert in_turn.digest() == as_tasks.digest()


class _Stops(Agent):
    inline = True

    def decide(self, payload: dict[str, Any]) -> Any:
        if payload["day"] == 1:
            raise ConfigError("bad configuration")
        return {"actions": []}


@pytest.mark.parametrize("inline", [True, False])
def test_a_stop_raised_in_turn_is_raised_after_every_arm_was_asked(inline: bool) -> None:
    stops = _Stops("stops")
    stops.inline = inline
    with pytest.raises(ConfigError, match="bad configuration") as caught:
        evaluate(["cash", stops, "momentum"], **SMALL)
    partial = caught.value.results  # type: ignore[attr-defined]
    assert partial.scorecard["decisions"].tolist() == [2, 2, 2]


_SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="")


class _Marks(Agent):
    """Records what the context held when asked, then sets it to its own name."""

    inline = True

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.saw: list[str] = []

    def decide(self, payload: dict[str, Any]) -> Any:
        self.saw.append(_SEEN.get())
        _SEEN.set(self.name)
        return {"actions": []}


def test_arms_asked_in_turn_each_get_their_own_context_as_tasks_do() -> None:
    first, second = _Marks("first"), _Marks("second")
    evaluate([first, second], **SMALL)
    assert first.saw == second.saw == [""] * SMALL["days"]


def test_arms_asked_in_turn_leave_the_loop_free_between_decision_points() -> None:
    async def go() -> list[int]:
        wakeups, at_step = [0], []

        async def ticker() -> None:
            while True:
                wakeups[0] += 1
                await asyncio.sleep(0)

        beat = asyncio.get_running_loop().create_task(ticker())
        on_step = lambda k, total, by_arm: at_step.append(wakeups[0])  # noqa: E731
        await aevaluate(["cash", "momentum"], seed=1, universe=4, days=12, on_step=on_step)
        beat.cancel()
        return at_step

    at_step = asyncio.run(go())
    assert at_step[-1] - at_step[0] >= 11  # the loop ran at each of the 11 later decision points


EVERY_STEP = [baseline("momentum", every="step")]


def _step_when_called(arms: list[Any], plant: Any) -> list[int]:
    """The step at which what ``plant(loop, call)`` sets up at step 2 called ``call``."""

    async def go() -> list[int]:
        loop, steps, called = asyncio.get_running_loop(), [0], []

        def on_step(k: int, total: int, by_arm: Any) -> None:
            steps[0] = k
            if k == 2:
                plant(loop, lambda: called.append(steps[0]))

        await aevaluate(arms, seed=1, universe=4, days=12, on_step=on_step)
        return called

    return asyncio.run(go())


def test_arms_asked_in_turn_let_a_timer_set_mid_run_fire_at_the_next_decision_point() -> None:
    called = _step_when_called(EVERY_STEP, lambda loop, call: loop.call_later(0, call))
    assert called == [3]  # the loop turned at step 3's decision point (the run resumed first)


def test_arms_asked_in_turn_let_a_file_waited_on_mid_run_be_read_at_the_next_decision_point() -> (
    None
):
    import socket

    ours, theirs = socket.socketpair()
    theirs.send(b"x")  # readable from the start: read as soon as the loop polls

    def plant(loop: asyncio.AbstractEventLoop, call: Any) -> None:
        loop.add_reader(ours, lambda: (loop.remove_reader(ours), call()))

    try:
        assert _step_when_called(EVERY_STEP, plant) == [3]
    finally:
        ours.close()
        theirs.close()


def test_arms_asked_in_turn_let_a_cancelled_run_stop_at_the_next_decision_point() -> None:
    async def go() -> int:
        steps = [0]

        def on_step(k: int, total: int, by_arm: Any) -> None:
            steps[0] = k
            if k == 2:
                task = asyncio.current_task()
                assert task is not None
                task.cancel()

        with pytest.raises(asyncio.CancelledError):
            await aevaluate(EVERY_STEP, seed=1, universe=4, days=12, on_step=on_step)
        return steps[0]

    assert asyncio.run(go()) == 2  # stopped at step 3's decision point, before its on_step


def test_arms_asked_in_turn_let_a_signal_handler_run_within_two_decision_points() -> None:
    import os
    import signal

    def plant(loop: asyncio.AbstractEventLoop, call: Any) -> None:
        loop.add_signal_handler(
            signal.SIGUSR1, lambda: (loop.remove_signal_handler(signal.SIGUSR1), call())
        )
        os.kill(os.getpid(), signal.SIGUSR1)

    # the loop reads the wake-up pipe at one decision point and runs the handler at the next
    assert _step_when_called(EVERY_STEP, plant) == [4]


class _EndsBadly(Agent):
    inline = True

    def __init__(self, name: str, fails: bool) -> None:
        super().__init__(name)
        self.fails, self.ended, self.completed = fails, False, False

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {"actions": []}

    def run_completed(self) -> None:
        self.completed = True

    def end(self) -> None:
        self.ended = True
        if self.fails:
            raise OSError("disk full")


def test_every_arm_ends_though_one_fails_and_that_failure_is_raised_after() -> None:
    arms = [_EndsBadly("first", fails=True), _EndsBadly("second", fails=False)]
    with pytest.raises(OSError, match="disk full") as raised:
        evaluate(arms, seed=1, universe=3, days=2)
    assert all(arm.ended and arm.completed for arm in arms)
    assert "arm 'first'" in " ".join(raised.value.__notes__)


def test_a_run_stopped_by_an_error_keeps_it_and_notes_an_arm_that_failed_to_end() -> None:
    class Broken(_EndsBadly):
        def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
            raise ValueError("the agent's own bug")

    arms = [_EndsBadly("first", fails=True), Broken("broken", fails=False)]
    with pytest.raises(FrameworkError, match="the agent's own bug") as raised:
        evaluate(arms, seed=1, universe=3, days=2, on_error="raise")
    assert all(arm.ended and not arm.completed for arm in arms)
    assert any("disk full" in note for note in raised.value.__notes__)


def test_an_arm_failing_to_end_is_raised_though_the_caller_is_handling_another_error() -> None:
    """What stops a run is what the runner caught, not whatever exception the caller's
    own ``except`` block happens to be handling (a notebook retrying, say)."""

    async def retry() -> None:
        try:
            raise KeyError("the caller's own, already handled")
        except KeyError:
            await aevaluate([_EndsBadly("first", fails=True)], seed=1, universe=3, days=2)

    with pytest.raises(OSError, match="disk full"):
        asyncio.run(retry())
