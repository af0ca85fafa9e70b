"""The experiment panel without a browser: runs, stops, replays, and a kernel that stays free."""

from __future__ import annotations

import asyncio
import json
import textwrap

import pytest

from workbench.errors import ConfigError
from workbench.integrations import callable_agent
from workbench.testing.scripted import trend_follower
from workbench.transcript import Transcript
from workbench.widgets import ExperimentPanel, panel


async def slow_trend(payload):
    await asyncio.sleep(0.01)
    return trend_follower(payload)


def _panel(tmp_path, **options) -> ExperimentPanel:
    agent = callable_agent(slow_trend, name="slow")
    return panel({"slow": agent}, out_dir=tmp_path, days=3, names=6, **options)


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


def test_a_run_fills_progress_chart_scorecard_and_writes_the_report(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,2")
        built.arms.value = ("slow", "trend", "buy_and_hold")
        results = await built.start()
        return built, results

    built, results = asyncio.run(go())
    assert [r.meta["seed"] for r in results] == [1, 2]
    assert built.progress.value == built.progress.max == 2 * 3 * 6
    assert bytes(built.chart.value).startswith(b"\x89PNG")
    assert "workbench-scorecard-table" in built.scorecard_view.value
    assert built.scorecard_view.value.count("slow") == 2
    assert (tmp_path / "run-1" / "report.html").is_file()
    assert not built.running and not built.run_button.disabled and built.stop_button.disabled


def test_stop_cancels_cleanly_and_keeps_the_partial_transcript(tmp_path):
    async def go():
        built = _panel(tmp_path)
        built.arms.value = ("slow", "trend")
        built.days.value = 200
        task = built.start()
        while built.session.step < 20:
            await asyncio.sleep(0.01)
        built.stop()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0)
        return built

    built = asyncio.run(go())
    assert built.session.state == "stopped"
    steps = len(built.session.partial_equity())
    assert 20 <= steps < 200 * 6
    assert built.status.value.count("stopped at step")
    kept = Transcript.load(built.transcript_dir / "seed-7" / "trend.json")
    assert 1 <= len(kept) <= steps // 6 + 1
    assert not built.results  # a stopped run reports no finished results


def test_bad_input_is_shown_not_raised(tmp_path):
    async def go():
        built = _panel(tmp_path, seeds="1,x")
        return built, built.start()

    built, task = asyncio.run(go())
    assert task is None and "seed(s)" in built.status.value and "#b00020" in built.status.value
    with pytest.raises(ConfigError, match="must be a workbench Agent"):
        panel({"bad": object()})  # type: ignore[dict-item]


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

            p = panel({"slow": callable_agent(slow, name="slow", every=1)}, days=3, names=5,
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
