"""The adapter base class: one arm backed by a model framework, joined from three parts.

- ``TranscriptBinding`` (``_binding.py``): the transcripts the arm replays, records
  into or resumes, bound and checked once, saved at ``end``;
- ``ExchangeStep`` (``_exchange.py``): one protected question of an explicit kind
  (replay, resume, budget, timeout, usage, recording);
- validation (``_validated`` here): the answer turned into a ``Decision`` once, the
  decision ``answer`` hands the evaluation as it is.

A ``hook=`` (``hooks.py``) joins each decision at the seam between them.

Subclassing contract (what a framework adapter writes)
-----------------------------------------------------
Implement ONE coroutine::

    async def ask(self, request: DecisionRequest, sent: Any) -> Any

``sent`` is exactly what you hand the framework (see ``input_for``), as a private
copy the framework may change; return the
framework's raw answer as plain JSON data or a pydantic model (a ``Decision``,
a dict, a JSON string ...). The base records that raw answer, replays it, and
turns it into a decision with ``to_decision`` + ``parse_decision``. Optionally:

- ``input_for(payload) -> Any``: the exact input sent to the framework (default:
  the payload itself). It is the replay key (``digest(sent)``), so put into it
  everything that changes the answer and that you render into the prompt.
- ``state() -> dict``: settings that change what a decision can be but are not in
  the keyed input (e.g. ``max_turns``); written to ``meta["adapter_state"]`` and a
  replay under a different state is refused when the adapter is built. Set the
  attributes it reads *before* calling ``super().__init__``.
- ``map_error(exc) -> RunError``: the one boundary where framework
  exceptions become ``DecisionError`` (the agent's own bad outcome) or
  ``FrameworkError`` (default). ``DecisionError``/``FrameworkError`` raised by
  ``ask`` pass through untouched.
- ``to_decision(raw, payload)``: turn the raw answer into a decision; runs live
  and on replay (default: ``raw`` unchanged). ``raw`` is a private copy; the
  payload is shared with other arms, so copy it before changing it.
- ``note_usage(input_tokens=, output_tokens=, model_calls=, cached_input_tokens=)``:
  call inside ``ask`` to report what the call spent (one model call per ``ask``
  unless told otherwise; cached input tokens are counted in input tokens too).
- ``note_answer(text)``: call inside ``ask`` with the model's own text before a
  failure is raised, so the transcript keeps what the model said (prose included)
  next to the error, live and on replay.
- ``replay_spec()`` / ``from_replay_spec(spec, transcript)``: how a recording
  rebuilds this adapter in replay mode (default: name, every and info).
- ``default_name()`` / ``default_info()``: the arm's name and ``AdapterInfo`` when
  the caller passes none (read the attributes your constructor set).

Constructor: take your own arguments and ``**options: Unpack[AdapterOptions]``
(name, info, every, mode, transcript, recorder, overwrite, prior, timeout, max_calls,
prices, max_cost_usd, hook), and
hand ``options`` to ``super().__init__`` as they came; ``mode_of(options)`` is the
mode when your constructor needs it first. An adapter never re-declares them.

One decision, many questions: ``exchange(request, sent, kind=...)`` is the whole
protected exchange with the model for one input (replay lookup, ``prior=`` resume,
budget, timeout, usage, retries and recording). Every question has a kind: the
adapter's own (``"decide"``) is answered by ``ask``, any other by the adapter's
``hook=`` (a ``workbench.integrations.hooks.DecisionHook``: memory's reflections
are ``"reflect"`` questions), which also joins each decision before and after.
``adecide`` asks one ``"decide"`` question and validates its answer once
(``_validated``: ``to_decision`` then ``parse_decision``); ``answer`` hands that
decision to the evaluation as it is. An adapter that asks several questions per
decision (the committee: once per role) calls ``exchange`` once per question, opens
its log entry with ``record_entry`` and wraps the decision in ``noting_failure``.

Pass ``info=AdapterInfo(framework=..., instructions_digest=digest(INSTRUCTIONS))``
when your instructions are not in the keyed input: the digest is written to
``meta["instructions_digest"]`` and a replay under other instructions raises
``RunError`` when the adapter is built. Import the framework lazily,
inside ``ask``: a replay never calls ``ask``, so it needs no framework installed.

Cadence: ``every="day"`` (the default for every adapter, as for every arm) asks
once per trading day at the same step whatever ``steps_per_day``; ``"step"`` or
a whole number of steps is an explicit finer or coarser choice. The transcript's
run meta records ``every`` and the steps between decisions it gave, and a replay
(or a resumed run) on another cadence is refused before the first decision.

Modes (``"live"``, ``DEFAULT_MODE``, is every adapter's default): ``"live"`` calls
the framework and records only into a given ``recorder``;
``"record"`` calls and records (a new ``Transcript`` when none is given; a path is
journalled as it goes and saved at ``end()``, and a path that already holds a
transcript or its journal is refused unless ``overwrite=True`` or ``prior=`` resumes
it); ``"replay"`` never calls the framework and reads ``transcript=``.
``prior=`` (live/record) resumes a half-finished run from its transcript or journal
(a path is read with the journal beside it, so ``prior=`` may be the recorder's own
path): recorded inputs
are answered from it, only the missing exchanges are asked, and every answer it
holds is carried into the new recording before its journal is rewritten.

``max_calls=`` is a budget: the call past it is recorded once as a
``BudgetExhausted`` stop, and the evaluation asks that arm nothing more (it
holds). A resumed run asks a recorded budget stop again, since nothing was paid.
``max_cost_usd=`` is the same in US dollars, priced by ``prices=`` (a
``PriceTable``, a mapping or a YAML file; see ``workbench.integrations.pricing``):
the call asked once the spend has reached it is the stop. With ``prices=`` each
call's cost is recorded in its usage (``cost_usd``), so a replay reports it; a
call at no known price counts as unknown (NaN), never as free.

Every ``ask`` runs on one owning loop (see ``_loop``), so an arm can be used by
any number of runs on any event loops; ``timeout`` defaults to
``DEFAULT_TIMEOUT`` seconds per call (``None`` waits for ever).

A failed call is recorded too (its error class and message), so a replay
reproduces the error column of the recorded run. Usage (tokens, latency) is
recorded per exchange and reported again on replay, so a replayed scorecard
matches the recorded one; ``calls_made`` counts real framework calls.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Literal, TypedDict, Unpack, cast

from workbench._checks import refuse_unknown_keywords
from workbench._jsonio import digest
from workbench.agents import Agent, DecisionRequest, Every, ExecutionReport, RunInfo, Usage
from workbench.errors import (
    ConfigError,
    DecisionError,
    FrameworkError,
    RunError,
)
from workbench.integrations import _recorder
from workbench.integrations._binding import TranscriptBinding
from workbench.integrations._exchange import DEFAULT_TIMEOUT, ExchangeStep
from workbench.integrations._recorder import AdapterInfo, journal_path, noting_failure
from workbench.integrations._shared_payload import payload_key
from workbench.integrations.hooks import DECIDE, DecisionHook
from workbench.integrations.pricing import CostMeter, PriceSource, PriceTable
from workbench.schema import Decision, parse_decision
from workbench.transcript import Transcript

Mode = Literal["live", "record", "replay"]
DEFAULT_MODE = "live"
MODES: tuple[str, ...] = ("live", "record", "replay")
TranscriptSource = Transcript | str | os.PathLike[str]


class AdapterOptions(TypedDict, total=False):
    """The keywords every adapter takes, passed on to ``BaseAdapter`` as given."""

    name: str | None
    info: AdapterInfo | None
    every: Every
    mode: Mode | str
    transcript: TranscriptSource | None
    recorder: TranscriptSource | None
    overwrite: bool
    prior: TranscriptSource | None
    timeout: float | None
    max_calls: int | None
    prices: PriceSource | None
    max_cost_usd: float | None
    hook: DecisionHook | None


OPTION_NAMES = frozenset(AdapterOptions.__optional_keys__)


def replay_options(spec: dict[str, Any], transcript: Transcript) -> AdapterOptions:
    """The base keywords that rebuild a recorded arm for replay: the name, cadence and
    info its ``replay_spec`` wrote, in replay mode on ``transcript``."""
    return {
        "name": spec["name"],
        "every": spec["every"],
        "info": AdapterInfo(**spec.get("info", {})),
        "mode": "replay",
        "transcript": transcript,
    }


def mode_of(options: AdapterOptions) -> str:
    """The mode the options ask for (``DEFAULT_MODE`` when none), checked."""
    mode = options.get("mode", DEFAULT_MODE)
    if mode not in MODES:
        raise ConfigError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


class BaseAdapter(Agent):
    """An arm backed by a model framework. Subclasses implement ``ask``; see the module doc."""

    framework: ClassVar[str] = "custom"
    # The evaluation may hand every adapter the same payload object: the base gives
    # ``ask`` a private copy of its input and ``to_decision`` one of the raw answer, so no
    # framework can alter it; ``input_for``, ``to_decision`` and a hook read the payload
    # itself and must not change it (its news items are carried by later payloads too).
    shares_payload = True
    budget_unit: ClassVar[str] = "model calls"
    """What ``max_calls`` counts, for the budget-stop message."""
    stops_run: ClassVar[tuple[type[Exception], ...]] = ()
    """Errors from ``ask`` that stop the run instead of failing one decision."""

    def __init__(self, **options: Unpack[AdapterOptions]) -> None:
        refuse_unknown_keywords(type(self).__name__, options, OPTION_NAMES)
        super().__init__(
            options.get("name") or self.default_name(), every=options.get("every", "day")
        )
        self.mode = mode_of(options)
        self.info = options.get("info") or self.default_info()
        self.exchange_step = ExchangeStep(self, dict(options))
        self.decision_log: list[dict[str, Any]] = []
        self.run: RunInfo | None = None
        self._pending: dict[int, dict[str, Any]] = {}
        self.hook = options.get("hook")
        rules = (self.info, type(self), self.recorded_state())
        self.binding = TranscriptBinding(self.name, self.mode, self.every, rules, dict(options))
        if self.hook is not None:
            self.hook.bound(self)

    # --- the one method a framework adapter writes ---------------------------------
    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement async ask(request, sent)")

    # --- optional hooks --------------------------------------------------------------
    def default_name(self) -> str:
        raise ConfigError(f"{type(self).__name__} needs name= (the arm's name)")

    def default_info(self) -> AdapterInfo:
        return AdapterInfo(framework=self.framework)

    def input_for(self, payload: dict[str, Any]) -> Any:
        return payload

    def state(self) -> dict[str, Any]:
        return {}

    def recorded_state(self) -> dict[str, Any]:
        """``state()`` and the hook's: what the transcript's ``adapter_state`` holds."""
        return self.state() if self.hook is None else {**self.state(), **self.hook.state()}

    def map_error(self, exc: Exception) -> RunError:
        return FrameworkError(
            f"{self.info.framework} failed for arm {self.name!r}: {type(exc).__name__}: {exc}"
        )

    def to_decision(self, raw: Any, payload: dict[str, Any]) -> Any:
        return raw

    def note_usage(
        self,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        model_calls: int = 0,
        cached_input_tokens: int = 0,
    ) -> None:
        notes = _recorder.current_notes()
        if notes is None:  # outside a call there is nothing to charge it to
            return
        for key, value in (
            ("input_tokens", input_tokens),
            ("output_tokens", output_tokens),
            ("model_calls", model_calls),
            ("cached_input_tokens", cached_input_tokens),
        ):
            notes.usage[key] = notes.usage.get(key, 0) + int(value)

    def note_answer(self, text: Any) -> None:
        """The model's own answer for the transcript when the call then fails."""
        notes = _recorder.current_notes()
        if notes is not None:
            notes.answer = _recorder.plain_response(text)

    def asked(self, sent: Any) -> str:
        """Who a call with input ``sent`` asks, for error messages."""
        return f"arm {self.name!r}"

    def replay_spec(self) -> dict[str, Any]:
        """JSON-able arguments ``from_replay_spec`` needs to rebuild this adapter for replay."""
        spec = {"name": self.name, "every": self.every, "info": self.info.to_meta()}
        return spec if self.hook is None else {**spec, **self.hook.replay_spec()}

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        """Rebuild for replay: the base keys, and every key a subclass's ``replay_spec``
        added passed on as the constructor keyword of the same name."""
        extra = {k: v for k, v in spec.items() if k not in ("name", "every", "info")}
        return cls(**replay_options(spec, transcript), **extra)

    # --- the parts: the transcripts bound, the exchange step's budgets -----------------
    @property
    def transcript(self) -> Transcript | None:
        return self.binding.transcript

    @property
    def recorder(self) -> Transcript | None:
        return self.binding.recorder

    @property
    def prior(self) -> Transcript | None:
        return self.binding.prior

    @property
    def calls_made(self) -> int:
        """Real framework calls made (a replayed or resumed answer is none)."""
        return self.exchange_step.calls_made

    @property
    def timeout(self) -> float | None:
        return self.exchange_step.timeout

    @property
    def max_calls(self) -> int | None:
        return self.exchange_step.max_calls

    @property
    def prices(self) -> PriceTable | None:
        return self.exchange_step.prices

    @property
    def cost_meter(self) -> CostMeter | None:
        return self.exchange_step.cost_meter

    # --- the Agent interface -----------------------------------------------------------
    def begin(self, run: RunInfo) -> None:
        self.run, self.decision_log, self.usage = run, [], Usage()  # a fresh account per run
        self.binding.begin(run)
        if self.hook is not None:
            self.hook.begin(self, run)

    def plant_memory(self, lessons: Sequence[Mapping[str, Any]]) -> None:
        if self.hook is not None:
            self.hook.plant(self, lessons)

    async def adecide(self, request: DecisionRequest) -> Decision:
        if self.hook is None:
            return await self._decided(request, {})
        asked, notes = await self.hook.before_decision(self, request)
        decision = await self._decided(asked, notes)
        self.hook.after_decision(self, request, decision)
        return decision

    async def _decided(self, request: DecisionRequest, notes: dict[str, Any]) -> Decision:
        """The one question of kind ``decide`` and its one validation; ``notes`` (the
        hook's fields) join the decision's log entry whatever the outcome."""
        sent = self.input_for(request.payload)
        key = self._key(request, sent)
        entry = self.record_entry(request, key, input=sent)
        try:
            with noting_failure(entry):
                raw = await self.exchange(request, sent, key)
            decision = self._logged(entry, raw, request.payload)
        finally:
            entry.update(notes)
        return decision

    def _logged(self, entry: dict[str, Any], raw: Any, payload: dict[str, Any]) -> Decision:
        """``raw`` validated into the decision, both written to its log ``entry`` (a
        failed validation's error too, then raised)."""
        entry["response"] = raw
        try:
            decision = self._validated(raw, payload)
        except RunError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            raise
        entry["decision"] = decision.to_json()
        return decision

    def _key(self, request: DecisionRequest, sent: Any) -> str:
        """The replay key of ``sent``: the evaluation's own payload (shared by the arms at
        a decision point) is digested from its parts, each written once (``payload_key``)."""
        if sent is request.payload and self.hook is None:
            return payload_key(sent)
        return digest(sent)

    async def answer(self, request: DecisionRequest) -> Decision:
        """The decision ``adecide`` validated (at ``_validated``), taken as it is; one a
        subclass's own ``adecide`` built without validation is validated here."""
        decision = await self.adecide(request)
        return decision if decision.is_validated() else parse_decision(decision)

    @property
    def in_turn(self) -> bool:
        """A replay without a hook awaits nothing (each answer is read from the transcript),
        so the evaluation takes it in turn, without a task per question."""
        return self.mode == "replay" and self.hook is None and _base_decides(type(self))

    def answer_in_turn(self, request: DecisionRequest) -> Decision:
        """``answer`` run to its end at once, as a task's first step would run it."""
        if self.in_turn:
            return self._replayed_in_turn(request)
        asking = self.answer(request)
        try:
            asking.send(None)
        except StopIteration as done:
            return cast(Decision, done.value)
        asking.close()
        raise RuntimeError(f"arm {self.name!r} awaited while answering in turn")

    def _replayed_in_turn(self, request: DecisionRequest) -> Decision:
        """``_decided`` for an arm ``in_turn`` (a replay without a hook), without the
        coroutines of ``answer``, ``exchange`` and the log's context manager: the same
        entry, usage, errors and decision, some 3 us a decision sooner."""
        sent = self.input_for(request.payload)
        key = self._key(request, sent)
        entry = self.record_entry(request, key, input=sent)
        try:
            raw = self.exchange_step.replayed(self, request, key)
        except RunError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            raise
        return self._logged(entry, raw, request.payload)

    def record_entry(self, request: DecisionRequest, key: str, **fields: Any) -> dict[str, Any]:
        """Open this decision's entry in ``decision_log``; its orders are added after execution."""
        entry = _recorder.new_entry(request, key, **fields)
        self.decision_log.append(entry)
        self._pending[request.index] = entry
        return entry

    def entry_for(self, request: DecisionRequest) -> dict[str, Any] | None:
        """The decision-log entry open for ``request`` (until its execution is added)."""
        return self._pending.get(request.index)

    def after_execution(
        self, request: DecisionRequest, decision: Decision, report: ExecutionReport
    ) -> None:
        entry = self._pending.pop(request.index, None)
        if entry is not None:
            _recorder.add_execution(entry, report)
        if self.hook is not None:
            self.hook.executed(request, report)

    def run_completed(self) -> None:
        if self.hook is not None:
            self.hook.run_completed()

    def end(self) -> None:
        self._pending.clear()
        self.binding.end()
        if self.hook is not None:
            self.hook.end()

    # --- the protected exchange: one input, one raw answer ------------------------------
    async def exchange(
        self, request: DecisionRequest, sent: Any, key: str | None = None, *, kind: str = DECIDE
    ) -> Any:
        """The raw answer to ``sent`` (keyed by ``key``, its digest by default): replayed,
        resumed from ``prior=``, or asked within the budget and timeout; usage is counted
        and the exchange recorded every way, and a recorded failure is raised again.
        ``kind`` says who answers a live question: ``ask`` (``"decide"``) or the hook."""
        key = digest(sent) if key is None else key
        return await self.exchange_step.exchange(self, request, sent, key, kind)

    def _validated(self, raw: Any, payload: dict[str, Any]) -> Decision:
        try:
            shaped = self.to_decision(_recorder.private_copy(raw), payload)
        except RunError:
            raise
        except Exception as exc:
            raise DecisionError(
                f"arm {self.name!r}: turning the answer into a decision failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return parse_decision(shaped)


def _base_decides(kind: type[BaseAdapter]) -> bool:
    """Whether ``kind`` decides as the base does (one exchange, one validation): an
    adapter with its own ``adecide`` or ``exchange`` may await more than a transcript."""
    return all(
        getattr(kind, name) is getattr(BaseAdapter, name)
        for name in ("answer", "adecide", "_decided", "exchange")
    )


def split_options(options: Mapping[str, Any]) -> tuple[AdapterOptions, dict[str, Any]]:
    """The adapter keywords among ``options``, and the rest (an adapter's own extras)."""
    ours = {k: v for k, v in options.items() if k in OPTION_NAMES}
    return cast(AdapterOptions, ours), {k: v for k, v in options.items() if k not in ours}


__all__ = [
    "DEFAULT_MODE",
    "DEFAULT_TIMEOUT",
    "MODES",
    "AdapterInfo",
    "AdapterOptions",
    "BaseAdapter",
    "Mode",
    "journal_path",
    "mode_of",
    "noting_failure",
    "split_options",
]
