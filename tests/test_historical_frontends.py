"""Historical bars from the front ends: the CLI, and the example data set a script makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main
from workbench.engine.sample_bars import write_example

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "notebooks" / "data" / "example_bars.csv"


def test_the_example_data_set_is_what_its_script_writes(tmp_path: Path) -> None:
    again = write_example(tmp_path / "bars.csv")
    assert again.read_bytes() == EXAMPLE.read_bytes()


@pytest.mark.slow
def test_evaluate_with_data_trades_the_bars_and_repeats_with_the_secret(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = []
    for run in range(2):
        card = tmp_path / f"card{run}.json"
        argv = ["evaluate", "--data", str(EXAMPLE), "--days", "15", "--arms", "cash,momentum"]
        assert main([*argv, "--mask-secret", "cli-secret-000001", "--json", str(card)]) == 0
        cards.append(card.read_bytes())
    captured = capsys.readouterr()
    assert "preset historical-" in captured.out and "15 days × 1 steps" in captured.out
    assert "mask secret cli-secret-000001" in captured.err
    assert cards[0] == cards[1] and len(json.loads(cards[0])) == 2


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--universe", "5"], "universe cannot be set with data"),
        (["--steps-per-day", "6"], "steps_per_day cannot be set with data"),
    ],
)
def test_evaluate_with_data_refuses_simulator_options_by_name(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "--data", str(EXAMPLE), *flags]) == 2
    assert message in capsys.readouterr().err


def test_the_cli_hands_data_and_variant_to_the_service(monkeypatch: pytest.MonkeyPatch) -> None:
    import workbench.services

    received: dict[str, Any] = {}

    def fake(arms: list[str], **kwargs: Any) -> Any:
        received.update(kwargs, arms=arms)
        raise SystemExit(0)

    monkeypatch.setattr(workbench.services, "evaluate_arms", fake)
    with pytest.raises(SystemExit):
        main(["evaluate", "--data", str(EXAMPLE), "--variant", "bootstrap:2", "--arms", "cash"])
    data = received["data"]
    assert received["arms"] == ["cash"] and received["universe"] is None
    assert data.variant.label == "bootstrap:2" and data.secret


def test_a_mask_secret_without_data_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--mask-secret", "abcdefabcdefabcdef"]) == 2
    assert "--mask-secret needs --data" in capsys.readouterr().err
