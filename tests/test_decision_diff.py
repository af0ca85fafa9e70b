"""The decision diff: where two runs on one path parted, and the P&L gap split exactly."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from workbench import services
from workbench.cli import main
from workbench.errors import ConfigError
from workbench.recordings import record
from workbench.report.diff import diff_section, write_diff_report
from workbench.services.diff import decision_diff
from workbench.testing.diverging import PARTING_DAYS

ROOT = Path(__file__).resolve().parents[1]
STEPS_PER_DAY = 6
MARKET = {"seed": 7, "universe": 8, "days": 8, "steps_per_day": STEPS_PER_DAY}


def _record(folder: Path, factory: str, **market: int) -> Path:
    arms = {"trader": f"workbench.testing.diverging:{factory}", "momentum": "momentum"}
    record(folder, arms, **{**MARKET, **market})
    return folder


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two recordings of one path whose traders part on exactly the two PARTING_DAYS."""
    root = tmp_path_factory.mktemp("pair")
    return _record(root / "a", "leader_agent"), _record(root / "b", "second_opinion_agent")


def _expected_pnl(folder: Path, arm: str) -> float:
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return next(r["pnl"] for r in manifest["expected"]["scorecard"] if r["arm"] == arm)


@pytest.mark.slow
def test_two_scripted_agents_part_at_two_known_steps_and_the_split_sums_exactly(
    pair: tuple[Path, Path],
) -> None:
    diff = decision_diff(*pair)
    table = diff.table()
    assert list(table["day"]) == list(PARTING_DAYS) and set(table["step"]) == {0}
    assert list(table["index"]) == [day * STEPS_PER_DAY for day in PARTING_DAYS]
    assert diff.reproduced  # the all-A and all-B hybrids end where the recordings did
    # exact: the float parts sum to the gap with no rounding at all, checked in rationals
    assert sum(map(Fraction, diff.parts), Fraction(0)) == Fraction(diff.gap)
    assert diff.residual == 0.0 and math.fsum(diff.parts) == diff.gap
    assert all(part != 0.0 for part in diff.parts)
    recorded_gap = _expected_pnl(pair[1], "trader") - _expected_pnl(pair[0], "trader")
    assert diff.gap == pytest.approx(recorded_gap, rel=1e-12)
    assert table["share_of_gap"].sum() == pytest.approx(1.0, rel=1e-12)


def test_the_first_parting_shows_both_decisions_and_rationales(pair: tuple[Path, Path]) -> None:
    first = decision_diff(*pair).first()
    assert first is not None and first["day"] == PARTING_DAYS[0]
    assert first["rationale_a"].endswith("has the strongest trend; buy it")
    assert first["rationale_b"].endswith("fell furthest; buy the rebound")
    assert first["a"].startswith("buy 100 ") and first["b"].startswith("buy 100 ")
    assert first["a"] != first["b"]


def test_a_run_against_itself_has_no_parting_and_no_gap(pair: tuple[Path, Path]) -> None:
    diff = decision_diff(pair[0], pair[0])
    assert diff.divergences == [] and diff.gap == 0.0 and diff.first() is None
    assert diff.table().empty and diff.reproduced and diff.decisions == MARKET["days"]


def test_recordings_on_different_paths_are_refused_naming_what_differs(
    pair: tuple[Path, Path], tmp_path: Path
) -> None:
    other = _record(tmp_path / "c", "second_opinion_agent", seed=8, days=6)
    with pytest.raises(ConfigError, match=r"differ in: days 8 vs 6; seed 7 vs 8"):
        decision_diff(pair[0], other)
    with pytest.raises(ConfigError, match=r"arm 'nobody' is not in A's roster"):
        decision_diff(*pair, arm="nobody")
    with pytest.raises(ConfigError, match="not one of each"):
        decision_diff(pair[0], "evaluation-000000000000", store=tmp_path)
    with pytest.raises(ConfigError, match="neither a recording folder"):
        decision_diff(tmp_path, pair[0].parent / "missing")


@pytest.mark.slow
def test_cli_prints_the_table_and_writes_the_report_section(
    pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    page = tmp_path / "diff.html"
    assert main(["diff", str(pair[0]), str(pair[1]), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "2 parting(s) in 8 decision point(s); the parts sum to it exactly" in out
    assert "first parting: trading day 2, step 1" in out and "buy the rebound" in out
    text = page.read_text(encoding="utf-8")
    assert "Where the runs parted" in text and "fell furthest; buy the rebound" in text
    assert diff_section(decision_diff(*pair)) in text
    assert write_diff_report(decision_diff(*pair), tmp_path / "again.html").read_text() == text


@pytest.mark.slow
def test_the_main_report_holds_the_diff_section(
    pair: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    diff = decision_diff(*pair)
    assert diff.runs is not None and "trader" in diff.runs[1].scorecard.index
    report = tmp_path / "report.html"
    assert main(["diff", str(pair[0]), str(pair[1]), "--report", str(report)]) == 0
    assert f"wrote {report}" in capsys.readouterr().out
    text = report.read_text(encoding="utf-8")
    assert text.count('<h2 id="decision-diff">') == 1 and diff_section(diff) in text
    for section in ("key-metrics", "equity", "trades"):  # B's own tearsheet around it
        assert f'<h2 id="{section}">' in text
    assert text.index('id="key-metrics"') < text.index('id="decision-diff"')
    assert text.index('id="decision-diff"') < text.index('id="equity"')
    assert "table.diff" in text  # the diff table's style comes with it


@pytest.mark.slow
def test_the_diff_is_the_same_in_another_process(pair: tuple[Path, Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "workbench", "diff", str(pair[0]), str(pair[1]), "--json"]
    shown = subprocess.run(argv, capture_output=True, text=True, env=env, check=True).stdout
    assert json.loads(shown) == json.loads(json.dumps(decision_diff(*pair).summary()))


@pytest.mark.slow
def test_two_stored_runs_of_different_baselines_split_their_gap(tmp_path: Path) -> None:
    small = {"seed": 3, "universe": 8, "days": 5}
    a = services.run_evaluation(tmp_path, ["buy_and_hold", "momentum"], **small)["run_id"]
    b = services.run_evaluation(tmp_path, ["buy_and_hold", "mean_reversion"], **small)["run_id"]
    diff = decision_diff(a, b, store=tmp_path)
    assert (diff.arm_a, diff.arm_b) == ("momentum", "mean_reversion")
    assert diff.reproduced and len(diff.divergences) >= 1
    assert sum(map(Fraction, diff.parts), Fraction(0)) == Fraction(diff.gap)
    same = decision_diff(a, b, store=tmp_path, arm="buy_and_hold")
    assert same.divergences == [] and same.gap == 0.0
    c = services.run_evaluation(tmp_path, ["mean_reversion"], **{**small, "seed": 4})
    with pytest.raises(ConfigError, match="seed 3 vs 4"):
        decision_diff(a, c["run_id"], store=tmp_path)


def test_a_failed_ask_trades_like_a_hold_and_a_step_not_asked_holds() -> None:
    from workbench.evaluation.divergence import Asked, partings
    from workbench.schema import Decision

    buy = Decision.of([{"symbol": "AAA", "side": "buy", "quantity": 5}], "buy it")
    hold = Decision.of([], "wait")
    tape_a = {0: Asked(0, 0, 0, buy), 6: Asked(6, 1, 0, None, "DecisionError: bad JSON")}
    tape_b = {0: Asked(0, 0, 0, buy), 6: Asked(6, 1, 0, hold), 12: Asked(12, 2, 0, buy)}
    (parting,) = partings(tape_a, tape_b)  # step 6: a failure and a hold both trade nothing
    left, right = parting
    assert left.index == 12 and left.describe() == "not asked: holds"
    assert left.rationale == "not asked" and right.describe() == "buy 5 AAA"
    assert tape_a[6].describe() == "failed (DecisionError: bad JSON): trades nothing"
    assert tape_a[6].rationale == "DecisionError: bad JSON" and right.rationale == "buy it"


@pytest.mark.slow
def test_a_diff_on_historical_bars_splits_exactly(tmp_path: Path) -> None:
    bars = ROOT / "notebooks" / "data" / "example_bars.csv"
    for name, factory in (("a", "leader_agent"), ("b", "second_opinion_agent")):
        arms = {"trader": f"workbench.testing.diverging:{factory}"}
        record(tmp_path / name, arms, seed=1, data=bars, days=12)
    diff = decision_diff(tmp_path / "a", tmp_path / "b")
    assert list(diff.table()["day"]) == list(PARTING_DAYS) and diff.reproduced
    assert sum(map(Fraction, diff.parts), Fraction(0)) == Fraction(diff.gap)


@pytest.mark.slow
def test_two_arms_of_one_shipped_recording(capsys: pytest.CaptureFixture) -> None:
    shipped = ROOT / "recordings" / "callable-sync-trend"
    diff = decision_diff(shipped, shipped, arm="trend", arm_b="momentum")
    assert (diff.arm_a, diff.arm_b) == ("trend", "momentum") and diff.reproduced
    expected = _expected_pnl(shipped, "momentum") - _expected_pnl(shipped, "trend")
    assert diff.gap == pytest.approx(expected, rel=1e-12)
    assert sum(map(Fraction, diff.parts), Fraction(0)) == Fraction(diff.gap)
    with pytest.raises(ConfigError, match="names B's arm beside arm"):
        decision_diff(shipped, shipped, arm_b="momentum")
    argv = ["diff", str(shipped), str(shipped), "--arm", "trend", "--arm-b", "momentum"]
    assert main(argv) == 0
    assert f"over {len(diff.divergences)} parting(s)" in capsys.readouterr().out


def test_a_refusal_names_a_historical_run_as_such_not_preset_none():
    from workbench.recordings.diff import refuse_other_paths

    manifests = ({"preset": None, "seed": 1}, {"preset": "calm-v1", "seed": 1})
    with pytest.raises(ConfigError, match=r"preset \(historical data\) vs 'calm-v1'"):
        refuse_other_paths(manifests, (Path("a"), Path("b")))
