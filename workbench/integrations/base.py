"""The adapter base class: transcript, replay, timing, budgets and validation in one place.

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
- ``map_error(exc) -> ValidationError``: the one boundary where framework
  exceptions become ``DecisionError`` (the agent's own bad outcome) or
  ``FrameworkError`` (default). ``DecisionError``/``FrameworkError`` raised by
  ``ask`` pass through untouched.
- ``to_decision(raw, payload)``: turn the raw answer into a decision; runs live
  and on replay (default: ``raw`` unchanged). ``raw`` is a private copy; the
  payload is shared with other arms, so copy it before changing it.
- ``note_usage(input_tokens=, output_tokens=, model_calls=)``: call inside ``ask``
  to report what the call spent (one model call per ``ask`` unless told otherwise).
- ``note_answer(text)``: call inside ``ask`` with the model's own text before a
  failure is raised, so the transcript keeps what the model said (prose included)
  next to the error, live and on replay.
- ``replay_spec()`` / ``from_replay_spec(spec, transcript)``: how a recording
  rebuilds this adapter in replay mode (default: name, every and info).

Pass ``info=AdapterInfo(framework=..., instructions_digest=digest(INSTRUCTIONS))``
when your instructions are not in the keyed input: the digest is written to
``meta["instructions_digest"]`` and a replay under other instructions raises
``ValidationError`` when the adapter is built. Import the framework lazily,
inside ``ask``: a replay never calls ``ask``, so it needs no framework installed.

Cadence: ``every="day"`` (the default for every adapter, as for every arm) asks
once per trading day at the same step whatever ``steps_per_day``; ``"step"`` or
a whole number of steps is an explicit finer or coarser choice. The transcript's
run meta records ``every`` and the steps between decisions it gave, and a replay
(or a resumed run) on another cadence is refused before the first decision.

Modes: ``"live"`` calls the framework and records only into a given
``transcript``/``recorder``; ``"record"`` calls and records (a new ``Transcript``
when none is given; a path is journalled as it goes and saved at ``end()``);
``"replay"`` never calls the framework. ``prior=`` (live/record) resumes a
half-finished run from its transcript or journal (a path is read with the
journal beside it, so ``prior=`` may be the recorder's own path): recorded inputs
are answered from it, only the missing exchanges are asked, and every answer it
holds is carried into the new recording before its journal is rewritten.

``max_calls=`` is a budget: the call past it is recorded once as a
``BudgetExhausted`` stop, and the evaluation asks that arm nothing more (it
holds). A resumed run asks a recorded budget stop again, since nothing was paid.

Every ``ask`` runs on one owning loop (see ``_loop``), so an arm can be used by
any number of runs on any event loops; ``timeout`` defaults to
``DEFAULT_TIMEOUT`` seconds per call (``None`` waits for ever).

A failed call is recorded too (its error class and message), so a replay
reproduces the error column of the recorded run. Usage (tokens, latency) is
recorded per exchange and reported again on replay, so a replayed scorecard
matches the recorded one; ``calls_made`` counts real framework calls.
"""

from __future__ import annotations

import asyncio
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal

from workbench.agents import (
    Agent,
    DecisionRequest,
    Every,
    ExecutionReport,
    RunInfo,
    Usage,
)
from workbench.errors import (
    BudgetExhausted,
    ConfigError,
    DecisionError,
    FrameworkError,
    ValidationError,
)
from workbench.integrations import _record
from workbench.integrations._loop import on_owning_loop
from workbench.integrations._replay import (
    refuse_a_changed_preset,
    refuse_other_schemas,
    replay_response,
    require_transcript,
    stamp_preset,
)
from workbench.integrations._retries import counting_retries
from workbench.schema import Decision, parse_decision
from workbench.transcript import Exchange, Transcript, digest

Mode = Literal["live", "record", "replay"]
DEFAULT_TIMEOUT = 120.0
"""Seconds one model call may take before it is abandoned as a ``FrameworkError``."""
MODES: tuple[str, ...] = ("live", "record", "replay")


@dataclass(frozen=True)
class AdapterInfo:
    """Who answers: the framework, the model, and a digest of instructions not in the input."""

    framework: str = "custom"
    model: str | None = None
    instructions_digest: str | None = None
    version: str | None = None

    def to_meta(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


class BaseAdapter(Agent):
    """An arm backed by a model framework. Subclasses implement ``ask``; see the module doc."""

    framework: ClassVar[str] = "custom"
    # The evaluation may hand every adapter the same payload object: the base gives
    # ``ask`` and ``to_decision`` private copies, so no framework can alter it.
    shares_payload = True

    def __init__(
        self,
        *,
        name: str,
        info: AdapterInfo | None = None,
        every: Every = "day",
        mode: Mode | str = "live",
        transcript: Transcript | str | os.PathLike[str] | None = None,
        recorder: Transcript | str | os.PathLike[str] | None = None,
        prior: Transcript | str | os.PathLike[str] | None = None,
        timeout: float | None = DEFAULT_TIMEOUT,
        max_calls: int | None = None,
    ) -> None:
        super().__init__(name, every=every)
        self.mode = _mode(mode)
        self.info = info or AdapterInfo(framework=self.framework)
        self.timeout = timeout
        self.max_calls = max_calls
        self.calls_made = 0
        self.record: list[dict[str, Any]] = []
        self.run: RunInfo | None = None
        self._pending: dict[int, dict[str, Any]] = {}
        self._call_usage: dict[str, int] = {}
        self._call_answer: Any = None
        # The prior is read before the recorder opens its journal: resuming from the
        # journal (or the file) it is about to write never loses what was paid for.
        self.prior = self._bind_prior(prior)
        self._replay, self.recorder, self._save_to = self._bind(transcript, recorder)

    # --- the one method a framework adapter writes ---------------------------------
    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must implement async ask(request, sent)")

    # --- optional hooks --------------------------------------------------------------
    def input_for(self, payload: dict[str, Any]) -> Any:
        return payload

    def state(self) -> dict[str, Any]:
        return {}

    def map_error(self, exc: Exception) -> ValidationError:
        return FrameworkError(
            f"{self.info.framework} failed for arm {self.name!r}: {type(exc).__name__}: {exc}"
        )

    def to_decision(self, raw: Any, payload: dict[str, Any]) -> Any:
        return raw

    def note_usage(
        self, *, input_tokens: int = 0, output_tokens: int = 0, model_calls: int = 0
    ) -> None:
        for key, value in (
            ("input_tokens", input_tokens),
            ("output_tokens", output_tokens),
            ("model_calls", model_calls),
        ):
            self._call_usage[key] = self._call_usage.get(key, 0) + int(value)

    def note_answer(self, text: Any) -> None:
        """The model's own answer for the transcript when the call then fails."""
        self._call_answer = _record.plain_response(text)

    def replay_spec(self) -> dict[str, Any]:
        """JSON-able arguments ``from_replay_spec`` needs to rebuild this adapter for replay."""
        return {"name": self.name, "every": self.every, "info": self.info.to_meta()}

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        """Rebuild for replay: the base keys, and every key a subclass's ``replay_spec``
        added passed on as the constructor keyword of the same name."""
        extra = {k: v for k, v in spec.items() if k not in ("name", "every", "info")}
        info = AdapterInfo(**spec.get("info", {}))
        return cls(
            name=spec["name"],
            every=spec["every"],
            info=info,
            mode="replay",
            transcript=transcript,
            **extra,
        )

    # --- the transcript this adapter reads or writes ---------------------------------
    @property
    def transcript(self) -> Transcript | None:
        return self._replay if self.mode == "replay" else self.recorder

    def _bind(
        self, transcript: Any, recorder: Any
    ) -> tuple[Transcript | None, Transcript | None, Path | None]:
        if self.mode == "replay":
            if transcript is None:
                raise ConfigError(f"arm {self.name!r}: mode='replay' needs transcript=")
            if recorder is not None:
                raise ConfigError(f"arm {self.name!r}: a replay records nothing; drop recorder=")
            replayed = require_transcript(transcript, purpose=f"replay of arm {self.name!r}")
            self._check_recorded_under_same_rules(replayed)
            return replayed, None, None
        target = recorder if recorder is not None else transcript
        if target is None:
            if self.mode != "record":
                return None, None, None
            return None, self._carry_prior(self._stamp(Transcript())), None
        if isinstance(target, Transcript):
            return None, self._carry_prior(self._stamp(target)), None
        path = Path(target)
        fresh = self._carry_prior(self._stamp(Transcript(path=path)))
        fresh.journal(journal_path(path))
        return None, fresh, path

    def _carry_prior(self, recorder: Transcript) -> Transcript:
        """Every answer the prior run paid for goes into the new recording first."""
        for paid in self.prior or ():
            if not _record.is_budget_stop(paid.error):
                recorder.add(
                    paid.key,
                    paid.input,
                    paid.response,
                    day=paid.day,
                    step=paid.step,
                    usage=paid.usage,
                    error=paid.error,
                )
        return recorder

    def _bind_prior(self, prior: Any) -> Transcript | None:
        if prior is None:
            return None
        if self.mode == "replay":
            raise ConfigError(f"arm {self.name!r}: prior= resumes a live run; a replay takes none")
        earlier = _record.load_prior(prior, purpose=f"resuming arm {self.name!r}")
        self._check_recorded_under_same_rules(earlier)
        return earlier

    def _stamp(self, recorder: Transcript) -> Transcript:
        recorder.update_meta(
            **_record.adapter_meta(self.name, self.every, self.info, type(self), self.state())
        )
        return recorder

    def _check_recorded_under_same_rules(self, recorded: Transcript) -> None:
        refuse_other_schemas(recorded)
        recorded.checks.add("schemas")
        _record.refuse_other_instructions(recorded, self.info, self.name)
        _record.refuse_other_state(recorded, self.state(), self.name)

    # --- the Agent interface -----------------------------------------------------------
    def begin(self, run: RunInfo) -> None:
        self.run, self.record, self.usage = run, [], Usage()  # a fresh account per run
        for recorded, resuming in ((self._replay, False), (self.prior, True)):
            if recorded is not None:
                refuse_a_changed_preset(recorded, run.preset)
                _record.refuse_another_run(recorded, run, self.every, resuming=resuming)
        if self.recorder is not None:
            stamp_preset(self.recorder, run.preset)
            self.recorder.update_meta(run=_record.run_meta(run, self.every))

    async def adecide(self, request: DecisionRequest) -> Decision:
        sent = self.input_for(request.payload)
        key = digest(sent)
        entry = _record.new_entry(request, key, sent)
        self.record.append(entry)
        self._pending[request.index] = entry
        try:
            raw = await self._answer(request, sent, key)
            entry["response"] = raw
            decision = self._validated(raw, request.payload)
        except ValidationError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            raise
        entry["decision"] = decision.to_json()
        return decision

    def after_execution(
        self, request: DecisionRequest, decision: Decision, report: ExecutionReport
    ) -> None:
        entry = self._pending.pop(request.index, None)
        if entry is not None:
            _record.add_execution(entry, report)

    def end(self) -> None:
        self._pending.clear()
        if self.recorder is not None and self._save_to is not None:
            self.recorder.save(self._save_to)
            self.recorder.close_journal()
            journal_path(self._save_to).unlink(missing_ok=True)

    # --- how an answer is found ----------------------------------------------------
    async def _answer(self, request: DecisionRequest, sent: Any, key: str) -> Any:
        if self.mode == "replay":
            assert self._replay is not None
            raw = replay_response(
                self._replay, key, step=request.step, day=request.day, preset=request.preset
            )
            return self._reuse(self._replay.get(key), raw)
        if self.prior is not None:
            refuse_a_changed_preset(self.prior, request.preset)
            earlier = self.prior.get(key)
            if earlier is not None and not _record.is_budget_stop(earlier.error):
                self._keep(request, key, sent, earlier.response, earlier.usage, earlier.error)
                return self._reuse(earlier, earlier.response)
        return await self._call(request, sent, key)

    def _reuse(self, exchange: Exchange | None, raw: Any) -> Any:
        usage = exchange.usage if exchange is not None else {}
        self.usage.add(_record.usage_of(usage))
        if exchange is not None and exchange.error:
            raise _record.recorded_error(exchange.error)
        return raw

    async def _call(self, request: DecisionRequest, sent: Any, key: str) -> Any:
        if self.max_calls is not None and self.calls_made >= self.max_calls:
            raise self.budget_stopped(
                request, key, sent, _record.budget_stop(self.name, self.max_calls)
            )
        self.calls_made += 1
        self._call_usage, self._call_answer = {}, None
        started = time.perf_counter()
        raw: Any = None
        error: ValidationError | None = None
        with counting_retries() as retried:
            try:
                answer = await self._ask_in_time(request, _record.private_copy(sent))
                raw = _record.plain_response(answer)
            except ValidationError as exc:
                error = exc
            except Exception as exc:
                error = self.map_error(exc)
                error.__cause__ = exc
        usage = _record.call_usage(self._call_usage, time.perf_counter() - started)
        if retried:
            usage["retries"] = len(retried)
        self.usage.add(_record.usage_of(usage))
        failure = _record.error_meta(error) if error is not None else None
        if error is not None and raw is None:
            raw = self._call_answer
        self._keep(request, key, sent, raw, usage, failure)
        if error is not None:
            raise error
        return raw

    async def _ask_in_time(self, request: DecisionRequest, sent: Any) -> Any:
        call = on_owning_loop(self.ask(request, sent))
        if self.timeout is None:
            return await call
        try:
            return await asyncio.wait_for(call, self.timeout)
        except TimeoutError as exc:
            raise FrameworkError(
                f"{self.asked(sent)} gave no answer within {self.timeout}s on day "
                f"{request.day}, step {request.step}; raise timeout= or check the model"
            ) from exc

    def asked(self, sent: Any) -> str:
        """Who a call with input ``sent`` asks, for error messages."""
        return f"arm {self.name!r}"

    def budget_stopped(
        self, request: DecisionRequest, key: str, sent: Any, stop: BudgetExhausted
    ) -> BudgetExhausted:
        """Record the budget stop at this input (a replay stops at the same point)."""
        self._keep(request, key, sent, None, {}, _record.error_meta(stop))
        return stop

    def _keep(
        self,
        request: DecisionRequest,
        key: str,
        sent: Any,
        raw: Any,
        usage: dict[str, Any],
        error: dict[str, str] | None,
    ) -> None:
        if self.recorder is None:
            return
        stamp_preset(self.recorder, request.preset)
        self.recorder.add(
            key, sent, raw, day=request.day, step=request.step, usage=usage, error=error
        )

    def _validated(self, raw: Any, payload: dict[str, Any]) -> Decision:
        try:
            shaped = self.to_decision(_record.private_copy(raw), payload)
        except ValidationError:
            raise
        except Exception as exc:
            raise DecisionError(
                f"arm {self.name!r}: turning the answer into a decision failed: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        return parse_decision(shaped)


def journal_path(path: str | os.PathLike[str]) -> Path:
    """Where a recorder saved at ``path`` journals its exchanges until the run ends."""
    target = Path(path)
    return target.with_name(target.name + ".journal")


def _mode(mode: str) -> str:
    if mode not in MODES:
        raise ConfigError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


__all__ = ["DEFAULT_TIMEOUT", "MODES", "AdapterInfo", "BaseAdapter", "Mode", "journal_path"]
