"""``universe`` is the one word for the synthetic market's size; ``names`` is its old name,
kept for one release: it warns, naming ``universe``, and both given is refused. A stored
request keeps the key ``names``, so every stored run keeps its id."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from workbench import services
from workbench.cli import main
from workbench.engine.presets import DEFAULT_PRESET
from workbench.errors import ConfigError
from workbench.evaluation import World, evaluate
from workbench.services.evaluation import MarketRequest
from workbench.services.store import RunStore, request_digest

# Ids the version before the rename gave these requests (it spelled them names=4, names=3).
OLD_EVALUATION_ID = "evaluation-4641443d8b69"
EVALUATION = {"arms": ["cash", "momentum"], "seed": 3, "days": 2}
OLD_FORM = {
    "arms": ["cash", "momentum"],
    "seed": 3,
    "preset": None,
    "names": 4,
    "days": 2,
    "steps_per_day": 6,
    "ticks_per_step": 65,
    "capital": 1_000_000.0,
    "leverage_cap": 2.0,
    "fee_bps": 0.5,
}


def test_a_request_keeps_the_stored_form_it_had_before_the_rename(tmp_path: Path) -> None:
    assert f"evaluation-{request_digest('evaluation', OLD_FORM)[:12]}" == OLD_EVALUATION_ID
    answer = services.run_evaluation(tmp_path, **EVALUATION, universe=4)
    stored = RunStore.open(tmp_path).manifest(answer["run_id"])["request"]
    # the stored form still says names; a request naming no preset now stores the default
    # by name (tests/test_store_default_preset.py), so its id is that form's digest
    assert stored == OLD_FORM | {"preset": DEFAULT_PRESET}
    assert answer["run_id"] == f"evaluation-{request_digest('evaluation', stored)[:12]}"
    compared = services.compare_runs(
        tmp_path, ["cash", "momentum"], "cash", [1, 2], universe=3, days=1
    )
    request = RunStore.open(tmp_path).manifest(compared["run_id"])["request"]
    assert request["names"] == 3 and "universe" not in request
    assert compared["run_id"] == f"comparison-{request_digest('comparison', request)[:12]}"


def test_the_old_keyword_warns_naming_the_new_one_and_reuses_the_same_run(tmp_path: Path) -> None:
    first = services.run_evaluation(tmp_path, **EVALUATION, universe=4)
    with pytest.warns(
        DeprecationWarning, match=r"run_evaluation\(names=\.\.\.\) is deprecated: pass universe="
    ):
        again = services.run_evaluation(tmp_path, **EVALUATION, names=4)
    assert again["run_id"] == first["run_id"] and again["reused"]


def test_both_keywords_are_refused_before_the_store_is_touched(tmp_path: Path) -> None:
    refusal = r"got universe= and names=; pass universe= only \(names= is its old name\)"
    with pytest.raises(ConfigError, match=refusal):
        services.run_evaluation(tmp_path, ["cash"], universe=4, names=4)
    with pytest.raises(ConfigError, match=refusal):
        services.compare_runs(tmp_path, ["cash", "momentum"], "cash", [1], universe=3, names=3)
    with pytest.raises(ConfigError, match=refusal):
        services.evaluate_arms(["cash"], universe=3, names=3, days=1)
    assert list(tmp_path.iterdir()) == []


def test_evaluate_arms_takes_the_old_keyword_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match=r"evaluate_arms\(names=\.\.\.\)"):
        old = services.evaluate_arms(["cash", "momentum"], names=3, days=1)
    new = services.evaluate_arms(["cash", "momentum"], universe=3, days=1)
    assert old.digest() == new.digest() and new.meta["names"] == 3


def test_a_stored_run_is_read_back_into_the_market_it_ran_on(tmp_path: Path) -> None:
    answer = services.run_evaluation(tmp_path, **EVALUATION, universe=4)
    request = RunStore.open(tmp_path).manifest(answer["run_id"])["request"]
    market = MarketRequest.from_stored(request)
    assert market == MarketRequest(universe=4, days=2)
    assert market.stored() == {k: request[k] for k in market.stored()}


def test_the_cli_takes_universe_and_warns_on_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cards = []
    for flag in ("--universe", "--names"):
        out = tmp_path / f"{flag[2:]}.json"
        argv = ["evaluate", "--arms", "cash,momentum", flag, "3", "--days", "1", "--json", str(out)]
        assert main(argv) == 0
        cards.append(json.loads(out.read_text()))
    err = capsys.readouterr().err
    assert err.count("--names is deprecated: pass --universe") == 1
    assert cards[0] == cards[1]


def test_the_cli_refuses_both_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    both = ["--universe", "3", "--names", "3", "--days", "1"]
    assert main(["evaluate", "--arms", "cash", *both]) == 2
    assert main(["record", str(tmp_path / "rec"), "--arms", "momentum", *both]) == 2
    err = capsys.readouterr().err
    assert err.count("--universe and --names both given; pass --universe only") == 2
    assert not (tmp_path / "rec" / "manifest.json").exists()


def test_the_panel_takes_universe_and_warns_on_names(tmp_path: Path) -> None:
    pytest.importorskip("ipywidgets")
    from workbench.widgets import panel

    assert panel(out_dir=tmp_path, days=1, universe=4).controls.names.value == 4
    with pytest.warns(DeprecationWarning, match=r"ExperimentPanel\(names=\.\.\.\) is deprecated"):
        assert panel(out_dir=tmp_path, days=1, names=5).controls.names.value == 5
    with pytest.raises(ConfigError, match="pass universe= only"):
        panel(out_dir=tmp_path, universe=3, names=3)


def test_a_notebook_check_takes_universe_and_warns_on_names() -> None:
    from workbench.notebooks import parameters as check

    declared = "universe: int = 8\nnames: int = 0\n"
    assert check.universe(8, 0, cells=[declared]) == check.universe(8, None) == 8
    injected = [declared, "# Parameters\nnames = 5\n"]
    with pytest.warns(DeprecationWarning, match="parameter 'names' is deprecated: pass universe"):
        assert check.universe(8, 5, cells=injected) == 5
    with pytest.raises(ConfigError, match="parameter 'names': is the old name of universe"):
        check.universe(6, 5, cells=[declared, "# Parameters\nuniverse = 6\nnames = 5\n"])


@pytest.mark.slow
def test_papermill_given_universe_and_names_stops_at_the_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import papermill
    from papermill.exceptions import PapermillExecutionError

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]), prepend=os.pathsep)
    notebook = Path(__file__).resolve().parents[1] / "notebooks" / "evaluate.ipynb"
    both = {"arms": "cash", "universe": 3, "names": 3, "days": 1, "include_shipped": False}
    with pytest.raises(PapermillExecutionError) as failed:
        papermill.execute_notebook(
            str(notebook),
            str(tmp_path / "evaluate.ipynb"),
            parameters={**both, "out_dir": str(tmp_path / "out")},
            kernel_name="python3",
            progress_bar=False,
        )
    assert failed.value.ename == "ConfigError" and "both were given" in failed.value.evalue
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
def test_papermill_given_the_old_names_runs_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import papermill

    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]), prepend=os.pathsep)
    notebook = Path(__file__).resolve().parents[1] / "notebooks" / "evaluate.ipynb"
    old = {"arms": "cash", "names": 3, "days": 1, "include_shipped": False}
    ran = papermill.execute_notebook(
        str(notebook),
        str(tmp_path / "evaluate.ipynb"),
        parameters={**old, "out_dir": str(tmp_path / "out")},
        kernel_name="python3",
        progress_bar=False,
    )
    said = json.dumps([cell.get("outputs", []) for cell in ran.cells])
    assert "parameter 'names' is deprecated: pass universe" in said
    assert json.loads((tmp_path / "out" / "results.json").read_text())["meta"]["names"] == 3


def test_a_market_request_takes_and_reads_the_old_name_with_a_warning(tmp_path: Path) -> None:
    with pytest.warns(DeprecationWarning, match=r"MarketRequest\(names=\.\.\.\).*pass universe="):
        old = MarketRequest(names=4, days=2)
    assert old == MarketRequest(universe=4, days=2) and old.stored()["names"] == 4
    with pytest.warns(DeprecationWarning, match="MarketRequest.names is deprecated: read universe"):
        assert old.names == 4
    with pytest.raises(ConfigError, match="pass universe= only"):
        MarketRequest(universe=4, names=4)
    assert MarketRequest().universe == MarketRequest.universe


def test_a_notebook_written_before_the_rename_gets_its_market_with_a_warning() -> None:
    from workbench.notebooks import parameters as check

    with pytest.warns(DeprecationWarning, match=r"market\(names=\.\.\.\) is deprecated"):
        old = check.market(None, names=5, days=2, preset="")
    assert old == check.market(None, universe=5, days=2, preset="")
    assert old["universe"] == 5
    with pytest.raises(ConfigError, match="pass universe= only"):
        check.market(None, universe=5, names=5, days=2, preset="")


def test_notebook_run_warns_on_the_old_parameter_before_any_kernel_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.notebooks import runner

    received: list[dict[str, object]] = []

    def run(notebook: Path, out: Path, parameters: dict[str, object], **_: object) -> object:
        received.append(parameters)
        job = runner.NotebookJob(Path(notebook), parameters, Path(out), "evaluate")
        return runner.RunOutcome(job=job, status="ok", seconds=0.0)

    monkeypatch.setattr(runner, "run_notebook", run)
    argv = ["notebook", "run", "notebooks/evaluate.ipynb", "-p", "names", "5", "--out"]
    assert main([*argv, str(tmp_path / "old")]) == 0
    assert "-p names is deprecated: pass -p universe" in capsys.readouterr().err
    assert received == [{"names": 5}]
    assert main([*argv, str(tmp_path / "both"), "-p", "universe", "5"]) == 2
    assert "-p universe and -p names both given" in capsys.readouterr().err
    assert len(received) == 1


def test_the_panel_labels_its_size_box_universe_and_keeps_the_old_attribute(
    tmp_path: Path,
) -> None:
    pytest.importorskip("ipywidgets")
    from workbench.widgets import panel

    built = panel(out_dir=tmp_path, days=1, universe=4)
    assert built.controls.universe.description == "universe"
    assert built.universe is built.names is built.controls.names is built.controls.universe
    built.controls.universe.value = 0
    with pytest.raises(ConfigError, match="universe must be between 1 and 5,000, got 0"):
        built.controls.settings()


@pytest.mark.parametrize(
    "call",
    [
        lambda: services.evaluate_arms(["cash"], universe=0, days=1),
        lambda: World(seed=1, universe=0),
    ],
)
def test_a_universe_out_of_range_is_named_universe(call: Callable[[], object]) -> None:
    with pytest.raises(ConfigError, match="universe must be between 1 and 5000 synthetic names"):
        call()


def test_the_old_keyword_on_the_simulator_points_to_universe_and_to_the_historical_map() -> None:
    pointer = r"names= is the old name of universe=; pass universe=.*Historical.load"
    with pytest.raises(ConfigError, match=pointer):
        World(seed=1, names=5)  # type: ignore[call-arg]
    with pytest.raises(ConfigError, match=pointer):
        evaluate(["cash"], names=5, days=1)  # type: ignore[call-arg]
