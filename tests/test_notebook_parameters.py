"""A parameter a notebook does not declare stops it, however it is run (papermill only warns)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from workbench.errors import ConfigError
from workbench.notebooks import parameters as check
from workbench.notebooks.parameters import assigned_names, refuse_unknown_parameters

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"
DECLARED = 'seed: int = 7  # the market path\ndays: int = 5\nout_dir: str = "out/x"\n'
CHECKS = "from workbench.notebooks import parameters as check\ncheck.refuse_unknown_parameters()"


def test_a_misspelt_injected_parameter_is_refused_naming_the_nearest_one() -> None:
    history = ["", DECLARED, "# Parameters\nsead = 3\nout_dir = 'out/run'\n", CHECKS]
    with pytest.raises(ConfigError, match=r"parameter 'sead'.*Did you mean 'seed'\?"):
        refuse_unknown_parameters(history)


def test_declared_parameters_and_a_notebook_run_by_hand_pass() -> None:
    refuse_unknown_parameters(["", DECLARED, "# Parameters\nseed = 3\ndays = 2\n", CHECKS])
    refuse_unknown_parameters(["", DECLARED, CHECKS])  # JupyterLab: nothing was injected
    refuse_unknown_parameters([])


def test_assigned_names_reads_plain_and_annotated_assignments() -> None:
    assert assigned_names(DECLARED + "x = y = 1\n") == ["seed", "days", "out_dir", "x", "y"]


def _check_cell(name: str) -> str:
    cells = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text(encoding="utf-8"))["cells"]
    (at,) = [i for i, c in enumerate(cells) if "parameters" in c["metadata"].get("tags", [])]
    return "".join(cells[at + 1]["source"])


@pytest.mark.parametrize(
    "name",
    [path.stem for path in sorted(NOTEBOOKS.glob("*.ipynb"))],
)
def test_every_notebook_refuses_unknown_parameters_before_its_other_checks(name: str) -> None:
    code = [line for line in _check_cell(name).splitlines() if line.startswith("check.")]
    assert code and code[0].startswith("check.refuse_unknown_parameters()")


@pytest.mark.slow
def test_papermill_with_a_misspelt_parameter_stops_at_the_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import papermill
    from papermill.exceptions import PapermillExecutionError

    monkeypatch.setenv("PYTHONPATH", str(REPO), prepend=os.pathsep)
    small = {"arms": "cash", "universe": 3, "days": 1, "include_shipped": False}
    with pytest.raises(PapermillExecutionError) as failed:
        papermill.execute_notebook(
            str(NOTEBOOKS / "evaluate.ipynb"),
            str(tmp_path / "evaluate.ipynb"),
            parameters={**small, "sead": 3, "out_dir": str(tmp_path / "out")},
            kernel_name="python3",
            progress_bar=False,
        )
    assert failed.value.ename == "ConfigError"
    assert "parameter 'sead'" in failed.value.evalue and "'seed'" in failed.value.evalue
    assert failed.value.cell_index == 3  # title, parameters, injected parameters, checks
    assert not (tmp_path / "out").exists()


DATA = Path(__file__).resolve().parents[1] / "notebooks" / "data"


def test_news_and_fundamentals_join_the_bars_with_the_clis_checks(tmp_path: Path) -> None:
    bars, news = DATA / "example_bars.csv", DATA / "example_news.csv"
    market = check.market(bars, universe=4, days=5, preset="", news=news)
    assert market["data"].text.news is not None and market["data"].text.fundamentals is None
    undated = tmp_path / "undated.csv"
    undated.write_text("published,symbols,headline,body\n,ACME,ACME news,\n")
    with pytest.raises(ConfigError, match="news row 1 has no publication time"):
        check.market(bars, universe=4, days=5, preset="", news=undated)


def test_text_without_bars_or_a_missing_text_file_is_refused() -> None:
    with pytest.raises(ConfigError, match="parameter 'fundamentals': joins text to historical"):
        check.market(None, universe=4, days=5, preset="", fundamentals=DATA / "example_news.csv")
    with pytest.raises(ConfigError, match=r"parameter 'news': no \.csv or \.parquet file at"):
        check.text_file("news", "no/such/news.csv")
    assert check.text_file("news", "") is None


def test_the_text_options_and_the_cutoff_take_the_clis_checks() -> None:
    bars, news = DATA / "example_bars.csv", DATA / "example_news.csv"
    text = check.text_options(
        company_names=str(DATA / "example_names.csv"), embargo="15min", canaries=2,
        close_time="", timezone="",
    )  # fmt: skip
    assert set(text) == {"company_names", "embargo", "canaries"}
    cutoffs = check.model_cutoff("model_cutoff", "momentum=2016-09-01", ["momentum"])
    market = check.market(
        bars, universe=4, days=5, preset="", news=news, text=text, cutoffs=cutoffs
    )
    assert market["model_cutoff"] == {"momentum": "2016-09-01"}
    assert market["data"].manifest()["text"]["canaries"] == 2
    with pytest.raises(ConfigError, match="embargo"):
        check.market(bars, universe=4, days=5, preset="", news=news, text={"embargo": "15"})
    missing = {"embargo": "", "canaries": 0, "close_time": "", "timezone": ""}
    with pytest.raises(ConfigError, match=r"parameter 'company_names': no \.csv or \.parquet"):
        check.text_options(company_names="no.csv", **missing)
    with pytest.raises(ConfigError, match=r"parameter 'model_cutoff': names \['trend'\]"):
        check.model_cutoff("model_cutoff", "trend=2016-09-01", ["momentum"])
    with pytest.raises(ConfigError, match="model_cutoff of 'momentum' is 'someday', which is no"):
        check.model_cutoff("model_cutoff", "momentum=someday", ["momentum"])
    with pytest.raises(ConfigError, match="parameter 'model_cutoff': model_cutoff splits"):
        check.market(None, universe=4, days=5, preset="", cutoffs=cutoffs)
    for partial in ("2016-9-1", "2016-09", "2016"):
        with pytest.raises(ConfigError, match=f"'momentum' is '{partial}', which is no date"):
            check.model_cutoff("model_cutoff", f"momentum={partial}", ["momentum"])
    with pytest.raises(ConfigError, match="gives 'momentum' two cutoffs"):
        check.model_cutoff("model_cutoff", "momentum=2016-09-01,momentum=2016-10-03", ["momentum"])
    with pytest.raises(ConfigError, match=r"embargo apply to news and fundamentals: pass news="):
        check.market(bars, universe=4, days=5, preset="", text={"embargo": "15min"})


def test_compare_refuses_canaries_and_a_replay_refuses_another_cutoff() -> None:
    check.refuse_canaries_on_variants({"embargo": "15min"})
    with pytest.raises(ConfigError, match="parameter 'canaries': canaries are planted on the real"):
        check.refuse_canaries_on_variants({"canaries": 2})
    recorded = {"model_cutoff": {"trend": "2016-02-04"}}
    check.refuse_other_cutoffs({"trend": "2016-02-04"}, recorded)
    check.refuse_other_cutoffs({}, recorded)
    with pytest.raises(ConfigError, match="'trend' was recorded with 2016-02-04, not 2016-02-05"):
        check.refuse_other_cutoffs({"trend": "2016-02-05"}, recorded)
    with pytest.raises(ConfigError, match="'momentum' was recorded with no cutoff"):
        check.refuse_other_cutoffs({"momentum": "2016-02-05"}, recorded)
