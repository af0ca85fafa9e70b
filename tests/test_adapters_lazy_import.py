"""No framework is imported until a live call needs it; a replay needs none of them.

Each check runs in a fresh interpreter with a ``sys.meta_path`` finder that
refuses every framework module, as if none were installed.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FRAMEWORKS = ("agents", "pydantic_ai", "langgraph", "langchain_core", "openai")
RECORDINGS = ("openai-agents-scripted", "pydantic-ai-scripted", "langgraph-scripted")

BLOCKER = f"""
import importlib.abc, sys
BLOCKED = {FRAMEWORKS!r}

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{{name!r}} is blocked by the test", name=name)
        return None

sys.meta_path.insert(0, Absent())

def loaded():
    return sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
"""


def _run(body: str) -> str:
    script = BLOCKER + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_importing_the_adapters_and_test_doubles_imports_no_framework() -> None:
    out = _run(
        """
        import workbench, workbench.testing
        import workbench.integrations.openai_agents as oa
        import workbench.integrations.pydantic_ai as pa
        import workbench.integrations.langgraph as lg
        import workbench.testing.framework_arms
        assert oa.BRIEF and pa.MANDATE and lg.INSTRUCTIONS
        print("loaded", loaded())
        """
    )
    assert "loaded []" in out


@pytest.mark.parametrize("name", RECORDINGS)
@pytest.mark.slow
def test_a_shipped_framework_recording_replays_with_the_framework_absent(name: str) -> None:
    out = _run(
        f"""
        from workbench.recordings import replay
        report = replay("recordings/{name}")
        print("matched", report.matched, "loaded", loaded())
        print(report.results.scorecard["errors"].to_dict())
        """
    )
    assert "matched True loaded []" in out
    assert "-stumbling': 1" in out  # the recorded bad answer replays into the error column


@pytest.mark.slow
def test_a_live_adapter_without_its_framework_says_which_extra_to_install() -> None:
    out = _run(
        """
        from workbench.errors import MissingDependency
        from workbench.integrations.openai_agents import openai_agent
        from workbench.integrations.pydantic_ai import PydanticAIAdapter

        class Stand_in:
            name = "arm"
            def clone(self, **kwargs): return self
            async def run(self, *args, **kwargs): return None

        for build in (openai_agent, PydanticAIAdapter):
            try:
                build(Stand_in())
            except MissingDependency as exc:
                print(exc)
        for module in ("openai_agents", "pydantic_ai", "langgraph"):
            try:
                __import__(f"workbench.testing.{module}")
            except MissingDependency as exc:
                print(exc)
        """
    )
    assert 'pip install "workbench[openai-agents]"' in out
    assert 'pip install "workbench[pydantic-ai]"' in out
    assert out.count("pip install") == 5
    assert 'pip install "workbench[langgraph]"' in out


@pytest.mark.slow
def test_a_langgraph_adapter_needs_no_langgraph_for_a_plain_invoke_object() -> None:
    out = _run(
        """
        from workbench.agents import DecisionRequest, PresetStamp
        from workbench.bridge import run_sync
        from workbench.integrations.langgraph import langgraph_agent

        class Rules:
            def invoke(self, sent, config):
                return {"actions": [], "rationale": config["metadata"]["workbench_arm"]}

        arm = langgraph_agent(Rules(), name="rules")
        request = DecisionRequest("rules", 0, 0, 0, {"symbols": {}}, PresetStamp("p", {}))
        print(run_sync(arm.adecide(request)).rationale, loaded())
        """
    )
    assert "rules []" in out
