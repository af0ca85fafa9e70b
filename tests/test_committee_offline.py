"""The committee needs no framework to import, to run offline or to replay its recording."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKER = """
import importlib.abc, sys
BLOCKED = ("agents", "pydantic_ai", "langgraph", "langchain_core", "openai")

class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"{name!r} is blocked by the test", name=name)
        return None

sys.meta_path.insert(0, Absent())
loaded = lambda: sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
"""


def _run(body: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", "error", "-c", BLOCKER + textwrap.dedent(body)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_the_committee_recording_replays_with_every_framework_absent() -> None:
    done = _run(
        """
        from workbench.recordings import replay
        report = replay("recordings/committee-reference")
        print("matched", report.matched, "loaded", loaded())
        """
    )
    assert done.returncode == 0, done.stderr
    assert "matched True loaded []" in done.stdout


@pytest.mark.slow
def test_a_role_on_a_missing_framework_stops_the_run_with_the_install_line() -> None:
    done = _run(
        """
        from workbench import evaluate
        from workbench.committee import Committee, PydanticAIModel
        committee = Committee(models={"deep": PydanticAIModel(object(), name="deep")})
        evaluate([committee], seed=1, universe=3, days=1)
        """
    )
    assert done.returncode != 0
    assert 'pip install "workbench[pydantic-ai]"' in done.stderr
