"""Canary sightings in every HTML report and in the panel's status; the panel's leak report."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.report.canaries import TITLE, canary_report_section
from workbench.report.html import render_report
from workbench.widgets import panel
from workbench.widgets._views import RED

BARS = sample_bars(days=40, names=3, seed=2)
NEWS = pd.DataFrame(
    {
        "published": ["2016-02-02T09:00:00-05:00", "2016-02-10T09:00:00-05:00"],
        "symbols": ["ACME", "BOLT"],
        "headline": ["ACME raises outlook", "BOLT cuts outlook"],
        "body": ["", ""],
    }
)
SECRET = "report-canary-secret-0123"


class Quoting(Agent):
    """Writes ``tokens`` (every day) into its rationale: a tool that reads ahead."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.tokens: list[str] = []

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {"actions": [], "rationale": " and ".join(self.tokens)}


def planted(canaries: int = 2) -> Historical:
    return Historical.load(BARS, news=NEWS, secret=SECRET, canaries=canaries)


def test_the_report_names_arm_channel_path_and_the_first_sighting(tmp_path: Path) -> None:
    data = planted()
    news = [c for c in World(data=data).path.text.canaries if c["channel"] == "news"]
    cheat = Quoting("cheat")
    cheat.tokens = [news[0]["token"].replace("-", " ")]
    results = evaluate([cheat, "cash"], data=data)
    page = render_report(results, tmp_path / "r.html").read_text(encoding="utf-8")
    assert f">{TITLE}</h2>" in page
    sightings = news[0]["day"]  # days 0 .. its day - 1
    assert f"{sightings:,} sighting(s) before their day" in page
    row = ["cheat", "news", "rationale", str(sightings), "0", "0", news[0]["token"]]
    assert all(f">{cell}<" in page for cell in row)


def test_an_honest_run_with_canaries_says_none_was_quoted_and_one_without_has_no_section(
    tmp_path: Path,
) -> None:
    honest = evaluate(["cash", "buy_and_hold"], data=planted())
    page = render_report(honest, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "No arm quoted a canary before its day." in page
    assert canary_report_section([evaluate(["cash"], data=BARS, days=5)]) is None


@pytest.mark.slow
def test_the_panel_says_a_run_quoted_canaries_and_writes_the_leak_report(tmp_path: Path) -> None:
    names = tmp_path / "names.csv"
    names.write_text("symbol,name\nACME,Acme Industries\nBOLT,Bolt Systems\n")
    cheat = Quoting("cheat")

    async def go() -> Any:
        built = panel({"cheat": cheat}, out_dir=tmp_path / "out", data=BARS, news=NEWS,
                      company_names=names, canaries=2, seeds="1")  # fmt: skip
        built.arms.value = ("cheat",)
        world = World(data=built.data, days=built.days.value)
        cheat.tokens = [c["token"] for c in world.path.text.canaries]
        await built.start()
        return built

    built = asyncio.run(go())
    (results,) = built.results
    hits = len(results.meta["canary_hits"])
    assert hits and f"{hits:,} canary sighting(s) before their day" in built.status.value
    assert RED in built.status.value  # red, as a failed decision
    folder = tmp_path / "out" / "run-1"
    assert (folder / "text_leaks.csv").exists()
    page = (folder / "report.html").read_text(encoding="utf-8")
    assert ">Text leak report</h2>" in page and f">{TITLE}</h2>" in page


@pytest.mark.slow
def test_an_honest_panel_run_stays_quiet_about_canaries(tmp_path: Path) -> None:
    async def go() -> Any:
        built = panel(out_dir=tmp_path, data=BARS, news=NEWS, canaries=2, seeds="1")
        built.arms.value = ("cash",)
        await built.start()
        return built

    built = asyncio.run(go())
    assert "canary" not in built.status.value and RED not in built.status.value


@pytest.mark.slow
def test_a_panel_run_on_a_bars_file_without_text_writes_its_report_and_no_leak_report(
    tmp_path: Path,
) -> None:
    # bars not loaded (a file, as given) carry no news: no leak report, and no error
    path = tmp_path / "bars.csv"
    BARS.to_csv(path, index=False)

    async def go() -> Any:
        built = panel(out_dir=tmp_path / "out", data=str(path), seeds="1")
        built.arms.value = ("cash",)
        await built.start()
        return built

    built = asyncio.run(go())
    folder = tmp_path / "out" / "run-1"
    assert (folder / "report.html").exists() and not (folder / "text_leaks.csv").exists()
    assert "Text leak report" not in (folder / "report.html").read_text(encoding="utf-8")
    assert built.results
