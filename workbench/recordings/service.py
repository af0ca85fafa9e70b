"""record(...) makes a recording; replay(path) re-executes it offline and reports differences.

A replay checks, in order, and stops naming the cause: the manifest is readable
and of a known format; every name it uses is trusted and every file it names
lies inside its folder (``UntrustedRecording``, before anything is imported or
opened); the payload schema versions are the running ones; the recorded preset
still has the recorded dials; every transcript loads, matches its digests
(``TranscriptEdited`` otherwise) and was made under the same instructions
(checked when each adapter is built); then, when the market opens, each adapter
refuses another seed, roster, universe or cadence before the first decision,
and a changed input misses at its step.
Finally the results digest is compared with the recorded one.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from workbench._jsonio import atomic_write
from workbench._names import resolve
from workbench._stamps import utc_now
from workbench._version import __version__
from workbench.agents import Agent
from workbench.engine.historical import Historical
from workbench.engine.presets import Preset, list_presets, market_preset
from workbench.engine.presets import preset as make_preset
from workbench.engine.universe import Universe
from workbench.engine.variants import Variant
from workbench.errors import ConfigError, RecordingError, ReplayMiss
from workbench.evaluation import Results, evaluate
from workbench.evaluation.canaries import check_canaries
from workbench.evaluation.epochs import check_epochs, epoch_roster, epochs_of
from workbench.evaluation.world import MARKET_DEFAULTS, joined_data, renamed_preset
from workbench.integrations._recorder import recorded_cutoff
from workbench.integrations._replay import moved_dials, refuse_other_schemas
from workbench.integrations.base import BaseAdapter
from workbench.recordings import manifest as mf
from workbench.recordings._compare import differences, edited_expected
from workbench.recordings._text import replayed_text, save_text
from workbench.schema import DECISION_SCHEMA_VERSION, OBSERVATION_SCHEMA_VERSION
from workbench.transcript import Transcript

ArmLike = Agent | str
BARS_FILE = "bars.parquet"
_OVERRIDABLE = ("seed", "universe", "days", "steps_per_day", "ticks_per_step", "preset")


@dataclass
class ReplayReport:
    """What a replay found: the results, and every difference from the recording."""

    path: Path
    results: Results
    expected_digest: str
    digest: str
    differences: list[str] = field(default_factory=list)

    @property
    def matched(self) -> bool:
        return self.digest == self.expected_digest and not self.differences

    def summary(self) -> str:
        if self.matched:
            return f"{self.path}: replay matches the recording (digest {self.digest[:12]}…)"
        lines = "\n".join(f"  - {item}" for item in self.differences)
        return f"{self.path}: replay differs from the recording:\n{lines}"


def record(
    path: str | Path,
    agents: Sequence[ArmLike] | Mapping[str, ArmLike],
    *,
    seed: int,
    universe: Universe | int | Sequence[str] | None = None,
    days: int | None = None,
    steps_per_day: int | None = None,
    ticks_per_step: int | None = None,
    preset: str | Preset | Mapping[str, Any] | None = None,
    data: str | Path | pd.DataFrame | Historical | None = None,
    overwrite: bool = False,
    epochs: int = 1,
    **options: Any,
) -> Results:
    """Run ``agents`` live (model-backed arms in record mode) and write a recording folder.

    ``news=`` and ``fundamentals=`` (with ``data``) are copied into the recording
    (``workbench.recordings._text``), so the replay joins the same text.

    An arm is an Agent, a baseline name, or ``"module:function"``: a factory
    called with ``mode="record"`` now and ``mode="replay", transcript=...`` on replay.
    On the simulator ``universe`` and ``days`` are required. ``data`` records a run on
    historical bars instead: the checked bars are copied into the recording
    (``bars.parquet``) and the manifest keeps their digest, the variant and the mask
    secret (the one given with a ``Historical``, else derived from the bars and the
    project's key), so the replay masks the same way anywhere; the secret stays out of
    every payload and of what agents are told.

    ``epochs`` runs each factory-built arm that many times on the one path, as
    ``<arm>.epoch1`` ... (``workbench.evaluation.epochs``), each with its transcript.

    Nothing is run when ``path`` is a file, or a folder holding a recording or other
    files and ``overwrite`` is false; nor when an arm's name is not a safe file name.
    """
    if "model" in options:
        given = {**options, "preset": preset}
        renamed_preset(given, "record")
        preset, options = given.pop("preset"), given
    folder = Path(path)
    _refuse_to_overwrite(folder, overwrite)
    if check_epochs(epochs) > 1:
        agents = epoch_roster(agents, epochs, mode="record")  # type: ignore[assignment]
    text = {k: options.pop(k, None) for k in ("news", "fundamentals")}
    bars = joined_data(data, **text)  # checked before anything runs
    arms, factories = _named_arms(agents, folder)
    if bars is None and (universe is None or days is None):
        raise ConfigError("record needs universe= and days= on the simulator (or data=)")
    market: dict[str, Any] = dict(seed=seed, universe=universe, days=days, preset=preset)
    market.update(steps_per_day=steps_per_day, ticks_per_step=ticks_per_step)
    if bars is not None:
        market["data"] = bars
    results = evaluate(arms, **market, **options)
    roster = [mf.arm_spec(arm, factories.get(arm.name)) for arm in arms]
    _save_transcripts(folder, arms, roster)
    atomic_write(folder / mf.EXPECTED, results.to_json())
    if bars is None:
        manifest = _manifest(results, roster, universe, options)
    else:
        manifest = _bars_manifest(results, roster, options, bars, preset, folder)
    atomic_write(folder / mf.MANIFEST, mf.manifest_text(manifest))  # last: marks it complete
    return results


def _named_arms(
    agents: Sequence[ArmLike] | Mapping[str, ArmLike], folder: Path
) -> tuple[list[Agent], dict[str, str]]:
    """The arms to record and the factory each was built by; a name that is not a safe
    file name is refused (the names given before any arm is built)."""
    if isinstance(agents, Mapping):
        mf.refuse_unsafe_names(list(agents), where=f"recording {folder}")
    arms, factories = _arms_for_recording(agents)
    mf.refuse_unsafe_names([arm.name for arm in arms], where=f"recording {folder}")
    return arms, factories


def _save_transcripts(folder: Path, arms: Sequence[Agent], roster: list[dict[str, Any]]) -> None:
    for arm, spec in zip(arms, roster, strict=True):
        if "transcript" in spec:
            assert isinstance(arm, BaseAdapter) and arm.recorder is not None
            arm.recorder.save(folder / spec["transcript"])


def _bars_manifest(
    results: Results,
    roster: list[dict[str, Any]],
    options: dict[str, Any],
    bars: Historical,
    preset: str | Preset | Mapping[str, Any] | None,
    folder: Path,
) -> dict[str, Any]:
    """The manifest of a run on historical bars: the bars (and their text) copied beside it."""
    manifest = _manifest(results, roster, results.meta["names"], options)
    liquidity = market_preset(preset, bars=True)  # the preset bars take liquidity from
    manifest["preset"]["name"] = liquidity.fingerprint
    manifest["data"] = {"path": _saved_bars(bars, folder), **bars.manifest()}
    if bars.text is not None:
        manifest["data"]["text"].update(save_text(bars.text, folder))
    return manifest


def _refuse_to_overwrite(folder: Path, overwrite: bool) -> None:
    """Before any work: a file, a recording or a folder of other files is never written over
    unless ``overwrite`` says so (a file never: a recording is a folder)."""
    if folder.exists() and not folder.is_dir():
        raise RecordingError(
            f"{folder} is a file; a recording is a folder (manifest, transcripts, expected "
            "results): pass the path of a new folder"
        )
    nearest = next(p for p in (folder, *folder.parents) if p.exists() or p == p.parent)
    if not nearest.is_dir() or not os.access(nearest, os.W_OK | os.X_OK):
        what = "is a file" if nearest.exists() and not nearest.is_dir() else "cannot be written"
        raise RecordingError(
            f"{folder} cannot be made: {nearest} {what}; pass a folder you can write"
        )
    if overwrite or not folder.is_dir():
        return
    if (folder / mf.MANIFEST).exists():
        raise RecordingError(
            f"{folder} already holds a recording; pass overwrite=True (--overwrite on the CLI) "
            "to replace it, or record into a new folder"
        )
    if any(folder.iterdir()):
        raise RecordingError(
            f"{folder} holds files but no recording (an unfinished recording, or something "
            "else); pass overwrite=True (--overwrite on the CLI) to record into it, or pick "
            "an empty folder"
        )


def _saved_bars(bars: Historical, folder: Path) -> str:
    """The checked bars, copied into the recording so that it names no file outside it."""
    folder.mkdir(parents=True, exist_ok=True)
    bars.bars.to_parquet(folder / BARS_FILE, index=False)
    return BARS_FILE


def _replayed_bars(manifest: Mapping[str, Any], folder: Path) -> Historical:
    """The recorded bars, masked with the recorded secret; edited or missing bars refused."""
    spec = manifest["data"]
    source = mf.recording_file(folder, spec.get("path"), "bars file")
    if not source.is_file():
        raise RecordingError(
            f"recording {folder} was made on the bars in {source}, which is not there; "
            "restore it from version control or record again"
        )
    text = replayed_text(spec["text"], folder) if "text" in spec else {}
    bars = Historical.load(source, secret=spec["secret"], variant=_variant(spec), **text)
    if bars.text is not None and bars.text.digest != spec["text"]["text_sha256"]:
        raise ReplayMiss(
            f"recording {folder}: its news or fundamentals changed since the recording; "
            "record again"
        )
    if bars.digest != spec["bars_sha256"]:
        raise ReplayMiss(
            f"recording {folder}: the bars in {source} changed since the recording "
            f"(digest {bars.digest[:12]}…, recorded {spec['bars_sha256'][:12]}…); record again"
        )
    return bars


def _variant(spec: Mapping[str, Any]) -> Variant:
    described = dict(spec.get("variant", {"kind": "real"}))
    described.pop("label", None)
    return Variant(**described)


def _arms_for_recording(
    agents: Sequence[ArmLike] | Mapping[str, ArmLike],
) -> tuple[list[Agent], dict[str, str]]:
    from workbench.baselines import baseline

    items = list(agents.items()) if isinstance(agents, Mapping) else [(None, a) for a in agents]
    arms, factories = [], {}
    for name, item in items:
        if isinstance(item, str) and ":" in item:
            arm = resolve(item)(mode="record", **({"name": name} if name is not None else {}))
            factories[arm.name] = item
        else:
            arm = baseline(item) if isinstance(item, str) else item
            if name is not None:
                arm.name = name
        if isinstance(arm, BaseAdapter) and arm.recorder is None:
            raise ConfigError(
                f"arm {arm.name!r} records nothing; build it with mode='record' (or pass a "
                "recorder=) so the recording can replay it"
            )
        arms.append(arm)
    return arms, factories


def _manifest(
    results: Results,
    roster: list[dict[str, Any]],
    universe: Any,
    options: Mapping[str, Any],
) -> dict[str, Any]:

    meta = results.meta
    return {
        "format": mf.RECORDING_FORMAT,
        "version": mf.FORMAT_VERSION,
        "workbench_version": __version__,
        "observation_schema_version": OBSERVATION_SCHEMA_VERSION,
        "decision_schema_version": DECISION_SCHEMA_VERSION,
        "recorded_utc": utc_now(),
        "seed": meta["seed"],
        "universe": mf.universe_spec(universe),
        "days": meta["days"],
        "steps_per_day": meta["steps_per_day"],
        "ticks_per_step": meta["ticks_per_step"],
        "preset": {"name": meta["preset"], "vector": meta["preset_vector"]},
        "options": {**options, **_margin(meta)},
        "roster": roster,
        "expected": {
            "digest": results.digest(),
            "scorecard": json.loads(results.scorecard_json()),
        },
    }


def _margin(meta: Mapping[str, Any]) -> dict[str, float]:
    """The margin rule the run traded under, written out so a replay trades under it too,
    even if a default has moved since."""
    return {key: meta[key] for key in ("leverage_cap", "maintenance_multiple")}


def replay(path: str | Path, check: bool = True, **overrides: Any) -> ReplayReport:
    """Re-execute a recording offline; with ``check`` any difference raises RecordingError.

    ``overrides`` (seed, universe, days, steps_per_day, ticks_per_step, preset)
    replay the recording under a changed experiment, which fails naming the change.
    ``epochs`` (a check, not an override) must be the number of epochs recorded: a
    recording holding fewer (or more) transcripts of an arm is refused before anything runs.
    A run that planted canaries is audited too (``workbench.evaluation.canaries``,
    transcripts included): an arm that quoted one early raises ``CanaryLeak``, even
    without ``check``.
    """
    renamed_preset(overrides, "replay")
    folder = Path(path)
    manifest = mf.load_manifest(folder)
    if "epochs" in overrides:
        _refuse_other_epochs(manifest, folder, check_epochs(overrides.pop("epochs")))
    unknown = sorted(set(overrides) - set(_OVERRIDABLE))
    if unknown:
        raise ConfigError(f"replay cannot override {', '.join(unknown)}; only {_OVERRIDABLE}")
    arms, keywords = replay_setup(folder, manifest, **overrides)
    results = evaluate(arms, **keywords)
    report = ReplayReport(folder, results, manifest["expected"]["digest"], results.digest())
    if report.digest != report.expected_digest:
        report.differences = differences(folder, manifest, results)
    else:
        report.differences = edited_expected(folder, report.digest)
    if check and not report.matched:
        raise RecordingError(report.summary())
    if results.meta.get("canaries"):  # a look-ahead fails the replay, matched or not
        check_canaries(results, _transcripts(manifest, folder))
    return report


def replay_setup(
    folder: Path, manifest: Mapping[str, Any], **overrides: Any
) -> tuple[list[Agent], dict[str, Any]]:
    """The recorded roster rebuilt in replay mode, and the keywords ``evaluate`` re-runs
    it with (the recorded market, changed by ``overrides``, and the recorded options)."""
    refuse_other_schemas(manifest, where=f"recording {folder}")
    market_preset = overrides.pop("preset", None) or _recorded_preset(manifest, folder)
    mf.refuse_missing_epochs(manifest, folder)
    arms = [mf.build_arm(spec, folder) for spec in manifest["roster"]]
    market: dict[str, Any] = {"seed": manifest["seed"], "days": manifest["days"]}
    if "data" in manifest:
        market["data"] = _replayed_bars(manifest, folder)
    else:
        market["universe"] = mf.universe_from(manifest["universe"])
        market["steps_per_day"] = manifest.get("steps_per_day", MARKET_DEFAULTS.steps_per_day)
        market["ticks_per_step"] = manifest.get("ticks_per_step", MARKET_DEFAULTS.ticks_per_step)
    market.update(overrides)
    options = {**manifest.get("options", {})}
    cutoffs = {**recorded_cutoffs(arms), **options.get("model_cutoff", {})}
    if cutoffs:  # the transcripts keep each arm's cutoff: the replay's meta has it too
        options["model_cutoff"] = cutoffs
    return arms, {**market, "preset": market_preset, **options}


def recorded_cutoffs(arms: Sequence[Agent]) -> dict[str, str]:
    """Each replayed arm's training cutoff, as its transcript recorded it."""
    found = {}
    for arm in arms:
        transcript = getattr(arm, "transcript", None)
        cutoff = recorded_cutoff(transcript) if isinstance(transcript, Transcript) else None
        if cutoff is not None:
            found[arm.name] = cutoff
    return found


def _refuse_other_epochs(manifest: Mapping[str, Any], folder: Path, epochs: int) -> None:
    """A replay asked for ``epochs`` needs a recording holding that many transcripts of
    every arm run in epochs; the roster's transcripts are the recorded run, no subset."""
    grouped = epochs_of([spec["name"] for spec in manifest["roster"]])
    if not grouped and epochs > 1:
        raise ConfigError(
            f"recording {folder} ran each arm once (no epochs), and this replay asks for "
            f"epochs={epochs}; replay with epochs=1, or record again with epochs={epochs}"
        )
    for base, names in grouped.items():
        if len(names) != epochs:
            fewer = "only " if len(names) < epochs else ""
            raise ConfigError(
                f"recording {folder} holds {fewer}{len(names)} transcript(s) of arm {base!r}, "
                f"and this replay asks for epochs={epochs}; replay with epochs={len(names)}, "
                f"or record again with epochs={epochs}"
            )


def _transcripts(manifest: Mapping[str, Any], folder: Path) -> dict[str, Transcript]:
    """The transcripts of the model-backed arms, for the canary audit."""
    return {
        spec["name"]: Transcript.load(mf.recording_file(folder, spec["transcript"], "transcript"))
        for spec in manifest["roster"]
        if "transcript" in spec
    }


def _recorded_preset(manifest: Mapping[str, Any], folder: Path) -> Preset:
    """The recorded market; a shipped preset cut again since then is refused by dial."""
    name, vector = manifest["preset"]["name"], manifest["preset"]["vector"]
    if name in list_presets():
        shipped = make_preset(name).vector
        if shipped != vector:
            raise ReplayMiss(
                f"recording {folder} was made on preset {name!r}, whose dials have moved since: "
                f"{moved_dials(vector, shipped)}. Record the run again on the current preset."
            )
    market = Preset(name=name, dials={k: float(v) for k, v in vector.items()})
    if market.fingerprint != name:
        raise RecordingError(
            f"recording {folder}: the recorded dial vector has fingerprint "
            f"{market.fingerprint!r}, not the recorded {name!r}; the manifest was edited"
        )
    return market


def find_recordings(root: str | Path) -> list[Path]:
    """Every recording folder under ``root`` (itself included), in a stable order."""
    base = Path(root)
    if (base / mf.MANIFEST).is_file():
        return [base]
    return sorted(p.parent for p in base.rglob(mf.MANIFEST))
