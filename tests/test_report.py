"""The report renderer: plots, the self-contained HTML file and a run's output folder."""

from __future__ import annotations

import html
import re

import numpy as np
import pandas as pd
import pytest

from workbench.errors import ConfigError
from workbench.evaluation import World, evaluate
from workbench.report import (
    as_results,
    drawdown_table,
    render_report,
    returns_by_seed,
    save_equity_plot,
    write_outputs,
)
from workbench.report._data import price_path
from workbench.report._format import breakable
from workbench.report.plots import busiest_symbol

ARMS = ["cash", "buy_and_hold", "momentum", "random"]


@pytest.fixture(scope="module")
def runs():
    return [evaluate(ARMS, seed=seed, universe=12, days=4) for seed in (3, 4, 5)]


@pytest.mark.slow
def test_html_report_is_self_contained_and_shows_every_arm(runs, tmp_path, static_charts):
    path = render_report(runs[0], tmp_path / "report.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "nothing may be fetched"
    # without plotly: equity, return distribution, orders, attribution and the news timeline
    # (the default market publishes news) as PNG; the underwater plot, cumulative returns
    # and activity as inline SVG (4 days: too short for rolling risk)
    assert text.count('src="data:image/png;base64,') == 5
    assert text.count('<svg class="chart"') == 1 + 2 + 3
    assert 'class="readable key-metrics key-return"' in text
    for arm in ARMS:
        assert f"<th>{breakable(arm)}</th>" in text
    assert runs[0].digest() in text


@pytest.mark.slow
def test_the_dict_form_renders_the_same_bytes(runs, tmp_path):
    from_object = render_report(runs[0], tmp_path / "a.html").read_bytes()
    from_dict = render_report(runs[0].to_dict(), tmp_path / "b.html").read_bytes()
    assert from_object == from_dict
    assert as_results(runs[0].to_dict()).digest() == runs[0].digest()


@pytest.mark.slow
def test_several_seeds_add_the_distribution_and_the_comparison(runs, tmp_path):
    from workbench.evaluation.compare import paired_comparison

    table = paired_comparison(runs, "buy_and_hold")
    text = render_report(runs, tmp_path / "r.html", comparison=table).read_text()
    assert "Return % by seed" in text and "Paired comparison" in text
    assert "Key metrics (mean over 3 seeds)" in text
    assert 'id="chart-returns_by_seed"' in text
    assert 'title="Mean over seeds of the arm' in text  # comparison columns are defined too
    by_seed = returns_by_seed(runs)
    assert list(by_seed.index) == [3, 4, 5] and list(by_seed.columns) == ARMS
    assert by_seed.loc[4, "momentum"] == runs[1].scorecard.loc["momentum", "return_pct"]


@pytest.mark.slow
def test_write_outputs_leaves_tables_parquet_plots_and_report(runs, tmp_path):
    paths = write_outputs(runs[0], tmp_path / "out")
    for name in ("scorecard.csv", "scorecard.parquet", "equity.parquet", "report.html"):
        assert (tmp_path / "out" / name).is_file(), name
    assert paths["equity_png"].read_bytes().startswith(b"\x89PNG")
    assert "orders_png" not in paths  # the report draws the orders itself
    for stem in ("underwater_1", "cumulative_returns_1", "activity_3"):
        assert paths[f"{stem}_svg"].read_text().startswith('<svg class="chart"')
    card = pd.read_parquet(paths["scorecard_parquet"])
    pd.testing.assert_frame_equal(card, runs[0].scorecard)
    equity = pd.read_parquet(paths["equity"])
    np.testing.assert_array_equal(equity.to_numpy(), runs[0].equity.to_numpy())


@pytest.mark.slow
def test_without_plotly_write_outputs_leaves_every_plot_as_png(runs, tmp_path, static_charts):
    paths = write_outputs(runs, tmp_path / "out")
    for stem in ("equity", "orders", "attribution", "return_distribution", "returns_by_seed"):
        assert paths[f"{stem}_png"].read_bytes().startswith(b"\x89PNG"), stem
    text = paths["report"].read_text()
    assert 'class="plot-orders"' in text and 'class="plot-attribution"' in text


@pytest.mark.slow
def test_plots_are_the_same_bytes_every_time(runs, tmp_path):
    first = save_equity_plot(runs[0], tmp_path / "a.png").read_bytes()
    again = save_equity_plot(runs[0], tmp_path / "b.png").read_bytes()
    assert first == again


def test_drawdown_is_the_fall_from_the_running_peak():
    results = evaluate(["cash"], seed=1, universe=3, days=1)
    results.equity = pd.DataFrame({"x": [100.0, 120.0, 90.0, 130.0, 117.0]})
    table = drawdown_table(results)
    np.testing.assert_allclose(table["x"], [0.0, 0.0, -25.0, 0.0, -10.0])


def test_orders_are_drawn_on_the_rebuilt_price_of_the_busiest_symbol(runs):
    results = runs[0]
    symbol = busiest_symbol(results)
    assert symbol in results.meta["symbols"]
    prices = price_path(results.meta, symbol)
    world = World(seed=3, universe=12, days=4)
    column = list(world.universe.symbols).index(symbol)
    first = world.path.warmup_steps
    expected = world.path.close[first : first + world.trading_steps, column]
    np.testing.assert_array_equal(prices, expected)


def test_a_report_of_something_else_says_what_it_needs(tmp_path):
    with pytest.raises(ConfigError, match="Results object"):
        render_report(42, tmp_path / "x.html")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="empty list"):
        render_report([], tmp_path / "x.html")


# --- the tearsheet -------------------------------------------------------------------------
@pytest.mark.slow
def test_the_header_says_where_the_numbers_come_from(runs, tmp_path):
    from workbench import __version__

    about = {"mode": "replay", "recording digest": "abc123"}
    text = render_report(runs, tmp_path / "r.html", about=about).read_text()
    header = text.split('<table class="provenance">')[1].split("</table>")[0]
    for fact in ("workbench", __version__, "standard-v4", "3, 4, 5", "6 decision steps/day"):
        assert fact in header, fact
    assert "<th>mode</th><td>replay</td>" in header and "abc123" in header
    assert runs[0].digest() in header


@pytest.mark.slow
def test_key_metrics_carry_the_glossary_definitions(runs, tmp_path):
    from workbench.services.glossary import METRICS

    text = render_report(runs[0], tmp_path / "r.html").read_text()
    definition = html.escape(METRICS["sharpe"][0])
    assert f'title="{definition}' in text  # hover on the header
    assert f"<li><b>sharpe</b>: {definition}" in text  # and a numbered definition below


def test_key_metrics_use_the_tearsheet_when_results_have_one(runs):
    from workbench.report import key_metrics

    class WithTearsheet(type(runs[0])):
        def tearsheet(self, benchmark=None):
            return pd.DataFrame({"cagr_pct": 1.5}, index=self.scorecard.index)

    plain = key_metrics(runs[0])
    assert "cagr_pct" not in plain and list(plain.index) == ARMS
    richer = WithTearsheet(**{k: getattr(runs[0], k) for k in runs[0].__dataclass_fields__})
    table = key_metrics(richer)
    assert table["cagr_pct"].eq(1.5).all() and "trades" in table and "errors" in table


def test_equity_and_drawdown_draw_each_arm_as_a_seed_mean_over_the_range(runs):
    from workbench.report import drawdown_figure, equity_figure

    for figure, shaded in ((equity_figure(runs), 1), (drawdown_figure(runs), 2)):
        (axis,) = figure.axes
        assert len(axis.lines) == len(ARMS)  # the mean of the seeds, not a line per seed
        # one range band per arm, and the drawdown filled down from zero (underwater)
        assert len(axis.collections) == shaded * len(ARMS)
        assert axis.get_xlabel() == "trading day"
        assert axis.lines[0].get_xdata()[-1] == pytest.approx(4)  # day 3 of 4 closes at x = 4


@pytest.mark.slow
def test_a_historical_run_is_drawn_on_dates_and_names_its_data(tmp_path):
    from workbench.report import equity_figure
    from workbench.report._data import day_axis

    bars = _bars(days=90, symbols=4)
    results = evaluate(["cash", "buy_and_hold", "momentum"], data=bars, seed=2)
    x, label = day_axis(results)
    assert label == "date" and str(x[0].date()) == results.meta["dates"][0]
    assert equity_figure(results).axes[0].get_xlabel() == "date"
    from workbench.report.plots import attribution_figure, orders_figure

    for figure in (orders_figure(results), attribution_figure(results)):
        assert {axis.get_xlabel() for axis in figure.axes} == {"date"}
        assert figure.axes[0].get_xlim()[0] > 10_000  # matplotlib's day numbers of dates
    text = render_report(results, tmp_path / "h.html").read_text()
    assert "data fingerprint" in text and results.meta["preset"] in text
    assert f"({results.meta['dates'][0]} to {results.meta['dates'][-1]})" in text
    assert 'id="rolling-risk"' in text  # 70 traded days: long enough
    rolling = text.split('id="rolling-risk"')[1].split("<h2 ")[0]
    assert '"type":"date"' in rolling and f'"{results.meta["dates"][1][:4]}-' in rolling
    assert price_path(results.meta, results.meta["symbols"][0]) is None  # not re-simulated


def test_rolling_sharpe_is_the_scorecard_sharpe_over_a_window():
    from workbench.evaluation import metrics
    from workbench.report.plots import ROLLING_DAYS, rolling_sharpe_table

    results = evaluate(["buy_and_hold"], seed=3, universe=6, days=45)
    table = rolling_sharpe_table(results)
    daily = metrics.daily_returns(results.equity["buy_and_hold"].to_numpy(), 6)
    window = daily[-ROLLING_DAYS:]
    expected = window.mean() / window.std(ddof=1) * np.sqrt(252)
    assert table["buy_and_hold"].iloc[-1] == pytest.approx(expected, rel=1e-12)
    assert len(table) == 45 - ROLLING_DAYS + 1


@pytest.mark.slow
def test_trades_are_listed_up_to_a_limit_with_the_count(tmp_path):
    from workbench.report._data import trade_list
    from workbench.report.tearsheet import MAX_TRADES

    runs = [evaluate(ARMS, seed=seed, universe=12, days=8) for seed in (3, 4, 5)]
    trades = trade_list(runs)
    assert len(trades) > MAX_TRADES and set(trades["seed"]) == {3, 4, 5}
    text = render_report(runs, tmp_path / "r.html").read_text()
    assert f"Trades ({len(trades):,})" in text
    assert f"Showing the first {MAX_TRADES:,} of {len(trades):,} fills" in text


@pytest.mark.slow
def test_errors_per_arm_and_committee_memos_are_shown(tmp_path):
    from workbench.integrations import callable_agent
    from workbench.report import memos_of

    def broken(payload):
        raise RuntimeError("model said no")

    class Advised:  # stands in for a committee arm's record
        def __init__(self) -> None:
            self.name = "committee"
            self.decision_log = [{"day": 0, "step": 0, "memo": "analyst: buy\ntrader: hold"}]

    results = evaluate([callable_agent(broken, name="flaky", every=1), "cash"], universe=4, days=1)
    text = render_report(results, tmp_path / "e.html", memos=memos_of([Advised()])).read_text()
    assert "Errors per arm (5 failed decisions)" in text
    assert "model said no" in text and "100.00%" in text  # the share of decisions failed
    assert "Committee memos (1)" in text and "analyst: buy\ntrader: hold" in text


def test_tables_are_formatted_for_reading():
    from workbench.report._format import html_table, number

    assert number("return_pct", 1.23456) == "+1.23%"
    assert number("max_drawdown_pct", 12.5) == "12.50%"
    assert number("pnl", -1234567.8) == "-1,234,568"
    assert number("trades", np.int64(12345)) == "12,345"
    assert number("trades", 12.5) == "12.5"  # a mean over seeds
    assert number("sharpe", 0.004567) == "0.00457"
    assert number("p_holm", 0.04) == "0.040"
    words = "FrameworkError: the model " + "said no " * 30
    frame = pd.DataFrame({"trades": [3], "last_error": [words], "digest": ["ab" * 32]})
    table = html_table(frame)
    assert "<td>3</td>" in table and "last_<wbr>error" in table  # headers wrap at underscores
    cut = words[:160].rsplit(" ", 1)[0] + "…"  # long text cut at a word, whole on hover
    assert f'<td class="text" title="{words}">{cut}</td>' in table
    assert f'<td class="text" title="{"ab" * 32}">{"ab" * 6}…</td>' in table


@pytest.mark.slow
def test_the_report_prints_whole(runs, tmp_path):
    text = render_report(runs, tmp_path / "r.html").read_text()
    css = text.split("@media print")[1]
    assert "overflow-wrap: anywhere" in css and "overflow: visible" in css


def _bars(days: int, symbols: int) -> pd.DataFrame:
    dates = pd.bdate_range("2021-01-04", periods=days).strftime("%Y-%m-%d")
    rng = np.random.default_rng(0)
    rows = []
    for s in range(symbols):
        close = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, days)))
        for d, c in zip(dates, close, strict=True):
            rows.append({"date": d, "symbol": f"S{s}", "open": c, "high": c * 1.01,
                         "low": c * 0.99, "close": c, "volume": 1e6})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.slow
def test_the_report_shows_the_tearsheet_and_the_glossary_text_of_its_columns(runs, tmp_path):
    from workbench.evaluation.compare import paired_comparison
    from workbench.services.glossary import definition

    table = paired_comparison(runs, "buy_and_hold")
    text = render_report(runs, tmp_path / "r.html", comparison=table).read_text()
    for column in ("sharpe", "sortino", "information_ratio", "dsr", "trials"):
        assert f"<li><b>{column}</b>: {html.escape(definition(column))}" in text, column


@pytest.mark.slow
def test_the_report_shows_where_the_pnl_came_from(runs, tmp_path):
    from workbench.evaluation import attribution_totals
    from workbench.report.plots import attribution_table

    text = render_report(runs[0], tmp_path / "r.html").read_text()
    assert "P&amp;L by source" in text and 'id="chart-attribution"' in text
    assert 'class="readable attribution"' in text and "exact, from the simulator" in text
    assert 'title="P&amp;L from each held name' in text  # the glossary's selection
    table = attribution_table(runs[0])
    totals = attribution_totals(runs[0].attribution)
    for source in ("market", "selection", "pnl"):
        last = table[source].iloc[-1]
        assert last.to_dict() == pytest.approx(totals[source].to_dict())


@pytest.mark.slow
def test_results_read_back_are_attributed_again_on_the_rebuilt_market(runs, tmp_path):
    from workbench.report._data import attribution_of

    again = attribution_of(as_results(runs[1].to_dict()))
    numbers = [c for c in again.columns if c not in ("arm", "estimated")]
    np.testing.assert_array_equal(again[numbers], runs[1].attribution[numbers])
    several = render_report(runs, tmp_path / "s.html").read_text()
    assert "P&amp;L by source (mean over 3 seeds)" in several


@pytest.mark.slow
def test_a_calendar_with_a_long_hole_or_weekend_bars_is_warned_and_noted(tmp_path):
    from workbench.engine.bars import calendar_notes

    bars = _bars(days=120, symbols=3)
    dates = sorted(bars["date"].unique())
    holed = bars[~bars["date"].isin(dates[80:100])]  # four weeks missing, after the warm-up
    with pytest.warns(UserWarning, match="hole"):
        results = evaluate(["buy_and_hold"], data=holed, seed=1)
    text = render_report(results, tmp_path / "h.html").read_text()
    assert "<th>calendar</th>" in text and "longer than 7 days" in text
    assert calendar_notes(["2024-01-06", "2024-01-08"]) == [
        "1 date(s) fall on a weekend (first 2024-01-06); annualising assumes 252 trading "
        "days a year"
    ]
    assert calendar_notes(dates) == []


@pytest.mark.slow
def test_runs_read_back_rebuild_their_market_once_per_report(tmp_path):
    from workbench.report._data import _world_of

    runs = [evaluate(ARMS, seed=s, universe=6, days=12) for s in range(1, 6)]
    here = render_report(runs, tmp_path / "here.html").read_bytes()
    _world_of.cache_clear()  # five runs, four worlds kept: each is rebuilt once, not per section
    again = render_report([run.to_dict() for run in runs], tmp_path / "again.html").read_bytes()
    assert _world_of.cache_info().misses <= len(runs) + 1  # + the first run's prices, evicted
    assert again == here
