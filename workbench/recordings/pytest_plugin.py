"""pytest plugin: ``--recordings DIR`` turns every recording under DIR into a test item.

Registered as the ``workbench-recordings`` pytest11 entry point. Each recording
folder (one holding ``manifest.json``) becomes an item that replays it offline
and fails with the difference report (or the replay error naming the cause).
``make test`` passes ``--recordings recordings``. A recording naming your own
factories replays once you trust them: ``workbench.recordings.trust(...)`` in your
``conftest.py``, or a ``workbench.arms`` entry point in your package.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_OPTION = "recordings"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("workbench", "workbench recordings")
    group.addoption(
        "--recordings",
        action="append",
        default=[],
        metavar="DIR",
        help="replay every recording under DIR as a test (repeatable)",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    roots = config.getoption(_OPTION) or []
    if not roots:
        return
    from workbench.recordings.service import find_recordings

    for root in roots:
        folder = Path(root)
        if not folder.is_dir():
            raise pytest.UsageError(f"--recordings {root}: no such folder")
        for recording in find_recordings(folder):
            manifest = (recording / "manifest.json").resolve()
            collector = RecordingFile.from_parent(
                session, path=manifest, nodeid=_nodeid(manifest, config.rootpath)
            )
            items.extend(collector.collect())


def _nodeid(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()


class RecordingFile(pytest.File):
    """A recording's manifest, collected as one replay test."""

    def collect(self) -> Iterator[pytest.Item]:
        yield RecordingItem.from_parent(self, name="replay")


class RecordingItem(pytest.Item):
    """Replays one recording and fails on any difference."""

    def runtest(self) -> None:
        from workbench.recordings.service import replay

        replay(self.path.parent, check=True)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:
        from workbench.errors import RunError

        if isinstance(excinfo.value, RunError):
            return f"{type(excinfo.value).__name__}: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"recording {self.path.parent}"
