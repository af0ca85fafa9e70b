"""The CLI is a thin shell: it parses, calls the library and prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from workbench.cli import main


def test_presets_list_show_and_diff(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["presets", "list"]) == 0
    listed = capsys.readouterr().out
    assert "standard-v4  (default)" in listed
    assert "crisis-v1      superseded by crisis-v3 (positive daily skew;" in listed
    assert "\ncrisis-v3\n" in listed
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
        "--universe",
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


def test_a_superseded_preset_runs_with_a_note_naming_its_successor(
    capsys: pytest.CaptureFixture[str],
) -> None:
    small = ["evaluate", "--arms", "cash", "--universe", "3", "--days", "1"]
    assert main([*small, "--preset", "crisis-v1"]) == 0
    note = capsys.readouterr().err
    assert "note: crisis-v1 is superseded by crisis-v3 (positive daily skew;" in note
    assert main([*small, "--preset", "crisis-v3", "--dial", "spread_bps=9"]) == 0
    assert "superseded" not in capsys.readouterr().err


def test_recording_on_a_superseded_preset_notes_it_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["record", str(tmp_path / "r"), "--arms", "cash", "--universe", "3", "--days", "1"]
    assert main([*argv, "--preset", "standard-v2"]) == 0
    assert "note: standard-v2 is superseded by standard-v4" in capsys.readouterr().err


def test_bad_input_prints_the_error_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", "--arms", "cash", "--preset", "calmm-v1"]) == 2
    err = capsys.readouterr().err
    assert "unknown preset 'calmm-v1'" in err and "calm-v1" in err
    assert main(["evaluate", "--arms", "cash", "--days", "0"]) == 2
    assert "days must be between 1" in capsys.readouterr().err


# --- output paths: checked before the run, and a run that cannot be written is kept ---------
SMALL_RUN = ["--arms", "cash,momentum", "--universe", "3", "--days", "1"]


@pytest.fixture
def runs_made(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every call that reaches ``services.evaluate_arms`` (the real one still runs)."""
    import workbench.services as services

    made: list[dict[str, Any]] = []
    real = services.evaluate_arms

    def counted(arms: list[str], **options: Any) -> Any:
        made.append({"arms": arms, **options})
        return real(arms, **options)

    monkeypatch.setattr(services, "evaluate_arms", counted)
    return made


def _bad_paths(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "a-file.txt").write_text("x")
    (tmp_path / "a-folder").mkdir()
    return {
        "file-as-folder": tmp_path / "a-file.txt",
        "under-a-file": tmp_path / "a-file.txt" / "out",
        "unwritable": Path("/proc/workbench-out"),  # not even root can create files in /proc
    }


@pytest.mark.parametrize("case", ["file-as-folder", "under-a-file", "unwritable"])
def test_a_bad_out_folder_is_refused_before_the_run_naming_it(
    case: str,
    tmp_path: Path,
    runs_made: list[dict[str, Any]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _bad_paths(tmp_path)[case]
    assert main(["evaluate", *SMALL_RUN, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"workbench: error: --out {out}: ") and err.count("\n") == 1
    assert runs_made == []  # nothing was computed only to be lost


def test_a_json_path_that_is_a_folder_is_refused_before_the_run(
    tmp_path: Path, runs_made: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _bad_paths(tmp_path)["file-as-folder"].parent / "a-folder"
    assert main(["evaluate", *SMALL_RUN, "--json", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"--json {folder}: is an existing folder" in err
    assert str(folder / "scorecard.json") in err  # the fix, spelt out
    assert runs_made == []


def test_a_run_that_cannot_be_written_after_it_ran_is_kept_and_the_error_says_where(
    tmp_path: Path,
    runs_made: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import workbench.services as services

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    out = tmp_path / "out"
    counted = services.evaluate_arms

    def taken_meanwhile(arms: list[str], **options: Any) -> Any:
        results = counted(arms, **options)
        out.write_text("another program wrote a file here during the run")
        return results

    monkeypatch.setattr(services, "evaluate_arms", taken_meanwhile)
    assert main(["evaluate", *SMALL_RUN, "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"could not write --out {out}" in err and err.count("\n") == 1
    kept = Path(err.split("the computed run is saved in ")[1].strip().rstrip("/"))
    assert kept.is_relative_to(tmp_path / "home" / ".workbench" / "rescued")
    card = json.loads((kept / "scorecard.json").read_text())
    assert [row["arm"] for row in card] == ["cash", "momentum"] and len(runs_made) == 1


# --- every failure is one line -------------------------------------------------------------
def test_errors_of_every_kind_are_one_line_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "broken_agent_mod.py").write_text("def decide(payload)\n    return {}\n")
    cases = [
        (["record", "rec", "--arms", "no_such_agent_mod:decide"], "importing 'no_such_agent_mod'"),
        (["record", "rec", "--arms", "broken_agent_mod:decide"], "SyntaxError"),
        (["record", "a-file/rec", "--arms", "cash"], "a-file is a file"),
        (["audit", "missing-bars.csv", "--trials", "1"], "missing-bars.csv"),
    ]
    (tmp_path / "a-file").write_text("x")
    for argv, said in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("workbench: error: ") and err.count("\n") == 1, err
        assert said in err and "Traceback" not in err


def test_a_bug_is_one_line_that_says_so_and_traceback_shows_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import workbench.services as services

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise KeyError("oops")

    monkeypatch.setattr(services, "list_presets", broken)
    assert main(["presets", "list"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "KeyError" in err and "--traceback" in err
    with pytest.raises(KeyError):
        main(["--traceback", "presets", "list"])


# --- your own agent through the CLI ----------------------------------------------------------
TINY_MARKET = ["--universe", "3", "--days", "2", "--steps-per-day", "2", "--ticks-per-step", "5"]
AGENT_MODULE = """
from workbench.integrations.callable import CallableAgentAdapter

CALLS = []  # one entry per time the agent was asked


def decide(payload):
    CALLS.append(payload["day"])
    symbol = sorted(payload["symbols"])[0]
    return {"actions": [{"symbol": symbol, "side": "buy", "quantity": 1.0}], "rationale": "one"}


def build(**options):
    return CallableAgentAdapter(decide, name="mine", **options)


def two_arguments(payload, extra):
    return {}
"""


@pytest.fixture
def agent_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module of the user's own, beside them in the working folder (not on sys.path)."""
    import os
    import sys
    import uuid

    name = f"my_agent_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(AGENT_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", os.getcwd())])
    return name


def test_record_imports_your_own_module_from_the_working_folder(
    agent_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", "rec", "--arms", f"{agent_module}:build,cash", *TINY_MARKET]) == 0
    out = capsys.readouterr().out
    assert "mine" in out and f"--trust {agent_module}:build" in out  # how to replay it


def test_a_plain_function_of_the_payload_records_and_replays_without_trust(
    agent_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", "rec", "--arms", f"{agent_module}:decide", *TINY_MARKET]) == 0
    capsys.readouterr()
    assert main(["replay", "rec", "--check"]) == 0
    assert "replay matches the recording" in capsys.readouterr().out


def test_an_arm_of_another_shape_is_refused_naming_the_shapes_expected(
    agent_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", "rec", "--arms", f"{agent_module}:two_arguments"]) == 2
    err = capsys.readouterr().err
    assert "two_arguments(payload, extra)" in err and "fn(payload)" in err and "mode" in err
    assert not Path("rec").exists()


def test_your_own_factory_naming_its_arm_replays_once_you_trust_it_on_the_command_line(
    agent_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.recordings import trusted_names

    assert main(["record", "rec", "--arms", f"{agent_module}:build", *TINY_MARKET]) == 0
    capsys.readouterr()
    assert main(["replay", "rec", "--check"]) == 2  # untrusted: refused, saying how to trust
    assert "--trust MODULE:ATTRIBUTE" in capsys.readouterr().err
    assert main(["replay", "rec", "--check", "--trust", f"{agent_module}:build"]) == 0
    assert "replay matches the recording" in capsys.readouterr().out
    assert f"{agent_module}:build" not in trusted_names()  # for that command only


def test_recording_again_into_the_same_folder_is_refused_before_the_run(
    agent_module: str, runs_made: list[dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["record", "rec", "--arms", "cash", *TINY_MARKET]) == 0
    before = Path("rec/manifest.json").read_bytes()
    assert main(["record", "rec", "--arms", "momentum", *TINY_MARKET]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert Path("rec/manifest.json").read_bytes() == before


def test_audit_refuses_a_csv_path_that_is_a_folder_before_auditing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import workbench.evaluation.contamination as contamination

    audits: list[Any] = []
    monkeypatch.setattr(contamination, "audit", lambda *a, **k: audits.append(a))
    bars = Path(__file__).resolve().parents[1] / "notebooks" / "data" / "example_bars.csv"
    assert main(["audit", str(bars), "--trials", "1", "--csv", str(tmp_path)]) == 2
    assert f"--csv {tmp_path}: is an existing folder" in capsys.readouterr().err
    assert audits == []


def test_a_refused_record_folder_asks_the_agent_nothing_and_a_recorded_one_pays_each_call_once(
    agent_module: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    Path("a-file").write_text("x")
    assert main(["record", "a-file/rec", "--arms", f"{agent_module}:decide", *TINY_MARKET]) == 2
    assert agent_module not in sys.modules  # refused before the agent was even imported
    assert main(["record", "rec", "--arms", f"{agent_module}:decide", *TINY_MARKET]) == 0
    made = len(sys.modules[agent_module].CALLS)
    card = json.loads(Path("rec/manifest.json").read_text())["expected"]["scorecard"]
    assert made == 2 and card[0]["model_calls"] == made  # calls paid == calls made


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--embargo", "15min"], "embargo"),
        (["--company-names", "notebooks/data/example_names.csv"], "company_names"),
    ],
)
def test_text_options_without_news_are_refused(
    flags: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bars = Path(__file__).resolve().parents[1] / "notebooks" / "data" / "example_bars.csv"
    argv = ["evaluate", "--data", str(bars), "--days", "3", "--arms", "cash", *flags]
    assert main(argv) != 0
    assert f"{named} apply to news and fundamentals: pass news=" in capsys.readouterr().err


def test_record_help_does_not_offer_data_it_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["record", "--help"])
    text = capsys.readouterr().out
    assert "--data" not in text and "trading days (default" in text
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    assert "with --data every tradable date" in " ".join(capsys.readouterr().out.split())
