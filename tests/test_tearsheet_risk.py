"""The tearsheet's risk and distribution metrics and its tables over time, each checked
against an independent computation (scipy, pandas or a loop written here) on the day
returns of a real simulated run, to 1e-12."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.evaluation import metrics, risk
from workbench.evaluation import tearsheet_frames as frames
from workbench.evaluation.glossary import OVER_TIME, TEARSHEET
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS

EXACT = 1e-12
ARMS = ["buy_and_hold", "momentum", "mean_reversion"]
STEPS = 6


@pytest.fixture(scope="module")
def run():
    return evaluate(ARMS, seed=4, universe=10, days=70, steps_per_day=STEPS)


def _returns(run, arm: str) -> np.ndarray:
    return metrics.daily_returns(run.equity[arm].to_numpy(), STEPS)


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=EXACT, abs_tol=EXACT)


def _type7_quantile(values: np.ndarray, p: float) -> float:
    """Hyndman & Fan type 7, by hand: interpolate between order statistics at (n-1)p."""
    ordered = sorted(values.tolist())
    h = (len(ordered) - 1) * p
    low = math.floor(h)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (h - low) * (ordered[high] - ordered[low])


def test_var_and_cvar_are_the_historical_5_percent_tail(run):
    for arm in ARMS:
        curve, r = run.equity[arm].to_numpy(), _returns(run, arm)
        cut = _type7_quantile(r, 0.05)
        assert _close(risk.value_at_risk_pct(curve, STEPS), -cut * 100)
        tail = [x for x in r.tolist() if x <= cut]
        assert _close(
            risk.conditional_value_at_risk_pct(curve, STEPS), -sum(tail) / len(tail) * 100
        )


def test_skew_and_kurtosis_are_the_unbiased_sample_estimators(run):
    for arm in ARMS:
        curve, r = run.equity[arm].to_numpy(), _returns(run, arm)
        assert _close(risk.skew(curve, STEPS), stats.skew(r, bias=False))
        assert _close(risk.kurtosis(curve, STEPS), stats.kurtosis(r, fisher=True, bias=False))
        assert _close(risk.skew(curve, STEPS), pd.Series(r).skew())  # quantstats' definition
        assert _close(risk.kurtosis(curve, STEPS), pd.Series(r).kurt())


def test_best_and_worst_day(run):
    curve, r = run.equity["momentum"].to_numpy(), _returns(run, "momentum")
    assert _close(risk.best_day_pct(curve, STEPS), max(r.tolist()) * 100)
    assert _close(risk.worst_day_pct(curve, STEPS), min(r.tolist()) * 100)


def test_undefined_risk_metrics_are_nan_not_an_error():
    flat = np.full(13, 100.0)
    for fn in (risk.value_at_risk_pct, risk.skew, risk.kurtosis):
        assert math.isnan(fn(flat[:2], 1))
    assert math.isnan(risk.skew(flat, 1)) and math.isnan(risk.kurtosis(flat, 1))


def test_rolling_volatility_sortino_and_beta_match_pandas_and_a_loop(run):
    window = 10
    r, bench = _returns(run, "momentum"), _returns(run, "buy_and_hold")
    series, against = pd.Series(r), pd.Series(bench)
    volatility = series.rolling(window).std(ddof=1) * math.sqrt(252) * 100
    np.testing.assert_allclose(risk.rolling_volatility_pct(r, window), volatility, rtol=EXACT)
    beta = series.rolling(window).cov(against) / against.rolling(window).var()
    np.testing.assert_allclose(risk.rolling_beta(r, bench, window), beta, rtol=1e-10)
    sortino = [math.nan] * (window - 1)
    for end in range(window, r.size + 1):
        part = r[end - window : end].tolist()
        downside = math.sqrt(sum(min(x, 0.0) ** 2 for x in part) / window)
        sortino.append(sum(part) / window / downside * math.sqrt(252) if downside else math.nan)
    np.testing.assert_allclose(risk.rolling_sortino(r, window), sortino, rtol=1e-10)


def test_volatility_matching_gives_the_benchmark_volatility(run):
    r, bench = _returns(run, "mean_reversion"), _returns(run, "buy_and_hold")
    matched = risk.volatility_matched(r, bench)
    assert _close(float(np.std(matched, ddof=1)), float(np.std(bench, ddof=1)))
    assert _close(float(matched[3] / r[3]), float(np.std(bench, ddof=1) / np.std(r, ddof=1)))


def test_period_returns_compound_the_days_of_each_period(run):
    r = _returns(run, "momentum")
    labels = np.arange(r.size) // 21
    expected = pd.Series(r).add(1).groupby(labels).prod().sub(1).mul(100)
    got = risk.period_returns_pct(r, labels)
    assert list(got) == list(expected.index)
    for label, value in got.items():
        assert _close(value, float(expected[label]))


def _drawdowns_by_hand(curve: list[float]) -> list[tuple[int, int, int | None, float]]:
    spells, peak_at, i = [], 0, 1
    while i < len(curve):
        if curve[i] >= curve[peak_at]:
            peak_at, i = i, i + 1
            continue
        end = next((j for j in range(i, len(curve)) if curve[j] >= curve[peak_at]), None)
        stop = end if end is not None else len(curve)
        trough = min(range(i, stop), key=lambda j: (curve[j], j))
        depth = (curve[peak_at] - curve[trough]) / curve[peak_at] * 100
        spells.append((peak_at, trough, end, depth))
        if end is None:
            break
        peak_at, i = end, end + 1
    return sorted(spells, key=lambda s: (-s[3], s[0]))


def test_worst_drawdowns_match_a_walk_through_the_curve(run):
    curve = run.equity["mean_reversion"].to_numpy()
    found = risk.drawdowns(curve)
    expected = _drawdowns_by_hand(curve.tolist())
    assert [(d.peak, d.trough, d.recovered) for d in found] == [e[:3] for e in expected]
    assert all(_close(d.depth_pct, e[3]) for d, e in zip(found, expected, strict=True))
    assert _close(found[0].depth_pct, metrics.max_drawdown_pct(curve))
    table = run.worst_drawdowns("mean_reversion", top=3)
    assert len(table) == min(3, len(found)) and _close(
        table["depth_pct"].iloc[0], found[0].depth_pct
    )
    assert table["days_to_trough"].iloc[0] == (found[0].trough - found[0].peak) / STEPS


def test_an_open_drawdown_is_not_recovered():
    (spell,) = risk.drawdowns(np.array([100.0, 120.0, 90.0, 100.0]))
    assert spell == risk.Drawdown(1, 2, None, 25.0)


def test_calendar_returns_on_the_simulator_are_trading_months_labelled_so(run):
    table = run.calendar_returns("momentum")
    r = _returns(run, "momentum")
    assert table.index.name == "trading year" and list(table.index) == ["trading year 1"]
    assert _close(table.loc["trading year 1", "M2"], (np.prod(1 + r[21:42]) - 1) * 100)
    assert _close(table.loc["trading year 1", "year"], (np.prod(1 + r) - 1) * 100)
    assert math.isnan(table.loc["trading year 1", "M12"])  # 70 days reach M4 only


def test_calendar_returns_on_dated_bars_are_calendar_months():
    bars = _bars(days=90)
    result = evaluate(["buy_and_hold"], data=bars, seed=2)
    r = metrics.daily_returns(result.equity["buy_and_hold"].to_numpy(), 1)
    ends = pd.to_datetime(result.meta["dates"][1:])  # return i ends on date i + 1
    by_month = pd.Series(r, index=ends).add(1).resample("ME").prod().sub(1).mul(100)
    table = result.calendar_returns("buy_and_hold")
    assert table.index.name == "year"
    for stamp, value in by_month.items():
        assert _close(table.loc[stamp.year, stamp.strftime("%b")], float(value))


def test_activity_counts_names_held_and_the_day_turnover():
    result = evaluate(["cash"], seed=1, universe=3, days=3, steps_per_day=2)
    result.orders = pd.DataFrame(
        [  # decided at (day, step); filled one step later
            ("cash", 0, 0, "AAA", "buy", 10.0, 5.0),
            ("cash", 0, 1, "BBB", "buy", 2.0, 50.0),  # fills on day 1's first step
            ("cash", 1, 1, "AAA", "sell", 10.0, 6.0),  # fills on day 2
        ],
        columns=["arm", "day", "step", "symbol", "side", "quantity", "price"],
    )
    table = result.activity()
    assert table["positions"]["cash"].tolist() == [1.0, 2.0, 1.0]
    closes = result.equity["cash"].to_numpy()[[1, 3, 5]]
    np.testing.assert_allclose(table["day_turnover"]["cash"], [50, 100, 60] / closes, rtol=EXACT)


@pytest.mark.slow
def test_seed_spread_is_the_mean_sd_and_student_t_interval():
    runs = [evaluate(ARMS, seed=s, universe=8, days=30) for s in (1, 2, 3)]
    sheets = [run.tearsheet() for run in runs]
    spread = frames.seed_spread(sheets)
    values = np.array([sheet.loc["momentum", "sharpe"] for sheet in sheets])
    low, high = stats.t.interval(0.95, 2, loc=values.mean(), scale=stats.sem(values))
    row = spread.loc[("momentum", "sharpe")]
    assert row["seeds"] == 3 and _close(row["seed_mean"], values.mean())
    assert _close(row["seed_sd"], values.std(ddof=1))
    assert _close(row["seed_ci_low"], low) and _close(row["seed_ci_high"], high)
    two = frames.seed_spread(sheets[:2])
    assert math.isnan(two.loc[("momentum", "sharpe"), "seed_ci_low"])  # no interval below 3


def test_bad_requests_say_what_to_do(run):
    with pytest.raises(ConfigError, match="arms are"):
        run.calendar_returns("nobody")
    with pytest.raises(ConfigError, match="at least 2 days"):
        run.rolling(window=1)
    with pytest.raises(ConfigError, match="at least one run"):
        frames.seed_spread([])


def test_every_new_figure_has_a_definition_and_a_pitfall(run):
    new = ("best_day_pct", "worst_day_pct", "var_95_pct", "cvar_95_pct", "skew", "kurtosis")
    assert set(new) <= set(TEARSHEET_COLUMNS) <= set(run.tearsheet().columns)
    for name in new:
        assert all(TEARSHEET[name]), name
    shown = [
        *run.rolling().columns.get_level_values("metric"),
        *run.activity().columns.get_level_values(0),
        *frames.cumulative_returns(run).columns.get_level_values("kind"),
        *frames.SPREAD_COLUMNS[1:],
        "monthly_return_pct", "depth_pct", "days_to_trough", "days_under_water",
    ]  # fmt: skip
    for name in shown:
        text, pitfall = OVER_TIME[name]
        assert text and pitfall, name


def _bars(days: int, symbols: int = 3) -> pd.DataFrame:
    dates = pd.bdate_range("2021-01-04", periods=days).strftime("%Y-%m-%d")
    rng = np.random.default_rng(0)
    rows = []
    for s in range(symbols):
        close = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, days)))
        for d, c in zip(dates, close, strict=True):
            rows.append({"date": d, "symbol": f"S{s}", "open": c, "high": c * 1.01,
                         "low": c * 0.99, "close": c, "volume": 1e6})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("steps", [1, STEPS])
def test_every_table_over_time_puts_a_day_close_at_the_same_x(steps):
    from workbench.report._data import day_axis

    result = evaluate(["buy_and_hold"], seed=2, universe=4, days=25, steps_per_day=steps)
    x, _ = day_axis(result)
    close_x = x[steps - 1 :: steps]  # the x of each day's close on the equity chart
    offset = frames.close_offset(result)
    assert list(result.activity().index) == list(close_x)
    assert list(result.rolling().index) == list(close_x[1 - offset :][: len(result.rolling())])
    assert frames.step_x(result, steps - 1) == offset  # day 0's close
    table = result.worst_drawdowns("buy_and_hold")
    assert set(table["peak"]) <= set(np.round(x, 3))
