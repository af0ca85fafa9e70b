"""Every notebook ends by saying what to try next, and names only things that exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.stem for n in NOTEBOOKS])
def test_the_last_cell_says_what_next(notebook: Path) -> None:
    last = json.loads(notebook.read_text())["cells"][-1]
    text = "".join(last["source"])
    assert last["cell_type"] == "markdown" and text.startswith("## What next"), notebook.name
    for named in re.findall(r"`([\w/.-]+\.(?:ipynb|md))`", text):
        place = ROOT / named if "/" in named else ROOT / "notebooks" / named
        assert place.exists(), f"{notebook.name} points at {named}, which does not exist"
