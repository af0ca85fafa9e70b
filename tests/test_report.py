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
from workbench.report.plots import busiest_symbol

ARMS = ["cash", "buy_and_hold", "momentum", "random"]


@pytest.fixture(scope="module")
def runs():
    return [evaluate(ARMS, seed=seed, universe=12, days=4) for seed in (3, 4, 5)]


def test_html_report_is_self_contained_and_shows_every_arm(runs, tmp_path):
    path = render_report(runs[0], tmp_path / "report.html")
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "nothing may be fetched"
    assert text.count('src="data:image/png;base64,') == 3  # equity, drawdown, orders
    assert 'class="dataframe scorecard"' in text
    for arm in ARMS:
        assert f"<th>{arm}</th>" in text
    assert runs[0].digest() in text


def test_the_dict_form_renders_the_same_bytes(runs, tmp_path):
    from_object = render_report(runs[0], tmp_path / "a.html").read_bytes()
    from_dict = render_report(runs[0].to_dict(), tmp_path / "b.html").read_bytes()
    assert from_object == from_dict
    assert as_results(runs[0].to_dict()).digest() == runs[0].digest()


def test_several_seeds_add_the_distribution_and_the_comparison(runs, tmp_path):
    from workbench.evaluation.compare import paired_comparison

    table = paired_comparison(runs, "buy_and_hold")
    text = render_report(runs, tmp_path / "r.html", comparison=table).read_text()
    assert "Return % by seed" in text and "Paired comparison" in text
    assert 'class="plot-returns_by_seed"' in text
    by_seed = returns_by_seed(runs)
    assert list(by_seed.index) == [3, 4, 5] and list(by_seed.columns) == ARMS
    assert by_seed.loc[4, "momentum"] == runs[1].scorecard.loc["momentum", "return_pct"]


def test_write_outputs_leaves_tables_parquet_plots_and_report(runs, tmp_path):
    paths = write_outputs(runs[0], tmp_path / "out")
    for name in ("scorecard.csv", "scorecard.parquet", "equity.parquet", "report.html"):
        assert (tmp_path / "out" / name).is_file(), name
    for stem in ("equity", "drawdown", "orders"):
        assert paths[f"{stem}_png"].read_bytes().startswith(b"\x89PNG")
    card = pd.read_parquet(paths["scorecard_parquet"])
    pd.testing.assert_frame_equal(card, runs[0].scorecard)
    equity = pd.read_parquet(paths["equity"])
    np.testing.assert_array_equal(equity.to_numpy(), runs[0].equity.to_numpy())


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


def test_the_report_shows_the_tearsheet_and_the_glossary_text_of_its_columns(runs, tmp_path):
    from workbench.evaluation.compare import paired_comparison
    from workbench.services.glossary import definition

    table = paired_comparison(runs, "buy_and_hold")
    text = render_report(runs, tmp_path / "r.html", comparison=table).read_text()
    assert 'class="dataframe tearsheet"' in text and "<h2>Definitions</h2>" in text
    for column in ("sharpe", "sortino", "information_ratio", "dsr", "trials"):
        assert f"<dt>{column}</dt><dd>{html.escape(definition(column))}</dd>" in text
