"""The canary audit sees a canary however an agent writes it, and still passes honest text."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import pytest

from workbench import Agent, World, evaluate
from workbench.engine.canaries import FIGURE, Planted, is_figure_code
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import CanaryLeak
from workbench.evaluation.canaries import canary_audit, canary_hits, check_canaries

BARS = sample_bars(days=60, names=3, seed=5)
DATES = sorted(BARS["date"].unique())
SECRET = "forms-secret-0123456789"
NEWS_CANARY = {"channel": "news", "token": "Vexlor-4d7caa3e", "day": 9}
MEMORY_CANARY = {"channel": "memory", "token": "Mnemo-0ed20fd1", "day": 9}


def stamp(row: int) -> str:
    return pd.Timestamp(f"{DATES[row]} 08:00").tz_localize("America/New_York").isoformat()


REPORTS = pd.DataFrame(
    [(stamp(r), s, 1.5 + r / 100) for r in range(4, 60, 15) for s in ("ACME", "BOLT")],
    columns=["published", "symbol", "eps"],
)


def tokens_in(text: str, canaries: list[dict[str, Any]], day: int = 3) -> list[Any]:
    return [hit[5] for hit in canary_hits(canaries, "arm", day, 0, text, "rationale")]


@pytest.mark.parametrize(
    "written",
    [
        "code 4d7caa3e alone",
        "Vexlor 4d7caa3e",
        "Vexlor\u20114d7caa3e",  # a non-breaking hyphen
        "Vex\u200blor-4d7c\u200baa3e",  # zero-width spaces
        "Vexlor\u2013 4D7CAA3E",  # an en dash, upper case
        "Ｖｅｘｌｏｒ－４ｄ７ｃａａ３ｅ",  # full width
        json.dumps("Project Vexlor\u20114d7caa3e"),  # a JSON escape of a non-breaking hyphen
        "[Vexlor-4d7caa3e]",
        "Vexlor4d7caa3e",  # glued to its word
        "project_vexlor4D7CAA3E",
    ],
)
def test_a_news_code_is_caught_however_it_is_written(written: str) -> None:
    assert tokens_in(written, [NEWS_CANARY]) == ["Vexlor-4d7caa3e"]


@pytest.mark.parametrize(
    "written", ["Mnemo 0ed20fd1", "0ED20FD1", "Mnemo\u00ad-0ed20fd1", "Mnemo0ed20fd1"]
)
def test_a_memory_code_is_caught_however_it_is_written(written: str) -> None:
    assert tokens_in(written, [MEMORY_CANARY]) == ["Mnemo-0ed20fd1"]


@pytest.mark.parametrize(
    "written",
    [
        "id 4d7caa3e0 and x4d7caa3e",
        "hash 14d7caa3e",
        "Vexlor-4d7caa3f",
        "day 9 of Vexlor",
        "Vexlorx4d7caa3e",
        "Vexlor4d7caa3e9",
    ],
)
def test_text_that_only_resembles_a_code_is_left_alone(written: str) -> None:
    planted = [NEWS_CANARY, {"channel": "news", "token": "Vexlor-4d7caa3f", "day": 2}]
    assert tokens_in(written, planted) == []


def test_a_canary_seen_on_its_day_or_after_is_no_hit() -> None:
    assert tokens_in("Vexlor 4d7caa3e", [NEWS_CANARY], day=9) == []


def planted(seed: str) -> Planted:
    """One canary per channel on the sample bars, its codes drawn from ``seed``."""
    data = Historical.load(BARS, fundamentals=REPORTS, secret=SECRET, canaries=1)
    assert data.text is not None
    closes = data.text.closes(data.dates)
    return Planted(data.text, closes, {"ACME": "A1", "BOLT": "B1"}, 0, seed)


def canary_figure(seed: str = "s") -> float:
    table = planted(seed).fundamentals()
    assert table is not None
    return float(table[FIGURE].dropna().iloc[0])


@pytest.mark.parametrize(
    "written",
    ["{:.2f}", "{:,.2f}", "{:,.4f}", "{:.1f}", "{:.0f}", "{:_.2f}", "{:,.2f}$", "{:.10f}"],
)
def test_a_figure_is_caught_rounded_and_grouped(written: str) -> None:
    figure = canary_figure()
    canary = {"channel": "fundamentals", "token": f"{figure:.2f}", "day": 9}
    assert tokens_in(f"eps {written.format(figure)}", [canary]) == [canary["token"]]


def test_a_figure_grouped_by_points_or_thin_spaces_is_caught() -> None:
    figure = canary_figure()
    canary = {"channel": "fundamentals", "token": f"{figure:.2f}", "day": 9}
    grouped = f"{figure:,.2f}"
    for written in (grouped.replace(",", "\u2009"), grouped.translate(str.maketrans(",.", ".,"))):
        assert tokens_in(f"revenue {written}", [canary]) == [canary["token"]]


def test_a_figure_of_another_run_is_caught_by_its_digits_and_honest_numbers_are_not() -> None:
    figure, other = canary_figure("s"), canary_figure("another run")
    assert is_figure_code(round(other * 100)) and other != figure
    canary = {"channel": "fundamentals", "token": f"{figure:.2f}", "day": 9}
    hits = canary_hits([canary], "arm", 30, 0, f"filings: eps {other:,.2f}", "rationale")
    assert [hit[3:] for hit in hits] == [["fundamentals", "rationale", f"{other:.2f}", None]]
    honest = f"equity 1000000.00, revenue 12,345,678,901.23, id 19999999999.99, {other + 1:.2f}"
    assert tokens_in(honest, [canary]) == []


def test_a_figure_written_past_its_cents_is_read_as_the_cents_it_rounds_to() -> None:
    """A float written at its binary value (pandas' to_json writes 14390729168.80 as
    14390729168.7999992371): the planted figure is caught before its day, never taken
    for another run's on or after it, and another run's figure is named by its cents."""
    figure, other = canary_figure("s"), canary_figure("another run")
    canary = {"channel": "fundamentals", "token": f"{figure:.2f}", "day": 9}
    for written in (f"{figure:.10f}", f"{figure - 0.004:.3f}", f"{figure + 0.0049:.4f}"):
        assert tokens_in(f"eps {written}", [canary]) == [canary["token"]]
        assert canary_hits([canary], "arm", 9, 0, f"eps {written}", "tool") == []
    hits = canary_hits([canary], "arm", 30, 0, f"filings: eps {other:.10f}", "rationale")
    assert [hit[3:] for hit in hits] == [["fundamentals", "rationale", f"{other:.2f}", None]]
    assert tokens_in(f"eps {figure - 0.006:.3f}", [canary]) == []  # half a cent away


def test_news_and_memory_codes_always_hold_a_letter() -> None:
    seeds = (f"seed {n}" for n in range(400))  # about one first draw in 43 is all digits
    digits_first = next(p for p in map(planted, seeds) if p._code(0, "memory")[:8].isdigit())
    token = digits_first.memory()[0]["token"]
    assert token.startswith("Mnemo-") and not token[len("Mnemo-") :].isdigit()


class FramesQuoter(Agent):
    """Reads the exported fundamentals (real units) with an as-of date ``late`` rows late
    and writes their figures in ``form``."""

    def __init__(self, name: str, data: Historical, late: int, form: str) -> None:
        super().__init__(name)
        feed = World(data=data).path.text
        assert feed is not None and data.text is not None
        self.reports = feed.frames()["fundamentals"]
        self.published = pd.to_datetime(self.reports["published"], utc=True)
        self.closes = data.text.closes(data.dates)
        self.warmup, self.late, self.form = feed.warmup_days, late, form

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        row = min(payload["day"] + self.warmup + self.late, len(self.closes) - 1)
        seen = self.reports[self.published < pd.Timestamp(int(self.closes[row]), tz="UTC")]
        figures = seen.drop(columns=["published", "symbol"]).stack().tolist()
        return {"actions": [], "rationale": " ".join(self.form.format(v) for v in figures)}


@pytest.mark.parametrize("form", ["{}", "{:.2f}", "{:,.2f}"])
def test_the_exported_table_of_a_masked_run_quoted_early_is_caught(form: str) -> None:
    data = Historical.load(BARS, fundamentals=REPORTS, secret=SECRET, canaries=2)
    assert data.mask  # the table is in real units, the payload in masked ones
    honest, cheat = FramesQuoter("honest", data, 0, form), FramesQuoter("cheat", data, 1, form)
    results = evaluate([honest, cheat], data=data)
    hits = canary_audit(results)
    assert set(hits["arm"]) == {"cheat"} and set(hits["channel"]) == {"fundamentals"}
    planted = {c["token"] for c in results.meta["canaries"] if c["channel"] == "fundamentals"}
    assert set(hits["token"]) == planted and len(planted) == 2


def test_a_fundamentals_canary_reads_the_same_in_the_payload_and_the_exported_table() -> None:
    reports = REPORTS.assign(net_margin=0.1)  # a figure the mask keeps as written
    data = Historical.load(BARS, fundamentals=reports, secret=SECRET, canaries=1)
    feed = World(data=data).path.text
    assert feed is not None
    token = next(c["token"] for c in feed.canaries if c["channel"] == "fundamentals")
    exported = feed.frames()["fundamentals"]
    assert f"{exported['net_margin'].max():.2f}" == token and FIGURE not in exported
    masked = [r for r in feed.filings(len(data.dates) - 1) if r["net_margin"] > 1]
    assert [f"{r['net_margin']:.2f}" for r in masked] == [token]


@pytest.mark.filterwarnings(
    "ignore::workbench.engine.textfeed.UnseenTextWarning"
)  # 30 days, on purpose
def test_a_filings_tool_on_a_world_of_other_days_is_caught_by_its_figures() -> None:
    data = Historical.load(BARS, fundamentals=REPORTS, secret=SECRET, canaries=2)
    feed = World(data=data).path.text  # every date; the run trades 30
    assert feed is not None

    class Filings(Agent):
        def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
            reports = feed.filings(payload["day"] + feed.warmup_days)
            return {"actions": [], "rationale": f"{[f'{r}' for r in reports]}"}

    results = evaluate([Filings("tool"), "cash"], data=data, days=30)
    hits = canary_audit(results)
    assert len(hits) and set(hits["channel"]) == {"fundamentals"}
    assert hits["seen_from_day"].isna().all() and set(hits["arm"]) == {"tool"}
    with pytest.raises(CanaryLeak, match=r"'tool' quoted '1\d{10}\.\d\d'.*another run or path"):
        check_canaries(results)
