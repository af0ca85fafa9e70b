"""What a replay refuses, and that each refusal names what changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.errors import ReplayMiss
from workbench.recordings import record, replay

TREND = "workbench.testing.scripted:trend_agent"
MARKET: dict[str, Any] = {"seed": 4, "universe": 5, "days": 2}
CUSTOM = {"base": "calm-v1", "spread_bps": 3.0, "market_vol": 0.2}


@pytest.fixture(scope="module")
def custom(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("custom") / "rec"
    record(folder, [TREND, "momentum"], **MARKET, preset=CUSTOM)
    return folder


def test_a_changed_dial_of_a_custom_preset_is_named_with_both_values(custom: Path) -> None:
    changed = {**CUSTOM, "spread_bps": 5.0}
    with pytest.raises(ReplayMiss) as caught:
        replay(custom, preset=changed)
    message = str(caught.value)
    assert "the dials that differ (recorded -> requested): spread_bps 3.0 -> 5.0" in message
    assert "market_vol" not in message, "only the dials that changed"
    assert "recorded on preset 'custom-" in message


def test_every_changed_dial_is_named_in_order(custom: Path) -> None:
    changed = {**CUSTOM, "spread_bps": 5.0, "market_vol": 0.25}
    with pytest.raises(ReplayMiss, match=r"market_vol 0\.2 -> 0\.25, spread_bps 3\.0 -> 5\.0\."):
        replay(custom, preset=changed)


def test_the_custom_recording_replays_on_its_own_dials(custom: Path) -> None:
    assert replay(custom).matched
