"""The documentation site builds with warnings as errors, and its nav lists every page."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]


def nav_pages(nav: list[object]) -> set[str]:
    pages: set[str] = set()
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages |= nav_pages(value) if isinstance(value, list) else {str(value)}
    return pages


def test_every_docs_page_is_in_the_nav() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    on_disk = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert nav_pages(config["nav"]) == on_disk


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason='the docs extra: pip install -e ".[docs]"')
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)]
    environment = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=environment
    )
    assert built.returncode == 0, built.stderr[-4000:]
    api = (tmp_path / "api.html").read_text()
    assert 'id="workbench.evaluation.evaluate"' in api  # the docstrings were read
    assert "portfolio.buying_power" in (tmp_path / "payload.html").read_text()
