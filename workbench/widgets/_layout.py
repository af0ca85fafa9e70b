"""The panel's widgets and the settings read from them (refused when out of range, not clamped)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from workbench.agents import Agent
from workbench.errors import ConfigError
from workbench.widgets._curves import ALL_SEEDS

_DEFAULT_ARMS = ("buy_and_hold", "momentum")
# (widget, label, smallest, largest): the market's own limits, checked before a run
LIMITS = {
    "days": ("days", 1, 100_000),
    "cadence": ("steps/day", 1, 1_000),
    "universe": ("universe", 1, 5_000),
}


def css(widget: Any, name: str) -> Any:
    widget.add_class(f"workbench-{name}")
    return widget


def _preset_options() -> list[tuple[str, str]]:
    """Each shipped preset as (label, name); a superseded one's label names its successor."""
    from workbench.services.presets import list_presets

    return [
        (f"{row['name']} (superseded by {row['superseded_by']})", row["name"])
        if row["superseded_by"]
        else (row["name"], row["name"])
        for row in list_presets()["presets"]
    ]


class Controls:
    """Every widget of the panel, built by ``build``; ``settings()`` reads and checks them."""

    def __init__(
        self,
        agents: Mapping[str, Agent],
        recordings: Mapping[str, Path],
        seeds: str,
        days: int,
        steps: int,
        universe: int,
    ) -> None:
        self.agents, self.recordings = agents, recordings
        self.initial = {"seeds": seeds, "days": days, "cadence": steps, "universe": universe}

    def build(self, preset: str | None, *, historical: bool, chart: Any) -> None:
        """Every widget; ``chart`` is the live chart's own widget."""
        import ipywidgets as w

        self._inputs(preset, historical)
        shipped = list(self.recordings) or ["(no recordings)"]
        self.recording = css(w.Dropdown(options=shipped, description="recording"), "recording")
        self.run_button = css(w.Button(description="Run", button_style="primary"), "run")
        self.replay_button = css(w.Button(description="Replay"), "replay")
        self.replay_button.disabled = not self.recordings
        self.stop_button = css(w.Button(description="Stop", button_style="danger"), "stop")
        self.stop_button.disabled = True
        self.progress = css(
            w.IntProgress(value=0, min=0, max=1, description="progress"), "progress"
        )
        self.status = css(w.HTML(value="ready"), "status")
        self.warning = css(w.HTML(value=""), "warning")
        self.seed_view = css(w.Dropdown(options=[ALL_SEEDS], description="show"), "seed-view")
        self.chart = css(chart, "chart")
        self.chart_step = css(w.HTML(value=""), "chart-step")  # the step the chart shows
        self.scorecard_view = css(w.HTML(value=""), "scorecard")
        self.scorecard_view.layout = w.Layout(width="100%")
        self.failures_view = css(w.HTML(value=""), "failures")
        self._assemble(w)

    def _inputs(self, preset: str | None, historical: bool) -> None:
        import ipywidgets as w

        from workbench.services.agents import SCRIPTED_ARMS, baseline_names
        from workbench.services.presets import default_preset

        options = [*self.agents, *SCRIPTED_ARMS, *baseline_names()]
        chosen = [*self.agents, *(a for a in _DEFAULT_ARMS if a not in self.agents)]
        rows = min(len(options), 12)  # every arm in view: a chosen one never scrolls away
        self.arms = css(w.SelectMultiple(options=options, value=chosen, rows=rows), "arms")
        self.arms.description = "arms"
        self.preset = css(
            w.Dropdown(options=_preset_options(), value=preset or default_preset(bars=historical)),
            "preset",
        )
        self.preset.description = "preset"
        self.seeds = css(w.Text(value=self.initial["seeds"], description="seed(s)"), "seeds")
        self.days = self._number_box(w, "days")
        self.cadence = self._number_box(w, "cadence")
        self.universe = self._number_box(w, "universe")
        self.names = self.universe  # the box's old name, still read
        if historical:
            self.universe.disabled = self.cadence.disabled = True  # the bars fix both

    def _number_box(self, w: Any, name: str) -> Any:
        """A whole-number box that keeps what was typed (``settings`` checks the range)."""
        return css(w.IntText(value=self.initial[name], description=LIMITS[name][0]), name)

    def _assemble(self, w: Any) -> None:
        settings = w.VBox([self.preset, self.seeds, self.days, self.cadence, self.universe])
        buttons = w.HBox([self.run_button, self.replay_button, self.stop_button, self.recording])
        parts = [
            w.HBox([self.arms, settings]),
            buttons,
            self.progress,
            self.status,
            self.warning,
            self.seed_view,
            self.chart,
            self.chart_step,
            self.failures_view,
            self.scorecard_view,
        ]
        self.widget = css(w.VBox(parts, layout=w.Layout(width="100%")), "panel")

    def settings(self) -> tuple[list[int], dict[str, Any]]:
        """The seeds and market of the next run; a value out of range is refused, naming it."""
        from workbench.notebooks.parameters import seed_list

        if not self.arms.value:
            raise ConfigError("choose at least one arm")
        seeds = seed_list("seed(s)", self.seeds.value)
        values = {name: self._checked(name) for name in LIMITS}
        market = {
            "universe": values["universe"],
            "days": values["days"],
            "steps_per_day": values["cadence"],
            "preset": self.preset.value,
        }
        return seeds, market

    def _checked(self, name: str) -> int:
        label, low, high = LIMITS[name]
        value = getattr(self, name).value
        if not low <= value <= high:
            raise ConfigError(f"{label} must be between {low:,} and {high:,}, got {value}")
        return int(value)

    def seed_choices(self, seeds: list[int]) -> None:
        self.seed_view.options = (
            [ALL_SEEDS, *map(str, seeds)] if len(seeds) > 1 else [str(seeds[0])]
        )

    def show_settings(self, meta: Mapping[str, Any]) -> None:
        """After a replay, the controls show what was replayed (seed, days, cadence, universe)."""
        self.seeds.value = str(meta.get("seed", self.seeds.value))
        self.days.value = int(meta.get("days") or self.days.value)
        self.cadence.value = int(meta.get("steps_per_day") or self.cadence.value)
        self.universe.value = int(meta.get("names") or self.universe.value)
        if meta.get("preset") in {name for _, name in self.preset.options}:
            self.preset.value = meta["preset"]
        self.seed_view.options = [str(meta.get("seed", ""))]
