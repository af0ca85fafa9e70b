"""The committee as one arm: one executor trades, failures stay visible, replays are exact."""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest

from workbench._jsonio import canonical_json
from workbench.committee import CallableModel, Committee, ScriptedModel, parse_ratings, size
from workbench.committee.models import Reply, read_prompt
from workbench.committee.scripted import REFERENCE_SCRIPTS
from workbench.errors import ReplayMiss, RunError
from workbench.evaluation import evaluate
from workbench.transcript import Transcript

MARKET: dict[str, Any] = {"seed": 5, "universe": 5, "days": 3}
QUICK_ROLES = 3 + 2 + 1 + 3  # analysts, bull/bear, trader, three risk debaters (one round each)
CALLS_PER_DECISION = QUICK_ROLES + 2  # + research manager and portfolio manager (deep)


def scripted(name: str, **override: Any) -> ScriptedModel:
    return ScriptedModel(name, {**REFERENCE_SCRIPTS, **override})


LAG = {"market_analyst": 0.02, "macro_analyst": 0.01}  # the first analysts finish last


def jittered(name: str, finished: list[str]) -> CallableModel:
    """The scripted answers, but the analysts finish in the reverse of their order."""
    model = scripted(name)

    async def answer(prompt: str) -> Reply:
        role, _ = read_prompt(prompt)
        await asyncio.sleep(LAG.get(role, 0.0))
        finished.append(role)
        return await model.complete(prompt)

    return CallableModel(answer, name=name)


def trajectory(committee: Committee) -> str:
    keep = ("day", "step", "memo", "roles", "executor", "ratings", "decision", "orders")
    return canonical_json([{k: entry.get(k) for k in keep} for entry in committee.decision_log])


# --- one arm among others --------------------------------------------------------------------
def test_a_committee_and_ordinary_agents_are_arms_of_one_evaluation() -> None:
    committee = Committee()
    results = evaluate([committee, "momentum", "cash"], **MARKET)
    card = results.scorecard
    decisions = card.loc["tradingagents-reference", "decisions"]
    assert decisions == 3 and card.loc["tradingagents-reference", "errors"] == 0
    assert card.loc["tradingagents-reference", "model_calls"] == decisions * CALLS_PER_DECISION
    assert card.loc["tradingagents-reference", "tokens"] > 0
    assert card.loc["momentum", "model_calls"] == 0 and card.loc["cash", "tokens"] == 0
    assert committee.usage.model_calls == committee.calls_made == decisions * CALLS_PER_DECISION


def test_the_record_holds_roles_phases_prompts_responses_models_and_order() -> None:
    committee = Committee()
    evaluate([committee], **MARKET)
    entry = committee.decision_log[0]
    roles = entry["roles"]
    assert [r["order"] for r in roles] == list(range(len(roles)))
    assert [r["role"] for r in roles[:3]] == [
        "market_analyst",
        "macro_analyst",
        "fundamentals_analyst",
    ]
    assert {r["model"] for r in roles} == {"scripted-quick", "scripted-deep"}
    manager = next(r for r in roles if r["role"] == "research_manager")
    assert manager["model"] == "scripted-deep" and manager["phase"] == "research_manager"
    assert all(r["prompt"].startswith(f"ROLE {r['role']} | PHASE {r['phase']}") for r in roles)
    assert all(r["response"] and r["ok"] and len(r["key"]) == 64 for r in roles)
    assert entry["executor"]["model"] == "scripted-deep"
    assert entry["executor"]["response"].startswith("RATING ")
    assert set(entry["ratings"]) == set(entry["snapshot"]["symbols"])
    assert "orders" in entry  # filled in after execution


def test_numbers_the_analysts_cite_come_from_the_verified_snapshot() -> None:
    committee = Committee()
    evaluate([committee], **MARKET)
    entry = committee.decision_log[0]
    cited = set(re.findall(r"-?\d+\.\d+", entry["roles"][0]["response"]))
    verified = set(re.findall(r"-?\d+\.\d+", canonical_json(entry["snapshot"])))
    assert cited and cited <= verified


# --- exactly one executor trades ---------------------------------------------------------------
def _loud_advisors() -> ScriptedModel:
    """Every advisor answers with a decision that would buy 1,000 shares of every name."""

    def orders(briefing: dict[str, Any]) -> str:
        buys = [
            {"symbol": s, "side": "buy", "quantity": 1000} for s in briefing["snapshot"]["symbols"]
        ]
        return json.dumps({"actions": buys, "rationale": "buy everything"})

    return ScriptedModel("scripted-quick", dict.fromkeys(REFERENCE_SCRIPTS, orders))


@pytest.mark.parametrize("rating", ["Hold", "Buy"])
def test_only_the_executor_decides_what_trades(rating: str) -> None:
    def executor(briefing: dict[str, Any]) -> str:
        first = sorted(briefing["snapshot"]["symbols"])[0]
        return f"RATING {first}: {rating}"

    deep = ScriptedModel("scripted-deep", {**REFERENCE_SCRIPTS, "portfolio_manager": executor})
    committee = Committee(models={"quick": _loud_advisors(), "deep": deep})
    results = evaluate([committee], **MARKET)
    orders = results.orders
    if rating == "Hold":
        assert orders.empty
    else:
        assert set(orders["symbol"]) == {sorted(committee.decision_log[0]["ratings"])[0]}
    for entry in committee.decision_log:
        ratings = parse_ratings(entry["executor"]["response"], sorted(entry["ratings"]))
        observation = json.loads(entry["executor"]["prompt"].rsplit("\nBRIEFING ", 1)[1])
        expected = size(ratings, observation["observation"], committee.spec.sizing)
        assert entry["decision"] == expected.to_json()


def test_a_decision_executor_answers_with_orders_itself() -> None:
    spec = Committee().spec.to_json()
    spec["executor"]["output"] = "decision"

    def executor(briefing: dict[str, Any]) -> str:
        first = sorted(briefing["snapshot"]["symbols"])[0]
        return json.dumps({"actions": [{"symbol": first, "side": "buy", "quantity": 10}]})

    deep = ScriptedModel("scripted-deep", {**REFERENCE_SCRIPTS, "portfolio_manager": executor})
    committee = Committee(spec, models={"deep": deep})
    results = evaluate([committee], **MARKET)
    assert list(results.orders["requested"]) == [10.0] * 3


# --- failures stay visible ------------------------------------------------------------------------
def _bear_down(name: str = "scripted-quick") -> CallableModel:
    model = scripted(name)

    async def answer(prompt: str) -> Reply:
        if read_prompt(prompt)[0] == "bear_researcher":
            raise RuntimeError("bear model unreachable")
        return await model.complete(prompt)

    return CallableModel(answer, name=name)


def test_a_failing_advisor_is_in_the_memo_the_record_and_the_transcript() -> None:
    recorder = Transcript()
    committee = Committee(models={"quick": _bear_down()}, recorder=recorder)
    results = evaluate([committee], **MARKET)
    assert results.errors.empty and not results.orders.empty  # the committee still decided
    for entry in committee.decision_log:
        assert entry["failed_roles"] == ["bear_researcher"]
        assert "[research_debate turn 2] bear_researcher (failed)" in entry["memo"]
        assert "RuntimeError: bear model unreachable" in entry["memo"]
        (bear,) = [r for r in entry["roles"] if r["role"] == "bear_researcher"]
        assert not bear["ok"] and bear["error"].startswith("FrameworkError")
    failed = [e for e in recorder.exchanges if e.error]
    assert len(failed) == 3 and all("bear model unreachable" in e.error["message"] for e in failed)


def test_a_failing_executor_fails_the_decision_in_the_error_column() -> None:
    def broken(briefing: dict[str, Any]) -> str:
        return "I would rather not say."

    deep = ScriptedModel("scripted-deep", {**REFERENCE_SCRIPTS, "portfolio_manager": broken})
    committee = Committee(models={"deep": deep})
    results = evaluate([committee], **MARKET)
    assert results.scorecard.loc["tradingagents-reference", "errors"] == 3
    assert set(results.errors["kind"]) == {"DecisionError"} and results.orders.empty
    assert "gave no ratings" in committee.decision_log[0]["error"]


# --- recording and replay ---------------------------------------------------------------
@pytest.mark.slow
def test_replay_reproduces_memos_and_actions_bit_for_bit() -> None:
    recorder, finished = Transcript(), []
    live = Committee(models={"quick": jittered("scripted-quick", finished)}, recorder=recorder)
    recorded = evaluate([live, "momentum"], **MARKET)
    assert finished[:3] == ["fundamentals_analyst", "macro_analyst", "market_analyst"]
    again = Committee(mode="replay", transcript=Transcript.from_json(recorder.to_json()))
    replayed = evaluate([again, "momentum"], **MARKET)
    assert again.calls_made == 0
    assert trajectory(again) == trajectory(live)
    assert replayed.digest() == recorded.digest()
    assert len(recorder) == 3 * CALLS_PER_DECISION


@pytest.mark.slow
def test_replay_reproduces_a_failed_advisor() -> None:
    recorder = Transcript()
    live = Committee(models={"quick": _bear_down()}, recorder=recorder)
    evaluate([live], **MARKET)
    again = Committee(mode="replay", transcript=recorder)
    evaluate([again], **MARKET)
    assert trajectory(again) == trajectory(live)
    assert again.decision_log[0]["failed_roles"] == ["bear_researcher"]


def test_replay_under_other_rounds_or_prompts_is_refused_before_the_market_opens() -> None:
    recorder = Transcript()
    evaluate([Committee(recorder=recorder)], **MARKET)
    with pytest.raises(RunError, match="instructions"):
        Committee(mode="replay", transcript=recorder, max_debate_rounds=2)
    spec = Committee().spec.to_json()
    spec["phases"][0]["roles"][0]["prompt"] = "Say something else."
    with pytest.raises(RunError, match="instructions"):
        Committee(spec, mode="replay", transcript=recorder)


def test_replay_on_another_seed_stops_naming_the_seed() -> None:
    recorder = Transcript()
    evaluate([Committee(recorder=recorder)], **MARKET)
    with pytest.raises(ReplayMiss, match="seed"):
        evaluate([Committee(mode="replay", transcript=recorder)], **{**MARKET, "seed": 6})


@pytest.mark.slow
def test_a_half_finished_run_resumes_from_its_transcript() -> None:
    first = Transcript()
    evaluate([Committee(recorder=first)], **{**MARKET, "days": 2})
    resumed = Committee(prior=first, recorder=Transcript())
    evaluate([resumed], **MARKET)
    assert resumed.calls_made == CALLS_PER_DECISION  # only the third day was asked
    assert resumed.usage.model_calls == 3 * CALLS_PER_DECISION


def test_rounds_set_the_debate_lengths_and_the_executor_is_asked_once_a_decision() -> None:
    recorder = Transcript()
    committee = Committee(recorder=recorder, max_debate_rounds=2, max_risk_discuss_rounds=3)
    results = evaluate([committee], **MARKET)
    for entry in committee.decision_log:
        phases = [role["phase"] for role in entry["roles"]]
        assert phases.count("research_debate") == 2 * 2
        assert phases.count("risk_debate") == 3 * 3
        debaters = [r["role"] for r in entry["roles"] if r["phase"] == "risk_debate"]
        assert debaters[:3] == ["aggressive_risk", "conservative_risk", "neutral_risk"]
    executor_calls = [e for e in recorder.exchanges if e.input["role"] == "portfolio_manager"]
    assert len(executor_calls) == len(committee.decision_log) == 3
    per_decision = 3 + 2 * 2 + 1 + 1 + 3 * 3 + 1
    assert results.scorecard["model_calls"].iloc[0] == 3 * per_decision


def test_a_replay_that_finds_no_answer_stops_instead_of_failing_a_role() -> None:
    recorder = Transcript()
    evaluate([Committee(recorder=recorder)], **MARKET)
    renamed = Committee(mode="replay", transcript=recorder, models={"quick": scripted("other")})
    with pytest.raises(ReplayMiss, match="day 0, step 0"):
        evaluate([renamed], **MARKET)


@pytest.mark.slow
def test_committees_and_ordinary_agents_are_ranked_on_identical_seeds() -> None:
    from workbench.evaluation.compare import paired_comparison, run_seeds

    committee = Committee()
    runs = run_seeds([committee, "momentum", "buy_and_hold"], [1, 2, 3], universe=5, days=2)
    table = paired_comparison(runs, "buy_and_hold")
    assert list(table.index) == ["tradingagents-reference", "momentum"]
    assert (table["seeds"] == 3).all()
    alone = evaluate([Committee()], seed=2, universe=5, days=2).scorecard
    beside = runs[1].scorecard
    assert (
        alone.loc["tradingagents-reference", "return_pct"]
        == beside.loc["tradingagents-reference", "return_pct"]
    )


def test_the_trajectory_is_a_table_with_the_failed_role_and_the_executor() -> None:
    committee = Committee(models={"quick": _bear_down()})
    evaluate([committee], **MARKET)
    table = committee.trajectory()
    assert len(table) == 3 * CALLS_PER_DECISION
    first = table[(table["day"] == 0) & (table["step"] == 0)]
    assert list(first["order"]) == list(range(CALLS_PER_DECISION))
    assert first.iloc[-1]["role"] == "portfolio_manager" and first.iloc[-1]["phase"] == "decision"
    failed = table[~table["ok"]]
    assert set(failed["role"]) == {"bear_researcher"} and len(failed) == 3
