"""The report's information section: drawn for a market that publishes news, absent otherwise."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from workbench.engine.presets import preset
from workbench.evaluation import evaluate
from workbench.report import render_report, write_outputs
from workbench.report._format import breakable, number
from workbench.report.information import item_counts, most_read_symbol, news_figure
from workbench.report.plots import NEWS_FIGURE, all_figures

ARMS = ["buy_and_hold", "headline_sentiment", "earnings_drift"]
INJECTING = preset("standard-v2").with_dials(injection_rate=0.3)


@pytest.fixture(scope="module")
def news_run():
    return evaluate(ARMS, preset=INJECTING, seed=2, universe=8, days=30)


def _section(text: str, anchor: str) -> str:
    start = text.index(f'<h2 id="{anchor}">')
    end = text.find("<h2 ", start + 1)
    return text[start : end if end > 0 else len(text)]


@pytest.mark.slow
def test_a_news_run_has_an_information_section_with_capture_items_and_the_news_plot(
    news_run, tmp_path
):
    text = render_report(news_run, tmp_path / "r.html").read_text(encoding="utf-8")
    section = _section(text, "information")
    card = news_run.scorecard
    for arm in ARMS:
        row = re.search(rf"<tr><th>{breakable(arm)}</th>(.*?)</tr>", section)
        assert row is not None, arm
        cells = re.findall(r"<td>(.*?)</td>", row.group(1))
        want = [number(c, card.loc[arm, c]) for c in ("news_pnl", "info_capture")]
        assert cells[:2] == [html.escape(w) for w in want]
        assert cells[2] == number("injected_followed", card.loc[arm, "injected_followed"])
    items = news_run.information
    total = re.search(r"<tr><th>all kinds</th>(.*?)</tr>", section)
    assert total is not None
    informative, noise, injected, every = map(int, re.findall(r"<td>(\d+)</td>", total.group(1)))
    assert every == len(items) and injected == int(items["injected"].sum()) > 0
    assert informative == int((items["informative"] & ~items["injected"]).sum())
    assert informative + noise + injected == every
    assert section.count(f'id="chart-{NEWS_FIGURE}"') == 1
    assert text.count(f'id="chart-{NEWS_FIGURE}"') == 1  # not repeated among the plots


def test_without_plotly_the_news_plot_is_an_image_in_the_section(news_run, tmp_path, static_charts):
    text = render_report(news_run, tmp_path / "r.html").read_text(encoding="utf-8")
    assert _section(text, "information").count(f'class="plot-{NEWS_FIGURE}"') == 1
    assert text.count(f'class="plot-{NEWS_FIGURE}"') == 1


@pytest.mark.slow
def test_the_dict_form_of_a_news_run_renders_the_same_report(news_run, tmp_path):
    from_object = render_report(news_run, tmp_path / "a.html").read_bytes()
    from_dict = render_report(news_run.to_dict(), tmp_path / "b.html").read_bytes()
    assert from_object == from_dict  # the information is rebuilt from the meta's market


@pytest.mark.slow
def test_a_price_only_report_has_no_information_section_and_no_news_plot(tmp_path):
    run = evaluate(["buy_and_hold", "momentum"], preset="standard-v1", seed=2, universe=8, days=30)
    assert run.information.empty
    assert list(all_figures(run)) == [
        "equity", "return_distribution", "orders", "attribution",
    ]  # fmt: skip
    text = render_report(run, tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="information"' not in text and "plot-news" not in text
    assert "news_pnl" not in text and "info_capture" not in text
    assert "information" not in write_outputs(run, tmp_path / "out")


@pytest.mark.slow
def test_several_seeds_average_the_capture_and_count_every_seeds_items(tmp_path):
    runs = [evaluate(ARMS, preset="standard-v2", seed=s, universe=6, days=20) for s in (1, 2)]
    text = render_report(runs, tmp_path / "r.html").read_text(encoding="utf-8")
    section = _section(text, "information")
    assert '<h2 id="information">Information (mean over 2 seeds)</h2>' in text
    mean = np.mean([r.scorecard.loc["headline_sentiment", "news_pnl"] for r in runs])
    label = breakable("headline_sentiment")
    assert f"<th>{label}</th><td>{number('news_pnl', mean)}</td>" in section
    counts = item_counts([r.information for r in runs])
    assert counts.loc["all kinds", "total"] == sum(len(r.information) for r in runs)
    assert "Items by kind over 2 seeds" in section


def test_the_news_plot_marks_every_item_on_its_symbol_where_it_was_released(news_run):
    items = news_run.information
    symbol = most_read_symbol(items)
    assert symbol is not None
    figure = news_figure(news_run, items)
    price_axis = figure.axes[0]
    assert price_axis.get_ylabel() == f"{symbol} close"
    marked = sum(len(c.get_offsets()) for c in price_axis.collections)
    steps = int(news_run.meta["steps_per_day"])
    concerning = items[items["symbols"].str.split(",").apply(lambda names: symbol in names)]
    inside = concerning["day"] * steps + concerning["step"] < news_run.meta["days"] * steps
    assert marked == int(inside.sum()) > 0


@pytest.mark.slow
def test_write_outputs_leaves_the_items_and_a_report_with_the_news(news_run, tmp_path):
    paths = write_outputs(news_run, tmp_path / "out")
    assert f"{NEWS_FIGURE}_png" not in paths  # drawn by the report itself
    pd.testing.assert_frame_equal(pd.read_parquet(paths["information"]), news_run.information)
    assert 'id="information"' in paths["report"].read_text(encoding="utf-8")
