"""The experiment panel: pick arms, preset, seeds, days and cadence; Run, Replay, Stop.

A run is a task on the kernel's own event loop (``aevaluate`` with an
``on_step`` callback that only stores equity), so other cells still execute.
The chart, the progress bar and the status are redrawn by a second task on
their own schedule (``_refresh.Redraws``: the next draw starts only after the
last one finished, and drawing takes at most 15 % of the run), so a panel
run costs about what the same ``evaluate`` costs in a cell.

Stop ends the run after the step it is on: every finished seed and the partial
one are kept, labelled, in the scorecard, the chart and the report; recording
arms keep their partial transcripts. Failed decisions show in the scorecard
(``errors``, ``last_error``), turn the status red and are listed with the
traceback of the agent's own code. An agent that blocks the event loop is
named in a warning; a loop held by anything else blames no agent (``_refresh``).

Every widget carries a stable CSS class (``workbench-run``, ``workbench-stop``,
``workbench-replay``, ``workbench-progress``, ``workbench-status``,
``workbench-chart``, ``workbench-seed-view``, ``workbench-scorecard``,
``workbench-failures``, ``workbench-warning`` ...) for tests and styling.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from workbench._checks import renamed_keyword
from workbench.agents import Agent
from workbench.errors import ConfigError, WorkbenchError
from workbench.redaction import redact
from workbench.services.evaluation import load_bars, run_cutoffs
from workbench.widgets._chart import live_chart
from workbench.widgets._curves import LiveChart
from workbench.widgets._layout import Controls
from workbench.widgets._refresh import LoopWatch, Redraws
from workbench.widgets._session import RunSession
from workbench.widgets._views import (
    AMBER,
    RED,
    failures_html,
    report_href,
    scorecard_html,
    status_html,
)

if TYPE_CHECKING:
    from workbench.engine.historical import Historical

DataSource = str | Path | pd.DataFrame | None
PANEL_UNIVERSE = 20  # smaller than a script's default: the panel draws while it runs


class ExperimentPanel:
    """``ExperimentPanel(agents={"mine": my_agent})``; display it (last line of a cell).

    ``data`` (a CSV/Parquet path or a DataFrame of OHLCV bars) trades historical
    bars instead of the simulator, exactly as ``evaluate(data=...)`` does; ``news``
    and ``fundamentals`` join your own text to them, as ``evaluate(news=...)`` does,
    with the CLI's text options (``company_names`` a ``symbol,name`` file, ``embargo``,
    ``canaries``, ``close_time``, ``timezone``; see ``workbench.services.load_bars``).
    ``model_cutoff`` (arm name → YYYY-MM-DD, or the CLI's ``"arm=YYYY-MM-DD,..."``) splits
    each metric at an arm's training cutoff in the report, as ``evaluate(model_cutoff=...)``
    does; it is checked when the panel is built (dates, arms offered, ``data`` given).
    ``universe`` is the simulator's number of names (20 unless told; ``names`` is its
    deprecated old name).
    """

    def __init__(
        self,
        agents: Mapping[str, Agent] | Sequence[Agent] | None = None,
        *,
        seeds: str = "7",
        days: int | None = None,
        steps_per_day: int = 6,
        universe: int | None = None,
        preset: str | None = None,
        data: DataSource = None,
        news: DataSource = None,
        fundamentals: DataSource = None,
        company_names: str | Path | None = None,
        embargo: str | None = None,
        canaries: int | None = None,
        close_time: str | None = None,
        timezone: str | None = None,
        model_cutoff: Mapping[str, Any] | str | None = None,
        out_dir: str | Path = "out/panel",
        recordings_dir: str = "",
        chart_interval: float = 0.3,
        stop_grace: float = 5.0,
        names: int | None = None,
    ) -> None:
        from workbench.notebooks.parameters import shipped_recordings

        self.agents = _named_agents(agents)
        text = {
            "news": news,
            "fundamentals": fundamentals,
            "company_names": company_names,
            "embargo": embargo,
            "canaries": canaries,
            "close_time": close_time,
            "timezone": timezone,
        }
        self.data = _bars_with_text(data, {k: v for k, v in text.items() if v is not None})
        self.out_dir = Path(out_dir)
        self.chart_interval, self.stop_grace = chart_interval, stop_grace
        self.recordings = {p.name: p for p in shipped_recordings(recordings_dir)}
        self.session: RunSession | None = None
        self.task: asyncio.Task[Any] | None = None
        self.runs = 0
        self.live: LiveChart | None = None
        self.watch = LoopWatch()
        self.redraws: Redraws | None = None
        # per chart frame of the run: ((seed, step) the run was at, (seed, step) drawn)
        self.frames: list[tuple[tuple[int, int], tuple[int, int]]] = []
        self.report: Path | None = None
        self._shown_results = -1
        days = _default_days(self.data) if days is None else days
        # one chart for every run, made (and drawn empty) before the first: a run's first
        # draw does not pay for setting up the plotting machinery
        self.chart_figure = live_chart(steps_per_day, "press Run")
        self.chart_figure.draw([])
        universe = _universe(universe, names)
        self.controls = Controls(self.agents, self.recordings, seeds, days, steps_per_day, universe)
        self.controls.build(preset, historical=data is not None, chart=self.chart_figure.widget)
        arms = [str(arm) for arm in self.controls.arms.options]
        cutoffs = run_cutoffs(model_cutoff, arms=arms, dated=data is not None)
        self.model_cutoff = cutoffs or None
        self._wire()

    # --- layout ------------------------------------------------------------------------
    def _wire(self) -> None:
        c = self.controls
        c.run_button.on_click(lambda _: self.start())
        c.replay_button.on_click(lambda _: self.replay())
        c.stop_button.on_click(lambda _: self.stop())
        c.seed_view.observe(lambda _: self._redraw_soon(), names="value")
        self.arms, self.preset, self.seeds = c.arms, c.preset, c.seeds
        self.days, self.cadence = c.days, c.cadence
        self.universe = self.names = c.universe  # names: the box's old name, still read
        self.recording, self.run_button = c.recording, c.run_button
        self.replay_button, self.stop_button = c.replay_button, c.stop_button
        self.progress, self.status, self.warning = c.progress, c.status, c.warning
        self.chart, self.seed_view, self.chart_step = c.chart, c.seed_view, c.chart_step
        self.scorecard_view, self.failures_view = c.scorecard_view, c.failures_view
        self.widget = c.widget

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.controls.widget._repr_mimebundle_(**kwargs)

    # --- actions -----------------------------------------------------------------------
    def start(self) -> asyncio.Task[Any] | None:
        """Run the chosen arms on every chosen seed; returns the task (None if refused)."""
        try:
            session = self._new_session()
        except WorkbenchError as exc:
            self._clear()
            self._say(f"cannot run: {exc}", colour=RED)
            return None
        return self._launch(self._run(session))

    def replay(self) -> asyncio.Task[Any] | None:
        """Re-execute the chosen shipped recording offline and show whether it matched."""
        folder = self.recordings.get(self.recording.value)
        if folder is None:
            self._say("no shipped recording to replay", colour=RED)
            return None
        return self._launch(self._replay(folder))

    def stop(self) -> None:
        """End the run after the current step, keeping every seed run so far (see module doc).

        A step still going after ``stop_grace`` seconds (a slow model) is cancelled:
        the finished seeds and the partial seed's equity are kept, its scorecard is not.
        """
        if not self.running:
            return
        if self.session is not None and self.session.state == "running":
            self.session.request_stop()
            self._say("stopping after this step …")
            asyncio.get_event_loop().call_later(self.stop_grace, self._force_stop, self.task)
        else:
            self._force_stop(self.task)

    def _force_stop(self, task: asyncio.Task[Any] | None) -> None:
        """Cancel the run ``task`` if its step did not end in time (not one already writing
        its report, nor a run started since Stop was pressed)."""
        evaluating = self.session is None or self.session.state in ("running", "stopping")
        if task is not None and task is self.task and not task.done() and evaluating:
            task.cancel()

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    @property
    def results(self) -> list[Any]:
        """The results of every finished seed."""
        return self.session.results if self.session is not None else []

    # --- a run -------------------------------------------------------------------------
    def _new_session(self) -> RunSession:
        if self.running:
            raise ConfigError("a run is already going; press Stop first")
        seeds, market = self.controls.settings()
        steps = 1 if self.data is not None else market["steps_per_day"]
        if self.data is not None:  # bars bring their names and one step per date
            market = {"days": market["days"], "preset": market["preset"], "data": self.data}
        self.runs += 1
        self.session = RunSession(self._roster, seeds, market, model_cutoff=self.model_cutoff)
        self.live = self.chart_figure  # one figure for every run: its first draw is warm
        self.live.reset(steps, self._cadence(market))
        self.controls.seed_choices(seeds)
        return self.session

    def _cadence(self, market: Mapping[str, Any]) -> str:
        if self.data is not None:
            return "historical bars · 1 step/day"
        return f"{market['steps_per_day']} steps/day"

    def _roster(self, seed: int) -> list[Agent | str]:
        from workbench.services.agents import SCRIPTED_ARMS, scripted_arm

        folder = self.transcript_dir / f"seed-{seed}"
        roster: list[Agent | str] = []
        for name in self.arms.value:
            if name in self.agents:
                roster.append(self.agents[name])
            elif name in SCRIPTED_ARMS:
                recorder = folder / f"{name}.json"
                roster.append(scripted_arm(name, mode="record", recorder=recorder, overwrite=True))
            else:
                roster.append(name)
        return roster

    @property
    def transcript_dir(self) -> Path:
        return self.out_dir / f"run-{self.runs}" / "transcripts"

    def _launch(self, work: Any) -> asyncio.Task[Any]:
        self._clear()
        self.watch = LoopWatch()
        self.task = asyncio.get_event_loop().create_task(work)
        self.task.add_done_callback(self._finished)
        self._buttons(running=True)
        return self.task

    async def _run(self, session: RunSession) -> list[Any]:
        done = asyncio.Event()
        self.redraws = Redraws(self._tick, self._draw, self.chart_interval)
        drawer = asyncio.get_running_loop().create_task(self.redraws.run(done))
        self.watch.start()  # the first decision may hold the loop before the watcher runs
        watcher = asyncio.get_running_loop().create_task(self.watch.run())
        try:
            await session.go()
        finally:
            done.set()
            watcher.cancel()
            await asyncio.shield(drawer)
        await self._write_report(session)
        return session.results

    def _tick(self) -> None:
        """Progress, status and warning; the scorecard and failures when a seed has finished."""
        session = self.session
        if session is None:
            return
        self._show_tables(session)  # before the status that speaks of them
        self.warning.value = status_html(self.watch.warning(), colour=AMBER)
        self.progress.max = max(session.steps_planned, 1)
        self.progress.value = session.steps_done
        self._say(*self._status(session))

    async def _draw(self) -> bool:
        """The chart's frame, computed on a worker thread and shown in place; False when
        there is nothing to draw yet."""
        session, live = self.session, self.live
        if session is None or live is None or session.current is None:
            return False
        if not session.current.steps:
            return False
        shown, asked = str(self.seed_view.value), (session.current.seed, session.current.steps)
        live.show(await asyncio.to_thread(live.frame, list(session.runs), shown))
        self._caption(asked)
        return True

    def _caption(self, asked: tuple[int, int] | None = None) -> None:
        """Under the chart, the seed and step its frame shows; ``asked`` is where the run
        was when the frame was begun (kept on ``frames``: a frame is never older)."""
        drawn, session = self.live.drawn if self.live else None, self.session
        if drawn is None or session is None:
            self.chart_step.value = ""
            return
        if asked is not None:
            self.frames.append((asked, drawn))
        seed, steps = drawn
        self.chart_step.value = (
            f'<span class="workbench-chart-at" data-seed="{seed}" data-step="{steps}">'
            f"chart: seed {seed}, step {steps:,}/{session.total:,}</span>"
        )

    def _redraw_soon(self) -> None:
        """A new seed picked after the run: draw now (during a run the next redraw shows it)."""
        session, live = self.session, self.live
        if not self.running and session is not None and live is not None and session.runs:
            live.draw(list(session.runs), str(self.seed_view.value))
            self._caption()

    def _show_tables(self, session: RunSession) -> None:
        kept = sum(run.results is not None for run in session.runs)
        if kept == self._shown_results:
            return
        self._shown_results = kept
        self.scorecard_view.value = scorecard_html(session.scorecard())
        self.failures_view.value = failures_html(session.failures())

    def _status(self, session: RunSession) -> tuple[str, str]:
        run, n = session.current, len(session.seeds)
        failed, sightings = session.failures(), session.canary_sightings()
        failures = _failure_note(failed) + _canary_note(sightings)
        colour = RED if len(failed) or sightings else "inherit"
        cadence = self.live.title if self.live else ""
        if session.state in ("running", "stopping") and run is not None:
            steps = f"step {run.steps:,}/{session.total:,}"
            where = f"seed {run.seed} ({len(session.runs)}/{n}), {steps}"
            return f"{session.state}: {where} · {cadence}{failures}", colour
        if session.state == "done":
            return f"done in {session.seconds:.1f}s: {n} seed(s) · {cadence}{failures}", colour
        if session.state == "stopped":
            return self._stopped_text(session) + failures, colour
        return f"failed: {session.error}{failures}", RED

    def _stopped_text(self, session: RunSession) -> str:
        finished = [r for r in session.runs if r.complete]
        partial = [r for r in session.runs if not r.complete]
        text = f"stopped after {session.steps_done:,}/{session.steps_planned:,} steps"
        text += f": kept {len(finished)} finished seed(s)"
        if partial:
            text += f" and seed {partial[0].seed} ({partial[0].label})"
        kept = list(self.transcript_dir.rglob("*.json"))
        return text + (f"; partial transcripts kept in {self.transcript_dir}" if kept else "")

    async def _write_report(self, session: RunSession) -> None:
        kept = [run.results for run in session.runs if run.results is not None]
        if not kept:
            return
        folder = self.out_dir / f"run-{self.runs}"
        title = "panel run" + ("" if session.state == "done" else " (stopped; last seed partial)")
        text, colour = self._status(session)
        self._say(f"{text} · writing the report …", colour=colour)
        paths = await asyncio.to_thread(self._outputs, kept, folder, title, session.market)
        self.report = paths["report"]
        self._say(text, colour=colour, link=report_href(self.report))

    @staticmethod
    def _outputs(
        kept: list[Any], folder: Path, title: str, market: Mapping[str, Any]
    ) -> dict[str, Path]:
        """The run's files and report, with the text leak report of a run with news (as the
        notebooks and the CLI's ``--out`` write it)."""
        from workbench.notebooks.parameters import leak_table
        from workbench.report import write_outputs

        return write_outputs(kept, folder, title=title, leaks=leak_table(market))

    async def _replay(self, folder: Path) -> None:
        """The replay runs on a worker thread; Stop abandons it (its result is dropped)."""
        from workbench import recordings

        self.session = None
        self.progress.max, self.progress.value = 1, 0
        self._say(f"replaying {folder.name} …")
        report = await asyncio.to_thread(recordings.replay, folder, False)
        self.progress.value = 1
        self.controls.show_settings(report.results.meta)
        self._show_replay(report, folder)

    def _show_replay(self, report: Any, folder: Path) -> None:
        from workbench.widgets._news import NewsMarks
        from workbench.widgets._session import SeedRun

        results = report.results
        steps_per_day = int(results.meta.get("steps_per_day") or 1)
        run = SeedRun(int(results.meta.get("seed", 0)), results=results, complete=True)
        if len(results.information):
            run.news = NewsMarks.of(results.information, steps_per_day)
        for k, row in enumerate(results.equity.itertuples(index=False)):
            run.mark(k, len(results.equity), dict(zip(results.equity.columns, row, strict=True)))
        live = self.chart_figure
        live.reset(steps_per_day, f"replay of {folder.name}")
        live.draw([run])
        self._caption()
        self.scorecard_view.value = scorecard_html(results.scorecard)
        verdict = "matches the recording" if report.matched else "DIFFERS from the recording"
        self._say(f"replay of {folder.name} {verdict}", colour="inherit" if report.matched else RED)

    def _finished(self, task: asyncio.Task[Any]) -> None:
        self._buttons(running=False)
        if task.cancelled():
            if self.session is not None:
                self._say(*self._status(self.session))
            self._show_tables(self.session) if self.session is not None else None
        elif task.exception() is not None:
            exc = task.exception()
            if self.session is not None and self.session.state == "failed":
                self._say(*self._status(self.session))
            else:
                self._say(f"failed: {type(exc).__name__}: {exc}", colour=RED)

    # --- widgets -----------------------------------------------------------------------
    def _clear(self) -> None:
        self.chart_figure.draw([])
        self.chart_step.value, self.frames = "", []
        self.scorecard_view.value = self.failures_view.value = self.warning.value = ""
        self._shown_results = -1
        self.report = None

    def _buttons(self, *, running: bool) -> None:
        self.run_button.disabled = running
        self.replay_button.disabled = running or not self.recordings
        self.stop_button.disabled = not running

    def _say(self, text: str, colour: str = "inherit", link: str = "") -> None:
        self.status.value = status_html(redact(text), colour=colour, link=link)


def _failure_note(failed: pd.DataFrame) -> str:
    if failed.empty:
        return ""
    arms = failed["arm"].nunique()
    return f" · {len(failed):,} decision(s) of {arms} arm(s) FAILED: see the list below"


def _canary_note(sightings: int) -> str:
    if not sightings:
        return ""
    return (
        f" · {sightings:,} canary sighting(s) before their day: something an arm reads "
        "looks ahead; see the report's canary audit"
    )


def _bars_with_text(data: DataSource, text: dict[str, Any]) -> DataSource | Historical:
    """``data`` with the researcher's text joined once, checked as the CLI checks it."""
    if not text:
        return data
    if data is None:
        given = ", ".join(f"{k}=" for k in text)
        raise ConfigError(f"{given} join text to historical bars: pass data= too")
    return load_bars(data, **text)


def _default_days(data: DataSource | Historical) -> int:
    """Every tradable date of ``data``; the simulator's default is 5 days."""
    if data is None:
        return 5
    from workbench.evaluation import World

    return World(data=data).days


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


def _universe(universe: int | None, names: int | None) -> int:
    given: dict[str, Any] = {"universe": universe, "names": names}
    renamed_keyword(given, "names", "universe", caller="ExperimentPanel")
    return PANEL_UNIVERSE if given["universe"] is None else given["universe"]
