"""One protected question to the model: replayed, resumed, or asked within budget and time.

``ExchangeStep.exchange(adapter, request, sent, key, kind)`` is the only way an adapter's
questions reach a model. In replay it answers from the transcript; with ``prior=``
from the run it resumes; otherwise it asks: ``ask`` answers a question of kind
``"decide"``, the adapter's hook every other kind. A live call is refused past
``max_calls`` or ``max_cost_usd`` (the stop is recorded at that input), runs on the
owning loop within ``timeout``, and has its usage, retries and price noted; a
framework exception becomes a ``RunError`` at ``map_error``. Every exchange is
recorded (a failure too, with the model's own words when it gave any), and a
recorded failure is raised again on replay.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from workbench._checks import count, seconds
from workbench.agents import DecisionRequest
from workbench.errors import (
    BudgetExhausted,
    ConfigError,
    EndpointUnreachable,
    FrameworkError,
    RunError,
)
from workbench.integrations import _recorder
from workbench.integrations._loop import on_owning_loop
from workbench.integrations._retries import counting_retries
from workbench.integrations.hooks import DECIDE
from workbench.integrations.pricing import CostMeter, PriceTable, as_price_table
from workbench.transcript import Exchange

if TYPE_CHECKING:
    from workbench.integrations.base import BaseAdapter

DEFAULT_TIMEOUT = 120.0
"""Seconds one model call may take before it is abandoned as a ``FrameworkError``."""


class ExchangeStep:
    """The budgets, the clock and the path of one adapter's questions; see the module doc."""

    def __init__(self, adapter: BaseAdapter, options: dict[str, Any]) -> None:
        # the adapter is handed to each call, never kept: it holds this step, and a cycle
        # between them would keep a replayed run's transcripts alive until a full collection
        kind = type(adapter).__name__
        self.timeout = seconds(f"{kind} timeout", options.get("timeout", DEFAULT_TIMEOUT),
                               optional=True)  # fmt: skip
        self.max_calls = count(f"{kind} max_calls", options.get("max_calls"), optional=True)
        self.prices = as_price_table(options.get("prices"))
        self.cost_meter = _cost_meter(adapter, self.prices, options.get("max_cost_usd"))
        self.calls_made = 0

    async def exchange(
        self, adapter: BaseAdapter, request: DecisionRequest, sent: Any, key: str, kind: str
    ) -> Any:
        binding = adapter.binding
        if binding.mode == "replay":
            return self.replayed(adapter, request, key)
        earlier = binding.paid_before(request, key)
        if earlier is not None:
            binding.keep(request, key, sent, (earlier.response, earlier.usage, earlier.error))
            return _reuse(adapter, earlier, earlier.response)
        return await self._call(adapter, request, sent, key, kind)

    def replayed(self, adapter: BaseAdapter, request: DecisionRequest, key: str) -> Any:
        """The recorded answer at ``key``, its usage counted (a recorded failure raised)."""
        return _reuse(adapter, *adapter.binding.replay(request, key))

    async def _call(
        self, adapter: BaseAdapter, request: DecisionRequest, sent: Any, key: str, kind: str
    ) -> Any:
        keep = adapter.binding.keep
        stop = self._past_budget(adapter)
        if stop is not None:
            keep(request, key, sent, (None, {}, _recorder.error_meta(stop)))
            raise stop  # recorded at this input, so a replay stops at the same point
        self.calls_made += 1
        started = time.perf_counter()
        with counting_retries() as retried, _recorder.noting_call() as notes:
            raw, error = await self._asked(adapter, request, sent, kind)
        usage = _recorder.call_usage(notes.usage, time.perf_counter() - started)
        if retried:
            usage["retries"] = len(retried)
        self._charge(adapter, usage, answered=error is None)
        adapter.usage.add(_recorder.usage_of(usage))
        failure = _recorder.error_meta(error) if error is not None else None
        if error is not None and raw is None:
            raw = notes.answer
        keep(request, key, sent, (raw, usage, failure))
        if error is not None:
            raise error
        return raw

    def _past_budget(self, adapter: BaseAdapter) -> BudgetExhausted | None:
        """The stop for a call past ``max_calls`` or ``max_cost_usd``, else None."""
        name = adapter.name
        if self.max_calls is not None and self.calls_made >= self.max_calls:
            return _recorder.budget_stop(name, self.max_calls, adapter.budget_unit)
        meter = self.cost_meter
        if meter is not None and meter.exhausted:
            return _recorder.cost_stop(name, meter.max_cost_usd, meter.spent_usd)
        return None

    def _charge(self, adapter: BaseAdapter, usage: dict[str, Any], *, answered: bool) -> None:
        """Write the call's price into its usage (recorded, so a replay reports it) and
        charge it to the dollar budget. A call at no known price gets no ``cost_usd``, nor
        does one answered with no token counts reported: its cost is unknown, not $0."""
        model = adapter.info.model
        cost = None if self.prices is None else self.prices.cost(model, usage)
        if cost is None or (answered and not _recorder.reported_tokens(usage)):
            return
        usage["cost_usd"] = cost
        if self.cost_meter is not None:
            self.cost_meter.charge(usage)

    async def _asked(
        self, adapter: BaseAdapter, request: DecisionRequest, sent: Any, kind: str
    ) -> tuple[Any, RunError | None]:
        """The plain answer of one question, or the error it comes to (mapped at ``map_error``)."""
        try:
            answer = await self._ask_in_time(adapter, request, _recorder.private_copy(sent), kind)
            return _recorder.plain_response(answer), None
        except adapter.stops_run:
            raise
        except Exception as exc:
            _raise_if_unreachable(exc)
            if isinstance(exc, RunError):
                return None, exc
            error = adapter.map_error(exc)
            error.__cause__ = exc
            return None, error

    async def _ask_in_time(
        self, adapter: BaseAdapter, request: DecisionRequest, sent: Any, kind: str
    ) -> Any:
        call = on_owning_loop(_question(adapter, request, sent, kind))
        if self.timeout is None:
            return await call
        try:
            return await asyncio.wait_for(call, self.timeout)
        except TimeoutError as exc:
            raise FrameworkError(
                f"{adapter.asked(sent)} gave no answer within {self.timeout}s on day "
                f"{request.day}, step {request.step}; raise timeout= or check the model"
            ) from exc


def _cost_meter(
    adapter: BaseAdapter, prices: PriceTable | None, max_cost_usd: float | None
) -> CostMeter | None:
    if max_cost_usd is None:
        return None
    model = adapter.info.model
    if prices is None:
        raise ConfigError(
            f"arm {adapter.name!r}: max_cost_usd= needs prices= (a PriceTable, a "
            f"mapping of model to prices or a YAML file) with a price for model {model!r}"
        )
    return CostMeter(prices, model, max_cost_usd)


def _reuse(adapter: BaseAdapter, exchange: Exchange | None, raw: Any) -> Any:
    """A recorded answer handed back: its usage counted, its recorded failure raised."""
    usage = exchange.usage if exchange is not None else {}
    adapter.usage.add(_recorder.usage_of(usage))
    if exchange is not None and exchange.error:
        raise _recorder.recorded_error(exchange.error)
    return raw


async def _question(adapter: BaseAdapter, request: DecisionRequest, sent: Any, kind: str) -> Any:
    """Who answers a question of ``kind``: ``ask`` its own, the hook every other."""
    if kind == DECIDE:
        return await adapter.ask(request, sent)
    if adapter.hook is None:
        raise ConfigError(f"arm {adapter.name!r} has no hook to answer a {kind!r} question")
    return await adapter.hook.answer(adapter, kind, sent)


def _raise_if_unreachable(exc: BaseException) -> None:
    """Raise the EndpointUnreachable behind ``exc`` (a framework may have wrapped it): a
    server that never answered stops the run rather than failing every decision."""
    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, EndpointUnreachable):
            raise cause
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__


__all__ = ["DEFAULT_TIMEOUT", "ExchangeStep"]
