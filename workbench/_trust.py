"""The trust registry: the only code a recording may name.

A recording is data. Its manifest names how each arm is rebuilt for replay
(``factory``, ``adapter`` or ``agent``, each a ``"module:attribute"``), and an
adapter's replay spec may name a hook (``postprocess``, ``input_builder``). A
name is imported only when it is trusted; anything else is refused with
``UntrustedRecording`` before any module is imported or anything is called.

Trusted are: the package's own arms (the baselines, the scripted arms of
``workbench.testing``, the committee, the framework adapters and the scripted
arms' hooks); the names a program registers with ``trust(...)``; and the values
of the ``workbench.arms`` entry-point group of installed distributions (read
from metadata, nothing imported). Trust is given by the person running the code
only: in Python, by an entry point, or on their own command line for one command
(``workbench replay --trust module:attribute``); no recording or MCP tool can extend it.
"""

from __future__ import annotations

import functools
import importlib.metadata
from collections.abc import Callable
from typing import Any

from workbench._names import import_path, resolve
from workbench.errors import ConfigError, UntrustedRecording

ENTRY_POINT_GROUP = "workbench.arms"

_ADAPTERS = (
    "workbench.integrations.callable:CallableAgentAdapter",
    "workbench.integrations.langgraph:LangGraphAdapter",
    "workbench.integrations.openai_agents:OpenAIAgentsAdapter",
    "workbench.integrations.pydantic_ai:PydanticAIAdapter",
    "workbench.integrations.process:ProcessAgentAdapter",
    "workbench.integrations.http_agent:HttpAgentAdapter",
    "workbench.committee.agent:Committee",
    "workbench.committee:Committee",
    "workbench.testing.learner:Learner",
)
_FACTORIES = (
    "workbench.testing.scripted:trend_agent",
    "workbench.testing.scripted:news_agent",
    "workbench.testing.scripted:contrarian_agent",
    "workbench.testing.scripted:sampler_agent",
    "workbench.testing.learner:learner_agent",
    "workbench.testing.learner:remembering_learner",
    "workbench.testing.diverging:leader_agent",
    "workbench.testing.diverging:second_opinion_agent",
    "workbench.committee:committee_agent",
    "workbench.committee.agent:committee_agent",
    "workbench.committee.reflection:reflecting_committee",
)
_HOOKS = (
    "workbench.testing.scripted:size_contrarian",
    "workbench.integrations.callable:decision_from_text",
)
_registered: set[str] = set()


@functools.cache
def package_names() -> frozenset[str]:
    """The workbench's own trusted names (the baselines are read from ``BASELINES``)."""
    from workbench.baselines import BASELINES

    baselines = {f"{cls.__module__}:{cls.__qualname__}" for cls in BASELINES.values()}
    return frozenset({*_ADAPTERS, *_FACTORIES, *_HOOKS, *baselines})


@functools.cache
def entry_point_names() -> frozenset[str]:
    """The values of the ``workbench.arms`` entry points of installed distributions.

    Read once per process (scanning every distribution's metadata is slow).
    """
    return frozenset(ep.value for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP))


def trusted_names() -> frozenset[str]:
    """Every name a recording may use, from all three sources."""
    return package_names() | entry_point_names() | frozenset(_registered)


def trust(*targets: str | Callable[..., Any] | type) -> None:
    """Let recordings name these factories, classes or hooks (``"module:attr"`` or the object).

    Call it in your own code before replaying a recording that names your arms,
    e.g. ``workbench.recordings.trust(my_arms.build_agent)``.
    """
    _registered.update(_name_of(target) for target in targets)


def distrust(*targets: str | Callable[..., Any] | type) -> None:
    """Withdraw names given to ``trust`` (the package's own names stay trusted)."""
    _registered.difference_update(_name_of(target) for target in targets)


def require_trusted(name: Any, *, what: str, where: str) -> str:
    """``name`` when it is trusted; else ``UntrustedRecording`` naming it and the fix."""
    if isinstance(name, str) and (
        name in package_names() or name in _registered or name in entry_point_names()
    ):
        return name
    raise UntrustedRecording(
        f"{where}: {what} {name!r} is not a trusted name, so it was not imported. A "
        "recording is data and may only name the workbench's own arms and the ones you "
        f"trust in Python: workbench.recordings.trust({name!r}) in your code, or a "
        f"'{ENTRY_POINT_GROUP}' entry point in your package (never from a recording or "
        "the MCP server)."
    )


def resolve_trusted(name: Any, *, what: str, where: str) -> Any:
    """The object a trusted ``"module:attribute"`` names (checked before importing)."""
    return resolve(require_trusted(name, what=what, where=where), named_by=where)


def _name_of(target: str | Callable[..., Any] | type) -> str:
    if isinstance(target, str):
        module, _, attribute = target.partition(":")
        if not module or not attribute:
            raise ConfigError(
                f"trust needs 'package.module:attribute' or the object, got {target!r}"
            )
        return target
    return import_path(target, "a trusted name")
