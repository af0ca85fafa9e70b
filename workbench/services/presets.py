"""Market presets as plain data: list, describe, diff."""

from __future__ import annotations

from typing import Any

from workbench.engine import presets as _presets


def preset_names() -> list[str]:
    """The shipped presets' names, sorted."""
    return list(_presets.list_presets())


def default_preset(*, bars: bool = False) -> str:
    """The name of the preset a market uses when none is given (on historical bars, the one
    they take liquidity from)."""
    return str(_presets.BARS_DEFAULT_PRESET if bars else _presets.DEFAULT_PRESET)


def default_arms(
    preset: str | dict[str, Any] | None, *, bars: bool = False, news: bool = False
) -> list[str]:
    """Every baseline that can trade on the market: the six price rules, and the two news
    readers too when the market publishes news. Historical bars publish none of their
    own; with the researcher's ``news`` they carry headlines, which ``headline_sentiment``
    reads (``earnings_drift`` needs the simulator's earnings figures, so it is left out)."""
    from workbench.baselines import BASELINES

    if bars:
        readers: tuple[str, ...] = ("earnings_drift",) if news else READERS
    else:
        readers = () if _presets.preset(preset).publishes_information else READERS
    return [name for name in BASELINES if name not in readers]


READERS = ("headline_sentiment", "earnings_drift")


def with_dials(preset: str | None, dials: dict[str, float]) -> str | dict[str, Any] | None:
    """``preset`` with some dials moved (``{"base": preset, **dials}``), or as it was."""
    if not dials:
        return preset
    return {"base": preset or _presets.DEFAULT_PRESET, **dials}


def superseded_by(name: str | None) -> tuple[str, str] | None:
    """The newer version of the market that replaces preset ``name``, and what is wrong with
    ``name``; None for a current preset (or none named)."""
    return _presets.SUPERSEDED.get(name) if isinstance(name, str) else None


def list_presets() -> dict[str, Any]:
    """The shipped presets, each with its fingerprint, the dials it moves from the default,
    and the newer version that replaces it (``superseded_by`` and ``why``; None for a
    current preset): a superseded preset stays frozen so the runs made on it replay."""
    default = _presets.DEFAULT_PRESET
    rows = []
    for name in _presets.list_presets():
        moved = _presets.diff(default, name)
        successor, why = superseded_by(name) or (None, None)
        rows.append(
            {
                "name": name,
                "default": name == default,
                "fingerprint": _presets.preset(name).fingerprint,
                "dials_moved_from_default": sorted(moved),
                "superseded_by": successor,
                "why": why,
            }
        )
    return {"presets": rows, "default": default, "dial_count": len(_presets.DIALS)}


def describe_preset(name: str | None = None) -> dict[str, Any]:
    """Every dial of one preset (the default when ``name`` is None), its fingerprint, and
    the newer version that replaces it (``superseded_by`` and ``why``, None when current)."""
    chosen = _presets.preset(name)
    successor, why = superseded_by(name) or (None, None)
    return {
        "preset": chosen.fingerprint,
        "dials": dict(chosen.dials),
        "superseded_by": successor,
        "why": why,
    }


def diff_presets(a: str, b: str) -> dict[str, Any]:
    """The dials that differ between two presets, with both values."""
    changes = _presets.diff(a, b)
    return {
        "a": _presets.preset(a).fingerprint,
        "b": _presets.preset(b).fingerprint,
        "changes": [{"dial": d, "a": left, "b": right} for d, (left, right) in changes.items()],
        "same": not changes,
    }
