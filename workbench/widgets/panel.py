"""The experiment panel: pick arms, preset, seeds, days and cadence; Run, Replay, Stop.

A run is a task on the kernel's own event loop (``aevaluate`` with an
``on_step`` callback), so the progress bar and the equity chart update while it
goes on and other cells still execute. Stop cancels the task: the arms'
``end()`` runs, so the scripted model arms the panel builds (recording into
``out_dir/transcripts/``) keep the partial transcript, and the equity seen so
far stays in ``panel.session.partial_equity()``.

Every widget carries a stable CSS class (``workbench-run``, ``workbench-stop``,
``workbench-replay``, ``workbench-progress``, ``workbench-status``,
``workbench-chart``, ``workbench-scorecard`` ...) for tests and styling.
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench.agents import Agent
from workbench.errors import ConfigError, WorkbenchError
from workbench.redaction import redact
from workbench.widgets._chart import equity_png
from workbench.widgets._session import RunSession

_DEFAULT_ARMS = ("buy_and_hold", "momentum")


class ExperimentPanel:
    """``ExperimentPanel(agents={"mine": my_agent})``; display it (last line of a cell)."""

    def __init__(
        self,
        agents: Mapping[str, Agent] | Sequence[Agent] | None = None,
        *,
        seeds: str = "7",
        days: int = 5,
        steps_per_day: int = 6,
        names: int = 20,
        preset: str | None = None,
        out_dir: str | Path = "out/panel",
        recordings_dir: str = "",
        chart_interval: float = 0.3,
    ) -> None:
        from workbench.notebooks.parameters import shipped_recordings

        self.agents = _named_agents(agents)
        self.out_dir = Path(out_dir)
        self.chart_interval = chart_interval
        self.recordings = {p.name: p for p in shipped_recordings(recordings_dir)}
        self.session: RunSession | None = None
        self.task: asyncio.Task[Any] | None = None
        self.runs = 0
        self._last_draw = 0.0
        self._build(seeds, days, steps_per_day, names, preset)

    # --- layout ----------------------------------------------------------------------
    def _build(self, seeds: str, days: int, steps: int, names: int, preset: str | None) -> None:
        import ipywidgets as w

        from workbench.baselines import BASELINES
        from workbench.engine.presets import DEFAULT_PRESET, list_presets
        from workbench.notebooks.parameters import SCRIPTED_ARMS

        options = [*self.agents, *SCRIPTED_ARMS, *BASELINES]
        chosen = [*self.agents, *(a for a in _DEFAULT_ARMS if a not in self.agents)]
        self.arms = _css(w.SelectMultiple(options=options, value=chosen, rows=6), "arms")
        self.arms.description = "arms"
        self.preset = _css(
            w.Dropdown(options=list_presets(), value=preset or DEFAULT_PRESET), "preset"
        )
        self.preset.description = "preset"
        self.seeds = _css(w.Text(value=seeds, description="seed(s)"), "seeds")
        self.days = _css(
            w.BoundedIntText(value=days, min=1, max=10_000, description="days"), "days"
        )
        self.cadence = _css(
            w.BoundedIntText(value=steps, min=1, max=1000, description="steps/day"), "cadence"
        )
        self.names = _css(
            w.BoundedIntText(value=names, min=1, max=5000, description="names"), "names"
        )
        shipped = list(self.recordings) or ["(no recordings)"]
        self.recording = _css(w.Dropdown(options=shipped, description="recording"), "recording")
        self.run_button = _css(w.Button(description="Run", button_style="primary"), "run")
        self.replay_button = _css(w.Button(description="Replay"), "replay")
        self.replay_button.disabled = not self.recordings
        self.stop_button = _css(w.Button(description="Stop", button_style="danger"), "stop")
        self.stop_button.disabled = True
        self.progress = _css(
            w.IntProgress(value=0, min=0, max=1, description="progress"), "progress"
        )
        self.status = _css(w.HTML(value="ready"), "status")
        self.chart = _css(w.Image(format="png"), "chart")
        self.scorecard_view = _css(w.HTML(value=""), "scorecard")
        self.run_button.on_click(lambda _: self.start())
        self.replay_button.on_click(lambda _: self.replay())
        self.stop_button.on_click(lambda _: self.stop())
        settings = w.VBox([self.preset, self.seeds, self.days, self.cadence, self.names])
        buttons = w.HBox([self.run_button, self.replay_button, self.stop_button, self.recording])
        self.widget = _css(
            w.VBox(
                [
                    w.HBox([self.arms, settings]),
                    buttons,
                    self.progress,
                    self.status,
                    self.chart,
                    self.scorecard_view,
                ]
            ),
            "panel",
        )

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    # --- actions -----------------------------------------------------------------------
    def start(self) -> asyncio.Task[Any] | None:
        """Run the chosen arms on every chosen seed; returns the task (None if refused)."""
        try:
            session = self._new_session()
        except WorkbenchError as exc:
            self._say(f"cannot run: {exc}", error=True)
            return None
        return self._launch(self._run(session))

    def replay(self) -> asyncio.Task[Any] | None:
        """Re-execute the chosen shipped recording offline and show whether it matched."""
        folder = self.recordings.get(self.recording.value)
        if folder is None:
            self._say("no shipped recording to replay", error=True)
            return None
        return self._launch(self._replay(folder))

    def stop(self) -> None:
        """Cancel the running task; arms end cleanly and partial transcripts are kept."""
        if self.task is not None and not self.task.done():
            self.task.cancel()

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def results(self) -> list[Any]:
        return self.session.results if self.session is not None else []

    # --- internals -----------------------------------------------------------------------
    def _new_session(self) -> RunSession:
        from workbench.notebooks.parameters import seed_list

        if self.running:
            raise ConfigError("a run is already going; press Stop first")
        if not self.arms.value:
            raise ConfigError("choose at least one arm")
        seeds = seed_list("seed(s)", self.seeds.value)
        self.runs += 1
        market = {
            "universe": int(self.names.value),
            "days": int(self.days.value),
            "steps_per_day": int(self.cadence.value),
            "model": self.preset.value,
        }
        self.session = RunSession(self._roster, seeds, market, on_progress=self._progress)
        return self.session

    def _roster(self, seed: int) -> list[Agent | str]:
        from workbench.integrations.callable import resolve
        from workbench.notebooks.parameters import SCRIPTED_ARMS

        folder = self.transcript_dir / f"seed-{seed}"
        roster: list[Agent | str] = []
        for name in self.arms.value:
            if name in self.agents:
                roster.append(self.agents[name])
            elif name in SCRIPTED_ARMS:
                recorder = folder / f"{name}.json"
                factory = resolve(SCRIPTED_ARMS[name])
                roster.append(factory(name=name, mode="record", recorder=recorder))
            else:
                roster.append(name)
        return roster

    @property
    def transcript_dir(self) -> Path:
        return self.out_dir / f"run-{self.runs}" / "transcripts"

    def _launch(self, work: Any) -> asyncio.Task[Any]:
        self.task = asyncio.get_event_loop().create_task(work)
        self.task.add_done_callback(self._finished)
        self._buttons(running=True)
        self.scorecard_view.value = ""
        return self.task

    def _progress(self, session: RunSession) -> None:
        self.progress.max = max(session.steps_planned, 1)
        self.progress.value = session.steps_done
        seed = session.seeds[session.seed_index]
        self._say(
            f"{session.state}: seed {seed} ({session.seed_index + 1}/{len(session.seeds)}), "
            f"step {session.step}/{session.total}"
        )
        now = time.perf_counter()
        if session.state != "running" or now - self._last_draw >= self.chart_interval:
            self._last_draw = now
            self.chart.value = equity_png(session.curves, session.total, f"seed {seed}")

    async def _replay(self, folder: Path) -> None:
        """The replay runs on a worker thread; Stop abandons it (its result is dropped)."""
        from workbench import recordings

        self.progress.max, self.progress.value = 1, 0
        self._say(f"replaying {html.escape(folder.name)} …")
        report = await asyncio.to_thread(recordings.replay, folder, False)
        self.progress.value = 1
        curves = {str(arm): list(values) for arm, values in report.results.equity.items()}
        self.chart.value = equity_png(curves, len(report.results.equity), folder.name)
        self._show_scorecard(report.results.scorecard)
        verdict = "matches the recording" if report.matched else "DIFFERS from the recording"
        self._say(f"replay of {folder.name} {verdict}", error=not report.matched)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._buttons(running=False)
        if task.cancelled():
            self._stopped()
        elif task.exception() is not None:
            exc = task.exception()
            self._say(f"failed: {type(exc).__name__}: {exc}", error=True)

    def _stopped(self) -> None:
        session = self.session
        kept = sorted(p.name for p in self.transcript_dir.rglob("*.json")) if session else []
        where = f"; partial transcripts kept in {self.transcript_dir}" if kept else ""
        step = f" at step {session.steps_done}/{session.steps_planned}" if session else ""
        self._say(f"stopped{step}{where}")

    async def _run(self, session: RunSession) -> list[Any]:
        from workbench.report import write_outputs

        results = await session.go()
        self._show_scorecard(session.scorecard())
        seconds = time.perf_counter() - session.started
        done = f"done in {seconds:.1f}s: {len(results)} seed(s)"
        self._say(f"{done}; writing the report …")
        folder = self.out_dir / f"run-{self.runs}"
        paths = await asyncio.to_thread(write_outputs, results, folder, title="panel run")
        self._say(f"{done}; report {paths['report']}")
        return results

    def _show_scorecard(self, card: Any) -> None:
        shown = card.drop(columns=[c for c in ("latency_s", "last_error") if c in card.columns])
        table = shown.to_html(
            classes="workbench-scorecard-table", float_format=lambda v: f"{v:.3f}"
        )
        self.scorecard_view.value = table

    def _buttons(self, *, running: bool) -> None:
        self.run_button.disabled = running
        self.replay_button.disabled = running or not self.recordings
        self.stop_button.disabled = not running

    def _say(self, text: str, *, error: bool = False) -> None:
        colour = "#b00020" if error else "inherit"
        self.status.value = f'<span style="color:{colour}">{html.escape(redact(text))}</span>'


def _css(widget: Any, name: str) -> Any:
    widget.add_class(f"workbench-{name}")
    return widget


def _named_agents(agents: Mapping[str, Agent] | Sequence[Agent] | None) -> dict[str, Agent]:
    if agents is None:
        return {}
    pairs = agents.items() if isinstance(agents, Mapping) else [(a.name, a) for a in agents]
    named = {}
    for name, agent in pairs:
        if not isinstance(agent, Agent):
            raise ConfigError(
                f"panel agent {name!r} must be a workbench Agent, got {type(agent).__name__}; "
                "wrap a function with workbench.integrations.callable_agent(fn, name=...)"
            )
        agent.name = str(name)
        named[str(name)] = agent
    return named
