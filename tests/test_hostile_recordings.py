"""Hostile recordings: a recording is data; replaying one never runs code or reads files it names.

Each hostile recording is the shipped async-contrarian recording with one part
changed as an attacker would: a roster entry naming ``subprocess:run``, an
adapter spec whose ``postprocess`` is ``builtins:exec`` over a transcript of
Python source, and transcript paths that leave the folder (``..``, an absolute
path, a symbolic link). Every front end must refuse each of them with nothing
executed (a marker file stays absent) and no outside file opened (an audit hook
watches every ``open``), in this process and in the subprocesses the CLI, the
pytest plugin and the MCP server run in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from workbench._trust import trusted_names
from workbench.errors import RecordingError, UntrustedRecording
from workbench.recordings import distrust, replay, trust
from workbench.services.recorded import list_recordings, replay_recording
from workbench.transcript import Exchange, Transcript

ROOT = Path(__file__).resolve().parents[1]
BASE = ROOT / "recordings" / "callable-async-contrarian"
HOSTILE = ("runs-a-command", "execs-a-response", "climbs-out", "absolute-path", "links-out")

# --- one audit hook for this process: every file opened while `watching` is set -------
OPENED: list[str] = []
WATCHED: set[str] = set()


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and WATCHED and isinstance(args[0], str | bytes | os.PathLike):
        path = os.path.realpath(os.fsdecode(args[0]))
        if path in WATCHED:
            OPENED.append(path)


sys.addaudithook(_audit)

SITECUSTOMIZE = """
import os, sys
_watched = set(filter(None, os.environ.get("WATCHED_FILES", "").split(os.pathsep)))
_log = os.environ.get("OPENED_LOG")

def _audit(event, args):
    if event == "open" and _watched and isinstance(args[0], (str, bytes, os.PathLike)):
        path = os.path.realpath(os.fsdecode(args[0]))
        if path in _watched:
            _watched.clear()  # writing the log opens a file too
            with open(_log, "a") as out:
                out.write(path + "\\n")

if _watched and _log:
    sys.addaudithook(_audit)
"""


@pytest.fixture
def hostile(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """A folder of hostile recordings, a marker that must never appear, the watched files."""
    folder = tmp_path / "recordings"
    marker = tmp_path / "MARKER"
    outside = tmp_path / "outside.json"
    Transcript.load(BASE / "transcripts" / "contrarian.json").save(outside)
    for name in HOSTILE:
        shutil.copytree(BASE, folder / name)
    _add_arm(
        folder / "runs-a-command",
        {
            "agent": "subprocess:run",
            "every": 6,
            "kwargs": {"args": ["touch", str(marker)]},
            "name": "sneak",
        },
    )
    _exec_responses(folder / "execs-a-response", marker)
    _retarget(folder / "climbs-out", "../../outside.json")
    _retarget(folder / "absolute-path", str(outside))
    linked = folder / "links-out" / "transcripts" / "contrarian.json"
    linked.unlink()
    linked.symlink_to(outside)
    WATCHED.update({str(outside.resolve()), os.path.realpath("/etc/passwd")})
    OPENED.clear()
    yield {"folder": folder, "marker": marker, "outside": outside}
    WATCHED.clear()


def _manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "manifest.json").read_text())


def _write_manifest(folder: Path, manifest: dict[str, Any]) -> None:
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))


def _add_arm(folder: Path, entry: dict[str, Any]) -> None:
    manifest = _manifest(folder)
    manifest["roster"].append(entry)
    _write_manifest(folder, manifest)


def _retarget(folder: Path, transcript: str) -> None:
    manifest = _manifest(folder)
    manifest["roster"][0]["transcript"] = transcript
    _write_manifest(folder, manifest)


def _exec_responses(folder: Path, marker: Path) -> None:
    """The contrarian arm as a callable adapter whose postprocess is exec, answering source."""
    path = folder / "transcripts" / "contrarian.json"
    recorded = Transcript.load(path)
    source = f"open({str(marker)!r}, 'w').close()\nactions = []"
    exchanges = [
        Exchange(e.key, e.day, e.step, e.input, source, e.usage, e.error) for e in recorded
    ]
    Transcript(recorded.meta, exchanges).save(path)
    manifest = _manifest(folder)
    manifest["roster"][0] = {
        "adapter": "workbench.integrations.callable:CallableAgentAdapter",
        "every": 6,
        "name": "contrarian",
        "spec": {
            "every": 6,
            "info": {"framework": "callable"},
            "name": "contrarian",
            "postprocess": "builtins:exec",
        },
        "transcript": "transcripts/contrarian.json",
    }
    _write_manifest(folder, manifest)


def _nothing_ran(hostile: dict[str, Path], opened: list[str]) -> None:
    assert not hostile["marker"].exists(), "a hostile recording ran code"
    assert opened == [], f"a hostile recording opened {opened}"


# --- in this process ------------------------------------------------------------------
@pytest.mark.parametrize("name", HOSTILE)
@pytest.mark.slow
def test_replay_refuses_a_hostile_recording_before_touching_anything(
    hostile: dict[str, Path], name: str
) -> None:
    with pytest.raises(UntrustedRecording) as refused:
        replay(hostile["folder"] / name)
    _nothing_ran(hostile, OPENED)
    message = str(refused.value)
    if name in ("runs-a-command", "execs-a-response"):
        assert "is not a trusted name" in message and "workbench.recordings.trust(" in message
        assert ("'subprocess:run'" if name == "runs-a-command" else "'builtins:exec'") in message
    else:
        assert "transcript" in message and "recording folder" in message


def test_the_refusal_names_the_arm_and_the_way_to_trust_it(hostile: dict[str, Path]) -> None:
    with pytest.raises(UntrustedRecording) as refused:
        replay(hostile["folder"] / "runs-a-command")
    assert "arm 'sneak'" in str(refused.value) and "agent 'subprocess:run'" in str(refused.value)
    assert "entry point" in str(refused.value) and "never from a recording" in str(refused.value)


def test_listing_marks_a_hostile_recording_without_building_it(hostile: dict[str, Path]) -> None:
    rows = {row["name"]: row for row in list_recordings(hostile["folder"])["recordings"]}
    assert set(rows) == set(HOSTILE)
    assert all("error" in row for row in rows.values())
    _nothing_ran(hostile, OPENED)


def test_the_replay_service_refuses_each_hostile_recording(
    hostile: dict[str, Path], tmp_path: Path
) -> None:
    for name in HOSTILE:
        with pytest.raises(UntrustedRecording):
            replay_recording(tmp_path / "store", name, recordings=hostile["folder"])
    _nothing_ran(hostile, OPENED)


def test_a_stray_symlink_in_a_recording_is_not_followed_by_the_service(
    hostile: dict[str, Path], tmp_path: Path
) -> None:
    folder = hostile["folder"] / "climbs-out"
    _retarget(folder, "transcripts/contrarian.json")
    (folder / "notes.txt").symlink_to(hostile["outside"])
    with pytest.raises(UntrustedRecording, match="symbolic link out"):
        replay_recording(tmp_path / "store", "climbs-out", recordings=hostile["folder"])
    _nothing_ran(hostile, OPENED)


def test_an_arm_trusted_in_code_replays(tmp_path: Path) -> None:
    """The same manifest naming a user's own factory replays once the user trusts it."""
    folder = Path(shutil.copytree(BASE, tmp_path / "mine"))
    manifest = _manifest(folder)
    manifest["roster"][0]["factory"] = "workbench.testing.scripted:contrarian_agent_of_mine"
    _write_manifest(folder, manifest)
    with pytest.raises(UntrustedRecording, match="contrarian_agent_of_mine"):
        replay(folder)
    mine = f"{my_factory.__module__}:my_factory"
    manifest["roster"][0]["factory"] = mine
    _write_manifest(folder, manifest)
    trust(my_factory)
    try:
        assert mine in trusted_names()
        assert replay(folder).matched
    finally:
        distrust(mine)
    assert mine not in trusted_names()


def my_factory(**kwargs: Any) -> Any:
    from workbench.testing.scripted import contrarian_agent

    return contrarian_agent(**kwargs)


def test_a_recorded_committee_path_is_refused(tmp_path: Path) -> None:
    from workbench.committee import Committee

    with pytest.raises(UntrustedRecording, match="mapping"):
        Committee.from_replay_spec(
            {"name": "c", "every": 6, "committee": "/etc/passwd"}, Transcript()
        )


def test_kwargs_of_a_trusted_agent_must_be_plain(tmp_path: Path) -> None:
    folder = Path(shutil.copytree(BASE, tmp_path / "kw"))
    manifest = _manifest(folder)
    manifest["roster"][1]["kwargs"]["every"] = {"__class__": "x"}
    _write_manifest(folder, manifest)
    with pytest.raises(RecordingError, match="plain values"):
        replay(folder)


# --- in the subprocesses of the front ends ------------------------------------------------
def _watched_env(hostile: dict[str, Path], tmp_path: Path) -> dict[str, str]:
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE)
    watched = [str(hostile["outside"].resolve()), os.path.realpath("/etc/passwd")]
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(hooks), str(ROOT)]),
        "WATCHED_FILES": os.pathsep.join(watched),
        "OPENED_LOG": str(tmp_path / "opened.log"),
    }


def _opened(tmp_path: Path) -> list[str]:
    log = tmp_path / "opened.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_audit_hook_sees_an_outside_file_being_opened(
    hostile: dict[str, Path], tmp_path: Path
) -> None:
    """The watcher itself works: a subprocess that opens the watched file is seen."""
    env = _watched_env(hostile, tmp_path)
    code = f"open({str(hostile['outside'])!r}).close()"
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=60)
    assert _opened(tmp_path) == [str(hostile["outside"].resolve())]


@pytest.mark.slow
@pytest.mark.parametrize("name", HOSTILE)
def test_workbench_replay_check_refuses_a_hostile_recording(
    hostile: dict[str, Path], tmp_path: Path, name: str
) -> None:
    command = [sys.executable, "-m", "workbench", "replay", str(hostile["folder"] / name)]
    done = subprocess.run(
        [*command, "--check"],
        env=_watched_env(hostile, tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "not a trusted name" in done.stderr or "recording folder" in done.stderr, done.stderr
    _nothing_ran(hostile, _opened(tmp_path))


@pytest.mark.slow
def test_the_pytest_plugin_fails_every_hostile_recording(
    hostile: dict[str, Path], tmp_path: Path
) -> None:
    command = [sys.executable, "-m", "pytest", "--recordings", str(hostile["folder"]), "-q"]
    done = subprocess.run(
        [*command, "-p", "no:cacheprovider", "-W", "error"],
        env=_watched_env(hostile, tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{len(HOSTILE)} failed" in done.stdout, done.stdout
    assert done.stdout.count("UntrustedRecording: ") >= len(HOSTILE), done.stdout
    _nothing_ran(hostile, _opened(tmp_path))


@pytest.mark.slow
def test_replay_recording_over_mcp_refuses_every_hostile_recording(
    hostile: dict[str, Path], tmp_path: Path
) -> None:
    pytest.importorskip("mcp")
    import anyio

    answers = anyio.run(_mcp_replays, hostile["folder"], tmp_path)
    for name, (is_error, text) in answers.items():
        assert is_error, (name, text)
        assert "trusted name" in text or "recording folder" in text, (name, text)
    _nothing_ran(hostile, _opened(tmp_path))


async def _mcp_replays(folder: Path, tmp_path: Path) -> dict[str, tuple[bool, str]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    env = _watched_env({"outside": tmp_path / "outside.json"}, tmp_path)
    arguments = ["-m", "workbench", "mcp", "--store", str(tmp_path / "store")]
    parameters = StdioServerParameters(
        command=sys.executable,
        args=[*arguments, "--recordings", str(folder)],
        cwd=str(ROOT),
        env=env,
    )
    answers = {}
    with (tmp_path / "server.err").open("w") as errors:
        async with (
            stdio_client(parameters, errlog=errors) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            for name in HOSTILE:
                reply = await session.call_tool("replay_recording", {"name": name})
                answers[name] = (reply.is_error, reply.content[0].text)
    return answers


def test_an_entry_point_in_the_workbench_arms_group_is_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from workbench import _trust

    info = tmp_path / "my_arms-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-arms\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[workbench.arms]\nmine = my_arms.build:agent\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    _trust.entry_point_names.cache_clear()
    try:
        assert "my_arms.build:agent" in trusted_names()
        assert "my_arms.build:other" not in trusted_names()
    finally:
        monkeypatch.undo()
        _trust.entry_point_names.cache_clear()
    assert "my_arms.build:agent" not in trusted_names()
