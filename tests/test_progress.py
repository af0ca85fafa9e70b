"""evaluate(progress=...): the bar's counts, its default, and the agent's traceback on errors."""

from __future__ import annotations

import asyncio
import io

import pytest

from workbench import evaluate
from workbench.errors import ConfigError
from workbench.evaluation import progress as progress_module
from workbench.integrations import callable_agent
from workbench.testing.scripted import trend_follower


def _broken(payload):
    return _helper(payload)


def _helper(payload):
    raise KeyError("prices")


def test_a_raising_agent_leaves_the_traceback_of_its_own_code():
    broken = callable_agent(_broken, name="broken")
    results = evaluate([broken, "cash"], universe=4, days=1, steps_per_day=2)
    text = results.errors.iloc[0]["traceback"]
    assert "in _broken" in text and "in _helper" in text and "KeyError: 'prices'" in text
    assert "workbench/evaluation" not in text and "asyncio" not in text
    assert "traceback" not in str(results.to_dict()["errors"])  # paths stay out of digests


def test_the_bar_counts_steps_and_shows_who_is_waiting(monkeypatch):
    seen: list[int] = []

    async def slow(payload):
        await asyncio.sleep(0.02)
        seen.append(created[0].waiting)
        return trend_follower(payload)

    created: list[progress_module.RunProgress] = []
    original = progress_module.RunProgress.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if self.bar is not None:  # the oracle reader's reference run shows no bar
            self.bar.fp = io.StringIO()
            created.append(self)

    monkeypatch.setattr(progress_module.RunProgress, "__init__", spy)
    monkeypatch.setattr(progress_module, "_TICK_S", 0.01)
    agents = [callable_agent(slow, name=f"slow{i}") for i in range(3)]
    evaluate(agents, universe=4, days=1, steps_per_day=3, progress=True)
    run = created[0]
    assert run.bar.n == 3 and run.waiting == 0
    assert max(seen) == 3  # all three arms were waiting on their model at once
    calls = sum(a.usage.model_calls for a in agents)
    assert calls >= 3 and f"waiting 0/3 · calls {calls} · tokens 0" in run.bar.postfix


def test_the_bar_is_off_outside_a_notebook_and_refuses_odd_values(monkeypatch):
    assert not progress_module.in_notebook()
    assert not progress_module.RunProgress(None, 5, []).enabled
    with pytest.raises(ConfigError, match="progress must be True, False or None"):
        evaluate(["cash"], universe=3, days=1, progress="yes")
