"""The three framework adapters agree with each other, in a Jupyter kernel and a plain script.

A kernel already runs an event loop, where ``Runner.run_sync`` and
``Agent.run_sync`` refuse to work; the adapters go through the workbench bridge
instead. The kernel, a plain script and this process must agree bit for bit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from workbench.evaluation import evaluate
from workbench.integrations import callable_agent
from workbench.testing import trend_policy
from workbench.testing.framework_arms import langgraph_arm, openai_agents_arm, pydantic_ai_arm

ROOT = Path(__file__).resolve().parent.parent
MARKET: dict[str, Any] = {"seed": 11, "universe": 4, "days": 2}

RUN = """
import json
from workbench.evaluation import evaluate
from workbench.testing import langgraph_arm, openai_agents_arm, pydantic_ai_arm

arms = [openai_agents_arm(), pydantic_ai_arm(), langgraph_arm()]
results = evaluate(arms, seed=seed, universe=universe, days=days)
card = results.scorecard
print("FRAMEWORKS", json.dumps({
    "digest": results.digest(),
    "errors": int(card["errors"].sum()),
    "model_calls": card["model_calls"].tolist(),
}))
"""


def _in_process_digest() -> str:
    arms = [openai_agents_arm(), pydantic_ai_arm(), langgraph_arm()]
    return evaluate(arms, **MARKET).digest()


def _report(text: str) -> dict[str, Any]:
    (line,) = [line for line in text.splitlines() if line.startswith("FRAMEWORKS ")]
    return json.loads(line.removeprefix("FRAMEWORKS "))


def _check(report: dict[str, Any]) -> None:
    assert report["errors"] == 0
    assert report["model_calls"] == [MARKET["days"]] * 3
    assert report["digest"] == _in_process_digest()


@pytest.mark.slow
def test_every_framework_trades_exactly_like_a_plain_function_on_one_policy() -> None:
    arms = [openai_agents_arm(), pydantic_ai_arm(), langgraph_arm()]
    results = evaluate([*arms, callable_agent(trend_policy, name="callable")], **MARKET)
    equity = results.equity
    for arm in arms:
        assert equity[arm.name].tolist() == equity["callable"].tolist()
    orders = results.orders.drop(columns="arm")
    by_arm = [orders[results.orders["arm"] == arm].reset_index(drop=True) for arm in equity]
    assert len(by_arm[0]) > 0
    assert all(frame.equals(by_arm[0]) for frame in by_arm)


@pytest.mark.slow
def test_all_three_adapters_in_a_kernel_through_papermill(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nbformat
    import papermill

    monkeypatch.setenv("PYTHONPATH", str(ROOT), prepend=os.pathsep)
    parameters = nbformat.v4.new_code_cell("seed = 0\nuniverse = 2\ndays = 1")
    parameters.metadata["tags"] = ["parameters"]
    notebook = nbformat.v4.new_notebook(cells=[parameters, nbformat.v4.new_code_cell(RUN)])
    notebook.metadata["kernelspec"] = {"name": "python3", "language": "python", "display_name": "3"}
    notebook.metadata["language_info"] = {"name": "python"}
    source, output = tmp_path / "frameworks.ipynb", tmp_path / "frameworks-out.ipynb"
    nbformat.write(notebook, source)
    papermill.execute_notebook(
        str(source),
        str(output),
        parameters=MARKET,
        kernel_name="python3",
        progress_bar=False,
        cwd=str(tmp_path),
    )
    executed = nbformat.read(output, as_version=4)
    printed = "".join(
        item.get("text", "")
        for cell in executed.cells
        for item in cell.get("outputs", [])
        if item.get("output_type") == "stream"
    )
    _check(_report(printed))


@pytest.mark.slow
def test_all_three_adapters_from_a_plain_script(tmp_path: Path) -> None:
    script = tmp_path / "frameworks.py"
    header = "".join(f"{key} = {value!r}\n" for key, value in MARKET.items())
    script.write_text(header + RUN, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-W", "error", str(script)],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    _check(_report(done.stdout))
