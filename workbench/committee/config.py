"""Committee configuration: roles, phases, models and sizing, loaded from YAML.

A committee file has these keys (unknown keys are refused, naming the allowed ones)::

    id, name, persona          who the committee is
    settings                   named integers, e.g. max_debate_rounds: 1
    models                     key -> {backend, name, delay_s | target, model |
                               base_url, model, api_key_env, max_tokens, timeout}
    phases                     [{name, kind: panel | debate, rounds, roles: [role...]}]
    executor                   one role with output: rating | decision
    sizing                     the rating -> orders rule (see ``rating.SizingRule``)

A role is ``{role, model, prompt, script}``: ``model`` is a key of ``models``
(``quick``/``deep`` in the reference committee); ``script`` picks the offline
script when it differs from the role name. A debate's ``rounds`` is a number or
the name of a setting, so ``load_spec(..., max_debate_rounds=3)`` changes it.

``load_spec("tradingagents")`` loads the reference committee shipped with the
package (``workbench/committee/tradingagents.yaml``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from workbench._checks import is_whole
from workbench.committee.rating import SizingRule
from workbench.errors import ConfigError

PACKAGED = {"tradingagents": Path(__file__).with_name("tradingagents.yaml")}
KINDS = ("panel", "debate")
OUTPUTS = ("rating", "decision")
_TOP = ("id", "name", "persona", "settings", "models", "phases", "executor", "sizing")
_ROLE = ("role", "model", "prompt", "script", "output")
_PHASE = ("name", "kind", "rounds", "roles")
_MODEL = (
    "backend", "name", "delay_s", "target", "model", "base_url", "api_key_env", "max_tokens",
    "timeout",
)  # fmt: skip


@dataclass(frozen=True)
class RoleSpec:
    role: str
    model: str
    prompt: str
    script: str

    def to_json(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "model": self.model,
            "prompt": self.prompt,
            "script": self.script,
        }


@dataclass(frozen=True)
class PhaseSpec:
    name: str
    kind: str
    roles: tuple[RoleSpec, ...]
    rounds: int = 1
    rounds_setting: str | None = None

    @property
    def turns(self) -> int:
        """How many advisor answers the phase holds (a debate ends at len(roles) × rounds)."""
        return len(self.roles) * self.rounds if self.kind == "debate" else len(self.roles)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "debate":
            data["rounds"] = self.rounds_setting or self.rounds
        return {**data, "roles": [role.to_json() for role in self.roles]}


@dataclass(frozen=True)
class CommitteeSpec:
    id: str
    name: str
    persona: str
    settings: Mapping[str, int]
    models: Mapping[str, Mapping[str, Any]]
    phases: tuple[PhaseSpec, ...]
    executor: RoleSpec
    output: str
    sizing: SizingRule

    @property
    def roles(self) -> tuple[RoleSpec, ...]:
        return (*tuple(role for phase in self.phases for role in phase.roles), self.executor)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "persona": self.persona,
            "settings": dict(sorted(self.settings.items())),
            "models": {k: dict(v) for k, v in sorted(self.models.items())},
            "phases": [phase.to_json() for phase in self.phases],
            "executor": {**self.executor.to_json(), "output": self.output},
            "sizing": self.sizing.to_json(),
        }


def load_spec(source: str | os.PathLike[str] | Mapping[str, Any], **settings: int) -> CommitteeSpec:
    """A committee from a packaged name, a YAML path or a mapping; ``settings`` override."""
    data = _read(source)
    where = str(source) if not isinstance(source, Mapping) else "the committee mapping"
    try:
        return _spec(data, settings)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def _read(source: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(source, Mapping):
        return dict(source)
    path = PACKAGED.get(str(source), Path(source))
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"committee file {str(source)!r} not found; pass a YAML path or one of "
            f"{', '.join(PACKAGED)}"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"committee file {path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"committee file {path} must hold a mapping at the top level")
    return data


def _spec(data: dict[str, Any], overrides: Mapping[str, int]) -> CommitteeSpec:
    _only(data, _TOP, "the committee")
    settings = _settings(data.get("settings") or {}, overrides)
    models = _models(data.get("models") or {})
    phases = tuple(_phase(p, i, settings, models) for i, p in enumerate(_list(data, "phases")))
    executor_data = _mapping(data.get("executor"), "executor")
    executor = _role(executor_data, "executor", models)
    output = str(executor_data.get("output", "rating"))
    if output not in OUTPUTS:
        raise ConfigError(f"executor.output must be one of {OUTPUTS}, got {output!r}")
    spec = CommitteeSpec(
        id=str(data.get("id") or "committee"),
        name=str(data.get("name") or data.get("id") or "committee"),
        persona=str(data.get("persona") or "").strip(),
        settings=settings,
        models=models,
        phases=phases,
        executor=executor,
        output=output,
        sizing=SizingRule.from_json(data.get("sizing")),
    )
    _unique_roles(spec)
    return spec


def _settings(raw: Mapping[str, Any], overrides: Mapping[str, int]) -> dict[str, int]:
    unknown = set(overrides) - set(raw)
    if unknown:
        raise ConfigError(f"unknown setting(s) {sorted(unknown)}; this committee has {sorted(raw)}")
    merged = {**raw, **overrides}
    for key, value in merged.items():
        if not is_whole(value) or value < 1:
            raise ConfigError(f"setting {key} must be a whole number >= 1, got {value!r}")
    return dict(sorted(merged.items()))


def _models(raw: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    if not raw:
        raise ConfigError("'models' must name at least one model, e.g. quick: {backend: scripted}")
    out = {}
    for key, entry in raw.items():
        entry = dict(_mapping(entry, f"models.{key}"))
        _only(entry, _MODEL, f"models.{key}")
        entry.setdefault("backend", "scripted")
        default = entry.get("model") if entry["backend"] == "openai_compatible" else None
        entry.setdefault("name", default or f"{entry['backend']}-{key}")
        if entry["backend"] == "openai_compatible":
            missing = [k for k in ("base_url", "model") if not entry.get(k)]
            if missing:
                raise ConfigError(
                    f"models.{key}: backend 'openai_compatible' needs {' and '.join(missing)} "
                    "(e.g. base_url: http://127.0.0.1:8080/v1, model: smollm2)"
                )
        elif entry["backend"] != "scripted" and "target" not in entry:
            raise ConfigError(
                f"models.{key}: backend {entry['backend']!r} needs target: 'module:object'"
            )
        out[str(key)] = entry
    return out


def _phase(
    raw: Any, index: int, settings: Mapping[str, int], models: Mapping[str, Any]
) -> PhaseSpec:
    data = _mapping(raw, f"phases[{index}]")
    _only(data, _PHASE, f"phases[{index}]")
    name = str(data.get("name") or f"phase{index}")
    kind = str(data.get("kind", "panel"))
    if kind not in KINDS:
        raise ConfigError(f"phase {name!r}: kind must be one of {KINDS}, got {kind!r}")
    roles = tuple(_role(r, f"phase {name!r}", models) for r in _list(data, "roles", name))
    rounds, setting = _rounds(data.get("rounds", 1), name, settings)
    if kind == "panel" and "rounds" in data:
        raise ConfigError(f"phase {name!r}: only a debate has rounds")
    return PhaseSpec(name, kind, roles, rounds, setting)


def _rounds(value: Any, phase: str, settings: Mapping[str, int]) -> tuple[int, str | None]:
    if isinstance(value, str):
        if value not in settings:
            raise ConfigError(f"phase {phase!r}: rounds names setting {value!r}, which is not set")
        return settings[value], value
    if not is_whole(value) or value < 1:
        raise ConfigError(f"phase {phase!r}: rounds must be a whole number >= 1 or a setting name")
    return value, None


def _role(raw: Any, where: str, models: Mapping[str, Any]) -> RoleSpec:
    data = _mapping(raw, where)
    _only(data, _ROLE, where)
    if "output" in data and where != "executor":
        raise ConfigError(f"{where}: only the executor has an output; advisors answer in text")
    role = str(data.get("role") or "")
    if not role or " | " in role or "\n" in role:
        raise ConfigError(f"{where}: every role needs a one-line name (role: ...)")
    model = str(data.get("model") or next(iter(models)))
    if model not in models:
        raise ConfigError(f"role {role!r} uses model {model!r}; models are {sorted(models)}")
    return RoleSpec(
        role, model, str(data.get("prompt") or "").strip(), str(data.get("script") or role)
    )


def _unique_roles(spec: CommitteeSpec) -> None:
    seen: set[str] = set()
    for role in spec.roles:
        if role.role in seen:
            raise ConfigError(f"role {role.role!r} appears twice; give each role its own name")
        seen.add(role.role)


def _only(data: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    unknown = sorted(set(data) - set(allowed))
    if unknown:
        raise ConfigError(f"{where} has unknown key(s) {unknown}; allowed: {', '.join(allowed)}")


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must be a mapping, got {type(value).__name__}")
    return value


def _list(data: Mapping[str, Any], key: str, where: str = "the committee") -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{where} needs a non-empty list '{key}'")
    return value


__all__ = ["KINDS", "OUTPUTS", "PACKAGED", "CommitteeSpec", "PhaseSpec", "RoleSpec", "load_spec"]
