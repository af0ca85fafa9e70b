"""The contamination audit: the mask holds where it can, and the audit says where it cannot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.cli import main
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError
from workbench.evaluation.contamination import audit

pytestmark = pytest.mark.slow  # every test reads one audit of 120 trials (about ten seconds)


@pytest.fixture(scope="module")
def public() -> pd.DataFrame:
    """The public data set an adversary holds: unmasked bars of names that differ."""
    return sample_bars(days=400, names=6, seed=11)


@pytest.fixture(scope="module")
def masked(public: pd.DataFrame) -> pd.DataFrame:
    return audit(public, days=30, trials=120, seed=1)


@pytest.mark.parametrize("adversary", ["seed_alias", "dollar_volume"])
@pytest.mark.slow
def test_the_seed_and_traded_value_recover_names_at_chance(
    masked: pd.DataFrame, adversary: str
) -> None:
    row = masked.loc[adversary]
    assert row["chance"] == pytest.approx(1 / 6)
    assert abs(row["rate"] - row["chance"]) < 0.06, row.to_dict()  # ~4 sd of 120 guesses
    assert row["p_value"] > 0.01


@pytest.mark.slow
def test_without_the_mask_traded_value_gives_the_names_away(public: pd.DataFrame) -> None:
    raw = audit(public, days=30, trials=20, seed=1, mask=False)
    assert raw.loc["dollar_volume", "rate"] >= 0.8 and raw.loc["dollar_volume", "p_value"] < 0.01


def test_the_audit_reports_what_the_mask_cannot_hide(masked: pd.DataFrame) -> None:
    assert masked.loc["return_match", "rate"] == 1.0
    assert masked.loc["return_match_calendar", "rate"] == 1.0
    assert masked.loc["calendar", "rate"] == 1.0
    assert masked.loc["volatility", "lift"] > 1.5 and masked.loc["volatility", "p_value"] < 0.01
    assert masked.loc["calendar", "chance"] == pytest.approx(1 / (400 - 20 + 1))


@pytest.mark.slow
def test_a_bootstrap_variant_takes_the_calendar_away(public: pd.DataFrame) -> None:
    table = audit(public, days=30, trials=20, seed=1, variant="bootstrap")
    assert table.loc["return_match_calendar", "rate"] <= 0.1
    assert table.loc["calendar", "rate"] <= 0.1


def test_too_little_data_for_an_audit_is_refused(public: pd.DataFrame) -> None:
    with pytest.raises(ConfigError, match="an audit needs pre_days \\+ 20 history \\+ days"):
        audit(public, days=300, pre_days=120)
    with pytest.raises(ConfigError, match="trials must be a whole number >= 1"):
        audit(public, trials=0)


def test_workbench_audit_prints_rates_against_chance(
    tmp_path: Path, public: pd.DataFrame, capsys: pytest.CaptureFixture[str]
) -> None:
    source, table = tmp_path / "bars.csv", tmp_path / "audit.csv"
    public.to_csv(source, index=False)
    argv = ["audit", str(source), "--days", "20", "--trials", "5", "--csv", str(table)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("5 runs of 20 days, real path, masked")
    assert "dollar_volume" in printed and "chance" in printed
    written = pd.read_csv(table, index_col="adversary")
    assert np.isclose(written.loc["return_match", "rate"], 1.0)


@pytest.mark.slow
def test_the_audit_is_a_section_of_the_report(tmp_path: Path, masked: pd.DataFrame) -> None:
    from workbench import evaluate
    from workbench.evaluation.contamination import audit_section
    from workbench.report import render_report

    results = evaluate(["cash"], seed=1, universe=3, days=2)
    page = render_report(results, tmp_path / "report.html", sections=audit_section(masked))
    text = page.read_text()
    assert ">Contamination audit</h2>" in text and "dollar_<wbr>volume" in text  # labels wrap
