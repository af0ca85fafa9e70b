"""accept_new_columns: a recording takes newly derived columns only if nothing recorded moved."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.errors import RecordingError
from workbench.recordings import migrate, record, replay
from workbench.recordings.migrate import accept_new_columns, contained

NEW = ("pnl_market_pct", "pnl_selection_pct")


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("made") / "small"
    record(
        folder, ["workbench.testing.scripted:trend_agent", "momentum"], seed=4, universe=5, days=3
    )
    return folder


def _as_before_the_columns(
    folder: Path, tamper: Callable[[dict[str, Any]], None] = lambda results: None
) -> None:
    """Rewrite ``folder`` as a recording made before NEW existed: the columns dropped from
    its expected results and manifest, the digest taken again (``tamper`` edits first)."""
    expected = json.loads((folder / "expected_results.json").read_text())
    for row in expected["scorecard"]:
        for column in NEW:
            del row[column]
    tamper(expected)
    text = json.dumps(expected, indent=2, sort_keys=True) + "\n"
    (folder / "expected_results.json").write_text(text)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["expected"]["digest"] = hashlib.sha256(text.encode()).hexdigest()
    for row in manifest["expected"]["scorecard"]:
        for column in NEW:
            del row[column]
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


@pytest.fixture
def older(made: Path, tmp_path: Path) -> Path:
    folder = Path(shutil.copytree(made, tmp_path / "older"))
    _as_before_the_columns(folder)
    return folder


@pytest.mark.slow
def test_a_recording_that_only_lacks_new_columns_takes_them(older: Path, made: Path) -> None:
    assert not replay(older, check=False).matched
    migration = accept_new_columns(older)
    assert migration.status == "accepted" and not migration.differences
    assert {key.split(".")[-1] for key in migration.added} == set(NEW)
    assert "results.scorecard[*].pnl_market_pct" in migration.summary()
    assert replay(older).matched  # check=True raises on any difference
    for name in ("expected_results.json",):
        assert (older / name).read_bytes() == (made / name).read_bytes()
    manifest = json.loads((older / "manifest.json").read_text())
    assert manifest["expected"] == json.loads((made / "manifest.json").read_text())["expected"]
    assert accept_new_columns(older).status == "current"


@pytest.mark.slow
def test_a_recorded_value_that_moved_is_refused_and_nothing_is_written(
    made: Path, tmp_path: Path
) -> None:
    folder = Path(shutil.copytree(made, tmp_path / "moved"))

    def nudge(results: dict[str, Any]) -> None:
        results["equity"]["momentum"][5] += 0.01
        results["orders"][0]["price"] += 0.01

    _as_before_the_columns(folder, nudge)
    before = {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}
    migration = accept_new_columns(folder)
    assert migration.status == "refused"
    assert any(line.startswith("results.equity.momentum[5]:") for line in migration.differences)
    assert any(line.startswith("results.orders[0].price:") for line in migration.differences)
    assert "nothing written" in migration.summary()
    assert {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()} == before


def test_expected_results_that_are_not_the_recorded_ones_are_refused(older: Path) -> None:
    path = older / "expected_results.json"
    path.write_text(path.read_text().replace('"seed": 4', '"seed": 5'))
    with pytest.raises(RecordingError, match="not the results the manifest's digest names"):
        accept_new_columns(older)


def test_containment_allows_added_keys_only() -> None:
    added: list[str] = []
    recorded = {"card": [{"pnl": 1.0}], "n": 3}
    assert (
        contained(recorded, {"card": [{"pnl": 1.0, "new": 2}], "n": 3, "t": []}, "r", added) == []
    )
    assert sorted(added) == ["r.card[0].new", "r.t"]
    assert contained(recorded, {"card": [], "n": 3}, "r", []) == ["r.card: 1 rows recorded, 0 now"]
    assert contained({"n": 3}, {"n": 3.0}, "r", []) == ["r.n: 3 -> 3.0"]
    assert contained({"n": 3}, {}, "r", []) == ["r.n: recorded, missing now"]


@pytest.mark.slow
def test_the_cli_accepts_new_columns_and_fails_on_a_refusal(
    older: Path, made: Path, tmp_path: Path, capsys
) -> None:
    assert main(["replay", str(older), "--accept-new-columns"]) == 0
    assert "every recorded value unchanged; accepted" in capsys.readouterr().out
    assert main(["replay", str(older), "--check"]) == 0
    moved = Path(shutil.copytree(made, tmp_path / "moved"))
    _as_before_the_columns(moved, lambda r: r["scorecard"][0].update(trades=99))
    assert main(["replay", str(moved), "--accept-new-columns"]) == 1
    out = capsys.readouterr().out
    assert "refused" in out and "results.scorecard[0].trades: 99 ->" in out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


@pytest.mark.slow
def test_an_edited_expected_file_fails_a_replay_that_matches_the_manifest(
    made: Path, tmp_path: Path
) -> None:
    folder = Path(shutil.copytree(made, tmp_path / "edited"))
    path = folder / "expected_results.json"
    path.write_text(path.read_text().replace('"trades": ', '"trades": 1', 1))
    report = replay(folder, check=False)
    assert report.digest == report.expected_digest and not report.matched
    with pytest.raises(RecordingError, match=r"expected_results\.json is not the results the"):
        replay(folder)


@pytest.mark.slow
def test_a_migration_stopped_between_its_two_writes_never_passes(
    older: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real, writes = migrate.atomic_write, []

    def killed_after_one(path: Path, text: str) -> Path:
        writes.append(path.name)
        if len(writes) == 2:
            raise KeyboardInterrupt  # the process stopped before the manifest was written
        return real(path, text)

    monkeypatch.setattr(migrate, "atomic_write", killed_after_one)
    with pytest.raises(KeyboardInterrupt):
        accept_new_columns(older)
    monkeypatch.setattr(migrate, "atomic_write", real)
    assert writes == ["expected_results.json", "manifest.json"]
    assert not replay(older, check=False).matched
    with pytest.raises(RecordingError, match="or a migration stopped between its two writes"):
        accept_new_columns(older)


@pytest.mark.slow
def test_a_folder_that_cannot_be_written_is_refused_with_nothing_written(
    older: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def denied(path: Path, text: str) -> Path:
        raise PermissionError(13, "Permission denied", str(path))

    before = _files(older)
    monkeypatch.setattr(migrate, "atomic_write", denied)
    with pytest.raises(RecordingError, match=r"cannot write expected_results\.json \(Permission"):
        accept_new_columns(older)
    assert _files(older) == before


def test_a_column_the_workbench_no_longer_derives_is_refused(made: Path, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(made, tmp_path / "removed"))
    _as_before_the_columns(folder, lambda r: [row.update(old_metric=1.0) for row in r["scorecard"]])
    migration = accept_new_columns(folder)
    assert migration.status == "refused"
    assert "results.scorecard[0].old_metric: recorded, missing now" in migration.differences


@pytest.mark.slow
def test_the_cli_migrates_the_others_when_one_recording_is_broken(
    made: Path, tmp_path: Path, capsys
) -> None:
    root = tmp_path / "many"
    names = ("a-broken", "b-fine", "c-impossible")
    broken, fine, impossible = (Path(shutil.copytree(made, root / name)) for name in names)
    _as_before_the_columns(fine)
    (broken / "expected_results.json").write_text("{}")
    manifest = json.loads((impossible / "manifest.json").read_text())
    (impossible / "manifest.json").write_text(json.dumps({**manifest, "days": 0}))
    assert main(["replay", str(root), "--accept-new-columns"]) == 1
    out = capsys.readouterr().out
    assert "a-broken: refused: RecordingError: recording" in out
    assert "c-impossible: refused: ConfigError: days must be between" in out
    assert "b-fine: every recorded value unchanged" in out and "2 of 3 recordings refused" in out
    assert replay(fine).matched


def _as_under_an_older_definition(
    folder: Path, tamper: Callable[[dict[str, Any]], None] = lambda results: None
) -> None:
    """Rewrite ``folder`` as if pnl_market_pct had been derived another way when it was
    recorded: each row's value moved in its expected results and manifest, the digest
    taken again (``tamper`` edits first)."""
    expected = json.loads((folder / "expected_results.json").read_text())
    for row in expected["scorecard"]:
        row["pnl_market_pct"] = (row["pnl_market_pct"] or 0.0) + 1.5
    tamper(expected)
    text = json.dumps(expected, indent=2, sort_keys=True) + "\n"
    (folder / "expected_results.json").write_text(text)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["expected"]["digest"] = hashlib.sha256(text.encode()).hexdigest()
    for row in manifest["expected"]["scorecard"]:
        row["pnl_market_pct"] = (row["pnl_market_pct"] or 0.0) + 1.5
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


@pytest.mark.slow
def test_a_redefined_column_is_accepted_when_nothing_else_moved(made: Path, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(made, tmp_path / "redefined"))
    _as_under_an_older_definition(folder)
    assert not replay(folder, check=False).matched
    assert accept_new_columns(folder).status == "refused"  # a moved value is not a new column
    migration = migrate.accept_redefined(folder, ["pnl_market_pct"])
    assert migration.status == "accepted", migration.differences
    assert "scorecard[*].pnl_market_pct" in migration.summary()
    assert _files(folder) == _files(made)
    assert replay(folder).matched
    assert migrate.accept_redefined(folder, ["pnl_market_pct"]).status == "current"


@pytest.mark.parametrize(
    ("tamper", "line"),
    [
        (lambda r: r["equity"]["momentum"].__setitem__(2, 1.0), "results.equity.momentum[2]:"),
        (lambda r: r["scorecard"][0].update(trades=99), "results.scorecard[0].trades: 99 ->"),
    ],
)
@pytest.mark.slow
def test_a_redefinition_that_moved_anything_else_is_refused_with_nothing_written(
    made: Path, tmp_path: Path, tamper: Callable[[dict[str, Any]], None], line: str
) -> None:
    folder = Path(shutil.copytree(made, tmp_path / "moved"))
    _as_under_an_older_definition(folder, tamper)
    before = _files(folder)
    migration = migrate.accept_redefined(folder, ["pnl_market_pct"])
    assert migration.status == "refused"
    assert any(d.startswith(line) for d in migration.differences), migration.differences
    assert _files(folder) == before


@pytest.mark.slow
def test_the_cli_accepts_a_redefined_column_and_refuses_an_unknown_one(
    made: Path, tmp_path: Path, capsys
) -> None:
    folder = Path(shutil.copytree(made, tmp_path / "cli"))
    _as_under_an_older_definition(folder)
    assert main(["replay", str(folder), "--accept-redefined", "pnl_market_pct"]) == 0
    assert "unchanged; accepted new scorecard[*].pnl_market_pct" in capsys.readouterr().out
    assert main(["replay", str(folder), "--check"]) == 0
    assert main(["replay", str(folder), "--accept-redefined", "pnl_market"]) != 0
    assert "must be scorecard columns, got ['pnl_market']" in capsys.readouterr().err
