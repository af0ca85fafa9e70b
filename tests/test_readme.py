"""Every ``>>>`` session in the README runs, and prints what the README shows."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
FENCED_PYTHON = re.compile(r"```python\n(.*?)```", re.DOTALL)


def readme_sessions() -> str:
    """The README's python blocks that hold a ``>>>`` session, in order, as one doctest."""
    blocks = [b for b in FENCED_PYTHON.findall(README.read_text()) if ">>> " in b]
    return "\n".join(blocks)


@pytest.mark.slow
def test_readme_sessions_print_what_they_show(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the sessions write transcripts next to themselves
    parser = doctest.DocTestParser()
    test = parser.get_doctest(readme_sessions(), {}, "README.md", str(README), 0)
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    runner = doctest.DocTestRunner(optionflags=flags)
    runner.run(test)
    outcome = runner.summarize(verbose=False)
    assert outcome.attempted >= 20
    assert outcome.failed == 0, f"{outcome.failed} README examples differ (see the output above)"
