"""A scorecard column is one entry in ``workbench.evaluation.columns``: the scorecard, the
glossary, the terminal table and the digests all read the registry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from workbench.evaluation.columns import GLOSSARY, SCORECARD, SCORECARD_COLUMNS, VOLATILE_COLUMNS
from workbench.evaluation.glossary import METRICS
from workbench.report.tables import _SHOWN

PACKAGE = Path(__file__).resolve().parents[1] / "workbench"

NEW_COLUMN = """
    Column(
        "final_equity",
        lambda arm: float(arm.curve[-1]),
        "The arm's equity at the last step's close, marked to mid.",
        "Scales with capital, like pnl.",
        shown=("final", "{:,.0f}"),
    ),
)
"""

SCRIPT = """
import json
from workbench.evaluation import evaluate
from workbench.evaluation.glossary import definition
from workbench.report.tables import format_scorecard
results = evaluate(["buy_and_hold", "cash"], seed=3, universe=4, days=2)
print(json.dumps({
    "value": results.scorecard.loc["cash", "final_equity"],
    "glossary": definition("final_equity"),
    "table": format_scorecard(results),
    "saved": "final_equity" in results.to_json(),
}))
"""


def test_every_reader_takes_the_columns_from_the_registry() -> None:
    assert tuple(column.name for column in SCORECARD) == SCORECARD_COLUMNS
    assert METRICS == GLOSSARY and list(METRICS) == list(SCORECARD_COLUMNS)
    assert {column.name: column.shown for column in SCORECARD if column.shown} == _SHOWN
    assert VOLATILE_COLUMNS == ("latency_s",)


@pytest.mark.slow
def test_a_new_column_is_one_entry(tmp_path: Path) -> None:
    copy = tmp_path / "workbench"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    registry = copy / "evaluation" / "columns.py"
    text = registry.read_text(encoding="utf-8")
    end = text.index("\n)\n", text.index("SCORECARD: tuple[Column, ...] = ("))
    registry.write_text(text[:end] + NEW_COLUMN + text[end + 3 :], encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["value"] == 1_000_000.0
    assert seen["glossary"] == "The arm's equity at the last step's close, marked to mid."
    assert "final" in seen["table"].splitlines()[1] and "1,000,000" in seen["table"]
    assert seen["saved"]
