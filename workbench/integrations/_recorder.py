"""Bookkeeping for the adapter base: decision-log entries, transcript meta and run checks.

Imports run one way: ``base`` uses this module, which uses ``_replay``; neither
reaches back up.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import sys
import warnings
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from workbench._checks import caller_outside_package
from workbench._jsonio import plain_answer, printable, to_plain
from workbench._version import __version__
from workbench.agents import DecisionRequest, Every, ExecutionReport, RunInfo, Usage
from workbench.errors import (
    BudgetExhausted,
    ConfigError,
    DecisionError,
    FrameworkError,
    ReplayMiss,
    RunError,
    UsageLimitReached,
)
from workbench.integrations._replay import require_transcript
from workbench.integrations._shared_payload import deep_copy
from workbench.schema import DECISION_SCHEMA_VERSION, OBSERVATION_SCHEMA_VERSION, refuse_deep
from workbench.transcript import Transcript

if TYPE_CHECKING:
    from workbench.engine.execution import OrderRecord

_ERRORS: dict[str, type[RunError]] = {
    cls.__name__: cls for cls in (DecisionError, FrameworkError, UsageLimitReached, BudgetExhausted)
}
# Run facts a replay must share with its recording; days may only shrink.
_RUN_FACTS = (
    "arm",
    "roster",
    "seed",
    "symbols",
    "steps_per_day",
    "ticks_per_step",
    "every",
    "decision_interval",
)


@dataclass(frozen=True)
class AdapterInfo:
    """Who answers: the framework, the model, and a digest of instructions not in the input."""

    framework: str = "custom"
    model: str | None = None
    instructions_digest: str | None = None
    version: str | None = None

    def to_meta(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class CallNotes:
    """What one model call noted while it ran: usage (``note_usage``) and the model's text."""

    usage: dict[str, int] = field(default_factory=dict)
    answer: Any = None


_notes: contextvars.ContextVar[CallNotes | None] = contextvars.ContextVar(
    "workbench_call_notes", default=None
)


@contextlib.contextmanager
def noting_call() -> Iterator[CallNotes]:
    """One call's notes, seen by the ``ask`` running inside (its tasks and threads too).

    A context variable, not an attribute: a committee's advisors ask concurrently.
    """
    notes = CallNotes()
    token = _notes.set(notes)
    try:
        yield notes
    finally:
        _notes.reset(token)


def current_notes() -> CallNotes | None:
    """The notes of the call running here, or None outside any call."""
    return _notes.get()


# --- transcript meta -------------------------------------------------------------------
def adapter_meta(
    name: str, every: Every, info: AdapterInfo, cls: type, state: dict[str, Any]
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "arm": name,
        "every": every,
        "framework": info.framework,
        "adapter": f"{cls.__module__}:{cls.__qualname__}",
        "adapter_state": state,
        "observation_schema_version": OBSERVATION_SCHEMA_VERSION,
        "decision_schema_version": DECISION_SCHEMA_VERSION,
        "workbench_version": __version__,
    }
    if info.model is not None:
        meta["model"] = info.model
    if info.instructions_digest is not None:
        meta["instructions_digest"] = info.instructions_digest
    return meta


def run_meta(run: RunInfo, every: Every) -> dict[str, Any]:
    """The run a transcript was made in; the arm's training cutoff only when it has one."""
    meta = {
        "arm": run.arm,
        "roster": list(run.roster),
        "seed": run.seed,
        "symbols": list(run.symbols),
        "days": run.days,
        "steps_per_day": run.steps_per_day,
        "ticks_per_step": run.ticks_per_step,
        "every": every,
        "decision_interval": run.decision_interval,
    }
    if run.model_cutoff is not None:
        meta["model_cutoff"] = run.model_cutoff
    return meta


def recorded_cutoff(recorded: Transcript) -> str | None:
    """The training cutoff the arm was recorded with (``model_cutoff=``), if any."""
    cutoff = (recorded.meta.get("run") or {}).get("model_cutoff")
    return None if cutoff is None else str(cutoff)


# --- checks a replay (or a resumed run) makes before the market opens ------------------
def refuse_other_instructions(recorded: Transcript, info: AdapterInfo, arm: str) -> None:
    ours = info.instructions_digest
    if ours is None:
        return
    theirs = recorded.meta.get("instructions_digest")
    if theirs != ours:
        was = f"instructions digest {theirs[:12]}…" if theirs else "no instructions digest"
        raise RunError(
            f"arm {arm!r}: {_where(recorded)} was recorded with {was}, but this adapter's "
            f"instructions digest is {ours[:12]}…. The instructions changed since the "
            "recording, so its answers do not belong to them: restore the instructions or "
            "record the run again."
        )


def refuse_other_state(recorded: Transcript, state: dict[str, Any], arm: str) -> None:
    theirs = recorded.meta.get("adapter_state")
    ours = to_plain(state)
    if theirs is None or theirs == ours:
        return
    moved = sorted(k for k in set(theirs) | set(ours) if theirs.get(k) != ours.get(k))
    details = ", ".join(f"{k} {theirs.get(k)!r} -> {ours.get(k)!r}" for k in moved)
    raise RunError(
        f"arm {arm!r}: {_where(recorded)} was recorded with other adapter settings ({details}); "
        "build the adapter with the recorded settings or record the run again"
    )


def refuse_another_run(
    recorded: Transcript, run: RunInfo, every: Every, *, resuming: bool = False
) -> None:
    """A replay (or resumed run) must be the recorded experiment, asked on the recorded
    cadence (``every`` and the steps between decisions it gave); a replay may be shorter."""
    theirs = recorded.meta.get("run")
    if not theirs:
        return
    ours = run_meta(run, every)
    for fact in _RUN_FACTS:
        if fact in theirs and theirs[fact] != ours[fact]:
            raise ReplayMiss(
                f"arm {run.arm!r}: {_where(recorded)} was made with "
                f"{_difference(fact, theirs[fact], ours[fact])}. "
                "Its answers belong to the recorded experiment: run with the recorded "
                f"{fact} or record again."
            )
    _refuse_another_cutoff(recorded, run, theirs.get("model_cutoff"))
    if not resuming and "days" in theirs and ours["days"] > theirs["days"]:
        raise ReplayMiss(
            f"arm {run.arm!r}: {_where(recorded)} covers {theirs['days']} days; this run asks "
            f"for {ours['days']}. Replay at most the recorded days or record again."
        )


def _refuse_another_cutoff(recorded: Transcript, run: RunInfo, theirs: str | None) -> None:
    """A run may leave the cutoff out (a replay reads it back), never give another one."""
    if theirs is None or run.model_cutoff in (None, theirs):
        return
    raise ReplayMiss(
        f"arm {run.arm!r}: {_where(recorded)} was made by a model with training cutoff "
        f"{theirs}, and this run gives {run.model_cutoff}. Its answers are that model's: run "
        f"with model_cutoff={{{run.arm!r}: {theirs!r}}} or record again."
    )


# --- one entry per decision in adapter.decision_log ------------------------------------
def new_entry(request: DecisionRequest, key: str, **fields: Any) -> dict[str, Any]:
    return {
        "arm": request.arm,
        "day": request.day,
        "step": request.step,
        "index": request.index,
        "digest": key,
        **fields,
    }


@contextlib.contextmanager
def noting_failure(entry: dict[str, Any]) -> Iterator[None]:
    """A decision that fails keeps its error in its record entry, then raises on."""
    try:
        yield
    except RunError as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"
        raise


def add_execution(entry: dict[str, Any], report: ExecutionReport) -> None:
    """The report's orders, clips and refusals (``report.clips`` and ``report.refusals``,
    read here from its one tuple of orders) written to the decision's log ``entry``."""
    orders = report.orders
    entry["orders"] = [
        {
            "symbol": row.symbol,
            "side": row.side,
            "order": _held(row),
            "status": row.status,
            "filled": row.quantity,
            "price": row.price,
        }
        for row in orders
    ]
    entry["clips"] = [
        {"symbol": row.symbol, "requested": row.requested, "to": row.clipped_to}
        for row in orders
        if row.clipped
    ]
    entry["refused"] = [
        {"symbol": row.symbol, "side": row.side, "order": _held(row), "reason": row.reason}
        for row in orders
        if row.status == "refused"
    ]


def _held(row: OrderRecord) -> Any:
    """A market order is held as its quantity; a limit order as {quantity, limit_price}."""
    if row.order_type == "limit":
        return {"quantity": row.requested, "limit_price": row.limit_price}
    return row.requested


# --- usage and errors ----------------------------------------------------------------
def call_usage(noted: dict[str, int], latency_s: float) -> dict[str, Any]:
    usage = {
        "model_calls": noted.get("model_calls") or 1,
        "input_tokens": noted.get("input_tokens", 0),
        "output_tokens": noted.get("output_tokens", 0),
        "latency_s": latency_s,
    }
    if noted.get("cached_input_tokens"):  # only where a provider reported a cache hit
        usage["cached_input_tokens"] = noted["cached_input_tokens"]
    return usage


def reported_tokens(usage: dict[str, Any]) -> bool:
    """The call reported token counts: an answered call reads some input tokens at least,
    so zero input and zero output tokens mean the adapter reported none."""
    return bool(usage.get("input_tokens") or usage.get("output_tokens"))


def usage_of(recorded: dict[str, Any]) -> Usage:
    """The usage of one recorded exchange; its ``cost_usd`` is the recorded one, NaN for a
    call recorded without a price (unknown, not free) and 0 where no model was called."""
    calls = int(recorded.get("model_calls", 0))
    unpriced = math.nan if calls else 0.0
    return Usage(
        model_calls=calls,
        input_tokens=int(recorded.get("input_tokens", 0)),
        output_tokens=int(recorded.get("output_tokens", 0)),
        latency_s=float(recorded.get("latency_s", 0.0)),
        retries=int(recorded.get("retries", 0)),
        cost_usd=float(recorded.get("cost_usd", unpriced)),
    )


def error_meta(error: RunError) -> dict[str, str]:
    cls = type(error)
    base = next((c.__name__ for c in cls.__mro__ if c.__name__ in _ERRORS), "FrameworkError")
    message = printable(str(error))
    return {"type": f"{cls.__module__}:{cls.__qualname__}", "base": base, "message": message}


def budget_stop(arm: str, budget: int, what: str = "model calls") -> BudgetExhausted:
    return BudgetExhausted(
        f"arm {arm!r} reached its budget of {budget} {what}; it is asked nothing more and "
        "holds for the rest of the run. Raise max_calls= or shorten the run"
    )


def cost_stop(arm: str, max_cost_usd: float, spent_usd: float) -> BudgetExhausted:
    return BudgetExhausted(
        f"arm {arm!r} reached its budget of {max_cost_usd:g} US dollars (spent "
        f"{spent_usd:.6g}); it is asked nothing more and holds for the rest of the run. "
        "Raise max_cost_usd= or shorten the run"
    )


def is_budget_stop(error: dict[str, str] | None) -> bool:
    """A recorded budget stop paid for nothing: a resumed run asks that input again."""
    return error is not None and error.get("base") == BudgetExhausted.__name__


def recorded_error(error: dict[str, str]) -> RunError:
    """The error a recorded failed call raised, raised again on replay.

    The exact class is used when its module is already imported (a replay never
    imports a framework for it); otherwise its nearest workbench base class.
    """
    module, _, qualname = error.get("type", "").partition(":")
    cls: Any = getattr(sys.modules.get(module), qualname, None)
    if not (isinstance(cls, type) and issubclass(cls, RunError)):
        cls = _ERRORS.get(error.get("base", ""), FrameworkError)
    try:
        return cls(error.get("message", "the recorded call failed"))
    except TypeError:  # a subclass with its own constructor
        return _ERRORS.get(error.get("base", ""), FrameworkError)(error.get("message", ""))


def load_prior(prior: Any, *, purpose: str) -> Transcript:
    """The run to resume: a Transcript, or a path read together with the journal beside it.

    ``prior=`` may name the recorder's own path (only its journal exists after a
    crash), the journal itself, or a saved transcript; whichever files exist are read.
    """
    if not isinstance(prior, str | os.PathLike):
        return require_transcript(prior, purpose=purpose)
    path = Path(prior)
    found = [p for p in (path, journal_path(path)) if p.is_file()]
    if not found:
        return Transcript.load(path)  # names the missing file
    loaded = [Transcript.load(p) for p in found]
    merged = Transcript(loaded[-1].meta, [e for t in loaded for e in t], path=found[0])
    return merged


def recorder_given(transcript: Any, recorder: Any, arm: str, mode: str) -> Any:
    """What a live or recording arm writes to: ``recorder=``. ``transcript=`` is what a replay
    reads; given to a recording arm it is still written to, with a DeprecationWarning."""
    if transcript is None:
        return recorder
    if recorder is not None:
        raise ConfigError(
            f"arm {arm!r}: mode={mode!r} records into recorder=; drop transcript= (what a "
            "replay reads)"
        )
    warnings.warn(
        f"arm {arm!r}: transcript= in mode={mode!r} is what the arm records into: pass it as "
        "recorder= (transcript= is what a replay reads); recording into transcript= goes in "
        "the next release",
        DeprecationWarning,
        stacklevel=caller_outside_package(),
    )
    return transcript


def refuse_to_overwrite(path: Path, arm: str, *, overwrite: bool, resuming: bool) -> None:
    """A recording never replaces a transcript (or the journal of one) it was not told to."""
    found = [p for p in (path, journal_path(path)) if p.exists()]
    if not found or overwrite or resuming:
        return
    raise ConfigError(
        f"arm {arm!r}: {found[0]} already holds a recorded transcript, and recording into "
        f"{path} would overwrite it. Pass overwrite=True to replace it, prior={str(path)!r} "
        "to resume the run it holds, or another path."
    )


def journal_path(path: str | os.PathLike[str]) -> Path:
    """Where a recorder saved at ``path`` journals its exchanges until the run ends."""
    target = Path(path)
    return target.with_name(target.name + ".journal")


def private_copy(value: Any) -> Any:
    """A deep copy of plain JSON data (``_shared_payload.deep_copy``)."""
    if isinstance(value, dict | list):
        return deep_copy(value)
    return value


def plain_response(raw: Any) -> Any:
    """The raw answer as the plain JSON a replay loads, so live and replay see the same data.

    NaN, infinity and unpaired surrogates are kept (the transcript writes them
    losslessly); validation refuses them as the agent's own bad answer.
    """
    if isinstance(raw, dict | list | tuple):
        refuse_deep(raw)
    try:
        return plain_answer(raw)
    except Exception as exc:
        raise DecisionError(
            f"the answer is not JSON data ({type(raw).__name__}); return a Decision, a dict "
            "or a JSON string"
        ) from exc


def _where(recorded: Transcript) -> str:
    return f"recording {recorded.path}" if recorded.path else "the recording"


def _difference(fact: str, theirs: Any, ours: Any) -> str:
    if isinstance(theirs, list) and isinstance(ours, list):
        at = next((i for i, (a, b) in enumerate(zip(theirs, ours, strict=False)) if a != b), None)
        where = "" if at is None else f"; first difference at {at}: {theirs[at]!r} vs {ours[at]!r}"
        return (
            f"{fact} {_short(theirs)} ({len(theirs)} items), but this run has {_short(ours)} "
            f"({len(ours)} items{where})"
        )
    return f"{fact} {theirs!r}, but this run has {fact} {ours!r}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "…"
