"""Review of the suite's speed work: `make test` fails when any of its checks fails and
leaves nothing running when interrupted; the process environment's secrets, scanned once
per change, are never stale."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Stand-ins for the tools `make test` runs, each exiting with the code its variable names.
FAKE_TOOLS = {
    "ruff": 'exit "${RUFF_RC:-0}"\n',
    "mypy": 'echo $$ > "$WORK/mypy.pid"\necho "mypy says $MYPY_RC"\nexit "${MYPY_RC:-0}"\n',
    "python": 'echo "suite says $PYTEST_RC"\nexit "${PYTEST_RC:-0}"\n',
}


def _fake_venv(folder: Path, tools: dict[str, str]) -> Path:
    bin_ = folder / "venv" / "bin"
    bin_.mkdir(parents=True)
    for name, body in tools.items():
        (bin_ / name).write_text("#!/bin/sh\n" + body)
        (bin_ / name).chmod(0o755)
    (folder / "venv" / ".installed").touch()  # newer than pyproject.toml: nothing to install
    (folder / "tmp").mkdir()
    return folder / "venv"


def _make_test(folder: Path, venv: Path, **codes: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **codes, "WORK": str(folder), "TMPDIR": str(folder / "tmp")}
    return subprocess.run(
        ["make", "-s", "-C", str(ROOT), "test", f"VENV={venv}"],
        env=env,
        capture_output=True,
        text=True,
        start_new_session=True,  # its own process group, which an interrupt reaches whole
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.parametrize(
    ("ruff", "suite", "mypy", "passes"),
    [("0", "0", "0", True), ("0", "1", "0", False), ("0", "0", "1", False),
     ("0", "1", "1", False), ("1", "0", "0", False), ("0", "2", "0", False)],
)  # fmt: skip
def test_make_test_fails_when_any_check_fails(
    tmp_path: Path, ruff: str, suite: str, mypy: str, passes: bool
) -> None:
    venv = _fake_venv(tmp_path, FAKE_TOOLS)
    done = _make_test(tmp_path, venv, RUFF_RC=ruff, PYTEST_RC=suite, MYPY_RC=mypy)
    assert (done.returncode == 0) is passes, done.stdout + done.stderr
    if ruff == "0":  # the suite ran, and mypy's report follows its output
        assert done.stdout.index(f"suite says {suite}") < done.stdout.index(f"mypy says {mypy}")
    assert not list((tmp_path / "tmp").iterdir())  # the report removed


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


@pytest.mark.slow
def test_an_interrupted_make_test_leaves_no_mypy_running_and_no_report(tmp_path: Path) -> None:
    tools = {
        **FAKE_TOOLS,
        "mypy": 'echo $$ > "$WORK/mypy.pid.tmp"; mv "$WORK/mypy.pid.tmp" "$WORK/mypy.pid"\n'
        "exec sleep 60\n",
        # the suite, once mypy runs, is interrupted as by Ctrl-C: the whole process group
        "python": 'while [ ! -s "$WORK/mypy.pid" ]; do sleep 0.05; done\nkill -INT 0\nsleep 60\n',
    }
    venv = _fake_venv(tmp_path, tools)
    done = _make_test(tmp_path, venv)
    assert done.returncode != 0
    mypy = int((tmp_path / "mypy.pid").read_text())
    for _ in range(100):  # the kill is sent as make stops; the process may take a moment
        if _gone(mypy):
            break
        time.sleep(0.05)
    else:
        os.kill(mypy, signal.SIGKILL)
        pytest.fail("mypy was left running after make test was interrupted")
    assert not list((tmp_path / "tmp").iterdir())  # the report removed
