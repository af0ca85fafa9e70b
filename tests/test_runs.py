"""The run store's history: every run listed, filtered and compared; a damaged one named."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench import services
from workbench.cli import main
from workbench.errors import ConfigError
from workbench.services.history import compare_stored_runs, runs, show_run

SMALL = {"universe": 8, "days": 3}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three runs (two evaluations on two presets, one comparison) and a damaged folder."""
    root = tmp_path_factory.mktemp("store")
    services.run_evaluation(root, ["cash", "momentum"], seed=1, **SMALL)
    services.run_evaluation(root, ["buy_and_hold", "momentum"], seed=2, preset="calm-v1", **SMALL)
    services.compare_runs(root, ["buy_and_hold", "momentum"], "buy_and_hold", [3], **SMALL)
    (root / "damaged").mkdir()
    (root / "damaged" / "manifest.json").write_text("{", encoding="utf-8")
    return root


@pytest.mark.slow
def test_runs_list_lists_three_stored_runs(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    made = [
        services.run_evaluation(tmp_path, [arm, "momentum"], seed=seed, **SMALL)["run_id"]
        for seed, arm in ((1, "cash"), (2, "buy_and_hold"), (3, "random"))
    ]
    (tmp_path / "damaged").mkdir()
    (tmp_path / "damaged" / "manifest.json").write_text("{", encoding="utf-8")
    assert main(["runs", "list", "--store", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["run_id", "kind", "when"]
    listed = [line.split()[0] for line in lines[1:4]]
    assert listed == made[::-1]  # newest first
    assert lines[4].split()[:2] == ["damaged", "UNREADABLE"]
    assert lines[5].startswith("unreadable damaged: run manifest") and lines[6] == "3 run(s)"


@pytest.mark.slow
def test_the_frame_has_one_row_per_run_with_provenance_and_key_metrics(store: Path) -> None:
    frame = runs(store)
    ok = frame[frame["status"] == "ok"]
    assert set(ok["kind"]) == {"evaluation", "comparison"}
    assert list(ok["when"]) == sorted(ok["when"], reverse=True)  # newest first
    calm = ok[ok["market"] == "calm-v1"].iloc[0]
    assert calm["arms"] == ("buy_and_hold", "momentum") and calm["seeds"] == (2,)
    assert calm["family"] == "calm-v1/8n/3d/6x65" and len(calm["digest"]) == 64
    card = show_run(store, calm.name)["arm_metrics"][calm["top_arm"]]
    assert calm["sharpe"] == card["sharpe"] and calm["return_pct"] == card["return_pct"]
    comparison = ok[ok["kind"] == "comparison"].iloc[0]
    assert comparison["top_arm"] == "momentum" and comparison["mean_diff"] is not None
    assert frame.loc["damaged", "status"] == "unreadable"
    assert "unreadable" in frame.loc["damaged", "why"]


def test_runs_filter_by_arm_preset_family_kind_and_date(store: Path) -> None:
    assert list(runs(store, arm="cash")["arms"]) == [("cash", "momentum")]
    assert set(runs(store, preset="calm")["market"]) == {"calm-v1"}
    standard = runs(store, family="standard-v4/8n/3d/6x65")
    assert len(standard) == 3 and "damaged" not in standard.index
    assert list(runs(store, kind="comparison")["kind"]) == ["comparison"]
    assert runs(store, until="2000-01-01").empty
    assert len(runs(store, since="2000-01-01")) == 4
    with pytest.raises(ConfigError, match="since must be an ISO date"):
        runs(store, since="last week")
    with pytest.raises(ConfigError, match="kind must be one of"):
        runs(store, kind="evaluations")


def test_compare_sets_two_runs_side_by_side_and_marks_differences(
    store: Path, capsys: pytest.CaptureFixture
) -> None:
    frame = runs(store, kind="evaluation")
    a, b = frame[frame["market"] == "calm-v1"].index[0], frame.index[-1]
    both = compare_stored_runs(store, a, b)
    provenance = {row["field"]: row for row in both["provenance"]}
    assert provenance["market"]["differs"] and provenance["request.seed"]["differs"]
    assert not provenance["request.days"]["differs"]
    momentum = {r["field"]: r for r in both["metrics"] if r["arm"] == "momentum"}
    assert momentum["sharpe"]["differs"] and momentum["sharpe"]["a"] != momentum["sharpe"]["b"]
    cash = [r for r in both["metrics"] if r["arm"] == "cash"]
    assert cash and all(r["a"] is None for r in cash)  # an arm only b ran
    assert main(["runs", "compare", a, b, "--store", str(store)]) == 0
    out = capsys.readouterr().out
    assert any(line.startswith("*") and "market" in line for line in out.splitlines())
    assert main(["runs", "show", a, "--store", str(store)]) == 0
    assert "calm-v1" in capsys.readouterr().out


@pytest.mark.slow
def test_output_folders_of_the_panel_are_listed_as_saved_runs(tmp_path: Path) -> None:
    from workbench.evaluation import evaluate
    from workbench.report import write_outputs

    seeds = [evaluate(["buy_and_hold", "momentum"], seed=s, universe=8, days=3) for s in (1, 2)]
    write_outputs(seeds, tmp_path / "run-1")
    seeds[0].save(tmp_path / "run-2")
    (tmp_path / "run-3").mkdir()  # a run that wrote nothing yet
    frame = runs(tmp_path)
    assert list(frame["status"]) == ["ok", "ok", "unreadable"]
    panel = frame.loc["run-1"]
    assert panel["kind"] == "saved" and panel["seeds"] == (1, 2)
    mean = sum(r.scorecard.at[panel["top_arm"], "sharpe"] for r in seeds) / 2
    assert panel["sharpe"] == pytest.approx(mean, rel=1e-12)
    assert panel["digest"] == seeds[0].digest() and panel["market"] == seeds[0].meta["preset"]
    assert frame.loc["run-2", "seeds"] == (1,) and list(runs(tmp_path, kind="saved").index)
    shown = show_run(tmp_path, "run-2")["arm_metrics"]["momentum"]
    assert shown["sharpe"] == seeds[0].scorecard.at["momentum", "sharpe"]
    both = compare_stored_runs(tmp_path, "run-1", "run-2")
    assert {r["field"]: r for r in both["provenance"]}["seeds"]["differs"]


def test_a_manifest_missing_its_request_is_unreadable_and_hides_nothing(tmp_path: Path) -> None:
    made = services.run_evaluation(tmp_path, ["cash"], seed=1, **SMALL)["run_id"]
    broken = tmp_path / "evaluation-000000000000"
    broken.mkdir()
    (broken / "manifest.json").write_text('{"format": "workbench-run"}', encoding="utf-8")
    frame = runs(tmp_path)
    assert frame.loc[made, "status"] == "ok"
    assert frame.loc[broken.name, "status"] == "unreadable"
    assert "manifest is incomplete" in frame.loc[broken.name, "why"]


def test_damaged_folders_are_unreadable_with_the_reason_and_refused_by_name(
    tmp_path: Path,
) -> None:
    import json
    import shutil

    made = services.run_evaluation(tmp_path, ["cash"], seed=1, **SMALL)["run_id"]
    manifest = json.loads((tmp_path / made / "manifest.json").read_text(encoding="utf-8"))
    damaged = {"torn": "{", "listed": "[]", "no-request": json.dumps({**manifest, "request": None})}
    for name, text in damaged.items():
        shutil.copytree(tmp_path / made, tmp_path / name)  # results.json beside the manifest
        (tmp_path / name / "manifest.json").write_text(text, encoding="utf-8")
    (tmp_path / "garbage").mkdir()
    (tmp_path / "garbage" / "results.json").write_text("{nope", encoding="utf-8")
    frame = runs(tmp_path)
    assert frame.loc[made, "status"] == "ok"
    for name in (*damaged, "garbage"):
        assert frame.loc[name, "status"] == "unreadable", name
        with pytest.raises(ConfigError, match=f"run {name}"):
            show_run(tmp_path, name)
    assert "results.json is not saved results" in frame.loc["garbage", "why"]
    assert "request is null" in frame.loc["no-request", "why"]
    with pytest.raises(ConfigError, match="request is null"):
        compare_stored_runs(tmp_path, made, "no-request")


def test_listing_a_store_that_does_not_exist_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        runs(tmp_path / "nowhere")
    assert not (tmp_path / "nowhere").exists()
