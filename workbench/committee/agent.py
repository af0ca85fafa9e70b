"""``Committee``: a multi-role committee evaluated as ONE agent with one portfolio.

At each decision point the committee computes the verified snapshot, runs its
phases (a panel's advisors concurrently, a debate turn by turn), collects the
labelled memo, and hands it once to the executor. Only the executor's answer
becomes orders: five-tier ratings sized by the deterministic rule, or a decision
JSON when the executor's ``output`` is ``decision``. Advisors answer in text and
are never given the committee, the portfolio or the market.

Recording and replay use the adapter base class. Every role's exchange is one
transcript entry keyed by the digest of its exact input (role, phase, model and
the full prompt), so the order in which concurrent advisors finish never
matters: a replay looks each one up by content and rebuilds the same memos and
the same actions, bit for bit, while snapshot, coordinator, parsing and sizing
all run again. A failed role is recorded with its error, so it fails the same
way on replay. ``adapter.decision_log`` holds one entry per decision with every role's
phase, turn, model, prompt, response and position in the committee order, the
memo, the executor's answer, the ratings, the decision and the orders.

Every memo and the executor's answer go through the number check
(``figures.unverified_figures``): each figure that is not in the verified
snapshot, within the rounding it was written with, is flagged on its role's
entry (``unverified_figures``), counted per role in the decision's record
(``unverified_count``, ``unverified_by_role``) and in ``figure_check()`` and
``trajectory()``. The check is recomputed on replay from the recorded text.

Each role call adds to ``self.usage`` (model calls, tokens, latency), so the
scorecard shows what the committee cost next to what it earned.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from typing import Any, Unpack

import pandas as pd

from workbench._jsonio import digest, to_plain
from workbench.agents import DecisionRequest
from workbench.committee.config import CommitteeSpec, load_spec
from workbench.committee.coordinator import (
    Advisor,
    CommitteeCoordinator,
    Consultation,
    Memo,
    briefing,
    checked_text,
    failure_text,
)
from workbench.committee.figures import unverified_figures
from workbench.committee.lessons import CommitteeMemory, committee_memory
from workbench.committee.models import LazyModel, Reply, RoleModel, ScriptedModel
from workbench.committee.rating import parse_ratings, render_ratings, size
from workbench.committee.roles import RoleAdvisor
from workbench.committee.scripted import REFERENCE_SCRIPTS, reflection_lesson
from workbench.committee.snapshot import verified_snapshot
from workbench.errors import (
    ConfigError,
    DecisionError,
    FrameworkError,
    MissingDependency,
    UntrustedRecording,
    WorkbenchError,
)
from workbench.integrations.base import (
    AdapterInfo,
    AdapterOptions,
    BaseAdapter,
    noting_failure,
    split_options,
)
from workbench.memory.settings import Memory
from workbench.schema import Decision, parse_decision
from workbench.transcript import Transcript

EXECUTOR_PHASE = "decision"
TRAJECTORY_COLUMNS = (
    "day",
    "step",
    "order",
    "phase",
    "turn",
    "role",
    "model",
    "ok",
    "response",
    "unverified",
)
FIGURE_COLUMNS = ("day", "step", "role", "figure")
Source = CommitteeSpec | str | os.PathLike[str] | Mapping[str, Any]


class CommitteeOptions(AdapterOptions, total=False):
    """The adapter keywords, plus the reference committee's settings. Any other setting
    a committee's YAML declares is taken too, and checked by ``load_spec``."""

    max_debate_rounds: int
    max_risk_discuss_rounds: int


class Committee(BaseAdapter):
    """One arm, many roles. ``Committee()`` is the offline TradingAgents reference committee.

    ``models`` replaces model keys (``{"deep": some_model}``), ``advisors`` replaces
    roles by name with any ``Advisor``; ``delay`` adds simulated latency (seconds)
    to every scripted model call; extra keywords override settings such as
    ``max_debate_rounds``. A role's exchange is keyed by its model's name (or a
    plain advisor's class), so replay with the same names the recording used.
    ``memory`` (a ``workbench.memory.Memory``) adds recall and reflection: it becomes
    the committee's ``hook`` (``committee.lessons.CommitteeMemory``); without it the
    committee is exactly as before.
    """

    framework = "committee"
    budget_unit = "role calls"
    stops_run = (ConfigError, MissingDependency)  # the committee cannot run as configured

    def __init__(
        self,
        spec: Source = "tradingagents",
        *,
        models: Mapping[str, RoleModel] | None = None,
        advisors: Mapping[str, Advisor] | None = None,
        delay: float = 0.0,
        memory: Memory | Mapping[str, Any] | bool | None = None,
        **options: Unpack[CommitteeOptions],
    ) -> None:
        adapter_options, settings = split_options(options)
        if "info" in adapter_options:
            raise ConfigError("a committee's info comes from its spec and models; drop info=")
        self.spec = spec if isinstance(spec, CommitteeSpec) else load_spec(spec, **settings)
        if settings and isinstance(spec, CommitteeSpec):
            raise ConfigError("settings overrides apply when loading; pass them to load_spec")
        hook = committee_memory(self.spec, memory)  # None: no memory at all
        if hook is not None:
            if adapter_options.get("hook") is not None:  # hook=None is not given
                raise ConfigError("a committee's memory= is its hook; pass memory= or hook=")
            adapter_options["hook"] = hook
        self.models = _role_models(self.spec, models or {}, delay)
        self.advisors = _advisors(self.spec, self.models, advisors or {})
        super().__init__(**adapter_options)

    def default_name(self) -> str:
        return self.spec.id

    def default_info(self) -> AdapterInfo:
        return AdapterInfo(
            framework=self.framework,
            model=", ".join(f"{k}={m.name}" for k, m in sorted(self.models.items())),
            instructions_digest=digest(self.spec.to_json()),
        )

    def state(self) -> dict[str, Any]:
        return {"committee": self.spec.id, "settings": dict(self.spec.settings)}

    # --- memory: the hook (committee/lessons.py) --------------------------------------
    @property
    def memory(self) -> CommitteeMemory | None:
        """The committee's memory, which is its hook: ``.memory`` (the ``Memory`` given, with
        its settings and store), ``.reflection`` and ``.roles`` (None: it keeps none)."""
        return self.hook if isinstance(self.hook, CommitteeMemory) else None

    def lessons(self) -> pd.DataFrame:
        """Every lesson the committee's roles wrote or carried in the last run."""
        if self.memory is None:
            raise ConfigError(f"committee {self.name!r} has no memory; build it with memory=")
        return self.memory.store.frame()

    def end(self) -> None:
        super().end()
        for model in self.models.values():
            if isinstance(model, LazyModel):  # models built from YAML are the committee's own
                model.close()

    # --- one decision --------------------------------------------------------------
    async def adecide(self, request: DecisionRequest) -> Decision:
        base = {
            "observation": to_plain(request.payload),
            "snapshot": verified_snapshot(request.payload),
        }
        entry = self.record_entry(request, digest(base), snapshot=base["snapshot"])
        if self.hook is not None:
            request, notes = await self.hook.before_decision(self, request)
            entry.update(notes)
        memo = await self.deliberate(request, base)
        entry["roles"] = [{"order": i, **e.to_json()} for i, e in enumerate(memo.entries)]
        for role in entry["roles"]:
            role["unverified_figures"] = _checked_figures(role, base["snapshot"])
        entry["failed_roles"] = [e.role for e in memo.failed]
        entry["memo"] = memo.render()
        try:
            with noting_failure(entry):
                decision = await self._execute(request, base, memo, entry)
        finally:
            _count_figures(entry)
        entry["decision"] = decision.to_json()
        if self.hook is not None:
            self.hook.after_decision(self, request, decision)
        return decision

    async def deliberate(self, request: DecisionRequest, base: dict[str, Any]) -> Memo:
        """Every phase in order; the memo the executor will read."""
        coordinator = CommitteeCoordinator(partial(self._consult, request))
        memo = Memo()
        for phase in self.spec.phases:
            advisors = [self.advisors[role.role] for role in phase.roles]
            if phase.kind == "debate":
                memo += await coordinator.debate(
                    base, phase.name, advisors, phase.rounds, memo=memo
                )
            else:
                memo += await coordinator.build_memo(base, phase.name, advisors, memo=memo)
        return memo

    async def _execute(
        self, request: DecisionRequest, base: dict[str, Any], memo: Memo, entry: dict[str, Any]
    ) -> Decision:
        executor = self.advisors[self.spec.executor.role]
        payload = briefing(base, memo, EXECUTOR_PHASE, executor.role)
        sent, key = self._sent(executor, payload, EXECUTOR_PHASE)
        entry["executor"] = {"role": executor.role, "model": sent["model"], "key": key}
        entry["executor"]["prompt"] = sent["input"] if isinstance(sent["input"], str) else None
        text = checked_text(executor.role, await self.exchange(request, sent, key))
        entry["executor"]["response"] = text
        entry["executor"]["unverified_figures"] = unverified_figures(text, base["snapshot"])
        if self.spec.output == "decision":
            return parse_decision(text)
        ratings = parse_ratings(text, sorted(request.payload["symbols"]))
        entry["ratings"] = {s: r.value for s, r in ratings.items()}
        decision = size(ratings, request.payload, self.spec.sizing)
        entry["rating_lines"] = render_ratings(ratings)
        return decision

    # --- one role: one protected exchange ------------------------------------------
    def _sent(
        self, advisor: Advisor, payload: dict[str, Any], phase: str
    ) -> tuple[dict[str, Any], str]:
        if isinstance(self.hook, CommitteeMemory):
            payload = self.hook.with_lessons(advisor.role, payload)
        given: str | dict[str, Any] = payload
        model = f"advisor:{type(advisor).__qualname__}"
        if isinstance(advisor, RoleAdvisor):
            model, given = advisor.model_name, advisor.prompt(payload, phase)
        sent = {"role": advisor.role, "phase": phase, "model": model, "input": given}
        return sent, digest(sent)

    async def _consult(
        self, request: DecisionRequest, advisor: Advisor, payload: dict[str, Any], phase: str
    ) -> Consultation:
        sent, key = self._sent(advisor, payload, phase)
        prompt = sent["input"] if isinstance(sent["input"], str) else None
        try:
            text = checked_text(advisor.role, await self.exchange(request, sent, key))
        except (DecisionError, FrameworkError) as exc:  # a ReplayMiss stops the run instead
            return Consultation(
                failure_text(exc), False, f"{type(exc).__name__}: {exc}", key, prompt, sent["model"]
            )
        return Consultation(text, key=key, prompt=prompt, model=sent["model"])

    async def ask(self, request: DecisionRequest, sent: Any) -> str:
        """One role's model call: the prompt to its model, or the briefing to a plain advisor."""
        return await self.ask_role(sent)

    async def ask_role(self, sent: Any) -> str:
        """``ask`` for any question a role answers (a lesson too: ``committee.lessons``)."""
        advisor = self.advisors[sent["role"]]
        try:
            reply = await _reply(advisor, sent)
        except WorkbenchError:
            raise  # ours as raised: a bad answer, or a committee that cannot run as configured
        except Exception as exc:
            raise FrameworkError(
                f"role {advisor.role!r} failed: {type(exc).__name__}: {exc}"
            ) from exc
        self.note_usage(input_tokens=reply.input_tokens, output_tokens=reply.output_tokens)
        return checked_text(advisor.role, reply.text)

    def asked(self, sent: Any) -> str:
        return f"role {sent['role']!r}"

    def trajectory(self) -> pd.DataFrame:
        """One row per role answer per decision, in committee order (the executor last)."""
        rows = []
        for entry in self.decision_log:
            executor = [entry["executor"]] if "executor" in entry else []
            for order, answer in enumerate([*entry.get("roles", []), *executor]):
                rows.append(_trajectory_row(entry, order, answer))
        return pd.DataFrame(rows, columns=list(TRAJECTORY_COLUMNS))

    def figure_check(self) -> pd.DataFrame:
        """One row per figure a role wrote that is not in the verified snapshot."""
        rows = [
            {"day": entry["day"], "step": entry["step"], "role": answer["role"], "figure": figure}
            for entry in self.decision_log
            for answer in [*entry.get("roles", []), *[entry["executor"]] * ("executor" in entry)]
            for figure in answer.get("unverified_figures", [])
        ]
        return pd.DataFrame(rows, columns=list(FIGURE_COLUMNS))

    # --- replays -----------------------------------------------------------------------
    def replay_spec(self) -> dict[str, Any]:
        return {**super().replay_spec(), "committee": self.spec.to_json()}

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> Committee:
        recorded = spec.get("committee")
        if not isinstance(recorded, Mapping):  # a path here would read a file the data names
            raise UntrustedRecording(
                f"arm {spec.get('name')!r}: the recorded committee must be the committee itself "
                f"(a mapping), not {type(recorded).__name__}; record the run again"
            )
        return cls(
            load_spec(recorded),
            name=spec["name"],
            every=spec["every"],
            mode="replay",
            transcript=transcript,
            memory=spec.get("memory"),
        )

    def __repr__(self) -> str:
        return f"Committee({self.spec.id!r}, name={self.name!r}, mode={self.mode!r})"


async def _reply(advisor: Advisor, sent: dict[str, Any]) -> Reply:
    if isinstance(advisor, RoleAdvisor):
        answer: Any = await advisor.model.complete(sent["input"])
    else:
        answer = await advisor.advise(to_plain(sent["input"]), sent["phase"])
    return answer if isinstance(answer, Reply) else Reply(checked_text(advisor.role, answer))


def _trajectory_row(entry: dict[str, Any], order: int, answer: dict[str, Any]) -> dict[str, Any]:
    return {
        "day": entry["day"],
        "step": entry["step"],
        "order": order,
        "phase": answer.get("phase", EXECUTOR_PHASE),
        "turn": answer.get("turn", 0),
        "role": answer["role"],
        "model": answer["model"],
        "ok": answer.get("ok", "response" in answer),
        "response": answer.get("response"),
        "unverified": len(answer.get("unverified_figures", [])),
    }


def _checked_figures(answer: dict[str, Any], snapshot: dict[str, Any]) -> list[str]:
    if not answer.get("ok", True) or not isinstance(answer.get("response"), str):
        return []  # a failed role wrote no figures of its own
    return unverified_figures(answer["response"], snapshot)


def _count_figures(entry: dict[str, Any]) -> None:
    """Per role and in total, the figures of one decision that are not in the snapshot."""
    answers = [*entry.get("roles", []), *([entry["executor"]] if "executor" in entry else [])]
    by_role: dict[str, int] = {}
    for answer in answers:
        flagged = len(answer.get("unverified_figures", []))
        if flagged:
            by_role[answer["role"]] = by_role.get(answer["role"], 0) + flagged
    entry["unverified_by_role"] = by_role
    entry["unverified_count"] = sum(by_role.values())


def _role_models(
    spec: CommitteeSpec, given: Mapping[str, RoleModel], delay: float
) -> dict[str, RoleModel]:
    unknown = sorted(set(given) - set(spec.models))
    if unknown:
        raise ConfigError(
            f"models {unknown} are not in the committee; it has {sorted(spec.models)}"
        )
    built: dict[str, RoleModel] = {}
    for key, entry in spec.models.items():
        if key in given:
            built[key] = given[key]
        elif entry["backend"] == "scripted":
            roles = [r for r in spec.roles if r.model == key]
            built[key] = ScriptedModel(
                entry["name"],
                _scripts(roles),
                delay=float(entry.get("delay_s", delay)),
                reflect=reflection_lesson,
            )
        else:
            built[key] = LazyModel(entry)
    return built


def _scripts(roles: list[Any]) -> dict[str, Any]:
    missing = [r.role for r in roles if r.script not in REFERENCE_SCRIPTS]
    if missing:
        raise ConfigError(
            f"role(s) {missing} run on a scripted model but have no offline script; set "
            f"script: to one of {', '.join(REFERENCE_SCRIPTS)}, or back them with another model"
        )
    return {r.role: REFERENCE_SCRIPTS[r.script] for r in roles}


def _advisors(
    spec: CommitteeSpec, models: Mapping[str, RoleModel], given: Mapping[str, Advisor]
) -> dict[str, Advisor]:
    names = [role.role for role in spec.roles]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise ConfigError(f"advisors {unknown} are not roles of the committee; roles are {names}")
    for role, advisor in given.items():
        if getattr(advisor, "role", None) != role or not callable(getattr(advisor, "advise", None)):
            raise ConfigError(f"advisors[{role!r}] must be an Advisor with role {role!r}")
    built: dict[str, Advisor] = {
        r.role: RoleAdvisor(r, models[r.model], spec.persona) for r in spec.roles
    }
    return {**built, **given}


class CommitteeAgentOptions(CommitteeOptions, total=False):
    """``Committee``'s own keywords beside the adapter keywords and its settings."""

    models: Mapping[str, RoleModel] | None
    advisors: Mapping[str, Advisor] | None
    delay: float
    memory: Memory | Mapping[str, Any] | bool | None


def committee_agent(
    spec: Source = "tradingagents", **options: Unpack[CommitteeAgentOptions]
) -> Committee:
    """``Committee(spec, **options)``: the convenience constructor."""
    return Committee(spec, **options)


__all__ = ["EXECUTOR_PHASE", "FIGURE_COLUMNS", "Committee", "committee_agent"]
