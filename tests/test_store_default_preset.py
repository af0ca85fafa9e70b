"""A stored run names the market it ran: one made under an earlier default (its request
storing no preset) is never reused as, compared with or re-run on today's default."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from workbench.engine.presets import DEFAULT_PRESET
from workbench.errors import ConfigError
from workbench.services.diff import decision_diff
from workbench.services.evaluation import MarketRequest, run_evaluation
from workbench.services.store import RunStore, request_digest

MARKET = {"seed": 7, "universe": 8, "days": 3}
EARLIER_DEFAULT = "standard-v2"


def _as_made_under_the_earlier_default(store: Path, arms: list[str]) -> str:
    """A run on standard-v2 stored as a request naming no preset, as the release whose
    default standard-v2 was stored it: its id the digest of that request."""
    made = run_evaluation(store, arms, preset=EARLIER_DEFAULT, **MARKET)
    folder = store / made["run_id"]
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["request"]["preset"] = None
    run_id = f"evaluation-{request_digest('evaluation', manifest['request'])[:12]}"
    manifest["run_id"] = run_id
    shutil.move(folder, store / run_id)
    (store / run_id / "manifest.json").write_text(json.dumps(manifest))
    return run_id


def test_a_request_naming_no_preset_stores_the_default_by_name(tmp_path: Path) -> None:
    assert MarketRequest().preset == DEFAULT_PRESET
    run = run_evaluation(tmp_path, ["buy_and_hold"], **MARKET)
    manifest = RunStore.open(tmp_path).manifest(run["run_id"])
    assert manifest["request"]["preset"] == DEFAULT_PRESET
    assert manifest["outcome"]["meta"]["preset"] == DEFAULT_PRESET


def test_a_run_made_under_the_earlier_default_is_not_reused_for_todays(tmp_path: Path) -> None:
    old = _as_made_under_the_earlier_default(tmp_path, ["buy_and_hold", "momentum"])
    again = run_evaluation(tmp_path, ["buy_and_hold", "momentum"], **MARKET)
    assert again["run_id"] != old and not again["reused"]
    manifest = RunStore.open(tmp_path).manifest(again["run_id"])
    assert manifest["outcome"]["meta"]["preset"] == DEFAULT_PRESET


def test_runs_made_under_the_earlier_default_are_diffed_on_the_market_they_ran(
    tmp_path: Path,
) -> None:
    a = _as_made_under_the_earlier_default(tmp_path, ["buy_and_hold", "momentum"])
    b = _as_made_under_the_earlier_default(tmp_path, ["buy_and_hold", "mean_reversion"])
    diff = decision_diff(a, b, store=tmp_path, arm="momentum", arm_b="mean_reversion")
    assert diff.decisions > 0  # re-run on standard-v2: each reproduced its stored digest
    today = run_evaluation(tmp_path, ["buy_and_hold", "mean_reversion"], **MARKET)["run_id"]
    with pytest.raises(ConfigError, match="differ in: preset 'standard-v2' vs 'standard-v4'"):
        decision_diff(a, today, store=tmp_path, arm="momentum", arm_b="mean_reversion")


def test_a_stored_request_naming_no_preset_with_no_recorded_preset_is_refused() -> None:
    request = MarketRequest().stored() | {"preset": None}
    with pytest.raises(ConfigError, match="ran an earlier default market"):
        MarketRequest.from_stored(request)
    assert MarketRequest.from_stored(request, ran="standard-v2").preset == "standard-v2"
