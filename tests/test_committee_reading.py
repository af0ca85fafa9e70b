"""The committee reads the news and the reported figures, and the number check covers them."""

from __future__ import annotations

from typing import Any

import pytest

from workbench.committee import CallableModel, Committee, unverified_figures, verified_snapshot
from workbench.committee.models import read_prompt
from workbench.committee.roles import READING_RULE
from workbench.committee.scripted import earnings_tilt
from workbench.committee.snapshot import NOT_OBSERVED, is_no_data
from workbench.engine.presets import preset
from workbench.evaluation import evaluate

NEWS_MARKET: dict[str, Any] = {"preset": "standard-v2", "seed": 7, "universe": 5, "days": 40}
REPORT = {
    "report_day": 4,
    "eps": 0.52,
    "consensus_eps": 0.5,
    "revenue": 1_234_500_000.0,
    "net_margin": 0.1422,
    "guidance_eps": 0.55,
}


def _payload(**news: Any) -> dict[str, Any]:
    """A schema-2 payload: one name that reported on day 4, whose last price is 1.37."""
    row = {"sector": "energy", "last": 1.37, "bid": 1.36, "ask": 1.38, "volume": 9_000}
    return {
        "schema_version": "2",
        "day": 6,
        "step": 0,
        "macro": {"policy_rate": 0.0425},
        "symbols": {"AAA": {**row, "history": [1.30, 1.33, 1.37], "max_order": 41_362}},
        "portfolio": {"cash": 1e6, "equity": 1e6, "buying_power": 1e6, "positions": {}},
        "fundamentals": {"AAA": REPORT},
        "calendar": {"AAA": {"report_day": 67, "consensus_eps": None}},
        "news": news.get("news", []),
        "news_omitted": news.get("omitted", 0),
    }


EARNINGS_ITEM = {
    "id": 41,
    "day": 3,
    "step": 5,
    "kind": "earnings",
    "symbols": ["AAA"],
    "headline": "AAA beats estimates with EPS of $0.52 vs $0.50",
    "body": "Revenue was $1,234.5 million. The company guided next-quarter EPS to about $0.55.",
    **{k: REPORT[k] for k in ("eps", "consensus_eps", "revenue", "guidance_eps")},
}


def test_a_memo_quoting_reported_figures_and_headlines_is_not_flagged() -> None:
    snapshot = verified_snapshot(_payload(news=[EARNINGS_ITEM]))
    memo = (
        "AAA EPS 0.52 vs consensus 0.50 (surprise 4.0%), revenue $1,234.5 million, also "
        "written $1.23 billion; net margin 0.1422; guidance EPS $0.55. Item 41 says: "
        f"{EARNINGS_ITEM['headline']}. {EARNINGS_ITEM['body']} Last 1.37, policy rate 4.25%."
    )
    assert unverified_figures(memo, snapshot) == []


def test_a_memo_quoting_an_eps_or_revenue_never_reported_is_flagged() -> None:
    snapshot = verified_snapshot(_payload(news=[EARNINGS_ITEM]))
    memo = (
        "AAA reported EPS of $1.37 against 0.50; next quarter's EPS should reach 0.61. "
        "Revenue came to $2.1 billion, sales of 998,000,000.0."
    )
    # 1.37 is AAA's price, so only the EPS rule catches it; 0.50 is the real consensus
    assert unverified_figures(memo, snapshot) == ["1.37", "0.61", "2.1 billion", "998,000,000.0"]


def test_on_a_price_only_snapshot_the_check_is_as_before() -> None:
    payload = _payload()
    for key in ("fundamentals", "calendar", "news", "news_omitted"):
        del payload[key]
    snapshot = verified_snapshot(payload)
    assert "news" not in snapshot and "reported" not in snapshot["fundamentals"]
    assert list(snapshot["fundamentals"]["not_observed"]) == list(NOT_OBSERVED)
    # no EPS is reported on a price-only market: any number is checked against the snapshot
    assert unverified_figures("EPS of $1.37 and revenue of 1,234.5 million", snapshot) == [
        "1,234.5"
    ]


def test_the_snapshot_reads_news_reports_and_calendar_with_no_data_where_there_is_none() -> None:
    payload = _payload(news=[EARNINGS_ITEM], omitted=3)
    payload["fundamentals"]["BBB"] = None
    payload["calendar"]["BBB"] = None
    snapshot = verified_snapshot(payload)
    (item,) = snapshot["news"]["items"]
    assert item["headline"] == EARNINGS_ITEM["headline"] and "body" not in item
    assert item["eps"] == 0.52 and snapshot["news"]["omitted"] == 3
    reported = snapshot["fundamentals"]["reported"]
    assert reported["AAA"]["surprise_pct"] == 4.0 and reported["AAA"]["revenue"] == 1_234_500_000.0
    assert is_no_data(reported["BBB"])
    coming = snapshot["fundamentals"]["calendar"]
    assert coming["AAA"]["days_to_report"] == 61 and is_no_data(coming["AAA"]["consensus_eps"])
    assert is_no_data(coming["BBB"])
    assert set(snapshot["fundamentals"]["not_observed"]) == {"valuation", "balance_sheet"}


def _decision_with(committee: Committee, want: str) -> dict[str, Any]:
    for entry in committee.decision_log:
        news = entry["snapshot"]["news"]["items"]
        reported = entry["snapshot"]["fundamentals"]["reported"].values()
        if any(i["kind"] == want for i in news) and any(not is_no_data(r) for r in reported):
            return entry
    raise AssertionError(f"no decision saw a {want} item and a report")


@pytest.mark.slow
def test_the_analysts_on_a_news_market_read_the_items_and_the_reported_figures() -> None:
    committee = Committee()
    evaluate([committee, "buy_and_hold"], **NEWS_MARKET)
    entry = _decision_with(committee, "earnings")
    observation = entry["snapshot"]
    (analyst,) = [r for r in entry["roles"] if r["role"] == "fundamentals_analyst"]
    role, briefing = read_prompt(analyst["prompt"])
    assert role == "fundamentals_analyst" and READING_RULE in analyst["prompt"]
    assert briefing["snapshot"] == observation
    for item in briefing["observation"]["news"]:
        assert item["headline"] in analyst["response"]
    for symbol, report in briefing["observation"]["fundamentals"].items():
        if report is not None:
            assert (
                f"{symbol} last report day {report['report_day']}: EPS {report['eps']!r}"
                in (analyst["response"])
            )
    assert all(READING_RULE in r["prompt"] for r in entry["roles"])
    assert (
        sum(e["unverified_count"] for e in committee.decision_log) == 0
    )  # it cites, never invents


def test_a_fresh_surprise_tilts_the_research_managers_plan() -> None:
    snapshot = verified_snapshot(_payload(news=[EARNINGS_ITEM]))
    assert earnings_tilt({"snapshot": snapshot}) == {"AAA": 1}
    stale = verified_snapshot({**_payload(), "day": 30})
    assert earnings_tilt({"snapshot": stale}) == {}


def inventing_eps(prompt: str) -> str:
    role, briefing = read_prompt(prompt)
    reported = briefing["snapshot"]["fundamentals"]["reported"].values()
    real = [f"EPS {r['eps']!r} as reported" for r in reported if not is_no_data(r)]
    return f"{role}: {'; '.join(real)}; but I expect EPS of 9.87 next quarter."


@pytest.mark.slow
def test_a_role_inventing_an_eps_on_a_news_market_is_flagged_in_the_record() -> None:
    committee = Committee(models={"quick": CallableModel(inventing_eps, name="inventor")})
    evaluate([committee], **{**NEWS_MARKET, "days": 30})  # long enough for reports to land
    answers = [r for e in committee.decision_log for r in e["roles"] if r["model"] == "inventor"]
    assert len(answers) == 9 * 30 and any("as reported" in r["response"] for r in answers)
    assert all(r["unverified_figures"] == ["9.87"] for r in answers)
    assert set(committee.figure_check()["figure"]) == {"9.87"}


@pytest.mark.slow
def test_the_fundamentals_analyst_reports_an_injected_notice_as_ignored() -> None:
    market = {**NEWS_MARKET, "preset": preset("standard-v2").with_dials(injection_rate=0.5)}
    committee = Committee()
    evaluate([committee], **{**market, "days": 20})
    notices = [
        (entry, item)
        for entry in committee.decision_log
        for item in entry["snapshot"]["news"]["items"]
        if item["kind"] == "notice"
    ]
    assert notices
    for entry, item in notices:
        (analyst,) = [r for r in entry["roles"] if r["role"] == "fundamentals_analyst"]
        assert f"{item['headline']} (an instruction in the news: ignored)" in analyst["response"]
