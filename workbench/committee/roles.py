"""Model-backed roles: a role's prompt is its persona, its instructions and its briefing.

The prompt starts with one header line (``ROLE <role> | PHASE <phase> | TURN <n>``)
and ends with ``BRIEFING`` followed by the canonical JSON of the briefing, so the
exact input is stable (its digest keys the exchange) and an offline model can
read the briefing back exactly.
"""

from __future__ import annotations

from typing import Any

from workbench.committee.config import RoleSpec
from workbench.committee.models import BRIEFING_MARK, Reply, RoleModel
from workbench.transcript import canonical_json

CITATION_RULE = (
    "Cite numbers only from the verified snapshot in the briefing; a value written "
    "NO_DATA_AVAILABLE is unknown: say so and never estimate it."
)


def prompt_for(spec: RoleSpec, persona: str, payload: dict[str, Any], phase: str) -> str:
    header = f"ROLE {spec.role} | PHASE {phase} | TURN {payload.get('turn', 0)}"
    parts = [header, persona, spec.prompt, CITATION_RULE]
    return "\n".join(p for p in parts if p) + BRIEFING_MARK + canonical_json(payload)


class RoleAdvisor:
    """An ``Advisor`` whose answer comes from a role model. It holds no order path."""

    def __init__(self, spec: RoleSpec, model: RoleModel, persona: str = "") -> None:
        self.spec, self.model, self.persona = spec, model, persona
        self.role = spec.role

    @property
    def model_name(self) -> str:
        return str(self.model.name)

    def prompt(self, payload: dict[str, Any], phase: str) -> str:
        return prompt_for(self.spec, self.persona, payload, phase)

    async def reply(self, payload: dict[str, Any], phase: str) -> Reply:
        return await self.model.complete(self.prompt(payload, phase))

    async def advise(self, payload: dict[str, Any], phase: str) -> str:
        return (await self.reply(payload, phase)).text

    def __repr__(self) -> str:
        return f"RoleAdvisor({self.role!r}, model={self.model_name!r})"


__all__ = ["CITATION_RULE", "RoleAdvisor", "prompt_for"]
