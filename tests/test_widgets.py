"""The experiment panel without a browser: runs, stops, replays, and a kernel that stays free."""

from __future__ import annotations

import asyncio
import contextlib
import json
import textwrap
import time

import pandas as pd
import pytest

from workbench.errors import ConfigError
from workbench.integrations import callable_agent
from workbench.testing.scripted import trend_follower
from workbench.transcript import Transcript
from workbench.widgets import ExperimentPanel, panel
from workbench.widgets._chart import NEWS_TRACES, PlotlyChart
from workbench.widgets._news import LOOKS
from workbench.widgets._session import SeedRun
from workbench.widgets._views import AMBER, status_html


async def slow_trend(payload):
    await asyncio.sleep(0.01)
    return trend_follower(payload)


def _panel(tmp_path, **options) -> ExperimentPanel:
    agent = callable_agent(slow_trend, name="slow")
    return panel({"slow": agent}, out_dir=tmp_path, days=3, universe=6, **options)


def _points(live, arm: str) -> tuple[int, int]:
    """(points on ``arm``'s line, points on its shaded range) in the live chart."""
    low, _, line = (live.widget.data[i] for i in live.traces[arm])
    return len(line.x), len(low.x)


def _marks(live) -> int:
    """The news marks the live chart shows."""
    return sum(len(trace.x) for trace in live.widget.data[:NEWS_TRACES])


def test_every_widget_has_a_stable_css_class(tmp_path):
    built = _panel(tmp_path)
    widgets = {
        "run": built.run_button,
        "stop": built.stop_button,
        "replay": built.replay_button,
        "progress": built.progress,
        "status": built.status,
        "chart": built.chart,
        "scorecard": built.scorecard_view,
        "arms": built.arms,
        "seeds": built.seeds,
        "days": built.days,
        "cadence": built.cadence,
        "preset": built.preset,
    }
    for name, widget in widgets.items():
        assert f"workbench-{name}" in widget._dom_classes, name
    assert "workbench-panel" in built.widget._dom_classes
    assert built.arms.value[0] == "slow" and built.stop_button.disabled


def test_the_preset_picker_names_a_superseded_presets_successor(tmp_path):
    built = _panel(tmp_path, preset="crisis-v1")
    labels = dict(built.preset.options)
    assert labels["crisis-v1 (superseded by crisis-v3)"] == "crisis-v1"
    assert labels["crisis-v3"] == "crisis-v3" and built.preset.value == "crisis-v1"
    assert built.controls.settings()[1]["preset"] == "crisis-v1"  # the name, not the label
    for replayed in ("standard-v2", "calm-v1"):  # a replay shows its market, superseded or not
        built.controls.show_settings({"seed": 3, "preset": replayed})
        assert built.preset.value == replayed


@pytest.mark.slow
def test_a_run_fills_progress_chart_scorecard_and_writes_the_report(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,2")
        built.arms.value = ("slow", "trend", "buy_and_hold")
        results = await built.start()
        return built, results

    built, results = asyncio.run(go())
    assert [r.meta["seed"] for r in results] == [1, 2]
    assert built.progress.value == built.progress.max == 2 * 3 * 6
    assert isinstance(built.live, PlotlyChart) and built.chart is built.live.widget
    for arm in ("slow", "trend", "buy_and_hold"):  # two seeds: a mean line over a range
        assert _points(built.live, arm) == (3 * 6, 3 * 6)
    assert "workbench-scorecard-table" in built.scorecard_view.value
    assert built.scorecard_view.value.count("slow") == 2
    assert (tmp_path / "run-1" / "report.html").is_file()
    assert not built.running and not built.run_button.disabled and built.stop_button.disabled


@pytest.mark.slow
def test_stop_ends_cleanly_and_keeps_the_partial_transcript(tmp_path):
    async def go():
        built = _panel(tmp_path)
        built.arms.value = ("slow", "trend")
        built.days.value = 200
        task = built.start()
        while built.session.steps_done < 20:
            await asyncio.sleep(0.01)
        built.stop()
        await task
        await asyncio.sleep(0)
        return built

    built = asyncio.run(go())
    assert built.session.state == "stopped"
    steps = len(built.session.partial_equity())
    assert 20 <= steps < 200 * 6
    assert built.status.value.count("stopped after")
    kept = Transcript.load(built.transcript_dir / "seed-7" / "trend.json")
    assert 1 <= len(kept) <= steps // 6 + 1
    assert not built.results  # no seed finished
    card = built.session.scorecard()
    assert list(card["run"].unique()) == [f"partial: {steps:,} of 1,200 steps"]
    assert "partial:" in built.scorecard_view.value


@pytest.mark.slow
def test_a_run_started_right_after_stop_is_not_cancelled_by_that_stop(tmp_path):
    async def go():
        built = _panel(tmp_path, stop_grace=3.0)
        built.arms.value = ("slow", "trend")
        built.days.value = 400
        first = built.start()
        while built.session.steps_done < 20:
            await asyncio.sleep(0.01)
        built.stop()
        pressed = time.perf_counter()
        await first  # the step ends, the report is written, well within the grace period
        second = built.start()
        await asyncio.sleep(max(0.0, pressed + 3.5 - time.perf_counter()))
        going = built.session.state  # the grace period ended while the second run went on
        second.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await second
        return going

    assert asyncio.run(go()) == "running"


@pytest.mark.slow
def test_stop_during_the_last_seed_keeps_every_finished_seed_and_the_partial_one(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,2,3")
        built.arms.value = ("slow", "buy_and_hold")
        built.days.value = 20
        task = built.start()
        while len(built.session.runs) < 3 or built.session.current.steps < 5:
            await asyncio.sleep(0.01)
        built.stop()
        await task
        return built

    built = asyncio.run(go())
    assert [r.meta["seed"] for r in built.results] == [1, 2]
    card = built.session.scorecard()
    assert sorted(card.index.get_level_values("seed").unique()) == [1, 2, 3]
    labels = card["run"].groupby(level="seed").first()
    assert labels[1] == labels[2] == "complete" and labels[3].startswith("partial: ")
    text = built.status.value
    assert "kept 2 finished seed(s) and seed 3 (partial: " in text
    report = (tmp_path / "run-1" / "report.html").read_text()
    assert "stopped; last seed partial" in report


@pytest.mark.slow
def test_an_agent_that_raises_shows_its_error_its_traceback_and_a_red_status(tmp_path):
    def broken(payload):
        return _look_up(payload)

    async def go():
        built = panel(
            {"broken": callable_agent(broken, name="broken", every=1)},
            out_dir=tmp_path, days=2, universe=4, seeds="1,2",
        )  # fmt: skip
        built.arms.value = ("broken", "cash")
        await built.start()
        return built

    built = asyncio.run(go())
    assert "#b00020" in built.status.value and "FAILED" in built.status.value
    table = built.scorecard_view.value
    assert "last_<wbr>error" in table and "FrameworkError" in table and "errors" in table
    listed = built.failures_view.value
    assert "<details" in listed and "broken: 22" in listed  # 11 decisions x 2 seeds
    assert "in _look_up" in listed and "KeyError" in listed


def _look_up(payload):
    return payload["no such key"]


@pytest.mark.slow
def test_every_seed_is_drawn_and_one_can_be_picked(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,2,3")
        built.arms.value = ("slow", "buy_and_hold")
        await built.start()
        return built

    built = asyncio.run(go())
    assert list(built.seed_view.options) == ["all seeds", "1", "2", "3"]
    live = built.live
    assert set(live.traces) == {"slow", "buy_and_hold"}  # a mean line over a range per arm
    assert _points(live, "slow") == (3 * 6, 3 * 6)
    mean = list(live.widget.data[live.traces["slow"][2]].y)
    built.seed_view.value = "2"  # redrawn at once: seed 2's own curve, no range
    assert _points(live, "slow") == (3 * 6, 0)
    curve = built.session.runs[1].equity[:, built.session.runs[1].arms.index("slow")]
    assert list(live.widget.data[live.traces["slow"][2]].y) == list(curve / curve[0] * 100)
    assert list(live.widget.data[live.traces["slow"][2]].y) != mean
    assert "seed 2 at trading day 2" in live.widget.layout.title.text  # its 18th step
    assert "seed 2, step" in built.chart_step.value  # the caption follows the picked seed


@pytest.mark.slow
def test_a_long_run_redraws_on_a_budget_not_every_step(tmp_path):
    from workbench.widgets._refresh import BUDGET, LONGEST_WAIT

    DAYS = 400

    async def go():
        built = _panel(tmp_path, chart_interval=0.0)
        built.arms.value = ("buy_and_hold", "momentum", "random")  # busy: no waiting on models
        built.days.value = DAYS  # long enough for draws mid-run on a fast machine
        task = built.start()
        while built.running and built.session.state == "ready":
            await asyncio.sleep(0)
        while built.session.state == "running":
            await asyncio.sleep(0.01)
        await task
        return built

    built = asyncio.run(go())
    redraws = built.redraws
    assert 2 <= redraws.count < DAYS * 6 / 20, redraws.count  # far fewer draws than steps
    # beyond the first and the last draw, drawing took at most BUDGET of the run's time
    seconds = built.session.seconds
    # (a draw slower than the cap's break-even may take more: the wait is capped)
    share = max(BUDGET, redraws.longest / (redraws.longest + LONGEST_WAIT))
    assert redraws.spent - 2 * redraws.longest <= share * seconds, (redraws.spent, seconds)
    assert built.progress.value == built.progress.max == DAYS * 6


@pytest.mark.slow
def test_every_frame_of_the_live_chart_shows_where_the_run_was_when_it_was_begun(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,2", chart_interval=0.0)
        built.arms.value = ("buy_and_hold", "momentum", "random")
        built.days.value = 250
        await built.start()
        return built

    built = asyncio.run(go())
    assert len(built.frames) >= 2
    for asked, drawn in built.frames:  # never a stale frame: at least where the run was
        assert drawn >= asked, (asked, drawn)
    last_seed, last_step = built.frames[-1][1]
    assert (last_seed, last_step) == (2, built.session.total)  # the final frame: the end
    caption = built.chart_step.value
    assert f'data-seed="2" data-step="{last_step}"' in caption
    assert f"chart: seed 2, step {last_step:,}/{built.session.total:,}" in caption
    live = built.live  # two seeds: a mean line over a range per arm
    for arm in ("buy_and_hold", "momentum", "random"):
        assert _points(live, arm) == (400, 400)  # 1,500 steps thinned to MAX_POINTS


@pytest.mark.slow
def test_an_agent_blocking_the_event_loop_is_warned_about(tmp_path):
    import time

    from workbench import Agent

    class Blocker(Agent):  # the mistake: slow work in an arm that runs on the loop
        name, inline = "blocker", True

        def decide(self, payload):
            time.sleep(0.7)
            return trend_follower(payload)

    async def go():
        built = panel({"blocker": Blocker()}, out_dir=tmp_path, days=1, universe=3, steps_per_day=2)
        built.arms.value = ("blocker",)
        await built.start()
        return built

    built = asyncio.run(go())
    assert "agent &#x27;blocker&#x27; (1 time(s), up to 0." in built.warning.value
    assert "blocked the event loop" in built.warning.value
    assert "asyncio.to_thread" in built.warning.value


@pytest.mark.slow
def test_an_async_agent_calling_blocking_code_is_named_in_the_warning(tmp_path):
    import time

    from workbench import Agent

    class Sleepy(Agent):  # the mistake: a blocking call inside an async def on the loop
        name = "sleepy"

        async def adecide(self, request):
            time.sleep(0.8)
            return trend_follower(request.payload)

    async def go():
        agents = {"sleepy": Sleepy(), **_panel(tmp_path).agents}
        built = panel(agents, out_dir=tmp_path, days=1, universe=3, steps_per_day=2)
        built.arms.value = ("sleepy", "slow")
        await built.start()
        return built

    built = asyncio.run(go())
    assert "agent &#x27;sleepy&#x27; (1 time(s)" in built.warning.value
    assert "slow" not in built.warning.value


@pytest.mark.slow
def test_a_loop_held_by_no_agent_blames_no_agent(tmp_path):
    import time

    async def go():
        built = _panel(tmp_path)
        built.arms.value = ("slow", "buy_and_hold")
        built.days.value = 10
        task = built.start()
        while built.session.current is None or not built.session.current.steps:
            await asyncio.sleep(0.01)
        assert built.running
        time.sleep(0.8)  # held by this cell's code, not by an agent
        await task
        return built

    built = asyncio.run(go())
    assert built.warning.value == status_html("", colour=AMBER)  # no warning at all
    assert built.session.state == "done"


@pytest.mark.slow
def test_an_arm_whose_every_decision_failed_shows_failed_not_complete(tmp_path):
    async def go():
        built = panel(
            {"broken": callable_agent(_look_up, name="broken", every=1)},
            out_dir=tmp_path, days=2, universe=4, seeds="1",
        )  # fmt: skip
        built.arms.value = ("broken", "cash")
        await built.start()
        return built

    built = asyncio.run(go())
    card = built.session.scorecard()
    assert card.loc[(1, "broken"), "run"] == "failed: 11 of 11 decisions"
    assert pd.isna(card.loc[(1, "broken"), "sharpe"])  # not a Sharpe ratio of 0.00
    assert card.loc[(1, "cash"), "run"] == "complete"
    assert "failed: 11 of 11 decisions" in built.scorecard_view.value


@pytest.mark.slow
def test_out_of_range_inputs_are_refused_not_clamped(tmp_path):
    async def go():
        built = _panel(tmp_path)
        built.days.value = 0
        refused = built.start()
        text = built.status.value
        built.days.value, built.cadence.value = 2, 5000
        return refused, text, built.start(), built.status.value

    refused, text, again, second = asyncio.run(go())
    assert refused is None and "days must be between 1 and 100,000, got 0" in text
    assert again is None and "steps/day must be between 1 and 1,000, got 5000" in second


@pytest.mark.slow
def test_historical_data_is_passed_through_to_evaluate(tmp_path):
    bars = _bars(days=40, symbols=3)

    async def go():
        built = panel(out_dir=tmp_path, data=bars, seeds="1")
        built.arms.value = ("buy_and_hold",)
        await built.start()
        return built

    built = asyncio.run(go())
    (results,) = built.results
    assert results.meta["preset"].startswith("historical-")
    assert built.days.value == results.meta["days"] and built.names.disabled
    assert "historical bars" in built.status.value


def _bars(days: int, symbols: int):
    import numpy as np
    import pandas as pd

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
def test_bad_input_is_shown_not_raised(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,x")
        return built, built.start()

    built, task = asyncio.run(go())
    assert task is None and "seed(s)" in built.status.value and "#b00020" in built.status.value
    assert built.chart_figure.traces == {} and _marks(built.chart_figure) == 0  # empty chart
    with pytest.raises(ConfigError, match="must be a workbench Agent"):
        panel({"bad": object()})  # type: ignore[dict-item]


@pytest.mark.slow
def test_replay_of_a_shipped_recording_matches(tmp_path):
    async def go():
        built = _panel(tmp_path)
        await built.replay()
        return built

    built = asyncio.run(go())
    assert "matches the recording" in built.status.value
    assert "workbench-scorecard-table" in built.scorecard_view.value


@pytest.mark.slow
def test_the_kernel_runs_other_cells_while_a_panel_run_goes_on(tmp_path):
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    try:
        start = textwrap.dedent(
            """
            import asyncio
            from workbench.integrations import callable_agent
            from workbench.testing.scripted import trend_follower
            from workbench.widgets import panel

            async def slow(payload):
                await asyncio.sleep(0.05)
                return trend_follower(payload)

            p = panel({"slow": callable_agent(slow, name="slow", every=1)}, days=3, universe=5,
                      out_dir=OUT)
            p.arms.value = ("slow",)
            task = p.start()
            """
        )
        _execute(client, start.replace("OUT", repr(str(tmp_path))))
        seen = json.loads(_execute(client, "print(__import__('json').dumps([p.running, 1 + 1]))"))
        assert seen == [True, 2], "the cell ran while the panel run was still going"
        _execute(client, "await task")
        assert json.loads(_execute(client, "print(__import__('json').dumps(p.running))")) is False
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def _execute(client, code: str) -> str:
    collect = _Collector()
    reply = client.execute_interactive(code, timeout=60, output_hook=collect)
    assert reply["content"]["status"] == "ok", collect.errors
    return "".join(collect.text)


class _Collector:
    def __init__(self) -> None:
        self.text: list[str] = []
        self.errors: list[str] = []

    def __call__(self, message) -> None:
        if message["msg_type"] == "stream":
            self.text.append(message["content"]["text"])
        elif message["msg_type"] == "error":
            self.errors.append(message["content"]["evalue"])


@pytest.mark.slow
def test_the_chart_puts_a_news_market_s_items_on_its_timeline(tmp_path):
    async def go(preset: str):
        built = _panel(tmp_path / preset, seeds="4", preset=preset)
        built.arms.value = ("slow", "headline_sentiment")
        (results,) = await built.start()
        return built, results

    built, results = asyncio.run(go("standard-v2"))
    (run,) = built.session.runs
    frame = results.information
    assert run.news is not None and run.news.x.size == len(frame) > 0
    assert _marks(built.live) == len(frame)  # a finished run shows every item it published
    ups = ((frame["move"] + frame["jump"] > 0) & frame["informative"] & ~frame["injected"]).sum()
    assert run.news.counts()[1] == ups
    earnings = frame["kind"] == "earnings"
    up = built.live.widget.data[list(LOOKS).index(1)]
    assert up.name == "news: value up" and up.showlegend
    assert len(up.x) == (ups - (earnings & (frame["move"] + frame["jump"] > 0)).sum())
    reports = built.live.widget.data[NEWS_TRACES - 1]  # their own marker, coloured by look
    assert reports.name == "earnings" and reports.marker.symbol == "triangle-up"
    assert len(reports.x) == earnings.sum() > 0 and len(reports.marker.color) == len(reports.x)
    assert all(text.startswith("earnings on ") for text in reports.hovertext)  # what it was

    quiet, _ = asyncio.run(go("standard-v1"))
    assert quiet.session.runs[0].news is None and _marks(quiet.live) == 0
    assert not any(trace.showlegend for trace in quiet.live.widget.data[:NEWS_TRACES])


@pytest.mark.slow
def test_a_run_still_going_shows_only_the_items_it_has_reached(tmp_path):
    from workbench.widgets._news import NewsMarks
    from workbench.widgets._session import SeedRun

    information = pd.DataFrame(
        {
            "day": [0, 1, 1, 3],
            "step": [2, 0, 5, 1],
            "kind": ["guidance", "earnings", "notice", "sector"],
            "informative": [True, True, False, False],
            "injected": [False, False, True, False],
            "move": [0.01, -0.002, 0.0, 0.0],
            "jump": [0.0, -0.03, 0.0, 0.0],
        }
    )
    marks = NewsMarks.of(information, steps_per_day=6)
    assert marks.look.tolist() == [1, -1, 2, 0] and marks.earnings.tolist() == [0, 1, 0, 0]
    run = SeedRun(1, news=marks)
    for k in range(8):  # eight steps of six a day: day 1, step 1 is the last marked
        run.mark(k, 30, {"a": 100.0 + k})
    chart = PlotlyChart(steps_per_day=6, title="")
    chart.draw([run])
    shown = sorted(x for trace in chart.widget.data[:NEWS_TRACES] for x in trace.x)
    assert shown == pytest.approx([3 / 6, 7 / 6])  # the report's x; not day 1 step 5, nor day 3


@pytest.mark.slow
def test_a_replayed_news_recording_shows_its_items(tmp_path):
    async def go():
        built = _panel(tmp_path)
        built.recording.value = "callable-news-reader"
        await built.replay()
        return built

    built = asyncio.run(go())
    assert "matches the recording" in built.status.value
    assert _marks(built.chart_figure) > 0


def _growing_run(seed: int, steps: int, total: int = 60) -> SeedRun:
    run = SeedRun(seed)
    for k in range(steps):
        run.mark(k, total, {"up": 100.0 + k, "flat": 100.0})
    return run


def test_a_redraw_moves_the_points_and_keeps_the_reader_s_view():
    chart = PlotlyChart(steps_per_day=6, title="t")
    run = _growing_run(1, 10)
    chart.draw([run])
    traces = [trace.uid for trace in chart.widget.data]
    up = chart.widget.data[chart.traces["up"][2]]
    up.visible = "legendonly"  # what a legend click does
    chart.widget.layout.xaxis.range = (2, 5)  # what a zoom does
    sent = []
    chart.widget.observe(lambda change: sent.append(change["name"]) if change["new"] else None,
                         names=["_py2js_update", "_py2js_restyle", "_py2js_relayout",
                                "_py2js_addTraces", "_py2js_deleteTraces"])  # fmt: skip
    for k in range(10, 30):
        run.mark(k, 60, {"up": 100.0 + k, "flat": 100.0})
    chart.draw([run])
    assert sent == ["_py2js_update"]  # one message: the new points and the title, in place
    assert [trace.uid for trace in chart.widget.data] == traces
    assert len(up.x) == 30 and up.y[-1] == 129.0 and up.visible == "legendonly"
    assert chart.widget.layout.xaxis.range == (2, 5) and chart.drawn == (1, 30)
    chart.reset(6, "next run")  # a new run: its own arms, the whole length in view
    chart.draw([_growing_run(2, 5, total=13)])
    assert chart.widget.layout.xaxis.range == pytest.approx((0, 13 / 6))  # its last step's x
    assert len(chart.widget.data) == NEWS_TRACES + 6


def test_hovering_a_line_names_the_arm_the_day_and_the_value():
    chart = PlotlyChart(steps_per_day=6, title="")
    chart.draw([_growing_run(1, 10), _growing_run(2, 12)])
    low, high, line = (chart.widget.data[i] for i in chart.traces["up"])
    assert line.name == "up" and line.meta == "mean equity" and high.fill == "tonexty"
    for field in ("%{fullData.name}", "%{text}", "%{meta} %{y"):
        assert field in line.hovertemplate
    at = {x: label for x, label in zip(line.x, line.text, strict=True)}
    assert line.x[0] == pytest.approx(1 / 6)  # the report's x: the first step closes at 1/6
    assert at[1.0] == "trading day 0" and at[1.5] == "trading day 1, step 3 of 6"
    assert low.legendgroup == high.legendgroup == line.legendgroup == "up"  # one click hides all
    assert low.hoverinfo == "skip" and not low.showlegend and not high.showlegend


def test_without_plotly_the_live_chart_is_a_png(monkeypatch):
    import sys

    from workbench.widgets._chart import live_chart
    from workbench.widgets._chart_png import PngChart

    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    chart = live_chart(6, "t")
    assert isinstance(chart, PngChart)
    chart.draw([_growing_run(1, 10), _growing_run(2, 12)], "2")
    assert bytes(chart.widget.value).startswith(b"\x89PNG") and chart.drawn == (2, 12)


def test_a_front_end_that_connects_late_gets_the_chart_as_it_is_now():
    chart = PlotlyChart(steps_per_day=6, title="t")  # made before any page shows it
    chart.draw([_growing_run(1, 10)])
    state = chart.widget.get_state()  # what Voilà's page (or a reloaded tab) asks for
    names = [trace["name"] for trace in state["_widget_data"]]
    assert names[NEWS_TRACES:] == ["up"] * 3 + ["flat"] * 3
    assert state["_widget_layout"]["title"]["text"] == "t · seed 1 at trading day 1, step 4 of 6"


@pytest.mark.slow
def test_a_panel_without_plotly_runs_with_the_png_chart(tmp_path, monkeypatch):
    import sys

    from workbench.widgets._chart_png import PngChart

    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)

    async def go():
        built = _panel(tmp_path, seeds="1,2")
        built.arms.value = ("slow", "buy_and_hold")
        await built.start()
        return built

    built = asyncio.run(go())
    assert isinstance(built.live, PngChart) and built.chart is built.live.widget
    assert bytes(built.chart.value).startswith(b"\x89PNG") and built.live.drawn == (2, 18)
    assert "workbench-chart" in built.chart._dom_classes
