"""The service core: plain functions, JSON-safe answers, a run store that confines every path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from workbench import services
from workbench.engine.presets import DIALS
from workbench.errors import ConfigError, RecordingError, UntrustedRecording
from workbench.evaluation import evaluate
from workbench.evaluation.attribution_frame import ATTRIBUTION_COLUMNS
from workbench.evaluation.columns import SCORECARD_COLUMNS
from workbench.evaluation.compare import COMPARISON_COLUMNS, paired_comparison
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS
from workbench.recordings import distrust, trust
from workbench.services.glossary import (
    ATTRIBUTION,
    CAVEATS,
    COMPARISON,
    METRICS,
    TEARSHEET,
    definition,
    definitions_for,
)
from workbench.services.store import RunStore

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"
SMALL = {"universe": 8, "days": 3}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (hidden ones too) with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def entries(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir())


def test_every_public_name_imports() -> None:
    import workbench.mcp

    for module in (services, workbench.mcp):
        for name in module.__all__:
            assert getattr(module, name) is not None, f"{module.__name__}.{name}"


# --- presets and glossary -------------------------------------------------------------
def test_preset_services_list_describe_and_diff() -> None:
    listed = services.list_presets()
    names = [row["name"] for row in listed["presets"]]
    assert "standard-v1" in names and listed["default"] == "standard-v4"
    calm = next(row for row in listed["presets"] if row["name"] == "calm-v1")
    assert "spread_bps" in calm["dials_moved_from_default"]
    assert set(services.describe_preset()["dials"]) == set(DIALS)
    diff = services.diff_presets("standard-v1", "calm-v1")
    assert {"dial": "spread_bps", "a": 4.0, "b": 2.0} in diff["changes"] and not diff["same"]
    assert services.diff_presets("calm-v1", "calm-v1")["same"]
    with pytest.raises(ConfigError, match="Did you mean 'calm-v1'"):
        services.describe_preset("calm-v2")


def test_a_superseded_preset_names_its_current_version_and_stays_shipped() -> None:
    rows = {row["name"]: row for row in services.list_presets()["presets"]}
    superseded = {name for name, row in rows.items() if row["superseded_by"]}
    assert superseded == {
        "crisis-v1", "crisis-v2", "turbulent-v1", "turbulent-v2", "standard-v2", "standard-v3"
    }  # fmt: skip
    assert rows["crisis-v1"]["superseded_by"] == "crisis-v3" and "skew" in rows["crisis-v1"]["why"]
    for name in superseded:  # each points at a current preset of its own family
        successor = rows[rows[name]["superseded_by"]]
        assert successor["superseded_by"] is None and successor["why"] is None
        assert successor["name"].split("-")[0] == name.split("-")[0]
        described = services.describe_preset(name)  # still runs, frozen
        assert described["preset"] == name and described["superseded_by"] == successor["name"]
    assert not rows["standard-v4"]["superseded_by"] and rows["standard-v4"]["default"]
    assert rows["standard-v1"]["superseded_by"] is None  # no newer market without news


def test_glossary_has_one_entry_per_scorecard_column_in_the_metric_conventions() -> None:
    glossary = services.metrics_glossary()
    assert list(glossary["metrics"]) == list(SCORECARD_COLUMNS)
    assert set(METRICS) == set(SCORECARD_COLUMNS)
    # the conventions stated in workbench.evaluation.metrics
    sharpe = glossary["metrics"]["sharpe"]["definition"]
    assert "ddof=1" in sharpe and "sqrt(252)" in sharpe and "zero risk-free" in sharpe
    assert "0.0 when" in sharpe
    drawdown = glossary["metrics"]["max_drawdown_pct"]["definition"]
    assert "positive percentage of the peak" in drawdown
    assert "one-way" in glossary["metrics"]["turnover"]["definition"]
    assert "marked to mid" in glossary["metrics"]["return_pct"]["definition"]
    assert set(glossary["comparison"]) == set(COMPARISON)
    assert {"single_path", "multiple_testing", "replayed"} <= set(glossary["caveats"])
    assert set(glossary["steps"]) == {"step", "trading step", "path row", "steps run"}
    assert METRICS["sharpe"][0] in definitions_for(["sharpe"])
    with pytest.raises(ConfigError, match="no glossary entry"):
        definitions_for(["alpha"])


def test_every_tearsheet_and_comparison_column_has_exactly_one_definition() -> None:
    glossary = services.metrics_glossary()
    assert list(glossary["tearsheet"]) == list(TEARSHEET_COLUMNS)
    books = (METRICS, TEARSHEET, COMPARISON)
    for column in (*SCORECARD_COLUMNS, *TEARSHEET_COLUMNS, *COMPARISON_COLUMNS):
        assert sum(column in book for book in books) == 1, column
        assert definition(column)  # the one text tool descriptions and the report show
    assert set(TEARSHEET) <= set(TEARSHEET_COLUMNS)
    assert "ddof=1" in definition("annual_volatility_pct") and "252" in definition("sortino")
    assert "Bailey" in definition("dsr") and "trials" in definition("dsr")
    assert "trials_in_store" in glossary["caveats"]["trials"]


def test_every_attribution_column_has_exactly_one_definition() -> None:
    glossary = services.metrics_glossary()
    described = [c for c in ATTRIBUTION_COLUMNS if c not in ("arm", "day", "step", "pnl")]
    assert list(glossary["attribution"]) == described == list(ATTRIBUTION)
    books = (METRICS, TEARSHEET, COMPARISON, ATTRIBUTION)
    for column in described:
        assert sum(column in book for book in books) == 1, column
        assert definition(column)
    assert "not part of the p&l" in definition("lost_to_clips").lower()
    assert "estimate" in definition("estimated")


# --- evaluation and the run store ----------------------------------------------------
def test_run_evaluation_matches_the_library_and_writes_artefacts(tmp_path: Path) -> None:
    answer = services.run_evaluation(tmp_path, ["cash", "momentum"], seed=3, **SMALL)
    json.dumps(answer, allow_nan=False)  # JSON-safe, no NaN
    library = evaluate(["cash", "momentum"], seed=3, universe=8, days=3)
    assert answer["results_digest"] == library.digest()
    assert [row["arm"] for row in answer["scorecard"]] == ["cash", "momentum"]
    assert "latency_s" not in answer["scorecard"][0]  # wall clock stays out of answers
    for relative in answer["artefacts"].values():
        assert (tmp_path / relative).is_file() and not Path(relative).is_absolute()
    assert answer["counts"]["orders"] == len(library.orders)
    assert "orders" not in answer  # large outputs by path only
    assert answer["meta"]["every"] == {"cash": "day", "momentum": "day"}  # the cadence
    assert answer["meta"]["maintenance_multiple"] == 3.0 and "exposure" in answer["artefacts"]
    ranking = answer["ranking"]
    assert ranking["seeds"] == 1 and ranking["arms_compared"] == 2
    assert ranking["arm_sources"] == {"cash": "baseline", "momentum": "baseline"}
    assert any("one market path" in c for c in ranking["caveats"])


def test_the_same_request_reuses_its_run_and_another_makes_a_new_one(tmp_path: Path) -> None:
    first = services.run_evaluation(tmp_path, ["cash", "buy_and_hold"], seed=1, **SMALL)
    again = services.run_evaluation(tmp_path, ["cash", "buy_and_hold"], seed=1, **SMALL)
    other = services.run_evaluation(tmp_path, ["cash", "buy_and_hold"], seed=2, **SMALL)
    assert (first["reused"], again["reused"], other["reused"]) == (False, True, False)
    assert first["run_id"] == again["run_id"] != other["run_id"]
    assert first["results_digest"] == again["results_digest"]
    assert other["ranking"]["evaluations_in_store"] == 2


@pytest.mark.slow
def test_the_store_counts_the_trials_that_ran_and_every_ranking_carries_the_count(
    tmp_path: Path,
) -> None:
    arms = ["cash", "buy_and_hold"]
    first = services.run_evaluation(tmp_path, arms, seed=1, **SMALL)
    services.run_evaluation(tmp_path, arms, seed=1, **SMALL)  # answered from the store
    assert first["ranking"]["trials_in_store"] == 1
    assert RunStore.open(tmp_path).trials() == 1
    # a comparison is one trial; its seeds are not trials of their own (seed 1 is reused)
    compared = services.compare_runs(tmp_path, [*arms, "momentum"], "cash", [1, 2], **SMALL)
    assert RunStore.open(tmp_path).trials() == 2
    assert compared["ranking"]["trials_in_store"] == 2
    assert CAVEATS["trials"] in compared["ranking"]["caveats"]
    # DSR deflated by the store's count when larger than the arms: here the 3 arms
    assert {row["trials"] for row in compared["comparison"]} == {3}
    for _ in range(2):
        services.run_evaluation(tmp_path, ["cash", "momentum"], seed=5 + _, **SMALL)
    later = services.compare_runs(tmp_path, [*arms, "momentum"], "cash", [3, 4], **SMALL)
    assert {row["trials"] for row in later["comparison"]} == {5}  # 4 before it, plus itself
    assert all(0.0 <= row["dsr"] <= row["psr"] <= 1.0 for row in later["comparison"] if row["psr"])
    # the count persists with the store and shows on runs read back
    got = services.get_run(tmp_path, first["run_id"])
    assert got["ranking"]["trials_in_store"] == 5
    lines = (tmp_path / "trials.jsonl").read_text().splitlines()
    assert [json.loads(line)["kind"] for line in lines] == ["evaluation", "comparison"] + [
        "evaluation"
    ] * 2 + ["comparison"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"arms": ["cash", "momentm"]}, "Did you mean 'momentum'"),
        ({"arms": []}, "arms is empty"),
        ({"arms": ["cash", "cash"]}, "unique"),
        ({"arms": ["cash"], "preset": "calmm-v1"}, "unknown preset"),
        ({"arms": ["cash"], "days": 0}, "days must be between"),
        ({"arms": ["cash"], "seed": -1}, "seed must be"),
        ({"arms": ["cash"], "universe": "many"}, "universe must be a whole number"),
        ({"arms": ["cash"], "capital": "lots"}, "capital must be a number"),
        ({"arms": ["cash"], "universe": 5000, "days": 1000}, "above the service limit"),
    ],
)
@pytest.mark.slow
def test_bad_evaluation_input_names_the_problem_and_leaves_the_store_unchanged(
    tmp_path: Path, arguments: dict, message: str
) -> None:
    services.run_evaluation(tmp_path, ["cash"], **SMALL)
    before = snapshot(tmp_path)
    with pytest.raises(ConfigError, match=message):
        services.run_evaluation(tmp_path, **{**SMALL, **arguments})
    assert snapshot(tmp_path) == before


def test_a_run_that_fails_midway_leaves_no_partial_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("workbench.services.evaluation.summarise", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        services.run_evaluation(tmp_path, ["cash"], **SMALL)
    assert entries(tmp_path) == []


@pytest.mark.slow
def test_list_runs_is_capped_with_a_truncation_count(tmp_path: Path) -> None:
    for seed in range(3):
        services.run_evaluation(tmp_path, ["cash"], seed=seed, **SMALL)
    page = services.list_runs(tmp_path, limit=2)
    assert (len(page["runs"]), page["total"], page["truncated"]) == (2, 3, 1)
    assert services.list_runs(tmp_path, kind="comparison")["total"] == 0
    with pytest.raises(ConfigError, match="kind must be"):
        services.list_runs(tmp_path, kind="everything")
    with pytest.raises(ConfigError, match="limit"):
        services.list_runs(tmp_path, limit=0)


def test_get_run_reads_back_the_summary_and_files(tmp_path: Path) -> None:
    made = services.run_evaluation(tmp_path, ["cash", "momentum"], **SMALL)
    got = services.get_run(tmp_path, made["run_id"])
    assert got["results_digest"] == made["results_digest"]
    assert got["request"]["arms"] == ["cash", "momentum"]
    assert f"{made['run_id']}/results.json" in got["files"]


@pytest.mark.parametrize(
    "run_id", ["../../etc/passwd", "/etc/passwd", "..", ".", "a/../../b", "", "x" * 300]
)
@pytest.mark.slow
def test_paths_outside_the_run_store_are_refused(tmp_path: Path, run_id: str) -> None:
    store = tmp_path / "store"
    services.run_evaluation(store, ["cash"], **SMALL)
    before = snapshot(store)
    with pytest.raises(ConfigError, match=r"run id|outside the run store"):
        services.get_run(store, run_id)
    with pytest.raises(ConfigError):
        services.render_report(store, run_id)
    assert snapshot(store) == before


def test_a_symlink_out_of_the_store_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    made = services.run_evaluation(outside, ["cash"], **SMALL)
    store = tmp_path / "store"
    store.mkdir()
    (store / "escape").symlink_to(outside / made["run_id"])
    with pytest.raises(ConfigError, match="is a symbolic link") as refused:
        services.get_run(store, "escape")
    assert str(outside) not in str(refused.value)


def test_an_unwritable_store_is_refused(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(ConfigError, match="is a file"):
        RunStore.open(blocker)
    with pytest.raises(ConfigError, match="cannot create run store"):
        RunStore.open(blocker / "store")


# --- comparison and report -----------------------------------------------------------
@pytest.mark.slow
def test_compare_runs_is_the_paired_comparison_of_one_run_per_seed(tmp_path: Path) -> None:
    arms = ["cash", "buy_and_hold", "momentum"]
    answer = services.compare_runs(tmp_path, arms, "buy_and_hold", [1, 2, 3], **SMALL)
    json.dumps(answer, allow_nan=False)
    assert sorted(answer["evaluation_runs"]) == ["1", "2", "3"]
    library = paired_comparison(
        [evaluate(arms, seed=s, universe=8, days=3) for s in (1, 2, 3)], "buy_and_hold"
    )
    rows = {row["arm"]: row for row in answer["comparison"]}
    assert set(rows) == {"cash", "momentum"}
    for arm in rows:
        assert rows[arm]["mean_diff"] == pytest.approx(library.loc[arm, "mean_diff"], abs=0)
        assert rows[arm]["p_holm"] >= rows[arm]["p_value"]
    assert answer["ranking"]["seeds"] == 3 and answer["ranking"]["arms_compared"] == 2
    # the per-seed evaluations are ordinary runs, reused by a later identical evaluation
    again = services.run_evaluation(tmp_path, arms, seed=2, **SMALL)
    assert again["reused"] and again["run_id"] == answer["evaluation_runs"]["2"]


@pytest.mark.parametrize(
    ("benchmark", "seeds", "extra", "message"),
    [
        ("random", [1, 2], {}, "benchmark 'random' must be one of the arms"),
        ("cash", [], {}, "seeds must be a non-empty list"),
        ("cash", [1, 1], {}, "unique"),
        ("cash", [1, 2], {"metric": "alpha"}, "not a numeric scorecard column"),
        ("cash", [1, 2], {"method": "magic"}, "method must be"),
        ("cash", [1, 2], {"preset": "nope"}, "unknown preset"),
    ],
)
def test_bad_comparison_input_leaves_the_store_unchanged(
    tmp_path: Path, benchmark: str, seeds: list[int], extra: dict, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        services.compare_runs(tmp_path, ["cash", "momentum"], benchmark, seeds, **SMALL, **extra)
    assert entries(tmp_path) == []


@pytest.mark.slow
def test_render_report_writes_one_html_file_into_the_run(tmp_path: Path) -> None:
    made = services.run_evaluation(tmp_path, ["cash", "momentum"], **SMALL)
    report = services.render_report(tmp_path, made["run_id"])
    path = tmp_path / report["report"]
    assert path.parent == tmp_path / made["run_id"]
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") or "<html" in text[:200]
    embedded = ('id="workbench-plotly-js"', "data:image/png;base64,")  # plotly, or without it
    assert "momentum" in text and any(chart in text for chart in embedded)


# --- committees ----------------------------------------------------------------------
@pytest.mark.slow
def test_an_offline_committee_is_an_arm_like_any_other(tmp_path: Path) -> None:
    listed = services.list_agents(RECORDINGS)["committees"]
    assert {"name": "committee:tradingagents", "offline": True}.items() <= listed[0].items()
    answer = services.run_evaluation(tmp_path, ["committee:tradingagents", "cash"], **SMALL)
    assert answer["ranking"]["arm_sources"]["committee:tradingagents"] == "scripted committee"
    assert answer["scorecard"][0]["model_calls"] > 0  # scripted role calls, counted


def test_a_committee_with_a_real_model_behind_a_role_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench.committee import config

    text = config.PACKAGED["tradingagents"].read_text(encoding="utf-8")
    live = text.replace(
        "quick: {backend: scripted, name: scripted-quick}",
        'quick: {backend: callable, name: real, target: "json:loads"}',
    )
    assert live != text
    (tmp_path / "live.yaml").write_text(live, encoding="utf-8")
    monkeypatch.setitem(config.PACKAGED, "live", tmp_path / "live.yaml")
    assert not next(c for c in services.list_agents()["committees"] if c["name"].endswith("live"))[
        "offline"
    ]
    with pytest.raises(ConfigError, match="never call a model"):
        services.run_evaluation(tmp_path / "store", ["committee:live"], **SMALL)
    assert not (tmp_path / "store").exists() or entries(tmp_path / "store") == []


# --- recordings ----------------------------------------------------------------------
def test_list_agents_names_baselines_and_the_shipped_recordings() -> None:
    agents = services.list_agents(RECORDINGS)
    assert {row["name"] for row in agents["baselines"]} >= {"cash", "momentum", "random"}
    shipped = {row["name"]: row for row in agents["recordings"]}
    assert {"callable-sync-trend", "callable-async-contrarian"} <= set(shipped)
    trend = {arm["name"]: arm["source"] for arm in shipped["callable-sync-trend"]["arms"]}
    assert trend["trend"] == "replayed" and trend["momentum"] == "baseline"


@pytest.mark.slow
def test_replaying_a_shipped_recording_matches_and_is_stored_as_a_run(tmp_path: Path) -> None:
    answer = services.replay_recording(tmp_path, "callable-sync-trend", recordings=RECORDINGS)
    assert answer["matched"] and answer["differences"] == []
    assert answer["results_digest"] == answer["expected_digest"]
    assert answer["ranking"]["arm_sources"]["trend"] == "replayed"
    assert any("replayed arm" in c for c in answer["ranking"]["caveats"])
    assert services.list_runs(tmp_path, kind="replay")["total"] == 1
    report = services.render_report(tmp_path, answer["run_id"])
    assert "trend" in (tmp_path / report["report"]).read_text(encoding="utf-8")


def test_a_replay_reports_differences_without_touching_the_recording(tmp_path: Path) -> None:
    folder = tmp_path / "recs" / "edited"
    shutil.copytree(RECORDINGS / "callable-sync-trend", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["expected"]["scorecard"][0]["trades"] += 1
    manifest["expected"]["digest"] = "0" * 64
    (folder / "manifest.json").write_text(json.dumps(manifest))
    before = snapshot(folder)
    answer = services.replay_recording(tmp_path / "store", "edited", recordings=folder.parent)
    assert not answer["matched"]
    assert any("trades" in line for line in answer["differences"])
    assert snapshot(folder) == before


def test_a_roster_that_could_call_a_model_is_refused_before_the_market_opens(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "recs" / "sneaky"
    shutil.copytree(RECORDINGS / "callable-sync-trend", folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["roster"][1] = {"agent": "workbench.agents:Agent", "name": "momentum", "every": 6}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(UntrustedRecording, match="not a trusted name"):
        services.replay_recording(tmp_path / "store", "sneaky", recordings=folder.parent)
    manifest["roster"][0]["factory"] = f"{live_anyway.__module__}:live_anyway"
    manifest["roster"][1] = {
        "agent": "workbench.baselines:Momentum",
        "name": "momentum",
        "every": 6,
        "kwargs": {"every": 6, "name": "momentum"},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    trust(live_anyway)  # trusted in code, yet it builds a live arm: the second wall holds
    try:
        with pytest.raises(RecordingError, match="never run an arm that could call a model"):
            services.replay_recording(tmp_path / "store", "sneaky", recordings=folder.parent)
    finally:
        distrust(live_anyway)
    assert entries(tmp_path / "store") == []


def live_anyway(**kwargs: Any) -> Any:
    """A factory that ignores mode='replay' and builds the arm live."""
    from workbench.testing.scripted import trend_agent

    return trend_agent(name=kwargs["name"], every=kwargs["every"])


@pytest.mark.slow
def test_a_changed_transcript_is_a_new_replay_run_and_a_broken_recording_is_listed(
    tmp_path: Path,
) -> None:
    recs = tmp_path / "recs"
    shutil.copytree(RECORDINGS / "callable-sync-trend", recs / "trend")
    first = services.replay_recording(tmp_path / "store", "trend", recordings=recs)
    transcript = recs / "trend" / "transcripts" / "trend.json"
    transcript.write_text(transcript.read_text() + "\n")
    second = services.replay_recording(tmp_path / "store", "trend", recordings=recs)
    assert first["run_id"] != second["run_id"] and not second["reused"]
    shutil.copytree(recs / "trend", recs / "broken")
    (recs / "broken" / "manifest.json").write_text("{truncated")
    listed = {row["name"]: row for row in services.list_agents(recs)["recordings"]}
    assert "error" in listed["broken"] and "seed" in listed["trend"]


@pytest.mark.parametrize("name", ["../callable-sync-trend", "/etc", "..", "nope", "a/../../b"])
def test_recording_names_are_confined_to_the_recordings_folder(tmp_path: Path, name: str) -> None:
    with pytest.raises(ConfigError, match="recording"):
        services.replay_recording(tmp_path, name, recordings=RECORDINGS / "callable-sync-trend")
    assert entries(tmp_path) == []


def test_concurrent_trials_each_add_exactly_one_line(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    store = RunStore.open(tmp_path)
    with ThreadPoolExecutor(8) as pool:
        counts = sorted(pool.map(lambda i: store.record_trial("evaluation", f"r{i}", 2), range(40)))
    assert counts == list(range(1, 41)) and store.trials() == 40
