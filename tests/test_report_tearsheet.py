"""The report's full tearsheet: every section and chart, tables that fit, formats by kind,
the notebook Styler, and charts that are the same bytes in any process."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from workbench import evaluate
from workbench.report import readable, render_report, write_outputs
from workbench.report.charts_over_time import all_charts
from workbench.report.tearsheet import KEY_GROUPS

ARMS = ["buy_and_hold", "momentum", "mean_reversion"]


@pytest.fixture(scope="module")
def runs():
    return [evaluate(ARMS, seed=s, universe=8, days=45) for s in (1, 2, 3)]


def _section(text: str, anchor: str) -> str:
    return text.split(f'<h2 id="{anchor}">')[1].split("<h2 ")[0]


@pytest.mark.slow
def test_a_three_seed_report_has_every_item_of_the_tearsheet(runs, tmp_path, static_charts):
    text = render_report(runs, tmp_path / "r.html").read_text()
    for anchor in (
        "key-metrics", "headline-metrics", "returns-by-month-and-year", "worst-drawdowns",
        "equity", "underwater", "return-distribution", "cumulative-returns", "rolling-risk",
        "activity", "orders", "attribution", "trades", "errors-per-arm",
    ):  # fmt: skip
        assert f'<h2 id="{anchor}">' in text, anchor
    risk = _section(text, "key-metrics")
    for column in ("var_95_pct", "cvar_95_pct", "skew", "kurtosis", "best_day_pct"):
        assert f"<b>{column}</b>" in risk, column  # defined under the table
    assert "historical value at risk at 95 %" in risk.lower()
    assert "[" in _section(text, "headline-metrics") and "95 % Student-t" in text
    assert "trading months of 21 day returns" in _section(text, "returns-by-month-and-year")
    assert "not recovered" in text or "days_under_water" in text
    assert 'class="area"' in _section(text, "underwater")  # filled, not only a line
    assert _section(text, "rolling-risk").count('<svg class="chart"') == 4
    assert "Volatility-matched, log scale" in _section(text, "cumulative-returns")
    assert _section(text, "activity").count('<svg class="chart"') == 3


@pytest.mark.slow
def test_key_metrics_come_in_groups_narrow_enough_to_fit(runs, tmp_path):
    text = render_report(runs, tmp_path / "r.html").read_text()
    tables = re.findall(r'<table class="readable key-metrics[^"]*">.*?</table>', text, re.S)
    assert len(tables) == len(KEY_GROUPS)
    for table in tables:
        header = table.split("</thead>")[0]
        assert len(re.findall(r"<th[ >]", header)) <= 9  # the arm and at most eight metrics
        assert "_<wbr>" in header  # long names may wrap at their underscores
    for group in KEY_GROUPS.values():
        assert len(group) <= 8


@pytest.mark.slow
def test_one_run_has_no_spread_and_a_historical_run_uses_calendar_months(tmp_path):
    dates = pd.bdate_range("2021-01-04", periods=80).strftime("%Y-%m-%d")
    rng = np.random.default_rng(3)
    rows = []
    for s in range(3):
        closes = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, 80)))
        for d, c in zip(dates, closes, strict=True):
            rows.append({"date": d, "symbol": f"S{s}", "open": c, "high": c, "low": c,
                         "close": c, "volume": 1e6})  # fmt: skip
    bars = pd.DataFrame(rows)
    result = evaluate(["buy_and_hold", "momentum"], data=bars, seed=1)
    text = render_report(result, tmp_path / "h.html").read_text()
    assert 'id="headline-metrics"' not in text
    months = _section(text, "returns-by-month-and-year")
    assert "calendar months of the bars" in months and "<th>Mar</th>" in months
    assert "<th>2021</th>" in months
    assert re.search(r"<td[^>]*>2021-\d\d-\d\d</td>", _section(text, "worst-drawdowns"))
    rolling = _section(text, "rolling-risk")  # an interactive chart on a date axis
    assert '"type":"date"' in rolling and '"x":["2021-' in rolling


@pytest.mark.slow
def test_the_provenance_digest_is_short_with_the_whole_on_hover(runs, tmp_path):
    text = render_report(runs[0], tmp_path / "r.html").read_text()
    digest = runs[0].digest()
    assert f'<td title="{digest}">{digest[:12]}…</td>' in text
    assert f"<footer>results digest {digest}</footer>" in text


@pytest.mark.slow
def test_the_output_folder_has_each_chart_as_svg(runs, tmp_path):
    paths = write_outputs(runs, tmp_path / "out")
    charts = [name for name in paths if name.endswith("_svg")]
    assert "underwater_1_svg" in charts and "rolling_risk_4_svg" in charts
    assert paths["activity_2_svg"].read_text().startswith('<svg class="chart"')


@pytest.mark.slow
def test_charts_are_the_same_bytes_in_another_process(runs):
    code = (
        "import json, sys\n"
        "from workbench import evaluate\n"
        "from workbench.report.charts_over_time import all_charts\n"
        f"runs = [evaluate({ARMS!r}, seed=s, universe=8, days=45) for s in (1, 2, 3)]\n"
        "sys.stdout.write(json.dumps(all_charts(runs)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=600
    )
    import json

    assert json.loads(out.stdout) == all_charts(runs)


def test_readable_formats_by_kind_and_puts_long_text_on_hover():
    frame = pd.DataFrame(
        {
            "return_pct": [1.23456],
            "pnl": [-1234567.8],
            "sharpe": [0.004567],
            "digest": ["ab" * 32],
            "last_error": ["ValueError: " + "the model said no " * 20],
        },
        index=pd.Index(["momentum"], name="arm"),
    )
    page = readable(frame).to_html()
    assert "+1.23%" in page and "-1,234,568" in page and "0.00457" in page
    assert "abababababab…" in page and html.escape("ab" * 32) in page  # whole digest on hover
    assert "return_\u200bpct" in page  # the header may wrap at its underscore
    assert "white-space: normal" in page


def test_readable_escapes_hostile_text_in_cells_labels_and_tooltips():
    hostile = "<img src=x onerror=alert(1)> I think buy"
    frame = pd.DataFrame(
        {"return_pct": [1.0, 2.0], "last_error": [hostile, "<script>alert(3)</script>" * 20]},
        index=pd.Index(["<b>arm</b>", "<script>alert(2)</script>"], name="arm"),
    )
    page = readable(frame).to_html()
    for raw in ("<img src=x", "<script>alert", "<b>arm</b>"):
        assert raw not in page
    assert html.escape(hostile) in page and "&lt;b&gt;arm&lt;/b&gt;" in page
    assert 'title="&lt;script&gt;alert(3)' in page  # the whole text on hover, escaped


def test_long_arm_names_may_wrap_and_numbers_with_gaps_stay_numbers():
    from workbench.report._format import html_table, text_columns

    arm = "another-very-long-arm-name_with_underscores"
    frame = pd.DataFrame({"peak": [1.5, 2.0], "days_under_water": [3.0, None]}, index=[arm, arm])
    frame["days_under_water"] = frame["days_under_water"].astype(object)
    page = html_table(frame)
    assert "another-<wbr>very" in page and "with_<wbr>underscores" in page
    assert text_columns(frame) == []  # right-aligned numbers, not wrapped text
    notebook = readable(frame).to_html()
    assert "another-\u200bvery" in notebook


def test_worst_drawdowns_mark_an_open_drawdown_with_nan_not_none():
    result = evaluate(["buy_and_hold"], seed=1, universe=5, days=12)
    table = result.worst_drawdowns("buy_and_hold")
    assert table["days_under_water"].dtype == float


def test_drawdown_day_counts_print_as_whole_days():
    from workbench.report._format import number

    assert number("days_under_water", 132.0) == "132" and number("days_to_trough", 7.5) == "7.5"
    assert number("days_under_water", float("nan")) == ""


def test_no_negative_zero_and_no_sign_on_a_spread():
    from workbench.report._format import number
    from workbench.report._tearsheet_tables import _spread_text

    assert number("var_95_pct", -0.001) == "0.00%" and number("alpha_pct", -0.0) == "0.00%"
    assert number("sharpe", -0.004) == "-0.004" and number("return_pct", -0.2) == "-0.20%"
    row = pd.Series({"seeds": 2, "seed_mean": 1.0, "seed_sd": 6.54, "seed_ci_low": np.nan})
    assert _spread_text("return_pct", row, 2) == "+1.00% ± 6.54%"


def test_a_spread_counts_its_own_seeds_and_has_no_dangling_plus_minus():
    from workbench.report._tearsheet_tables import _spread_text

    alone = pd.Series({"seeds": 1, "seed_mean": 1.3, "seed_sd": np.nan, "seed_ci_low": np.nan})
    assert _spread_text("sortino", alone, 2) == "1.30 (1 of 2 seeds)"
    some = pd.Series({"seeds": 2, "seed_mean": 1.0, "seed_sd": 0.5, "seed_ci_low": np.nan})
    assert _spread_text("sharpe", some, 3) == "1.00 ± 0.50 (2 of 3 seeds)"


def test_a_seed_stopped_early_is_left_out_of_the_key_metrics_mean():
    from workbench.report._data import key_metrics_over
    from workbench.report.tearsheet import key_metrics_section

    whole = [evaluate(["buy_and_hold"], seed=s, universe=5, days=20) for s in (1, 2)]
    stopped = evaluate(["buy_and_hold"], seed=3, universe=5, days=3)
    name, body = key_metrics_section([*whole, stopped])
    assert name == "Key metrics (mean over 2 seeds; seed 3 stopped early, left out)"
    mean = key_metrics_over(whole).loc["buy_and_hold", "return_pct"]
    assert html.escape(f"{mean:+,.2f}%") in body
