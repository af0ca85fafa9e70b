"""The implementation modules made private: the three that listed names keep a
deprecated alias for one release, and docs/api.md lists all eight old paths."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALIASES = {
    "report.plotly_page": "report._plotly_page",
    "report.tearsheet_tables": "report._tearsheet_tables",
    "memory.running": "memory._running",
}
MOVED = {
    **ALIASES,
    "report.cutoff": "report._cutoff",
    "recordings.text": "recordings._text",
    "recordings.compare": "recordings._compare",
    "services.saved_runs": "services._saved_runs",
    "memory.persisted": "memory._persisted",
}


@pytest.mark.parametrize(("old", "new"), ALIASES.items())
def test_an_old_path_warns_and_gives_the_same_names(old: str, new: str) -> None:
    sys.modules.pop(f"workbench.{old}", None)
    with pytest.warns(DeprecationWarning, match=rf"workbench\.{old} is deprecated.*{new}"):
        alias = importlib.import_module(f"workbench.{old}")
    private = importlib.import_module(f"workbench.{new}")
    assert alias.__all__ == private.__all__
    assert all(getattr(alias, name) is getattr(private, name) for name in alias.__all__)


def test_the_api_reference_lists_every_moved_module() -> None:
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    moved = page[page.index("## Moved in this release") :]
    rows = dict(re.findall(r"^\| `workbench\.([\w.]+)` \| `workbench\.([\w.]+)` \|", moved, re.M))
    assert rows == MOVED
    assert all(
        (ROOT / "workbench" / f"{new.replace('.', '/')}.py").is_file() for new in rows.values()
    )
