"""The committee's number check: figures not in the verified snapshot are flagged and counted."""

from __future__ import annotations

from typing import Any

import pytest

from workbench.committee import CallableModel, Committee, unverified_figures
from workbench.committee.models import read_prompt
from workbench.evaluation import evaluate
from workbench.testing.stub_endpoint import StubServer, completion
from workbench.transcript import Transcript

SNAPSHOT: dict[str, Any] = {
    "macro": {"policy_rate": 0.045728, "vix": 15.111574},
    "symbols": {
        "AAA": {"last": 20.5213, "change_pct": -3.6001, "max_order": 41362, "rsi_14": 56.21}
    },
}
MARKET: dict[str, Any] = {"seed": 7, "universe": 3, "days": 1}


def test_figures_match_the_snapshot_within_the_rounding_they_are_written_with() -> None:
    text = (
        "AAA last 20.52 (20.5213 exactly), fell 3.60%, RSI14 56.2, max order 41,362 shares; "
        "policy rate 4.57%, VIX 15.1, sma_5 rising, 10y-2y flat, 2 debate turns."
    )
    assert unverified_figures(text, SNAPSHOT) == []


def test_invented_figures_are_flagged_as_written() -> None:
    text = "AAA trades at a P/E of 23.5 with earnings of 1,250 and last 20.61; it rose 7%."
    assert unverified_figures(text, SNAPSHOT) == ["23.5", "1,250", "20.61"]  # 7 is a count


def inventing(prompt: str) -> str:
    role, _ = read_prompt(prompt)
    return f"{role}: the P/E is 31.7 and earnings grew 12.5% last quarter."


def test_each_role_is_flagged_in_the_record_trajectory_and_figure_check_and_on_replay() -> None:
    live = Committee(models={"quick": CallableModel(inventing, name="inventor")}, mode="record")
    evaluate([live], **MARKET)
    (entry,) = live.decision_log
    quick_roles = [r["role"] for r in entry["roles"] if r["model"] == "inventor"]
    assert len(quick_roles) == 9  # 3 analysts, 2 debaters, the trader, 3 risk debaters
    assert all(
        r["unverified_figures"] == ["31.7", "12.5%"]
        for r in entry["roles"]
        if r["model"] == "inventor"
    )
    assert entry["unverified_by_role"] == dict.fromkeys(quick_roles, 2)
    assert entry["unverified_count"] == 18
    check = live.figure_check()
    assert len(check) == 18 and set(check["role"]) == set(quick_roles)
    assert live.trajectory()["unverified"].sum() == 18
    transcript = Transcript.from_json(live.recorder.to_json())
    again = Committee(
        models={"quick": CallableModel(inventing, name="inventor")},
        mode="replay",
        transcript=transcript,
    )
    evaluate([again], **MARKET)
    assert again.decision_log[0]["unverified_by_role"] == entry["unverified_by_role"]


def test_the_scripted_reference_committee_cites_only_the_snapshot() -> None:
    committee = Committee()
    evaluate([committee], seed=7, universe=5, days=2)
    assert [entry["unverified_count"] for entry in committee.decision_log] == [0, 0]
    assert committee.figure_check().empty


@pytest.mark.slow
def test_a_committee_role_on_an_openai_compatible_endpoint_from_yaml() -> None:
    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        return 200, completion("Nothing to add; the P/E is 99.9.")

    with StubServer(answer) as server:
        spec = {
            "models": {
                "quick": {
                    "backend": "openai_compatible",
                    "base_url": server.url,
                    "model": "tiny",
                    "max_tokens": 64,
                },
            }
        }
        committee = Committee(_with_reference(spec), mode="record")
        results = evaluate([committee], **MARKET)
    (entry,) = committee.decision_log
    assert results.scorecard.loc[committee.name, "errors"] == 0
    assert {r["model"] for r in entry["roles"]} >= {"tiny"}
    assert all(body["max_tokens"] == 64 for body in server.requests)
    assert entry["unverified_by_role"]["market_analyst"] == 1
    assert results.scorecard.loc[committee.name, "tokens"] >= 8 * 120  # the server's usage


def _with_reference(change: dict[str, Any]) -> dict[str, Any]:
    from importlib import resources

    import yaml

    spec = yaml.safe_load(
        resources.files("workbench.committee").joinpath("tradingagents.yaml").read_text()
    )
    spec["models"].update(change["models"])
    return spec
