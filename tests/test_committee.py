"""The committee's parts: coordinator, debate math, rating and sizing, snapshot, config."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from workbench.committee import (
    NO_DATA,
    CommitteeCoordinator,
    Rating,
    SizingRule,
    debate_turns,
    load_spec,
    parse_ratings,
    size,
    verified_snapshot,
)
from workbench.committee.rating import shift
from workbench.errors import ConfigError, DecisionError
from workbench.schema import Decision

BASE: dict[str, Any] = {"observation": {"day": 0}, "snapshot": {}}


class Sleeper:
    """An advisor that waits, noting when it started and finished."""

    def __init__(self, role: str, seconds: float, log: list[tuple[str, str]]) -> None:
        self.role, self.seconds, self.log = role, seconds, log

    async def advise(self, payload: dict[str, Any], phase: str) -> str:
        self.log.append(("start", self.role))
        await asyncio.sleep(self.seconds)
        self.log.append(("end", self.role))
        return f"{self.role} advises on {phase}"


class Raiser:
    role = "broken"

    async def advise(self, payload: dict[str, Any], phase: str) -> str:
        raise RuntimeError("model unreachable")


class Orderer:
    role = "rogue"

    async def advise(self, payload: dict[str, Any], phase: str) -> Any:
        return Decision.model_validate(
            {"actions": [{"symbol": "AAA", "side": "buy", "quantity": 1000.0}]}
        )


# --- the coordinator ----------------------------------------------------------------------
def test_six_advisors_of_one_phase_run_concurrently() -> None:
    log: list[tuple[str, str]] = []
    advisors = [Sleeper(f"a{i}", 0.2, log) for i in range(6)]
    started = time.perf_counter()
    memo = asyncio.run(CommitteeCoordinator().build_memo(BASE, "analysts", advisors))
    elapsed = time.perf_counter() - started
    assert elapsed < 0.4, f"six 200 ms advisors took {elapsed:.3f}s: not concurrent"
    assert [kind for kind, _ in log[:6]] == ["start"] * 6  # all began before any ended
    assert [entry.role for entry in memo.entries] == [f"a{i}" for i in range(6)]


def test_the_memo_keeps_the_advisors_order_not_the_finishing_order() -> None:
    log: list[tuple[str, str]] = []
    advisors = [Sleeper(f"a{i}", 0.03 * (3 - i), log) for i in range(3)]
    memo = asyncio.run(CommitteeCoordinator().build_memo(BASE, "p", advisors))
    assert [role for kind, role in log if kind == "end"] == ["a2", "a1", "a0"]
    assert [entry.role for entry in memo.entries] == ["a0", "a1", "a2"]
    assert memo.render().startswith("[p] a0\na0 advises on p")


def test_a_failing_advisor_stays_in_the_memo_and_the_others_still_advise() -> None:
    advisors = [Sleeper("first", 0, []), Raiser(), Sleeper("last", 0, [])]
    memo = asyncio.run(CommitteeCoordinator().build_memo(BASE, "analysts", advisors))
    assert [entry.role for entry in memo.entries] == ["first", "broken", "last"]
    (failed,) = memo.failed
    assert failed.role == "broken" and not failed.ok
    assert "ADVISOR FAILED" in failed.text and "RuntimeError: model unreachable" in failed.text
    assert "[analysts] broken (failed)" in memo.render()


def test_an_advisor_answering_with_orders_is_a_failed_advisor_not_a_trade() -> None:
    memo = asyncio.run(CommitteeCoordinator().build_memo(BASE, "p", [Orderer()]))
    (entry,) = memo.entries
    assert not entry.ok
    assert entry.error is not None and entry.error.startswith("DecisionError")
    assert "only the executor's answer becomes orders" in entry.text


def test_advisors_get_a_private_plain_json_briefing_and_nothing_else() -> None:
    seen: list[dict[str, Any]] = []

    class Vandal:
        def __init__(self, role: str) -> None:
            self.role = role

        async def advise(self, payload: dict[str, Any], phase: str) -> str:
            seen.append(json.loads(json.dumps(payload)))  # what it got, before it scribbles
            payload["observation"]["day"] = 99  # must not reach anyone else
            await asyncio.sleep(0)  # let the other advisor run after the scribble
            return "done"

    base = {"observation": {"day": 0, "symbols": {"AAA": {"last": 1.5}}}, "snapshot": {"x": 1}}
    coordinator = CommitteeCoordinator()
    asyncio.run(coordinator.build_memo(base, "p", [Vandal("a"), Vandal("b")]))
    assert base["observation"]["day"] == 0
    assert set(seen[1]) == {"observation", "snapshot", "memo", "phase", "role", "turn"}
    assert [payload["observation"]["day"] for payload in seen] == [0, 0]
    _assert_plain_json(seen[0])


def _assert_plain_json(value: Any) -> None:
    if isinstance(value, dict):
        assert all(isinstance(k, str) for k in value)
        for item in value.values():
            _assert_plain_json(item)
    elif isinstance(value, list):
        for item in value:
            _assert_plain_json(item)
    else:
        assert value is None or isinstance(value, str | int | float | bool), type(value)


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_debate_round_math_matches_tradingagents(rounds: int) -> None:
    research = debate_turns(["bull", "bear"], rounds)
    risk = debate_turns(["aggressive", "conservative", "neutral"], rounds)
    assert len(research) == 2 * rounds and research[:2] == ["bull", "bear"]
    assert len(risk) == 3 * rounds and risk[-3:] == ["aggressive", "conservative", "neutral"]
    spec = load_spec("tradingagents", max_debate_rounds=rounds, max_risk_discuss_rounds=rounds)
    turns = {phase.name: phase.turns for phase in spec.phases}
    assert turns["research_debate"] == 2 * rounds and turns["risk_debate"] == 3 * rounds


def test_each_debater_sees_the_turns_before_it() -> None:
    memos: list[list[str]] = []

    class Debater:
        def __init__(self, role: str) -> None:
            self.role = role

        async def advise(self, payload: dict[str, Any], phase: str) -> str:
            memos.append([entry["role"] for entry in payload["memo"]])
            return f"{self.role} turn {payload['turn']}"

    memo = asyncio.run(
        CommitteeCoordinator().debate(BASE, "debate", [Debater("bull"), Debater("bear")], 2)
    )
    assert [entry.turn for entry in memo.entries] == [1, 2, 3, 4]
    assert memos == [[], ["bull"], ["bull", "bear"], ["bull", "bear", "bull"]]
    with pytest.raises(ValueError, match="at least one round"):
        debate_turns(["bull"], 0)


# --- the five-tier rating and sizing ----------------------------------------------------------
def test_ratings_parse_in_any_case_and_unrated_symbols_hold() -> None:
    text = "RATING AAA: buy\nsome prose\nRATING BBB: Underweight.\n"
    assert parse_ratings(text, ["AAA", "BBB", "CCC"]) == {
        "AAA": Rating.BUY,
        "BBB": Rating.UNDERWEIGHT,
        "CCC": Rating.HOLD,
    }
    assert [r.value for r in Rating] == ["Buy", "Overweight", "Hold", "Underweight", "Sell"]
    assert shift(Rating.BUY, -1) is Rating.BUY and shift(Rating.HOLD, 2) is Rating.SELL


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("no ratings here", "gave no ratings"),
        ("RATING ZZZ: Buy", "not in the observation"),
        ("RATING AAA: Moon", "not a rating"),
        ("RATING AAA: Buy\nRATING AAA: Sell", "rated AAA twice"),
    ],
)
def test_a_bad_rating_answer_is_a_decision_error(text: str, match: str) -> None:
    with pytest.raises(DecisionError, match=match):
        parse_ratings(text, ["AAA"])


def _book(positions: dict[str, float], equity: float = 100_000.0) -> dict[str, Any]:
    quote = {"last": 10.0, "max_order": 100_000}
    return {
        "symbols": {s: dict(quote) for s in ("AAA", "BBB", "CCC", "DDD", "EEE")},
        "portfolio": {"equity": equity, "positions": positions},
    }


def test_sizing_maps_each_tier_to_a_fixed_target() -> None:
    ratings = {
        "AAA": Rating.BUY,
        "BBB": Rating.OVERWEIGHT,
        "CCC": Rating.HOLD,
        "DDD": Rating.UNDERWEIGHT,
        "EEE": Rating.SELL,
    }
    held = {"CCC": 500.0, "DDD": 1500.0, "EEE": 300.0}
    decision = size(ratings, _book(held), SizingRule())
    orders = {(a.symbol, a.side): a.quantity for a in decision.actions}
    budget = 0.95 * 100_000 / 5  # 19,000 a name at price 10 -> 1,900 shares
    assert orders == {
        ("AAA", "buy"): budget / 10,
        ("BBB", "buy"): budget / 20,
        ("DDD", "sell"): 1500 - budget / 40,
        ("EEE", "sell"): 300.0,
    }
    assert [a.side for a in decision.actions] == ["sell", "sell", "buy", "buy"]


def test_underweight_and_sell_never_buy_and_hold_never_trades() -> None:
    ratings = {s: Rating.UNDERWEIGHT for s in ("AAA", "BBB")} | {"CCC": Rating.SELL}
    ratings |= {"DDD": Rating.HOLD, "EEE": Rating.HOLD}
    assert size(ratings, _book({"BBB": 100.0}), SizingRule()).actions == []


def test_sizing_caps_at_max_order_and_refuses_a_bad_rule() -> None:
    book = _book({})
    book["symbols"]["AAA"]["max_order"] = 50
    (action,) = size({"AAA": Rating.BUY}, book, SizingRule()).actions
    assert action.quantity == 50
    with pytest.raises(ConfigError, match="Hold never trades"):
        SizingRule.from_json({"fractions": {"Hold": 0.5}})
    with pytest.raises(ConfigError, match="invested"):
        SizingRule(invested=1.5)


# --- the verified snapshot --------------------------------------------------------------------
def _payload(history: list[float], **macro: Any) -> dict[str, Any]:
    return {
        "day": 2,
        "step": 3,
        "macro": macro,
        "symbols": {
            "AAA": {
                "sector": "tech",
                "history": history,
                "last": history[-1],
                "bid": history[-1] - 0.05,
                "ask": history[-1] + 0.05,
                "volume": 1000.0,
                "max_order": 100,
            }
        },
        "portfolio": {"cash": 1.0, "equity": 1.0, "buying_power": 1.0, "positions": {}},
    }


def test_the_snapshot_computes_the_numbers_roles_may_cite() -> None:
    history = [10.0 + i for i in range(16)]  # steadily rising: RSI 100
    facts = verified_snapshot(_payload(history, vix=20.0))["symbols"]["AAA"]
    assert facts["change_pct"] == 150.0
    assert facts["sma_5"] == 23.0 and facts["sma_long"] == 17.5
    assert facts["rsi_14"] == 100.0 and facts["high"] == 25.0 and facts["low"] == 10.0
    assert facts["spread_bps"] == round(0.1 / 25.0 * 1e4, 2)


def test_a_missing_field_is_the_explicit_no_data_marker() -> None:
    snapshot = verified_snapshot(_payload([10.0, 11.0], vix=20.0))
    assert snapshot["macro"]["vix"] == 20.0
    assert snapshot["macro"]["regime"].startswith(f"{NO_DATA}: macro.regime")
    assert "do not estimate" in snapshot["macro"]["yield_2y"]
    assert snapshot["macro"]["curve_slope_10y_2y"].startswith(NO_DATA)
    rsi = snapshot["symbols"]["AAA"]["rsi_14"]
    assert rsi.startswith(NO_DATA) and "needs 15 closes, the observation has 2" in rsi
    assert set(snapshot["fundamentals"]["not_observed"]) >= {"earnings", "valuation"}
    assert all(v.startswith(NO_DATA) for v in snapshot["fundamentals"]["not_observed"].values())


def test_the_snapshot_reads_the_payload_alone() -> None:
    payload = _payload([10.0 + i for i in range(20)], vix=20.0)
    before = verified_snapshot(payload)
    assert verified_snapshot({**payload, "unrelated": [1, 2, 3]}) == before
    assert before["as_of"] == {"day": 2, "step": 3}


# --- configuration ----------------------------------------------------------------------------
def test_the_reference_committee_has_the_tradingagents_topology() -> None:
    spec = load_spec("tradingagents")
    assert [(p.name, p.kind) for p in spec.phases] == [
        ("analysts", "panel"),
        ("research_debate", "debate"),
        ("research_manager", "panel"),
        ("trader", "panel"),
        ("risk_debate", "debate"),
    ]
    deep = {r.role for r in spec.roles if r.model == "deep"}
    assert deep == {"research_manager", "portfolio_manager"}
    assert spec.executor.role == "portfolio_manager" and spec.output == "rating"
    assert load_spec(spec.to_json()) == spec


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda d: d.update(colour="red"), "unknown key"),
        (lambda d: d["phases"][0]["roles"][0].update(model="huge"), "uses model 'huge'"),
        (lambda d: d["phases"][1].update(rounds="nope"), "not set"),
        (lambda d: d["phases"][0].update(rounds=2), "only a debate has rounds"),
        (lambda d: d["executor"].update(output="orders"), "executor.output"),
        (lambda d: d["phases"][3]["roles"][0].update(role="market_analyst"), "appears twice"),
        (lambda d: d["phases"][0]["roles"][0].update(output="rating"), "only the executor"),
        (lambda d: d.pop("executor"), "executor must be a mapping"),
    ],
)
def test_a_bad_committee_file_names_the_problem(change: Any, match: str) -> None:
    data = load_spec("tradingagents").to_json()
    change(data)
    with pytest.raises(ConfigError, match=match):
        load_spec(data)


def test_settings_override_only_known_settings_and_files_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown setting"):
        load_spec("tradingagents", max_rounds=2)
    with pytest.raises(ConfigError, match="not found"):
        load_spec(tmp_path / "missing.yaml")
    (tmp_path / "bad.yaml").write_text("phases: [\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_spec(tmp_path / "bad.yaml")


def test_a_setup_error_in_an_advisor_stops_the_phase_after_every_advisor_finished() -> None:
    log: list[tuple[str, str]] = []

    class Misconfigured:
        role = "misconfigured"

        async def advise(self, payload: dict[str, Any], phase: str) -> str:
            raise ConfigError("role model target 'x:y' cannot be imported")

    advisors = [Misconfigured(), Sleeper("slow", 0.05, log)]
    with pytest.raises(ConfigError, match="cannot be imported"):
        asyncio.run(CommitteeCoordinator().build_memo(BASE, "p", advisors))
    assert ("end", "slow") in log
