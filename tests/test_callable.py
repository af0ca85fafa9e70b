"""CallableAgentAdapter on the real evaluate: live, record, replay, errors, record, resume."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from workbench._jsonio import digest
from workbench.errors import ConfigError, FrameworkError, ReplayMiss, RunError
from workbench.evaluation import evaluate
from workbench.integrations import AdapterInfo, CallableAgentAdapter, callable_agent
from workbench.integrations.base import journal_path
from workbench.transcript import Transcript

MARKET: dict[str, Any] = {"seed": 5, "universe": 6, "days": 3}
PROMPT = "Buy the first name in the payload, ten shares at a time."


def buy_first(payload: dict[str, Any]) -> dict[str, Any]:
    symbol = sorted(payload["symbols"])[0]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 10.0}], "rationale": "first"}


async def buy_first_async(payload: dict[str, Any]) -> dict[str, Any]:
    await asyncio.sleep(0)
    return buy_first(payload)


def _info(prompt: str = PROMPT) -> AdapterInfo:
    return AdapterInfo(framework="callable", instructions_digest=digest(prompt))


@pytest.mark.parametrize("fn", [buy_first, buy_first_async])
def test_record_then_replay_matches_bit_for_bit_without_calling(fn) -> None:
    live = callable_agent(fn, name="arm", mode="record", every=2, info=_info())
    recorded = evaluate([live, "momentum"], **MARKET)
    assert live.calls_made == 9 and len(live.recorder) == 9

    again = CallableAgentAdapter(
        None, name="arm", mode="replay", every=2, info=_info(), transcript=live.recorder
    )
    replayed = evaluate([again, "momentum"], **MARKET)
    assert again.calls_made == 0
    assert replayed.digest() == recorded.digest()
    assert replayed.scorecard.loc["arm", "model_calls"] == 9


def test_fn_gets_the_plain_json_payload_and_cannot_alter_the_record() -> None:
    seen: list[Any] = []

    def nosy(payload: dict[str, Any]) -> dict[str, Any]:
        json.dumps(payload)  # plain JSON, no engine objects
        seen.append(type(payload))
        payload["symbols"].clear()  # mutating its copy changes nothing recorded
        return {"actions": [], "rationale": "hold"}

    arm = callable_agent(nosy, mode="record", every=6)
    evaluate([arm], **MARKET)
    assert seen == [dict, dict, dict]
    for exchange in arm.recorder:
        assert len(exchange.input["symbols"]) == 6
        assert exchange.key == digest(exchange.input)


def test_postprocess_runs_live_and_on_replay_and_the_transcript_keeps_fn_return() -> None:
    calls = {"post": 0}

    def picks(payload: dict[str, Any]) -> dict[str, Any]:
        return {"pick": sorted(payload["symbols"])[-1]}

    def size(raw: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
        calls["post"] += 1
        action = {"symbol": raw["pick"], "side": "buy", "quantity": 5.0}
        return {"actions": [action], "rationale": "sized"}

    live = callable_agent(picks, name="p", mode="record", postprocess=size, every=6)
    first = evaluate([live], **MARKET)
    assert calls["post"] == 3
    assert all(set(e.response) == {"pick"} for e in live.recorder)
    again = callable_agent(
        None, name="p", mode="replay", postprocess=size, every=6, transcript=live.recorder
    )
    assert evaluate([again], **MARKET).digest() == first.digest()
    assert calls["post"] == 6


def test_a_replay_under_other_instructions_fails_when_built(tmp_path: Path) -> None:
    live = callable_agent(buy_first, name="a", mode="record", info=_info(), every=6)
    evaluate([live], **MARKET)
    path = live.recorder.save(tmp_path / "a.json")
    with pytest.raises(RunError, match="instructions changed"):
        callable_agent(None, name="a", mode="replay", transcript=path, info=_info(PROMPT + "!"))
    # without an AdapterInfo digest the adapter cannot see the prompt: it replays
    blind = callable_agent(None, name="a", mode="replay", transcript=path, every=6)
    evaluate([blind], **MARKET)


def test_failures_score_as_errors_and_replay_identically() -> None:
    def flaky(payload: dict[str, Any]) -> Any:
        if payload["day"] == 1:
            raise RuntimeError("upstream 503")
        if payload["day"] == 2:
            return "not json"
        return buy_first(payload)

    live = callable_agent(flaky, name="f", mode="record", every=6)
    first = evaluate([live], **MARKET)
    assert first.scorecard.loc["f", "errors"] == 2
    assert list(first.errors["kind"]) == ["FrameworkError", "DecisionError"]
    assert "RuntimeError: upstream 503" in first.errors["message"].iloc[0]
    again = callable_agent(None, name="f", mode="replay", every=6, transcript=live.recorder)
    assert evaluate([again], **MARKET).digest() == first.digest()


def test_a_framework_failure_keeps_its_chain() -> None:
    def broken(payload: dict[str, Any]) -> Any:
        raise ConnectionError("reset by peer")

    with pytest.raises(FrameworkError, match="reset by peer") as caught:
        evaluate([callable_agent(broken, every=6)], **MARKET, on_error="raise")
    assert isinstance(caught.value.__cause__, ConnectionError)


def test_timeout_and_budget_become_framework_errors() -> None:
    async def slow(payload: dict[str, Any]) -> Any:
        await asyncio.sleep(5)

    late = evaluate([callable_agent(slow, every=6, timeout=0.01)], **MARKET)
    assert "no answer within 0.01s" in late.scorecard.loc["slow", "last_error"]
    capped = callable_agent(buy_first, every=6, max_calls=2)
    result = evaluate([capped], **MARKET)
    assert result.errors["message"].str.contains("budget of 2 model calls").sum() == 1
    assert capped.calls_made == 2


def test_the_record_holds_the_path_from_observation_to_order() -> None:
    def mixed(payload: dict[str, Any]) -> dict[str, Any]:
        symbol = sorted(payload["symbols"])[0]
        quote = payload["symbols"][symbol]
        return {
            "actions": [
                {"symbol": symbol, "side": "buy", "quantity": 1e9},  # clipped
                {
                    "symbol": symbol,
                    "side": "buy",
                    "quantity": 3.0,
                    "order_type": "limit",
                    "limit_price": round(quote["bid"] * 0.5, 2),
                },
                {"symbol": "NOPE", "side": "sell", "quantity": 1.0},  # refused
            ],
            "rationale": "mixed",
        }

    arm = callable_agent(mixed, every=6)
    evaluate([arm], **MARKET, leverage_cap=1e9)
    entry = arm.decision_log[0]
    assert entry["digest"] == digest(entry["input"]) and entry["response"]["rationale"] == "mixed"
    assert entry["decision"]["rationale"] == "mixed"
    limit = entry["orders"][1]["order"]
    assert set(limit) == {"quantity", "limit_price"} and limit["quantity"] == 3.0
    assert entry["orders"][0]["order"] == 1e9
    assert entry["clips"] and entry["clips"][0]["to"] < 1e9
    refused = {order["symbol"]: order["reason"] for order in entry["refused"]}
    assert "unknown symbol 'NOPE'" in refused["NOPE"]


def test_a_changed_seed_or_cadence_stops_before_the_first_decision() -> None:
    live = callable_agent(buy_first, name="a", mode="record", every=6)
    evaluate([live], **MARKET)
    for change, named in ((dict(seed=6), "seed 5"), (dict(steps_per_day=5), "steps_per_day 6")):
        again = callable_agent(None, name="a", mode="replay", every=6, transcript=live.recorder)
        with pytest.raises(ReplayMiss, match=named):
            evaluate([again], **{**MARKET, **change})
    again = callable_agent(None, name="a", mode="replay", every=3, transcript=live.recorder)
    with pytest.raises(ReplayMiss, match="every 6"):
        evaluate([again], **MARKET)


def test_without_run_facts_a_changed_input_misses_at_its_step() -> None:
    live = callable_agent(buy_first, name="a", mode="record", every=6)
    evaluate([live], **MARKET)
    del live.recorder.meta["run"]
    again = callable_agent(None, name="a", mode="replay", every=6, transcript=live.recorder)
    with pytest.raises(ReplayMiss, match="day 0, step 0"):
        evaluate([again], **{**MARKET, "seed": 99})


def test_bad_construction_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="mode must be one of"):
        callable_agent(buy_first, mode="dry-run")
    with pytest.raises(ConfigError, match="needs fn"):
        CallableAgentAdapter(None, name="x", mode="live")
    with pytest.raises(ConfigError, match="needs transcript="):
        CallableAgentAdapter(None, name="x", mode="replay")
    with pytest.raises(ConfigError, match="every must be"):
        callable_agent(buy_first, every=0)


# --- resume a run whose process died ------------------------------------------------------
_DYING_RUN = textwrap.dedent(
    """
    import os, sys
    from workbench.evaluation import evaluate
    from workbench.integrations import callable_agent
    sys.path.insert(0, {tests!r})
    from test_callable import MARKET, buy_first

    def dies_on_day_two(payload):
        if payload["day"] == 2 and payload["step"] == 2:
            os._exit(3)  # no cleanup, no flush: like a killed kernel
        return buy_first(payload)

    arm = callable_agent(dies_on_day_two, name="a", mode="record", every=2, recorder={path!r})
    evaluate([arm], **MARKET)
    """
)


@pytest.mark.slow
def test_prior_resumes_a_dead_run_paying_only_for_the_missing_exchanges(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    script = _DYING_RUN.format(tests=str(Path(__file__).parent), path=str(path))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    died = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True)
    assert died.returncode == 3, died.stderr.decode()[-2000:]
    assert not path.exists() and journal_path(path).exists()

    prior = Transcript.load(journal_path(path))
    assert len(prior) == 7  # days 0-1 (3 + 3) and day 2 step 0
    resumed = callable_agent(buy_first, name="a", mode="record", every=2, prior=prior)
    finished = evaluate([resumed], **MARKET)
    assert resumed.calls_made == 2  # only day 2 steps 2 and 4 are asked
    whole = callable_agent(buy_first, name="a", mode="record", every=2)
    assert finished.digest() == evaluate([whole], **MARKET).digest()
    assert [e.response for e in resumed.recorder] == [e.response for e in whole.recorder]


def test_common_exports_the_shared_layer_of_the_contract() -> None:
    from workbench.integrations import common

    contract = {
        "OBSERVABLE_MACRO", "SIDES", "ORDER_TYPES", "HISTORY_STEPS", "MAX_PARTICIPATION",
        "DECISION_SCHEMA_VERSION", "OBSERVATION_SCHEMA_VERSION", "Action", "Decision",
        "AdapterInfo", "require", "digest", "replay_response", "preset_of", "stamp_preset",
        "refuse_a_changed_preset", "stamp_artefact", "PRESET_VECTOR_KEY", "run_sync",
        "RunError", "DecisionError", "FrameworkError", "ReplayMiss",
    }  # fmt: skip
    assert contract <= set(common.__all__)
    assert all(hasattr(common, name) for name in common.__all__)
    assert common.DECISION_SCHEMA_VERSION == "2" and common.OBSERVATION_SCHEMA_VERSION == "2"
    with pytest.raises(common.MissingDependency, match=r'pip install "workbench\[nope\]"'):
        common.require("no_such_module_here", extra="nope", purpose="This test")


@pytest.mark.slow
def test_modes_decide_what_is_recorded_and_where(tmp_path: Path) -> None:
    plain = callable_agent(buy_first, every=6)
    evaluate([plain], **MARKET)
    assert plain.transcript is None and len(plain.decision_log) == 3

    kept = Transcript()
    live = callable_agent(buy_first, every=6, recorder=kept)
    evaluate([live], **MARKET)
    assert live.transcript is kept and len(kept) == 3

    path = tmp_path / "deep" / "arm.json"
    saved = callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path)
    assert journal_path(path).exists()  # journalling starts when the adapter is built
    first = evaluate([saved], **MARKET)
    assert path.exists() and not journal_path(path).exists()
    again = callable_agent(None, name="arm", mode="replay", every=6, transcript=path)
    assert evaluate([again], **MARKET).digest() == first.digest()


def test_recording_into_a_transcript_given_as_transcript_is_deprecated() -> None:
    kept = Transcript()
    with pytest.warns(DeprecationWarning, match="pass it as recorder=") as seen:
        live = callable_agent(buy_first, every=6, transcript=kept)
    assert seen[0].filename == __file__  # the warning points at the caller
    evaluate([live], **MARKET)
    assert live.recorder is kept and len(kept) == 3
    with pytest.raises(ConfigError, match="drop transcript="):
        callable_agent(buy_first, every=6, transcript=kept, recorder=Transcript())


def test_a_recording_never_overwrites_a_transcript_it_was_not_told_to(tmp_path: Path) -> None:
    path = tmp_path / "arm.json"
    first = callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path)
    evaluate([first], **MARKET)
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"arm\.json already holds .* overwrite=True"):
        callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path)
    assert path.read_bytes() == before
    again = callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path,
                           overwrite=True)  # fmt: skip
    evaluate([again], **MARKET)
    resumed = callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path,
                             prior=path)  # fmt: skip
    evaluate([resumed], **MARKET)
    assert resumed.calls_made == 0  # every answer came from the run it resumed


def test_a_crashed_runs_journal_is_not_overwritten_either(tmp_path: Path) -> None:
    path = tmp_path / "arm.json"
    callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path)
    assert journal_path(path).exists() and not path.exists()  # built, never ended
    with pytest.raises(ConfigError, match=r"arm\.json\.journal already holds"):
        callable_agent(buy_first, name="arm", mode="record", every=6, recorder=path)


def test_an_adapter_run_twice_reports_each_run_on_its_own() -> None:
    arm = callable_agent(buy_first, every=6)
    first = evaluate([arm], **MARKET)
    second = evaluate([arm], **MARKET)
    assert first.scorecard.loc["buy_first", "model_calls"] == 3
    assert second.scorecard.loc["buy_first", "model_calls"] == 3
    assert len(arm.decision_log) == 3 and arm.calls_made == 6


class _AskedByTask(CallableAgentAdapter):
    in_turn = False  # the evaluation's task path, to compare the in-turn replay with


def test_a_replay_is_answered_in_turn_with_the_results_a_task_gives() -> None:
    live = callable_agent(buy_first_async, name="arm", mode="record", every=2, info=_info())
    recorded = evaluate([live, "momentum"], **MARKET)
    replays = {}
    for kind in (CallableAgentAdapter, _AskedByTask):
        arm = kind(None, name="arm", mode="replay", every=2, info=_info(), transcript=live.recorder)
        replays[kind] = (arm.in_turn, evaluate([arm, "momentum"], **MARKET).digest())
    assert replays[CallableAgentAdapter] == (True, recorded.digest())
    assert replays[_AskedByTask] == (False, recorded.digest())


def test_only_a_replay_with_nothing_to_await_is_answered_in_turn() -> None:
    from workbench.integrations.hooks import DecisionHook

    class OwnDecide(CallableAgentAdapter):
        async def adecide(self, request: Any) -> Any:
            return await super().adecide(request)

    transcript = Transcript()
    replaying = {"name": "arm", "mode": "replay", "transcript": transcript}
    assert CallableAgentAdapter(None, **replaying).in_turn
    assert not CallableAgentAdapter(buy_first, name="arm", mode="record").in_turn
    assert not CallableAgentAdapter(None, hook=DecisionHook(), **replaying).in_turn
    assert not OwnDecide(None, **replaying).in_turn
