"""The CLI is a thin shell: it parses, calls the library and prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from workbench.cli import main


def test_presets_list_show_and_diff(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets", "list"]) == 0
    assert "standard-v2  (default)" in capsys.readouterr().out
    assert main(["presets", "show", "calm-v1"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["preset"] == "calm-v1" and shown["dials"]["spread_bps"] == 2.0
    assert main(["presets", "diff", "standard-v1", "calm-v1"]) == 0
    assert "spread_bps" in capsys.readouterr().out


def test_evaluate_prints_the_scorecard_and_writes_byte_stable_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [
        "evaluate",
        "--arms",
        "cash,momentum",
        "--seed",
        "7",
        "--names",
        "10",
        "--days",
        "2",
        "--json",
        str(tmp_path / "card.json"),
    ]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "momentum" in printed and "return %" in printed
    card = json.loads((tmp_path / "card.json").read_text())
    assert [row["arm"] for row in card] == ["cash", "momentum"]
    assert "latency_s" not in card[0]


def test_bad_input_prints_the_error_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--arms", "cash", "--preset", "calmm-v1"]) == 2
    err = capsys.readouterr().err
    assert "unknown preset 'calmm-v1'" in err and "calm-v1" in err
    assert main(["evaluate", "--arms", "cash", "--days", "0"]) == 2
    assert "days must be between 1" in capsys.readouterr().err
