"""Every python block in the README and docs/*.md runs, and prints what the page shows.

The blocks of one page run in order in one namespace, as a reader would type them:
a block holding a ``>>>`` session is a doctest (its shown output compared, with
``...`` matching anything and whitespace normalised), any other block is run as a
script. A block whose info string says ``skip="why"`` (```` ```python skip="needs a
real API key" ````) is not run, nor one whose ``requires="node"`` names a program that
is not on the PATH; pytest shows why. The pages run in a scratch folder that sees the
checkout's ``docs``, ``notebooks`` and ``recordings``, so files an example writes never
land in the checkout. Why a collector of our own: see docs/contributing.md.
"""

from __future__ import annotations

import doctest
import gc
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
ALL_PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHARED_FOLDERS = ("docs", "notebooks", "recordings")
FENCE = re.compile(r"^```python([^\n]*)\n(.*?)^```", re.DOTALL | re.MULTILINE)
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
# Blocks that show a call rather than a program (a name they use is defined nowhere on
# the page) or need what a test machine lacks, found by a line they hold and not run; a
# fragment is to become runnable and leave this list, a need to move to its info string.
FRAGMENTS = {
    "snapshot = verified_snapshot(payload)": "a fragment: `payload` is a standard-v2 payload",
    'prices = PriceTable.load("prices.yaml")': "a fragment: prices.yaml is the YAML above it",
    "callable_agent(endpoint=endpoint, prices=": "a fragment: `endpoint` is an Endpoint",
    'tracking_uri="http://localhost:5000"': "needs an MLflow tracking server",
    'Endpoint("https://api.example.com/v1"': "needs a hosted provider and a real API key",
}


@dataclass(frozen=True)
class Block:
    """One fenced python block: where it starts, its info-string options and its code."""

    page: Path
    line: int
    options: dict[str, str]
    code: str

    @property
    def is_session(self) -> bool:
        return any(line.startswith(">>> ") for line in self.code.splitlines())


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 2  # the block's first line of code
        options = dict(item.split("=", 1) for item in shlex.split(match.group(1)) if "=" in item)
        found.append(Block(page, line, options, match.group(2)))
    return found


def run_block(block: Block, namespace: dict[str, Any]) -> None:
    name = f"{block.page.name}:{block.line}"
    if not block.is_session:
        exec(compile("\n" * (block.line - 1) + block.code, name, "exec"), namespace)
        return
    parser = doctest.DocTestParser()
    test = parser.get_doctest(block.code, namespace, name, str(block.page), block.line - 1)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, clear_globs=False)
    namespace.update(test.globs)  # the doctest ran on a copy: later blocks see its names
    outcome = runner.summarize(verbose=False)
    assert outcome.failed == 0, f"{name}: {outcome.failed} example(s) differ (output above)"


def why_not_run(block: Block) -> str | None:
    """The reason a block is not run here (its ``skip``, or a program it needs), or None."""
    if "skip" in block.options:
        return block.options["skip"]
    fragment = next((why for line, why in FRAGMENTS.items() if line in block.code), None)
    if fragment:
        return fragment
    needs = block.options.get("requires")
    if needs and shutil.which(needs) is None:
        return f"needs {needs!r} on the PATH"
    return None


def scratch_folder(tmp_path: Path) -> Path:
    for folder in SHARED_FOLDERS:
        (tmp_path / folder).symlink_to(ROOT / folder, target_is_directory=True)
    return tmp_path


PAGES = [page for page in ALL_PAGES if blocks_of(page)]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_python_block_on_the_page_runs(
    page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocks = blocks_of(page)
    monkeypatch.chdir(scratch_folder(tmp_path))
    # the default run store of a fresh machine, never the home folder's
    (tmp_path / "runs").mkdir()
    monkeypatch.setenv("WORKBENCH_RUN_STORE", str(tmp_path / "runs"))
    namespace: dict[str, Any] = {"__name__": f"docs_{page.stem}"}
    skipped = []
    for block in blocks:
        reason = why_not_run(block)
        if reason:
            skipped.append(f"{page.name}:{block.line}: {reason}")
            continue
        run_block(block, namespace)
    namespace.clear()
    gc.collect()  # anything a page left open is reported against that page, not a later test
    if skipped:
        pytest.skip("ran every block but " + "; ".join(skipped))


def test_the_readme_shows_a_session_and_a_first_agent_early() -> None:
    blocks = blocks_of(ROOT / "README.md")
    sessions = [b for b in blocks if b.is_session]
    assert sessions and sessions[0].line < 30
    first_agent = next(b for b in sessions if "callable_agent" in b.code)
    assert first_agent.line < 100
    assert len(ROOT.joinpath("README.md").read_text().splitlines()) <= 250


def test_a_skip_reason_is_read_from_the_info_string(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text('text\n\n```python skip="needs a real API key"\nboom()\n```\n')
    (block,) = blocks_of(page)
    assert block.options == {"skip": "needs a real API key"} and block.line == 4
    assert block.code == "boom()\n" and not block.is_session
    assert why_not_run(block) == "needs a real API key"
    absent = Block(page, 1, {"requires": "no-such-program-here"}, "")
    assert why_not_run(absent) == "needs 'no-such-program-here' on the PATH"
