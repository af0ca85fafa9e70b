"""What a reader of the news market might trip on: a calendar that shows the run's end, a
count of obeyed instructions that counts coincidences, a number check that takes one
name's EPS for another's, ground truth cut short by the run without saying so."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from workbench import Agent, evaluate
from workbench.committee import unverified_figures, verified_snapshot
from workbench.errors import ConfigError
from workbench.evaluation.oracle import ORACLE
from workbench.integrations.callable import CallableAgentAdapter
from workbench.schema import HOLD, Decision

MARKET = {"preset": "standard-v2", "seed": 3, "universe": 10}


class _Spy(Agent):
    """Keeps every payload; obeys injected notices when told to, else holds."""

    def __init__(self, name: str, obey: bool = False) -> None:
        super().__init__(name)
        self.obey = obey
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> Decision:
        self.seen.append(json.loads(json.dumps(payload)))
        notices = [i for i in payload.get("news", []) if i["kind"] == "notice"] if self.obey else []
        if not notices:
            return HOLD
        side = "buy" if "BUY" in notices[0]["headline"] else "sell"
        action = {"symbol": notices[0]["symbols"][0], "side": side, "quantity": 1.0}
        return Decision.of([action], rationale="as instructed")


@pytest.mark.slow
def test_the_calendar_is_the_same_whatever_the_run_length() -> None:
    short, long = _Spy("spy"), _Spy("spy")
    evaluate([short], **MARKET, days=30)
    evaluate([long], **MARKET, days=80)
    assert [p["calendar"] for p in short.seen] == [p["calendar"] for p in long.seen[:30]]
    last = short.seen[-1]["calendar"]
    assert all(entry is not None and entry["report_day"] > 29 for entry in last.values())


@pytest.mark.slow
def test_a_consensus_published_inside_the_run_is_shown_for_a_report_after_it() -> None:
    spy = _Spy("spy")
    evaluate([spy], **MARKET, days=30)
    for day, payload in enumerate(spy.seen):
        for entry in payload["calendar"].values():
            published = day - (entry["report_day"] - 10)  # > 0: by an earlier close
            if published:  # on its own day it depends on the decision's step
                assert (entry["consensus_eps"] is not None) == (published > 0)


@pytest.mark.slow
def test_placebo_notices_count_what_coincidence_gives_and_an_obeying_reader_beats_them() -> None:
    market = {**MARKET, "days": 40, "preset": {"base": "standard-v2", "injection_rate": 1.0}}
    followed = placebo = 0
    for seed in (1, 2, 3):
        obeys = _Spy("obeys", obey=True)
        card = evaluate([obeys, "random", "mean_reversion"], **{**market, "seed": seed}).scorecard
        told = sum(1 for p in obeys.seen if any(i["kind"] == "notice" for i in p["news"]))
        assert card.loc["obeys", "injected_followed"] == told > 10
        assert card.loc["obeys", "injected_placebo"] < told / 4
        followed += int(card.loc[["random", "mean_reversion"], "injected_followed"].sum())
        placebo += int(card.loc[["random", "mean_reversion"], "injected_placebo"].sum())
    assert followed + placebo > 10  # arms that ignore the text match both by chance, alike
    assert abs(followed - placebo) <= 3 * math.sqrt(followed + placebo)


@pytest.mark.slow
def test_placebo_notices_change_nothing_published() -> None:
    runs = [
        evaluate(["random"], seed=3, universe=10, days=15, preset={"base": "standard-v2", **dial})
        for dial in ({}, {"injection_rate": 0.5})
    ]
    assert runs[0].scorecard.loc["random", "injected_placebo"] == 0
    published = runs[1].information[~runs[1].information["injected"]].reset_index(drop=True)
    assert published.drop(columns="id").equals(
        runs[0].information.drop(columns="id").reset_index(drop=True)
    )  # the notices are added; every other item is as it was


@pytest.mark.slow
def test_ground_truth_cut_by_the_run_end_says_so() -> None:
    table = evaluate(["cash"], **MARKET, days=30).information
    cut, whole = table[table["truncated"]], table[~table["truncated"]]
    assert len(cut) and len(whole)
    ends = cut["start_day"] + cut["horizon_days"]
    assert ((ends == 30) | (cut["horizon_days"] == 0)).all()  # cut at the run's last day
    assert (whole["start_day"] + whole["horizon_days"] <= 30).all()
    noise = table[~table["informative"]]
    assert (np.signbit(noise["explained"].dropna()) == False).all()  # noqa: E712 no -0.0


@pytest.mark.slow
def test_a_price_only_run_has_the_information_columns_and_a_news_run_saves_them(tmp_path) -> None:
    price_only = evaluate(["cash"], preset="standard-v1", seed=1, universe=3, days=2)
    assert "truncated" in price_only.information.columns and price_only.information.empty
    paths = evaluate(["cash"], **MARKET, days=5).save(tmp_path)
    assert paths["information"].exists()


def test_the_oracle_s_name_is_kept_for_the_reference_arm() -> None:
    arm = CallableAgentAdapter(lambda p: {"actions": [], "rationale": ""}, name=ORACLE)
    with pytest.raises(ConfigError, match="kept for the reference arm"):
        evaluate([arm], **MARKET, days=2)


@pytest.mark.parametrize("value", ["0.5", Decimal("0.5"), np.bool_(True), True])
def test_a_dial_that_is_no_number_is_refused(value) -> None:
    with pytest.raises(ConfigError, match="'injection_rate' must be a number"):
        evaluate(
            ["cash"], preset={"base": "standard-v2", "injection_rate": value}, universe=3, days=2
        )


@pytest.mark.slow
def test_an_eps_is_checked_against_the_name_the_sentence_is_about() -> None:
    spy = _Spy("spy")
    evaluate([spy], **MARKET, days=40)
    snapshot = verified_snapshot(spy.seen[-1])
    given = snapshot["fundamentals"]["reported"]
    reported = {s: r for s, r in given.items() if isinstance(r, dict)}
    (one, first), (other, _) = list(reported.items())[:2]
    silent = next(s for s, r in given.items() if isinstance(r, str))
    eps = f"{first['eps']:.2f}"
    assert unverified_figures(f"{one} EPS {eps}", snapshot) == []
    assert unverified_figures(f"EPS of {eps} beat", snapshot) == []  # no name: any EPS
    assert unverified_figures(f"{other} EPS {eps}", snapshot) == [eps] or (
        reported[other]["eps"] == first["eps"]
    )
    assert unverified_figures(f"{silent} reported EPS of {eps}", snapshot) == [eps]


@pytest.mark.slow
def test_the_cli_moves_a_dial_and_runs_the_news_readers_by_default(capsys) -> None:
    from workbench.cli import main

    small = ["evaluate", "--universe", "6", "--days", "4", "--seed", "2"]
    assert main([*small, "--dial", "injection_rate=1", "--dial", "news_rate=0.1"]) == 0
    table = capsys.readouterr().out
    assert "preset custom-" in table and "headline_sentiment" in table and "earnings_drift" in table
    assert main([*small, "--preset", "standard-v1"]) == 0
    assert "headline_sentiment" not in capsys.readouterr().out  # no news to read there


@pytest.mark.parametrize(
    ("dial", "message"),
    [
        ("injection_rate", "is not NAME=VALUE with a number"),
        ("injection_rate=lots", "is not NAME=VALUE with a number"),
        ("=0.2", "is not NAME=VALUE with a number"),
        ("injection_rte=0.2", "Did you mean 'injection_rate'"),
        ("injection_rate=2", "'injection_rate' must be between 0 and 1"),
    ],
)
def test_a_bad_dial_on_the_command_line_is_refused_naming_it(dial, message, capsys) -> None:
    from workbench.cli import main

    assert main(["evaluate", "--arms", "cash", "--days", "2", "--dial", dial]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("days", [1, 2, 3])
@pytest.mark.slow
def test_a_run_shorter_than_the_consensus_lead_has_a_calendar_too(days) -> None:
    spy = _Spy("spy")
    evaluate([spy], preset="standard-v2", seed=1, universe=30, days=days)
    assert all(entry is not None for entry in spy.seen[-1]["calendar"].values())
