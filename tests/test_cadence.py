"""Cadence in days: every arm decides once per trading day unless told otherwise."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from workbench import Agent, evaluate
from workbench.baselines import BASELINES
from workbench.committee import Committee
from workbench.errors import ConfigError, ReplayMiss
from workbench.integrations import (
    CallableAgentAdapter,
    LangGraphAdapter,
    OpenAIAgentsAdapter,
    PydanticAIAdapter,
    callable_agent,
)
from workbench.report import format_scorecard, render_report

DAYS = 4


class Seen:
    """A plain function that notes the (day, step) of every payload it is asked about."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.asked.append((payload["day"], payload["step"]))
        return {"actions": []}


def once_a_day(days: int, steps_per_day: int) -> list[tuple[int, int]]:
    """At the first step's close of each day; on one-step days the last close has no next
    step to execute in, so it asks no one."""
    asked_days = days if steps_per_day > 1 else days - 1
    return [(day, 0) for day in range(asked_days)]


@pytest.mark.parametrize("steps_per_day", [1, 3, 6, 12])
@pytest.mark.slow
def test_a_default_callable_arm_decides_once_per_trading_day(steps_per_day: int) -> None:
    seen = Seen()
    results = evaluate(
        [callable_agent(seen, name="fn"), "momentum"],
        seed=2,
        universe=4,
        days=DAYS,
        steps_per_day=steps_per_day,
        ticks_per_step=5,
    )
    assert seen.asked == once_a_day(DAYS, steps_per_day)
    card = results.scorecard["decisions"]
    assert card["fn"] == card["momentum"] == len(seen.asked)
    assert results.meta["every"] == {"fn": "day", "momentum": "day"}


def history(dates: int = 30) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for day in pd.bdate_range("2022-01-03", periods=dates):
        for symbol in ("X", "Y"):
            close = 100 * float(np.exp(0.01 * rng.standard_normal()))
            rows.append({"date": day, "symbol": symbol, "open": close, "high": close * 1.01,
                         "low": close * 0.99, "close": close, "volume": 1e6})  # fmt: skip
    return pd.DataFrame(rows)


def test_on_historical_bars_a_default_callable_arm_decides_every_trading_day() -> None:
    seen = Seen()
    results = evaluate([callable_agent(seen, name="fn"), "equal_weight"], data=history())
    days = results.meta["days"]
    assert days == 10 and seen.asked == once_a_day(days, 1)
    assert (
        results.scorecard.loc["fn", "decisions"]
        == results.scorecard.loc["equal_weight", "decisions"]
    )


def test_every_step_and_every_n_steps_are_explicit_choices() -> None:
    each, second = Seen(), Seen()
    arms = [callable_agent(each, name="each", every="step"), callable_agent(second, every=2)]
    evaluate(arms, seed=1, universe=3, days=2, steps_per_day=3, ticks_per_step=5)
    assert each.asked == [(d, s) for d in range(2) for s in range(3)][:-1]
    assert second.asked == [(0, 0), (0, 2), (1, 1)]


@pytest.mark.parametrize(
    "kind",
    [
        CallableAgentAdapter,
        LangGraphAdapter,
        OpenAIAgentsAdapter,
        PydanticAIAdapter,
        Committee,
        *BASELINES.values(),
    ],
)
def test_every_arm_kind_defaults_to_once_a_day(kind: type[Agent]) -> None:
    default = inspect.signature(kind.__init__).parameters.get("every")
    declared = default.default if default is not None else None
    assert declared in ("day", None) and (declared or kind.every) == "day"


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "week", None])
def test_a_cadence_that_is_not_one_is_refused_naming_the_choices(bad: Any) -> None:
    if bad is None:
        arm = Agent("odd")
        arm.every = None  # type: ignore[assignment]
        with pytest.raises(ConfigError, match="'day'"):
            evaluate([arm], seed=1, universe=3, days=1)
        return
    with pytest.raises(ConfigError, match="every must be 'day'"):
        callable_agent(Seen(), every=bad)


def test_the_transcript_records_the_cadence_and_a_replay_on_another_is_refused() -> None:
    market = {"seed": 4, "universe": 3, "days": 2, "steps_per_day": 3, "ticks_per_step": 5}
    live = callable_agent(Seen(), name="a", mode="record")
    evaluate([live], **market)
    assert live.recorder is not None
    run = live.recorder.meta["run"]
    assert run["every"] == "day" and run["decision_interval"] == 3
    again = callable_agent(None, name="a", mode="replay", transcript=live.recorder)
    assert evaluate([again], **market).scorecard.loc["a", "decisions"] == 2
    finer = callable_agent(None, name="a", mode="replay", every="step", transcript=live.recorder)
    with pytest.raises(ReplayMiss, match="every 'day', but this run has every 'step'"):
        evaluate([finer], **market)


@pytest.mark.slow
def test_the_run_heading_says_how_often_the_arms_decided(tmp_path: Path) -> None:
    fast = callable_agent(Seen(), name="fast", every="step")
    results = evaluate([fast, "cash"], seed=1, universe=3, days=1, ticks_per_step=5)
    head = format_scorecard(results).splitlines()[0]
    assert head.endswith("· fast decides every step, cash decides once a day")
    daily = evaluate(["cash", "momentum"], seed=1, universe=3, days=1, ticks_per_step=5)
    assert format_scorecard(daily).splitlines()[0].endswith("· arms decide once a day")
    page = render_report(daily, tmp_path / "report.html").read_text()
    assert "arms decide once a day" in page
