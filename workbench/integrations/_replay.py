"""Replay lookups and the recorded-preset check every adapter runs.

Order of checks in ``replay_response`` (each stops the run with a message that
names the cause and the fix):

1. schema versions: a recording made under another observation or decision
   schema stops before its first lookup, naming both versions;
2. preset name: a different market fingerprint raises ``ReplayMiss`` naming both, and the
   dials behind them that differ (recorded -> requested) when the recording kept its vector;
3. preset vector: the same name with moved dials raises ``ReplayMiss`` listing them;
4. digest: no recorded answer for this input raises ``ReplayMiss`` naming step and day.

A recording without a preset (made before presets were stamped) warns and goes on.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Any

from workbench._stamps import PRESET_KEY, PRESET_VECTOR_KEY, SCHEMA_KEYS, SPOKEN_VERSIONS
from workbench.agents import PresetStamp
from workbench.errors import RecordingError, ReplayMiss
from workbench.transcript import Exchange, Transcript


class UnstampedRecordingWarning(UserWarning):
    """A recording names no preset, so a replay cannot prove it runs on the same market."""


def preset_of(obs: Any) -> PresetStamp | None:
    """The market an observation came from, or None when it does not say."""
    if obs is None or isinstance(obs, PresetStamp):
        return obs
    stamp = getattr(obs, "preset", None)
    if isinstance(stamp, PresetStamp):
        return stamp
    if isinstance(obs, Mapping):
        name = obs.get(PRESET_KEY, obs.get("preset"))
        if isinstance(name, str):
            vector = obs.get(PRESET_VECTOR_KEY) or {}
            return PresetStamp(name, {k: float(v) for k, v in vector.items()})
    fingerprint = getattr(obs, "fingerprint", None)
    if isinstance(fingerprint, str) and hasattr(obs, "vector"):  # an engine Preset
        return PresetStamp(fingerprint, dict(obs.vector))
    return None


def stamp_preset(recorder: Transcript, obs: Any) -> None:
    """On the first recorded exchange, write the running market's fingerprint and vector
    (and the payload schema versions, if nothing wrote them yet).

    A recorder already stamped with a different market is refused: one transcript
    holds the answers for one market.
    """
    stamp = preset_of(obs)
    if stamp is None:
        return
    if PRESET_KEY not in recorder.meta:
        versions = {k: v for k, v in SCHEMA_KEYS.items() if k not in recorder.meta}
        vector = dict(sorted(stamp.vector.items()))
        recorder.update_meta(**{PRESET_KEY: stamp.name, PRESET_VECTOR_KEY: vector, **versions})
        return
    refuse_a_changed_preset(recorder, stamp)


def refuse_a_changed_preset(transcript: Transcript, preset: Any) -> None:
    """Raise ``ReplayMiss`` when ``preset`` is not the market the transcript was recorded on."""
    stamp = preset_of(preset)
    recorded = transcript.meta.get(PRESET_KEY)
    if recorded is None:
        if "warned-unstamped" not in transcript.checks:
            transcript.checks.add("warned-unstamped")
            warnings.warn(
                f"{_where(transcript)} names no model preset, so this replay cannot check "
                "that it runs on the market it was recorded on; record it again to stamp one",
                UnstampedRecordingWarning,
                stacklevel=3,
            )
        return
    if stamp is None:
        return
    vector = transcript.meta.get(PRESET_VECTOR_KEY)
    if stamp.name != recorded:
        raise ReplayMiss(
            f"{_where(transcript)} was recorded on preset {recorded!r}, but this market runs "
            f"{stamp.name!r}{_dials_that_differ(vector, stamp.vector)}. Replay on the recorded "
            f"preset with evaluate(..., preset={recorded!r}) (or its recorded dial vector), "
            "or record the run again."
        )
    if vector is not None and vector != stamp.vector:
        raise ReplayMiss(
            f"{_where(transcript)} was recorded on preset {recorded!r}, and this market's "
            f"{recorded!r} has different dials: {moved_dials(vector, stamp.vector)}. The preset "
            "was cut again since the recording; replay with the recorded vector or record the "
            "run again."
        )


def _dials_that_differ(recorded: Any, running: Mapping[str, Any]) -> str:
    """The dials behind two fingerprints, named, when the recording kept its vector."""
    if not isinstance(recorded, Mapping) or dict(recorded) == dict(running):
        return ""
    return f"; the dials that differ (recorded -> requested): {moved_dials(recorded, running)}"


def moved_dials(recorded: Mapping[str, Any], running: Mapping[str, Any]) -> str:
    """``dial recorded -> running`` for every dial whose value differs, sorted by name."""
    names = sorted(set(recorded) | set(running))
    return ", ".join(
        f"{n} {recorded.get(n)!r} -> {running.get(n)!r}"
        for n in names
        if recorded.get(n) != running.get(n)
    )


def refuse_other_schemas(recorded: Transcript | Mapping[str, Any], where: str = "") -> None:
    """Stop before the first lookup when a recording used other payload versions.

    ``recorded`` is a transcript or any recorded meta (a recording's manifest).
    """
    meta = recorded.meta if isinstance(recorded, Transcript) else recorded
    where = where or (_where(recorded) if isinstance(recorded, Transcript) else "the recording")
    for key in SCHEMA_KEYS:
        version = meta.get(key)
        if version is not None and str(version) not in SPOKEN_VERSIONS[key]:
            kind = key.split("_")[0]
            raise ReplayMiss(
                f"{where} was recorded under {kind} schema version {version!r}; this "
                f"workbench speaks version {' or '.join(map(repr, SPOKEN_VERSIONS[key]))}. Its "
                "inputs were keyed on another "
                "payload, so replay it on the release that made it or record it again."
            )


def replay_response(
    transcript: Transcript, key: str, *, step: int, day: int, preset: Any = None
) -> Any:
    """The recorded raw response for input digest ``key``, after the market checks."""
    return replayed_exchange(transcript, key, step=step, day=day, preset=preset).response


def replayed_exchange(
    transcript: Transcript, key: str, *, step: int, day: int, preset: Any = None
) -> Exchange:
    """The recorded exchange for input digest ``key``, after the market checks."""
    if "schemas" not in transcript.checks:
        refuse_other_schemas(transcript)
        transcript.checks.add("schemas")
    refuse_a_changed_preset(transcript, preset)
    exchange = transcript.get(key)
    if exchange is None:
        raise ReplayMiss(
            f"{_where(transcript)} has no recorded answer for day {day}, step {step} "
            f"(input digest {key[:12]}…). The input differs from every recorded one: the "
            "roster, seed, cadence, universe, run options (capital, leverage, fees) or "
            "instructions changed since it was recorded, or the transcript was edited."
        )
    return exchange


def _where(transcript: Transcript) -> str:
    return f"recording {transcript.path}" if transcript.path else "the recording"


def require_transcript(transcript: Any, *, purpose: str) -> Transcript:
    """A Transcript from a Transcript or a path; anything else is refused by name."""
    if isinstance(transcript, Transcript):
        return transcript
    if isinstance(transcript, str | os.PathLike):
        return Transcript.load(transcript)
    raise RecordingError(
        f"{purpose} needs a Transcript or the path of one, got {type(transcript).__name__}"
    )


__all__ = [
    "PRESET_VECTOR_KEY",
    "UnstampedRecordingWarning",
    "preset_of",
    "refuse_a_changed_preset",
    "refuse_other_schemas",
    "replay_response",
    "replayed_exchange",
    "stamp_preset",
]
