"""The report's interactive charts: plotly specs, one embedded plotly.js, the same bytes in
any process, the static fallback, figures for notebooks, and the decision diff inside."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.report import render_report, write_outputs
from workbench.report._spec import day_labels
from workbench.report.interactive import CHARTS, all_specs, equity_spec, plot
from workbench.report.interactive_figures import picture_specs

ROOT = Path(__file__).resolve().parents[1]
ARMS = ["buy_and_hold", "momentum", "mean_reversion"]
pytest.importorskip("plotly")


@pytest.fixture(scope="module")
def runs():
    return [evaluate(ARMS, seed=s, universe=8, days=45) for s in (1, 2, 3)]


def _specs(text: str) -> dict[str, dict]:
    found = re.findall(r'<script type="application/json" id="chart-(\w+)-spec">(.*?)</script>',
                       text)  # fmt: skip
    return {name: json.loads(body) for name, body in found}


def test_the_report_draws_its_charts_over_time_with_plotly_js_embedded_once(runs, tmp_path):
    text = render_report(runs, tmp_path / "r.html").read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "nothing may be fetched"
    assert text.count('id="workbench-plotly-js"') == 1 and "<script src" not in text
    # the news chart sits in the information section, above the others
    assert list(_specs(text)) == [
        "news", "equity", "underwater", "return_distribution", "cumulative_returns",
        "rolling_risk", "activity", "orders", "attribution", "returns_by_seed",
    ]  # fmt: skip
    assert "<img" not in text  # every picture is interactive: no PNG left
    assert text.count('<svg class="chart"') == 0
    for anchor in ("equity", "underwater", "cumulative-returns", "rolling-risk", "activity"):
        assert f'<h2 id="{anchor}">' in text
    assert len(text.encode()) < 5_000_000


def test_seed_bands_are_a_mean_line_and_a_band_per_arm_toggled_together(runs):
    traces = [t for t in equity_spec(runs)["data"] if t["name"] != "when"]
    assert len(traces) == 3 * len(ARMS)  # floor, ceiling (filled to the floor), mean
    for arm in ARMS:
        mine = [t for t in traces if t["legendgroup"] == arm]
        assert [t.get("fill") for t in mine] == [None, "tonexty", None]
        assert sum(t["showlegend"] for t in mine) == 1  # one legend entry toggles all three
        mean = mine[-1]
        assert mean["meta"] == arm and mean["hovertemplate"].startswith("%{meta}: ")
        assert "seeds" in mean["hovertemplate"]
        low, high = (m[0] for m in mean["customdata"][-1:]), mean["customdata"][-1][1]
        assert next(low) <= mean["y"][-1] <= high


def test_panels_share_the_zoom_and_name_the_day_or_date_on_hover(runs):
    rolling = all_specs(runs)["rolling_risk"]["layout"]
    assert [rolling[f"xaxis{n}"]["matches"] for n in (2, 3, 4)] == ["x", "x", "x"]
    assert rolling["hovermode"] == "x unified"
    when = all_specs(runs)["rolling_risk"]["data"][0]  # an intraday run: a label trace
    assert when["name"] == "when" and when["text"][0].startswith("trading day")


@pytest.fixture(scope="module")
def historical():
    import numpy as np
    import pandas as pd

    dates = pd.bdate_range("2021-01-04", periods=60).strftime("%Y-%m-%d")
    closes = 100 * np.exp(np.cumsum(np.random.default_rng(2).normal(0, 0.01, 60)))
    rows = [
        {"date": d, "symbol": s, "open": c, "high": c, "low": c, "close": c, "volume": 1e6}
        for s in ("A", "B")
        for d, c in zip(dates, closes, strict=True)
    ]
    return evaluate(["buy_and_hold", "momentum"], data=pd.DataFrame(rows), seed=1)


def test_a_historical_run_has_date_axes(historical):
    run = historical
    spec = equity_spec(run)
    assert spec["layout"]["xaxis"]["type"] == "date"
    assert spec["data"][0]["x"][:2] == run.meta["dates"][:2]
    assert spec["layout"]["xaxis"]["unifiedhovertitle"]["text"] == "%{x|%Y-%m-%d}"


@pytest.mark.slow
def test_the_report_is_the_same_bytes_in_another_process(runs, tmp_path):
    here = write_outputs(runs, tmp_path / "here")["report"].read_bytes()
    script = (
        "import sys\nfrom workbench import evaluate\nfrom workbench.report import write_outputs\n"
        f"runs = [evaluate({ARMS!r}, seed=s, universe=8, days=45) for s in (1, 2, 3)]\n"
        "write_outputs(runs, sys.argv[1])\n"
    )
    there = tmp_path / "there"
    empty = tmp_path / "cache"  # plotly.js compressed there, not read from this one's cache
    subprocess.run([sys.executable, "-c", script, str(there)], check=True, cwd=ROOT,
                   env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                        "WORKBENCH_CACHE_DIR": str(empty)})  # fmt: skip
    assert (there / "report.html").read_bytes() == here


def test_without_plotly_the_report_keeps_its_static_charts(runs, tmp_path, static_charts):
    text = render_report(runs, tmp_path / "r.html").read_text()
    assert "workbench-plotly-js" not in text and 'class="plot-equity"' in text
    assert text.count('<svg class="chart"') == 1 + 2 + 4 + 3


def test_plot_gives_a_plotly_figure_for_a_notebook(runs):
    import plotly.graph_objects as go

    figure = plot(runs, "rolling")
    assert isinstance(figure, go.Figure)
    assert {trace.name for trace in figure.data} == {*ARMS, "when"}
    assert isinstance(plot(runs[0]), go.Figure)
    with pytest.raises(ConfigError, match="pick one of equity, underwater"):
        plot(runs, "candles")


def test_hover_names_whole_days_or_the_step_never_a_fraction(runs):
    assert day_labels([1 / 6, 1.0, 2.5, 3.0], 6) == [
        "trading day 0, step 1 of 6", "trading day 0", "trading day 2, step 3 of 6",
        "trading day 2",
    ]  # fmt: skip
    # day d's close is x = d with one step a day, x = d + 1 with more: the same last label
    assert day_labels([0, 59], 1) == day_labels([1, 60], 6) == ["trading day 0", "trading day 59"]
    specs = all_specs(runs)
    for name in ("equity", "underwater"):  # a point per step: a label trace names each
        spec = specs[name]
        assert spec["layout"]["xaxis"]["unifiedhovertitle"]["text"] == " "
        when = spec["data"][0]
        assert when["name"] == "when" and when["showlegend"] is False
        assert when["text"] == day_labels(when["x"], 6) and len(when["x"]) == len(
            spec["data"][1]["x"]
        )
        assert all(re.fullmatch(r"trading day \d+(, step [1-5] of 6)?", t) for t in when["text"])
    for name in ("cumulative_returns", "rolling_risk", "activity", "attribution"):
        spec = {**specs, **picture_specs(runs)}[name]  # whole x, named by the label trace
        assert spec["layout"]["xaxis"]["unifiedhovertitle"]["text"] == " "
        assert all(float(x).is_integer() for t in spec["data"] for x in t["x"] if x is not None)
        assert all(re.fullmatch(r"trading day \d+", t) for t in spec["data"][0]["text"])
    daily = evaluate(ARMS[:1], seed=1, universe=5, days=12, steps_per_day=1)
    title = all_specs(daily)["cumulative_returns"]["layout"]["xaxis"]["unifiedhovertitle"]
    assert title["text"] == "trading day %{x:d}"  # x = d is day d's close


def test_every_other_picture_is_a_plotly_chart_with_hover_and_legend_toggles(runs):
    specs = picture_specs(runs)
    assert list(specs) == [
        "return_distribution",
        "orders",
        "attribution",
        "news",
        "returns_by_seed",
    ]
    days = sum(len(run.equity) // 6 for run in runs)
    for trace in specs["return_distribution"]["data"]:  # every day of every seed, binned once
        assert sum(trace["y"]) == days and "%{customdata}" in trace["hovertemplate"]
        words = dict(zip(trace["y"], trace["customdata"], strict=True))
        assert all(word == ("day" if count == 1 else "days") for count, word in words.items())
    fills = [t for t in specs["orders"]["data"] if t["mode"] == "markers"]
    assert fills and all(re.search(r"(buy|sell)$", t["name"]) for t in fills)
    assert all(label.startswith("trading day ") for t in fills for label, _ in t["customdata"])
    attribution = specs["attribution"]
    assert attribution["layout"]["barmode"] == "relative"  # gains up, losses down
    shown = [t["name"] for t in attribution["data"] if t["showlegend"]]
    assert len(shown) == len(set(shown))  # one legend entry per source toggles every panel
    boxes = specs["returns_by_seed"]["data"]
    assert [b["text"] for b in boxes] == [["seed 1", "seed 2", "seed 3"]] * len(ARMS)
    news = specs["news"]["data"]
    assert {t["name"] for t in news} >= {"noise items", "informative items"}
    assert all(not t.get("text") or "trading day" in t["text"][0] for t in news)


def test_a_historical_run_has_its_orders_and_attribution_on_dates(historical):
    specs = picture_specs(historical)
    for name in ("orders", "attribution"):
        assert specs[name]["layout"]["xaxis"]["type"] == "date", name
        assert specs[name]["data"][0]["x"][0] in historical.meta["dates"]
    fills = [t for t in specs["orders"]["data"] if t["mode"] == "markers"]
    assert all(label in historical.meta["dates"] for t in fills for label, _ in t["customdata"])
    assert "news" not in specs


def test_plot_draws_every_chart_and_names_a_run_with_no_news(runs, historical):
    import plotly.graph_objects as go

    for chart in CHARTS:
        assert isinstance(plot(runs, chart), go.Figure), chart
    with pytest.raises(ConfigError, match="published no news"):
        plot(historical, "news")


def test_an_arm_named_like_markup_leaves_every_chart_script_whole(tmp_path):
    from workbench import baseline

    hostile = "<!--<script>"
    arms = {hostile: baseline("momentum"), "buy_and_hold": baseline("buy_and_hold")}
    run = evaluate(arms, seed=1, universe=6, days=20)
    text = render_report(run, tmp_path / "r.html").read_text()
    bodies = re.findall(r'<script type="application/json" id="chart-\w+-spec">(.*?)</script>',
                        text, re.S)  # fmt: skip
    assert len(bodies) == text.count('<div class="plotly-chart"') > 0
    for body in bodies:  # no "<" at all: a browser cannot read "<!--" or "<script" inside
        assert "<" not in body and ">" not in body and "&" not in body
    assert any(hostile in json.dumps(json.loads(body)) for body in bodies)


def test_arm_names_are_never_read_as_hover_templates_or_markup():
    from workbench import baseline

    template, link = "%{x} pct%{y:.0f}", "<a href='javascript:x'>link</a>"
    arms = {template: baseline("buy_and_hold"), link: baseline("mean_reversion")}
    run = evaluate(arms, seed=1, universe=6, days=20)
    specs = {**all_specs(run), **picture_specs(run)}
    traces = [trace for spec in specs.values() for trace in spec["data"]]
    assert not any(template in trace.get("hovertemplate", "") for trace in traces)
    assert not any(link in trace.get("hovertemplate", "") for trace in traces)
    names = {trace.get("name") for trace in traces}
    assert link not in names and "&lt;a href='javascript:x'&gt;link&lt;/a&gt;" in names
    shown = [trace for trace in traces if trace.get("name") == template]
    assert shown and all(trace["meta"] == template for trace in shown)
