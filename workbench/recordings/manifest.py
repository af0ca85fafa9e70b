"""A recording's manifest: the experiment, the roster and the results it must reproduce.

Layout of a recording folder::

    manifest.json            the run (seed, preset, universe, days, cadence, roster,
                             schema and package versions) and the expected digest
                             and scorecard
    expected_results.json    the full results (for a readable difference report)
    transcripts/<arm>.json   one transcript per model-backed arm

An arm is rebuilt for replay from its roster entry: ``factory`` (a
``module:function`` called with ``mode="replay", transcript=..., name=...``),
``adapter`` (a ``BaseAdapter`` subclass rebuilt with ``from_replay_spec``) or
``agent`` (an ordinary agent such as a baseline, rebuilt from its constructor
arguments). An arm with memory (``workbench.memory``) keeps its memory settings
in its entry (a factory's) or its adapter spec; the replay is built with them,
and its transcript refuses any others.

A recording is data, checked before anything is built: every name it uses (the
three above and the hooks of an adapter spec) must be in the trust registry
(``workbench.recordings.trust``), and every file it names must lie inside its
folder (relative, no ``..``, no symbolic link out). Otherwise
``UntrustedRecording`` is raised before any module is imported or file opened.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from workbench._jsonio import canonical_json, read_recorded_text
from workbench._names import import_path
from workbench._trust import require_trusted, resolve_trusted
from workbench.agents import Agent
from workbench.engine.universe import Universe
from workbench.errors import ConfigError, RecordingError, UntrustedRecording
from workbench.integrations.base import BaseAdapter
from workbench.transcript import Transcript

MANIFEST = "manifest.json"
EXPECTED = "expected_results.json"
RECORDING_FORMAT = "workbench-recording"
FORMAT_VERSION = 1
_PLAIN = (int, float, str, bool, type(None))
KINDS = ("factory", "adapter", "agent")
HOOKS = ("postprocess", "input_builder")  # adapter-spec keys that name code
MAX_ARM_NAME = 100
_PATH_CHARACTERS = frozenset('/\\:*?"<>|')  # separators, and what Windows forbids


def manifest_text(manifest: Mapping[str, Any]) -> str:
    return canonical_json(manifest, indent=2) + "\n"


def read_json(path: Path, what: str) -> Any:
    """Parse a recording file; a missing, corrupt or truncated one raises RecordingError."""
    text = read_recorded_text(path, what)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordingError(
            f"{what} {path} is corrupt or truncated ({exc.msg} at line {exc.lineno}); "
            "restore it from version control or record again"
        ) from None


def load_manifest(folder: Path) -> dict[str, Any]:
    """The manifest, checked in shape and trust before anything it names is touched."""
    path = recording_file(folder, MANIFEST, "the manifest")
    data = read_json(path, "recording manifest")
    if not isinstance(data, dict) or data.get("format") != RECORDING_FORMAT:
        raise RecordingError(f"{path} is not a workbench recording manifest")
    if data.get("version") != FORMAT_VERSION:
        raise RecordingError(
            f"{path} has recording format version {data.get('version')!r}; "
            f"this workbench reads version {FORMAT_VERSION}"
        )
    missing = [
        k for k in ("seed", "universe", "days", "preset", "roster", "expected") if k not in data
    ]
    if missing:
        raise RecordingError(f"{path} lacks {', '.join(missing)}; record it again")
    _check_shape(data, path)
    for entry in data["roster"]:
        refuse_untrusted(entry, folder)
    return data


def recording_file(folder: Path, relative: Any, what: str) -> Path:
    """A file a recording names, confined to the recording's folder (nothing is opened)."""
    where = f"recording {folder}"
    if not isinstance(relative, str) or not relative or "\\" in relative or "\0" in relative:
        raise UntrustedRecording(f"{where}: {what} {relative!r} is not a relative file path")
    parts = PurePosixPath(relative)
    if parts.is_absolute() or PureWindowsPath(relative).drive or ".." in parts.parts:
        raise UntrustedRecording(
            f"{where}: {what} {relative!r} points outside the recording folder; a recording "
            "names its files relative to its folder, without '..'"
        )
    target = folder / parts
    if not target.resolve().is_relative_to(folder.resolve()):
        raise UntrustedRecording(
            f"{where}: {what} {relative!r} is a symbolic link out of the recording folder; "
            "replace it with the file itself"
        )
    return target


def refuse_untrusted(entry: Mapping[str, Any], folder: Path) -> None:
    """Every name a roster entry uses is trusted and its transcript lies inside the folder."""
    where = f"recording {folder}, arm {entry.get('name')!r}"
    for kind in KINDS:
        if kind in entry:
            require_trusted(entry[kind], what=kind, where=where)
    spec = entry.get("spec", {})
    if not isinstance(spec, Mapping):
        raise RecordingError(f"{where}: the adapter spec is not a mapping; record it again")
    for hook in HOOKS:
        if spec.get(hook) is not None:
            require_trusted(spec[hook], what=hook, where=where)
    kwargs = entry.get("kwargs", {})
    if not (isinstance(kwargs, Mapping) and all(isinstance(v, _PLAIN) for v in kwargs.values())):
        raise RecordingError(f"{where}: kwargs must map names to plain values; record it again")
    if "transcript" in entry:
        recording_file(folder, entry["transcript"], "transcript")


def _check_shape(data: Mapping[str, Any], path: Path) -> None:
    """Refuse a manifest whose parts have the wrong shape, naming the file and the part."""
    expected, preset, roster = data["expected"], data["preset"], data["roster"]
    problems = []
    if not (isinstance(expected, dict) and isinstance(expected.get("digest"), str)):
        problems.append("expected.digest is not a string")
    if not (isinstance(preset, dict) and {"name", "vector"} <= set(preset)):
        problems.append("preset needs a name and a vector")
    if not (isinstance(roster, list) and roster):
        problems.append("roster is not a non-empty list")
    else:
        problems.extend(_roster_problems(roster))
    if problems:
        raise RecordingError(f"{path} is damaged: {'; '.join(problems)}; record it again")


def _roster_problems(roster: list[Any]) -> list[str]:
    problems = []
    for index, entry in enumerate(roster):
        if not (isinstance(entry, dict) and {"name", "every"} <= set(entry)):
            problems.append(f"roster entry {index} needs a name and an every")
        elif not {"factory", "adapter", "agent"} & set(entry):
            problems.append(f"roster entry {entry['name']!r} names no factory, adapter or agent")
        elif {"factory", "adapter"} & set(entry) and "transcript" not in entry:
            problems.append(f"roster entry {entry['name']!r} has no transcript")
    return problems


# --- universe --------------------------------------------------------------------------
def universe_spec(universe: Universe | int | Sequence[str]) -> Any:
    if isinstance(universe, Universe):
        return {"symbols": list(universe.symbols), "sectors": list(universe.sectors)}
    if isinstance(universe, int):
        return universe
    return [str(s) for s in universe]


def universe_from(spec: Any) -> Any:
    if isinstance(spec, dict):
        return Universe.of(spec["symbols"], spec["sectors"])
    return spec


# --- roster -----------------------------------------------------------------------------
def refuse_unsafe_names(names: Sequence[str], *, where: str) -> None:
    """Every arm name is a safe file name (its transcript is ``transcripts/<name>.json``),
    and no two differ only in case (one file on a case-insensitive disk)."""
    for name in names:
        problem = _unsafe(name)
        if problem:
            raise RecordingError(
                f"{where}: arm name {name!r} {problem}, and it names the arm's transcript "
                "file; rename the arm (letters, digits, '.', '_', '-' and spaces are safe)"
            )
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(name.casefold(), name)
        if other != name:
            raise RecordingError(
                f"{where}: arm names {other!r} and {name!r} differ only in case, so their "
                "transcripts would be one file on a case-insensitive disk; rename one"
            )


def _unsafe(name: Any) -> str:
    """Why ``name`` is not a safe path component ('' when it is)."""
    if not isinstance(name, str) or not name.strip():
        return "is empty"
    if len(name) > MAX_ARM_NAME:
        return f"is longer than {MAX_ARM_NAME} characters"
    bad = sorted({c for c in name if c in _PATH_CHARACTERS or not c.isprintable()})
    if bad:
        return f"holds {', '.join(map(repr, bad))}, which a file name cannot safely hold"
    if set(name) == {"."}:
        return "is only dots"
    if name != name.strip():
        return "starts or ends with a space"
    return ""


def arm_spec(arm: Agent, factory: str | None) -> dict[str, Any]:
    """How a replay rebuilds ``arm``; model-backed arms also name their transcript."""
    spec: dict[str, Any] = {"name": arm.name, "every": arm.every}
    if factory is not None:
        spec["factory"] = factory
    elif isinstance(arm, BaseAdapter):
        spec["adapter"] = import_path(type(arm), f"adapter class of arm {arm.name!r}")
        spec["spec"] = arm.replay_spec()
    else:
        spec["agent"] = import_path(type(arm), f"agent class of arm {arm.name!r}")
        spec["kwargs"] = _constructor_arguments(arm)
    if factory is not None or isinstance(arm, BaseAdapter):
        refuse_unsafe_names([arm.name], where="a recording")
        spec["transcript"] = f"transcripts/{arm.name}.json"
    memory = arm.recorded_state().get("memory") if isinstance(arm, BaseAdapter) else None
    if factory is not None and memory is not None:  # an adapter's replay spec holds its own
        spec["memory"] = memory
    return spec


def _constructor_arguments(arm: Agent) -> dict[str, Any]:
    arguments: dict[str, Any] = {"name": arm.name, "every": arm.every}
    for parameter in list(inspect.signature(type(arm).__init__).parameters.values())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        value = getattr(arm, parameter.name, None)
        if parameter.name not in arguments and isinstance(value, _PLAIN):
            arguments[parameter.name] = value
    return arguments


def _from_factory(factory: Any, **options: Any) -> Any:
    """``factory(**options)``; a factory that sets ``name=`` or ``every=`` itself is called
    without it, and the arm it builds must then carry the recorded value."""
    given = dict(options)
    while True:  # each retry drops one of two keys: at most three calls
        try:
            arm = factory(**given)
            break
        except TypeError as exc:
            twice = re.search(r"multiple values for keyword argument '(name|every)'", str(exc))
            if twice is None or twice.group(1) not in given:
                raise
            del given[twice.group(1)]
    for key in {"name", "every"} - set(given):
        if getattr(arm, key, None) != options[key]:
            raise RecordingError(
                f"the factory of arm {options['name']!r} sets {key}= itself, to "
                f"{getattr(arm, key, None)!r}, not the recorded {options[key]!r}; record again"
            )
    return arm


def build_arm(spec: Mapping[str, Any], folder: Path) -> Agent:
    """The replay twin of a roster entry; its transcript is loaded from the folder."""
    name = spec["name"]
    refuse_untrusted(spec, folder)
    where = f"recording {folder}, arm {name!r}"
    if "factory" in spec or "adapter" in spec:
        transcript = Transcript.load(recording_file(folder, spec["transcript"], "transcript"))
        if "factory" in spec:
            factory = resolve_trusted(spec["factory"], what="factory", where=where)
            memory = {"memory": spec["memory"]} if "memory" in spec else {}
            arm = _from_factory(
                factory,
                mode="replay",
                transcript=transcript,
                name=name,
                every=spec["every"],
                **memory,
            )
        else:
            adapter = resolve_trusted(spec["adapter"], what="adapter", where=where)
            arm = adapter.from_replay_spec(spec["spec"], transcript)
    elif "agent" in spec:
        agent = resolve_trusted(spec["agent"], what="agent", where=where)
        try:
            arm = agent(**spec.get("kwargs", {}))
        except TypeError as exc:
            raise RecordingError(
                f"{folder / MANIFEST}: roster entry {name!r} cannot be rebuilt: {exc}"
            ) from exc
    else:
        raise RecordingError(f"roster entry {name!r} names no factory, adapter or agent")
    if not isinstance(arm, Agent):
        raise ConfigError(
            f"the factory for arm {name!r} returned {type(arm).__name__}, not an Agent"
        )
    return arm


def refuse_missing_epochs(manifest: Mapping[str, Any], folder: Path) -> None:
    """Every epoch's transcript is on disk: the epochs are one run, and a replay of some of
    them would not be the recorded run."""
    from workbench.evaluation.epochs import epochs_of

    specs = {spec["name"]: spec for spec in manifest["roster"] if "transcript" in spec}
    for base, names in epochs_of(list(specs)).items():
        missing = [
            name
            for name in names
            if not recording_file(folder, specs[name]["transcript"], "transcript").is_file()
        ]
        if missing:
            raise RecordingError(
                f"recording {folder} holds the transcripts of {len(names) - len(missing)} of "
                f"the {len(names)} epochs of arm {base!r} (missing: {', '.join(missing)}); the "
                f"epochs are one run, so record it again with epochs={len(names)}"
            )
