"""Multi-role committees evaluated as one agent: advisors advise, one executor trades.

    >>> from workbench import evaluate
    >>> from workbench.committee import Committee
    >>> results = evaluate([Committee(), "momentum"], universe=5, days=3)

``Committee()`` is the TradingAgents reference committee shipped as
``tradingagents.yaml``, answered offline by scripted models. Modules:
``coordinator`` (the ``Advisor`` protocol, memos, concurrent phases and
debates), ``config`` (YAML loading), ``snapshot`` (the verified snapshot and
the no-data marker), ``rating`` (the five tiers and the sizing rule),
``models`` (role backends), ``roles`` (prompts), ``scripted`` (offline
scripts), ``lessons`` (memory: recalled lessons and the reflection phase,
``Committee(memory=...)``), ``agent`` (the ``Committee`` arm) and ``reflection``
(``reflecting_committee``, the remembering committee recordings name).
"""

from workbench.committee.agent import EXECUTOR_PHASE, Committee, committee_agent
from workbench.committee.config import CommitteeSpec, PhaseSpec, RoleSpec, load_spec
from workbench.committee.coordinator import (
    Advisor,
    CommitteeCoordinator,
    Consultation,
    Memo,
    MemoEntry,
    debate_turns,
)
from workbench.committee.figures import unverified_figures
from workbench.committee.models import (
    CallableModel,
    EndpointModel,
    LangGraphModel,
    OpenAIAgentsModel,
    PydanticAIModel,
    Reply,
    RoleModel,
    ScriptedModel,
)
from workbench.committee.rating import RATINGS, Rating, SizingRule, parse_ratings, size
from workbench.committee.roles import RoleAdvisor
from workbench.committee.snapshot import NO_DATA, no_data, verified_snapshot

__all__ = [  # noqa: RUF022 - grouped by topic
    # the arm
    "Committee",
    "committee_agent",
    "EXECUTOR_PHASE",
    # configuration
    "CommitteeSpec",
    "PhaseSpec",
    "RoleSpec",
    "load_spec",
    # advisors and memos
    "Advisor",
    "CommitteeCoordinator",
    "Consultation",
    "Memo",
    "MemoEntry",
    "RoleAdvisor",
    "debate_turns",
    # role models
    "CallableModel",
    "EndpointModel",
    "LangGraphModel",
    "OpenAIAgentsModel",
    "PydanticAIModel",
    "Reply",
    "RoleModel",
    "ScriptedModel",
    # ratings and sizing
    "RATINGS",
    "Rating",
    "SizingRule",
    "parse_ratings",
    "size",
    # anti-hallucination
    "NO_DATA",
    "no_data",
    "unverified_figures",
    "verified_snapshot",
]
