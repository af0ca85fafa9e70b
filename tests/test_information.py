"""What the market publishes: items drawn deterministically, realised after release only,
read point in time, valued exactly in results, and never in a payload early."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine.information import KINDS
from workbench.engine.market import simulate
from workbench.engine.presets import preset
from workbench.engine.universe import resolve_universe
from workbench.errors import ConfigError
from workbench.evaluation import reading
from workbench.evaluation.capture import information_frame
from workbench.evaluation.observation import market_payload
from workbench.schema import HOLD, NEWS_CAP, Decision

NEWS = {"preset": "standard-v2", "seed": 4, "universe": 12, "days": 40}


def _path(seed: int = 4, names: int = 40, days: int = 250, **dials: float):
    chosen = preset({"base": "standard-v2", **dials}) if dials else preset("standard-v2")
    return simulate(
        chosen, resolve_universe(names), seed=seed, days=days, steps_per_day=6,
        ticks_per_step=65, warmup_days=4,
    )  # fmt: skip


def test_a_price_only_preset_publishes_nothing_and_serves_schema_1() -> None:
    world = World(seed=1, universe=5, days=2, preset="standard-v1")
    assert world.path.information is None and world.path.news is None
    payload = market_payload(world.path, world.path.warmup_steps)
    assert payload["schema_version"] == "1"
    assert not {"news", "fundamentals", "calendar"} & set(payload)


def test_the_news_preset_payload_carries_news_fundamentals_and_calendar() -> None:
    spy = _Spy("spy")
    evaluate([spy], **NEWS)
    payload = spy.seen[-1]
    assert payload["schema_version"] == "2"
    assert {"news", "news_omitted", "fundamentals", "calendar"} <= set(payload)
    assert json.loads(json.dumps(payload)) == payload
    items = [item for p in spy.seen for item in p["news"]]
    assert {item["kind"] for item in items} >= {"earnings", "guidance", "analyst_rating"}
    for item in items:
        assert {"id", "day", "step", "kind", "symbols", "headline", "body"} <= set(item)
        assert not {"move", "informative", "signal", "jump"} & set(item)  # the value stays hidden
    reported = [f for f in payload["fundamentals"].values() if f is not None]
    assert reported and all(f["eps"] > 0 and f["revenue"] > 0 for f in reported)
    coming = [c for c in payload["calendar"].values() if c is not None]
    assert all(c["report_day"] > payload["day"] for c in coming)


def test_news_is_what_was_released_since_the_arm_last_decided_newest_first() -> None:
    spy = _Spy("spy")
    evaluate([spy], **NEWS)
    seen_ids: list[int] = []
    for previous, payload in zip([None, *spy.seen], spy.seen, strict=False):
        ids = [item["id"] for item in payload["news"]]
        assert ids == sorted(ids, reverse=True)
        assert len(ids) <= NEWS_CAP
        assert not set(ids) & set(seen_ids)  # nothing shown twice
        for item in payload["news"]:
            assert (item["day"], item["step"]) <= (payload["day"], payload["step"])
            if previous is not None:
                assert (item["day"], item["step"]) > (previous["day"], previous["step"])
        seen_ids += ids


def test_an_item_released_during_step_t_plus_1_is_never_seen_at_the_close_of_t() -> None:
    honest = World(**NEWS).path
    info = honest.information
    assert info is not None
    for row in range(honest.warmup_steps, honest.steps, 5):
        later = info.items.row > row
        poisoned_items = dataclasses.replace(
            info.items,
            signal=np.where(later, -info.items.signal, info.items.signal),
            text=np.where(later[:, None], 1.0 - info.items.text, info.items.text),
            kind=np.where(later, KINDS.index("notice"), info.items.kind),
        )
        figures = dict(info.earnings.figures)
        after = info.earnings.day * honest.steps_per_day - 1 > row
        figures["eps"] = np.where(after, -1.0, figures["eps"])
        earnings = dataclasses.replace(info.earnings, figures=figures)
        poisoned = dataclasses.replace(
            honest,
            information=dataclasses.replace(
                info, items=poisoned_items, earnings=earnings, rendered={}, memo={}
            ),
        )
        assert market_payload(poisoned, row) == market_payload(honest, row)
        window = row - honest.steps_per_day
        assert reading.news(poisoned, window, row) == reading.news(honest, window, row)


@pytest.mark.slow
def test_items_are_deterministic_in_preset_seed_and_universe_in_any_process() -> None:
    here = _fingerprint_of_news(4)
    assert here == _fingerprint_of_news(4)
    assert here != _fingerprint_of_news(5)
    code = "from tests.test_information import _fingerprint_of_news; print(_fingerprint_of_news(4))"
    there = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.strip()
    assert there == here


def _fingerprint_of_news(seed: int) -> str:
    import hashlib

    path = _path(seed=seed, names=10, days=80)
    info = path.information
    assert info is not None
    texts = [reading.item(path, i) for i in range(info.items.size)]
    blob = json.dumps(texts, sort_keys=True) + path.close.tobytes().hex()
    return hashlib.sha256(blob.encode()).hexdigest()


def _event_study(path, informative: bool) -> tuple[np.ndarray, np.ndarray]:
    """Signed (by the item's published tone) abnormal log return over 3 days before the
    release close and over the item's realisation after it, per company item."""
    info = path.information
    items, steps = info.items, path.steps_per_day
    company = (items.name >= 0) & np.isin(
        items.kind, [KINDS.index(k) for k in ("guidance", "product", "legal", "analyst_rating")]
    )
    chosen = np.flatnonzero(company & (items.informative == informative))
    log_close = np.log(path.close)
    abnormal = log_close - log_close.mean(axis=1, keepdims=True)
    before, after = [], []
    for i in chosen.tolist():
        row, name = int(items.row[i]), int(items.name[i])
        end = (int(items.start[i]) + 4) * steps - 1  # 75 % of a move with a 2-day half-life
        if row - 3 * steps < 0 or end >= path.steps:
            continue
        sign = np.sign(items.signal[i])
        before.append(sign * (abnormal[row, name] - abnormal[row - 3 * steps, name]))
        after.append(sign * (abnormal[end, name] - abnormal[row, name]))
    return np.array(before), np.array(after)


def _t(values: np.ndarray) -> float:
    return float(values.mean() / (values.std(ddof=1) / np.sqrt(values.size)))


def _pooled(informative: bool) -> tuple[np.ndarray, np.ndarray]:
    studies = [_event_study(_path(seed=s, names=40, days=250), informative) for s in (2, 3, 4)]
    return np.concatenate([b for b, _ in studies]), np.concatenate([a for _, a in studies])


@pytest.mark.slow
def test_event_study_informative_items_move_prices_after_release_only() -> None:
    before, after = _pooled(informative=True)
    assert before.size > 400
    assert abs(_t(before)) < 3.5  # nothing before the release
    assert _t(after) > 5.0  # after it, in the direction its text took
    assert after.mean() > 0.005


@pytest.mark.slow
def test_event_study_noise_items_move_nothing_on_either_side() -> None:
    before, after = _pooled(informative=False)
    assert before.size > 250
    assert abs(_t(before)) < 3.5
    assert abs(_t(after)) < 3.5


@pytest.mark.slow
def test_earnings_follow_the_fair_value_a_compounding_name_grows_its_eps() -> None:
    path = _path(seed=3, names=20, days=500, equity_premium=0.4, idio_vol=0.05)
    e = path.information.earnings
    first, last = [], []
    for n in range(20):
        mine = np.flatnonzero(e.name == n)
        first.append(e.figures["eps"][mine[0]])
        last.append(e.figures["eps"][mine[-1]])
    assert np.mean(np.array(last) > np.array(first)) > 0.8


@pytest.mark.slow
def test_attribution_splits_selection_into_news_and_the_rest_exactly() -> None:
    results = evaluate(["headline_sentiment", "buy_and_hold"], **NEWS)
    frame = results.attribution
    assert np.isfinite(frame["selection_news"]).all()
    totals = frame.groupby("arm")[["pnl", "market", "sector", "selection", "timing", "costs"]].sum()
    summed = totals.drop(columns="pnl").sum(axis=1)
    assert np.allclose(summed, totals["pnl"], rtol=0, atol=1e-6)
    card = results.scorecard
    assert card.loc["headline_sentiment", "news_pnl"] == pytest.approx(
        frame[frame["arm"] == "headline_sentiment"]["selection_news"].sum()
    )


@pytest.mark.slow
def test_results_information_holds_the_ground_truth_and_no_payload_does() -> None:
    spy = _Spy("spy")
    results = evaluate([spy], **NEWS)
    table = results.information
    assert {"informative", "move", "later_return", "kind", "symbols"} <= set(table.columns)
    assert (table.loc[~table["informative"], "move"] == 0.0).all()
    assert (table.loc[table["informative"] & (table["kind"] != "earnings"), "move"] != 0).all()
    text = json.dumps(spy.seen)
    assert '"move"' not in text and '"informative"' not in text


@pytest.mark.slow
def test_readers_capture_more_than_buy_and_hold_and_nobody_more_than_the_oracle() -> None:
    gaps = []
    for seed in (1, 2, 3):  # paired on each path, as bench/information.py does over five
        results = evaluate(
            ["buy_and_hold", "headline_sentiment", "earnings_drift"], seed=seed, universe=30,
            days=150,
        )  # fmt: skip
        capture = results.scorecard["info_capture"]
        assert (capture < 1.0).all()  # nobody beats a perfect reader on its own items
        assert results.meta["oracle_news_pnl"] > 0
        gaps.append(capture[["headline_sentiment", "earnings_drift"]] - capture["buy_and_hold"])
    assert min(gap["headline_sentiment"] for gap in gaps) > 0.05
    assert sum(gap["earnings_drift"] for gap in gaps) / 3 > 0.01


class _Spy(Agent):
    def __init__(self, name: str, obey: bool = False) -> None:
        super().__init__(name)
        self.obey = obey
        self.seen: list[dict[str, Any]] = []

    def decide(self, payload: dict[str, Any]) -> Decision:
        self.seen.append(payload)
        if not self.obey:
            return HOLD
        actions = []
        for item in payload.get("news", []):
            if item["kind"] == "notice":  # it does what the text tells it
                side = "buy" if "BUY" in item["headline"] else "sell"
                actions.append({"symbol": item["symbols"][0], "side": side, "quantity": 1.0})
        return Decision.of(actions[:1], rationale="as instructed")


@pytest.mark.slow
def test_a_reader_that_obeys_injected_instructions_is_counted_one_that_ignores_them_is_not() -> (
    None
):
    market = {**NEWS, "preset": {"base": "standard-v2", "injection_rate": 0.3}}
    obeys, ignores = _Spy("obeys", obey=True), _Spy("ignores")
    results = evaluate([obeys, ignores], **market)
    notices = sum(1 for p in obeys.seen for item in p["news"] if item["kind"] == "notice")
    decisions_told = sum(1 for p in obeys.seen if any(i["kind"] == "notice" for i in p["news"]))
    assert notices > 3
    assert results.scorecard.loc["obeys", "injected_followed"] == decisions_told
    assert results.scorecard.loc["ignores", "injected_followed"] == 0
    assert results.information["injected"].sum() >= notices


@pytest.mark.parametrize(
    ("dials", "fragment"),
    [
        ({"injection_rate": 1.5}, r"'injection_rate' must be between 0 and 1, got 1.5"),
        ({"injection_rate": -0.1}, r"'injection_rate' must be between 0 and 1"),
        ({"news_ic": 2.0}, r"'news_ic' must be between 0 and 1"),
        ({"news_lead_days": 0.0}, r"'news_lead_days' must be between 1 and 20"),
        ({"news_lead_days": 1.5}, r"'news_lead_days' must be a whole number"),
        ({"news_rate": float("nan")}, r"'news_rate' must be finite"),
    ],
)
def test_a_dial_out_of_range_is_refused_before_the_market_opens(dials, fragment) -> None:
    with pytest.raises(ConfigError, match=fragment):
        evaluate(["cash"], preset={"base": "standard-v2", **dials}, seed=1, universe=3, days=2)


def test_news_asked_of_historical_bars_is_refused_naming_the_dials() -> None:
    from workbench.engine.sample_bars import sample_bars

    with pytest.raises(ConfigError, match=r"publishes simulated news \(news_rate=0.05"):
        World(data=sample_bars(), preset="standard-v2")


def test_an_older_preset_vector_keeps_its_fingerprint() -> None:
    custom = preset({"base": "standard-v1", "spread_bps": 3.0})
    assert custom.fingerprint.startswith("custom-")
    rebuilt = type(custom)(name="custom", dials=custom.vector)  # a vector without news dials
    assert rebuilt.fingerprint == custom.fingerprint
    assert not rebuilt.publishes_information


def test_every_information_column_has_one_glossary_entry() -> None:
    from workbench.evaluation.capture import CAPTURE_COLUMNS
    from workbench.evaluation.glossary import INFORMATION, definition

    assert set(INFORMATION) == set(CAPTURE_COLUMNS)
    assert "oracle" in definition("info_capture") and definition("selection_news")


@pytest.mark.slow
def test_the_real_model_run_records_the_callable_arm_and_the_committee_on_news(tmp_path) -> None:
    from workbench.testing import smollm2
    from workbench.testing.stub_endpoint import StubServer

    with StubServer() as server:  # the model's place, answering every arm the same way
        rows = smollm2.run(server.url, tmp_path, ("news", "news-committee"))
    assert [row["arm"] for row in rows] == ["callable-news-smollm2", "committee-news-smollm2"]
    assert all(row["replay_matches"] for row in rows)
    assert all("info_capture" in row for row in rows)
    assert "| callable-news-smollm2 |" in smollm2.table(rows)


def test_the_oracle_runs_once_per_world_and_limits_and_its_figure_is_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from workbench.evaluation import oracle, runner

    monkeypatch.setattr(oracle, "ORACLE_NEWS_PNL", oracle._Remembered(most=2))
    monkeypatch.setattr(runner, "ORACLE_NEWS_PNL", oracle.ORACLE_NEWS_PNL)
    ran: list[Any] = []

    def counted(path: Any) -> oracle.OracleReader:
        ran.append(path)
        return oracle.OracleReader(path)

    monkeypatch.setattr(runner, "OracleReader", counted)
    first = evaluate(["buy_and_hold"], **NEWS)
    again = evaluate(["momentum"], **NEWS)  # other arms, the same world and limits
    assert len(ran) == 1
    assert again.meta["oracle_news_pnl"] == first.meta["oracle_news_pnl"] > 0
    evaluate(["momentum"], **NEWS, fee_bps=5.0)  # other limits: another reference run
    evaluate(["momentum"], **{**NEWS, "seed": 5})  # another path: another one
    assert len(ran) == 3 and len(oracle.ORACLE_NEWS_PNL.values) == 2  # the oldest let go
    monkeypatch.setattr(runner, "ORACLE_NEWS_PNL", oracle._Remembered(most=2))
    fresh = evaluate(["momentum"], **NEWS)
    assert len(ran) == 4 and fresh.meta["oracle_news_pnl"] == first.meta["oracle_news_pnl"]


def test_the_information_frame_holds_the_items_of_the_run_days_and_keeps_its_types() -> None:
    path = World(seed=7, universe=40, days=10).path
    frame = information_frame(path)
    released = np.flatnonzero(path.information.items.row >= path.warmup_steps)
    assert frame["id"].tolist() == released.tolist() and (frame["day"] >= 0).all()
    assert frame.index.equals(pd.RangeIndex(len(frame)))
    warm_only = World(seed=2, universe=3, days=1).path  # its items all in the warm-up
    assert warm_only.information.items.size > 0
    empty = information_frame(warm_only)
    assert empty.empty and list(empty.dtypes) == list(frame.dtypes)
