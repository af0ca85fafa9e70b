"""evaluate / aevaluate: every arm on one market path, asked concurrently at each step."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import math
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import numpy as np
import pandas as pd

from workbench._jsonio import printable
from workbench.agents import (
    Agent,
    DecisionRequest,
    ExecutionReport,
    PresetStamp,
    RunInfo,
    decision_interval,
)
from workbench.bridge import run_sync
from workbench.engine import margin
from workbench.engine.execution import Executor, Portfolio
from workbench.errors import (
    BudgetExhausted,
    ConfigError,
    DecisionError,
    FrameworkError,
    RunError,
    WorkbenchError,
)
from workbench.evaluation import reading
from workbench.evaluation.arms import resolve_arms
from workbench.evaluation.attribution_frame import ATTRIBUTION_COLUMNS, Attribution, split_pnl
from workbench.evaluation.canaries import canary_hits
from workbench.evaluation.capture import (
    INFORMATION_COLUMNS,
    capture_columns,
    followed_instruction,
    information_frame,
    matched_placebo,
)
from workbench.evaluation.cutoff import replayed_cutoffs
from workbench.evaluation.epochs import with_epochs
from workbench.evaluation.failures import agent_traceback
from workbench.evaluation.observation import MarketPayloads, arm_payload
from workbench.evaluation.options import (
    MODEL_CUTOFF_NEEDS_DATES,
    EvaluateOptions,
    Pacer,
    RunOptions,
    split_market,
)
from workbench.evaluation.oracle import ORACLE_NEWS_PNL, OracleReader, reference_key
from workbench.evaluation.progress import RunProgress
from workbench.evaluation.results import ERROR_COLUMNS, ORDER_COLUMNS, Results
from workbench.evaluation.scorecard import build_scorecard
from workbench.evaluation.seats import Seat
from workbench.evaluation.world import World, renamed_preset
from workbench.schema import Decision


def evaluate(
    agents: Sequence[Agent | str] | Mapping[str, Agent] | Agent | str,
    **options: Unpack[EvaluateOptions],
) -> Results:
    """Run every arm on one market and return the ``Results``; see ``aevaluate``.

    Works from scripts, threads, inside a running event loop and in Jupyter cells.
    On the simulator ``universe``, ``days``, ``steps_per_day`` and ``ticks_per_step``
    default to 40, 10, 6 and 65; with ``data`` the first is the data's names, ``days``
    every tradable date, and the other two cannot be set.
    """
    chosen: dict[str, Any] = dict(options)
    renamed_preset(chosen, "evaluate")
    return run_sync(aevaluate(agents, **chosen))


async def aevaluate(
    agents: Sequence[Agent | str] | Mapping[str, Agent] | Agent | str,
    **options: Unpack[EvaluateOptions],
) -> Results:
    """Async twin of ``evaluate``: arms due at a decision point are asked concurrently.

    The market keywords are ``World``'s (``seed``, ``universe``, ``days``,
    ``steps_per_day``, ``ticks_per_step``, ``preset``, ``data``); the rest are the
    fields of ``RunOptions``: ``capital``, ``leverage_cap``, ``maintenance_multiple``,
    ``fee_bps``, ``on_error`` ("skip" or "raise"), ``max_concurrency``, ``rate_limit``
    (asks per second), ``on_step`` and ``progress``. ``epochs=N`` (1 included) runs each arm
    given as a factory N times on the path, as ``<arm>.epoch1`` ...; without ``epochs=``
    a factory is refused (see ``workbench.evaluation.epochs``).

    Each arm is asked on its cadence (``every``: once per trading day by default).
    At every step close each book is marked; a book past the maintenance multiple
    is liquidated in the next step instead of being asked, and an arm whose equity
    reaches zero is bust (see ``workbench.engine.margin``).
    """
    chosen: dict[str, Any] = dict(options)
    renamed_preset(chosen, "aevaluate")
    agents = with_epochs(agents, chosen.pop("epochs", None))
    market, run = split_market(chosen)
    return await run_world(World(**market), agents, **run)


async def run_world(
    world: World,
    agents: Sequence[Agent | str] | Mapping[str, Agent] | Agent | str,
    **options: Any,
) -> Results:
    """Run ``agents`` on ``world``; ``options`` are the fields of ``RunOptions``."""
    settings = RunOptions.from_keywords(options)
    arms = resolve_arms(agents)
    if cutoffs := replayed_cutoffs(arms, settings.model_cutoff):  # read back from transcripts
        settings = dataclasses.replace(settings, model_cutoff=cutoffs)
    await asyncio.to_thread(lambda: world.path)  # simulate off the loop: a kernel stays live
    return await _Run(world, arms, settings).go()


async def _oracle_news_pnl(world: World, options: RunOptions) -> float:
    """The news P&L of the oracle reader on this path, with the run's capital and limits:
    run once per world and limits in a process (it depends on nothing else), so arms
    evaluated again on the same market do not pay for the reference again."""
    key = reference_key(world, options)
    if (known := ORACLE_NEWS_PNL.get(key)) is not None:
        return known
    quiet = dataclasses.replace(
        options, progress=False, on_step=None, rate_limit=None, model_cutoff=None
    )
    reference = _Run(world, [OracleReader(world.path)], quiet, reference=True)
    await reference.run_arms()
    return ORACLE_NEWS_PNL.put(key, reference.news_pnl())


def _refuse_unknown_cutoffs(options: RunOptions, names: tuple[str, ...], world: World) -> None:
    if options.model_cutoff and world.data is None:
        raise ConfigError(MODEL_CUTOFF_NEEDS_DATES)
    unknown = sorted(set(options.model_cutoff or {}) - set(names))
    if unknown:
        raise ConfigError(
            f"model_cutoff names {', '.join(map(repr, unknown))}, which is no arm of this run "
            f"(arms: {', '.join(names)}); key it by arm name"
        )


class _Run:
    def __init__(
        self, world: World, arms: list[Agent], options: RunOptions, *, reference: bool = False
    ) -> None:
        self.world, self.arms, self.options = world, arms, options
        self.reference = reference  # the oracle's own run: no capture of its own
        self.oracle_news_pnl = math.nan
        self.path = world.path
        self.executor = Executor(self.path)
        self.payloads = MarketPayloads(self.path)
        self.names = tuple(arm.name for arm in arms)
        self.symbols = world.universe.symbols
        # whether the path publishes news an arm's request may carry
        self.has_news = self.path.information is not None or (
            self.path.text is not None and self.path.text.has_news
        )
        _refuse_unknown_cutoffs(options, self.names, world)
        self.canaries = [] if self.path.text is None else self.path.text.canaries
        self.canary_hits: list[list[Any]] = []  # rationales that quote a canary too early
        self.maintenance = options.maintenance
        # every arm's shares, a row each: each book holds its row, and all are marked at once
        self.held = np.zeros((len(arms), world.universe.size))
        self.seats = [
            Seat(
                arm,
                decision_interval(arm.every, world.steps_per_day),
                Portfolio(options.capital, row, options.leverage_cap, options.fee_bps),
                mark=(options.capital, 0.0),
            )
            for arm, row in zip(arms, self.held, strict=True)
        ]
        # the seats whose arm may say it holds unseen, and those that hear of executions
        self.may_hold = {seat for seat in self.seats if _own(seat.arm, "unseen_hold")}
        self.hearing = {seat for seat in self.seats if _own(seat.arm, "after_execution")}
        self.equity = np.empty((world.trading_steps, len(arms)))
        self.exposure = np.empty((world.trading_steps, len(arms)))
        # a row of results.orders per order: arm, day, step, then the OrderRecord's fields
        # (one flat tuple each, so the rows are the frame's without a copy)
        self.orders: list[tuple[Any, ...]] = []
        self.errors: list[dict[str, Any]] = []
        self.limit = asyncio.Semaphore(options.max_concurrency)
        self.pacer = Pacer(options.rate_limit)
        self.marked = 0  # steps whose equity is marked; less than all if the run stopped
        self.progress = RunProgress(options.progress, world.trading_steps, arms)

    async def go(self) -> Results:
        await self.run_arms()
        return self._results()

    async def run_arms(self) -> None:
        """Begin, trade and end every arm (and on news, run the oracle reader for the
        capture's scale); on an error, what was run so far is attached to it."""
        begun: list[Agent] = []
        stopping: BaseException | None = None  # what stopped the run, if anything did
        self.progress.start()
        try:
            for seat in self.seats:
                seat.arm.begin(self._run_info(seat))
                begun.append(seat.arm)
                if self.path.text is not None and self.path.text.lessons:
                    seat.arm.plant_memory(self.path.text.lessons)  # memory canaries
            await self._trade()
            for arm in self.arms:
                arm.run_completed()
            if self.path.information is not None and not self.reference:
                self.oracle_news_pnl = await _oracle_news_pnl(self.world, self.options)
        except WorkbenchError as exc:
            stopping = exc
            self._attach_results(exc)
            raise
        except BaseException as exc:
            stopping = exc
            raise
        finally:
            self.progress.close()
            _end_every(begun, stopping)

    def news_pnl(self) -> float:
        """The run's news P&L over every arm and step: what ``_results`` would put in
        ``attribution["selection_news"]``, summed the same way, without building them."""
        equity = self._equity_frame()
        split = self._attribution(self.orders, equity)
        if split is None:
            return 0.0
        return float(pd.Series(split.parts["selection_news"].ravel()).sum())

    def _attach_results(self, exc: WorkbenchError) -> None:
        """The results of the steps run, on the error that stopped the run; building them
        must never replace that error."""
        if not self.marked:
            return
        try:
            exc.results = self._results()
        except Exception as failure:  # a bug in building them: say so, keep the real error
            exc.add_note(f"its partial results could not be built ({failure!r})")
            return
        exc.add_note(f"the results of the {self.marked} steps run are on .results")

    def _run_info(self, seat: Seat) -> RunInfo:
        w = self.world
        return RunInfo(
            arm=seat.name,
            roster=self.names,
            seed=w.seed,
            preset=w.stamp,
            symbols=w.universe.symbols,
            days=w.days,
            steps_per_day=w.steps_per_day,
            ticks_per_step=w.ticks_per_step,
            decision_interval=seat.interval,
            market_path=w.market_path,
            model_cutoff=(self.options.model_cutoff or {}).get(seat.name),
        )

    async def _trade(self) -> None:
        first, total = self.path.warmup_steps, self.world.trading_steps
        for k in range(total):
            row = first + k
            troubled = self._mark(k, self.path.close[row])
            if k < total - 1:
                forced = self._force(k, row, troubled) if troubled else set()
                await self._decide(k, row, forced)
            self.progress.step()
            if self.options.on_step is not None:
                by_arm = dict(zip(self.names, self.equity[k].tolist(), strict=True))
                self.options.on_step(k, total, by_arm)

    def _mark(self, k: int, mid: np.ndarray) -> list[Seat]:
        """Equity and gross exposure at step ``k``'s close; equity is 0 from a bust on.
        Return the seats whose book is bust or past the maintenance multiple, in order."""
        equities, grosses = [], []  # one row each, set at once
        troubled = []
        maintenance = self.maintenance
        for seat, values in zip(self.seats, (self.held * mid).tolist(), strict=True):
            equity, gross = seat.mark = seat.book.marks_of(values)
            # margin.is_bust and margin.margin_call, inline: two calls an arm a step
            if seat.bust_step is None and equity <= 0.0:
                seat.bust_step = k
            if seat.bust_step is not None:
                equity = 0.0
                troubled.append(seat)
            elif gross > maintenance * equity:
                troubled.append(seat)
            equities.append(equity)
            grosses.append(gross)
        self.equity[k], self.exposure[k] = equities, grosses
        self.marked = k + 1
        return troubled

    def _force(self, k: int, row: int, troubled: list[Seat]) -> set[Seat]:
        """Liquidate, in step ``row + 1``, the ``troubled`` books (bust or past the
        maintenance multiple at this close); return their seats, not asked at this close."""
        symbols, forced = self.symbols, set()
        for seat in troubled:
            if seat.bust_step is not None:
                orders = margin.close_out(seat.book, symbols)
            else:
                orders = margin.deleverage(seat.book, self.path.close[row], symbols)
            forced.add(seat)
            day, step = divmod(k, self.world.steps_per_day)
            records = self.executor.liquidate(seat.book, orders, row + 1)
            self.orders.extend((seat.name, day, step, *record) for record in records)
        return forced

    async def _decide(self, k: int, row: int, forced: set[Seat]) -> None:
        due = [seat for seat in self.seats if seat.due(k) and seat not in forced]
        if not due:
            return
        market = self.payloads.at(row)
        in_turn = not self.pacer.interval and all([seat.arm.in_turn for seat in due])
        held = self._unseen_holds(due, row) if in_turn and self.may_hold else {}
        asked = [seat for seat in due if seat not in held] if held else due
        windows: dict[int, dict[str, Any]] = {}  # one news list per window, shared
        requests = [self._request(seat, k, row, market, windows) for seat in asked]
        if in_turn:
            outcomes = self._ask_in_turn(asked, requests)
            await asyncio.sleep(0)  # the loop runs between decision points, as with tasks
        else:
            outcomes = await self._ask_together(asked, requests)
        answered = list(zip(asked, requests, outcomes, strict=True))
        for seat, request, outcome in answered:  # failures in roster order, whoever finished
            if not isinstance(outcome, Decision):
                self._failed(seat, request, outcome)
        answers = iter(answered)
        for seat in due:  # in roster order
            if seat in held:
                if self.canaries:
                    self._canaries(seat, market["day"], market["step"], held[seat])
                continue
            _, request, outcome = next(answers)
            if isinstance(outcome, Decision):
                self._execute(seat, request, outcome, row + 1)

    def _unseen_holds(self, due: list[Seat], row: int) -> dict[Seat, Decision]:
        """The holds of the arms that say they hold whatever they would be shown
        (``Agent.unseen_hold``), each counted as a decision: a decision without actions
        executes nothing, and neither its news nor a placebo is followed without trading."""
        held = {}
        for seat in due:
            if seat not in self.may_hold:
                continue
            hold = seat.arm.unseen_hold(self.has_news)
            if hold is None or hold.actions:
                continue
            held[seat] = hold
            seat.state.decisions += 1
            if self.has_news:  # its next news starts here, as if it had read this window
                after = self._news_since(seat, row)
                seat.last_row, seat.window = row, (after, row)
        return held

    def _news_since(self, seat: Seat, row: int) -> int:
        """The row after which the arm's news starts: its last decision. At its first, a
        researcher's feed starts at its beginning (every item published before the first
        decision, the newest NEWS_CAP shown), as the payload's fundamentals do; the simulated
        market's news starts the day before (what it published earlier is its history)."""
        if seat.last_row is not None:
            return seat.last_row
        return -1 if self.path.text is not None else row - self.world.steps_per_day

    def _request(
        self, seat: Seat, k: int, row: int, market: dict[str, Any], windows: dict[int, Any]
    ) -> DecisionRequest:
        equity, gross = seat.mark
        news = None
        if self.has_news:
            after = self._news_since(seat, row)
            # a researcher's items are masked only for arms that read them; the simulated
            # market's notices are counted from every arm's payload (followed_instruction)
            reads = seat.arm.reads_news or self.path.information is not None
            if reads and after not in windows:
                windows[after] = reading.news(self.path, after, row)
            news = windows[after] if reads else None
            seat.last_row, seat.window = row, (after, row)
        payload = arm_payload(
            market,
            seat.book,
            self.symbols,
            equity=equity,
            gross=gross,
            private=not seat.arm.shares_payload,
            news=news,
        )
        return _new_request(
            seat.arm.name, market["day"], market["step"], k, payload, self.world.stamp
        )

    async def _ask_together(
        self, due: list[Seat], requests: list[DecisionRequest]
    ) -> list[Decision | RunError]:
        """Each due arm's outcome, in roster order, its ``requests`` entry asked in a task."""
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [
                    group.create_task(self._ask(seat, request))
                    for seat, request in zip(due, requests, strict=True)
                ]
        except BaseExceptionGroup as stopped:  # a replay miss or a bad configuration
            raise _first_leaf(stopped)  # noqa: B904 - keep the original cause chain
        return [task.result() for task in tasks]

    def _ask_in_turn(
        self, due: list[Seat], requests: list[DecisionRequest]
    ) -> list[Decision | RunError]:
        """What a task group does with arms that decide on the loop without waiting (each
        runs to its end in turn, in a copy of the context as a task would, every arm is
        asked, the first stop is raised), without a task or a coroutine per arm."""
        outcomes: list[Decision | RunError] = []
        stop = None
        for seat, request in zip(due, requests, strict=True):
            try:
                outcomes.append(contextvars.copy_context().run(self._ask_inline, seat, request))
            except WorkbenchError as exc:
                stop = stop or exc
        if stop is not None:
            raise stop
        return outcomes

    async def _ask(self, seat: Seat, request: DecisionRequest) -> Decision | RunError:
        """The arm's validated decision, or the DecisionError/FrameworkError it failed with."""
        with seat.asking():
            try:
                async with self.limit, self.progress.asking():
                    await self.pacer.wait_turn()
                    return await seat.arm.answer(request)
            except Exception as exc:
                return _failure(seat.arm, exc)

    def _ask_inline(self, seat: Seat, request: DecisionRequest) -> Decision | RunError:
        """``_ask`` for an arm in turn (``inline``): it answers on the loop, with no slot or
        pacing to wait for (timed and counted as ``seat.asking`` does, without a context
        manager around each ask)."""
        state = seat.state
        state.decisions += 1
        started = time.perf_counter()
        try:
            return seat.arm.answer_in_turn(request)
        except Exception as exc:
            return _failure(seat.arm, exc)
        finally:
            state.usage.latency_s += time.perf_counter() - started

    def _failed(self, seat: Seat, request: DecisionRequest, exc: RunError) -> None:
        message = printable(str(exc))
        seat.failed(type(exc).__name__, message, stops=isinstance(exc, BudgetExhausted))
        self.errors.append(
            {
                "arm": seat.name,
                "day": request.day,
                "step": request.step,
                "kind": type(exc).__name__,
                "message": message,
                "traceback": agent_traceback(exc),
            }
        )
        if self.options.on_error == "raise":
            exc.add_note(
                f"arm {seat.name!r} failed at day {request.day}, step {request.step}; "
                "pass on_error='skip' to record failures in the error column and go on"
            )
            raise exc

    def _execute(self, seat: Seat, request: DecisionRequest, decision: Decision, row: int) -> None:
        news = request.payload.get("news")
        if news and followed_instruction(self.path, news, decision.actions):
            seat.followed += 1
        if news is not None and matched_placebo(self.path, *seat.window, decision.actions):
            seat.placebo += 1
        if self.canaries:
            self._canaries(seat, request.day, request.step, decision)
        records = self.executor.execute(seat.book, decision, row)
        if seat in self.hearing:  # a hold's report: one serves them all (it cannot change)
            report = ExecutionReport(tuple(records)) if records else _NOTHING_DONE
            seat.arm.after_execution(request, decision, report)
        if not records:
            return
        prefix = (seat.name, request.day, request.step)  # + a record: a plain tuple, the row
        self.orders.extend([prefix + record for record in records])

    def _canaries(self, seat: Seat, day: int, step: int, decision: Decision) -> None:
        if decision.rationale:
            self.canary_hits += canary_hits(
                self.canaries, seat.name, day, step, decision.rationale, "rationale"
            )

    def _results(self) -> Results:
        w = self.world
        equity = self._equity_frame()
        exposure = pd.DataFrame(
            self.exposure[: self.marked], index=equity.index, columns=list(self.names)
        )
        rows = self.orders
        orders = pd.DataFrame(rows, columns=list(ORDER_COLUMNS))
        errors = (
            pd.DataFrame(self.errors, columns=list(ERROR_COLUMNS))
            if self.errors
            else _NO_ERRORS.copy()  # a copy of a frame made once: the common case
        )
        attribution = self._attribution(rows, equity)
        tallies = [seat.tally() for seat in self.seats]
        captured = self.path.information is not None and not self.reference
        card = build_scorecard(
            equity,
            rows,
            tallies,
            w.steps_per_day,
            _scorecard_sources(attribution, equity),
            self._capture(attribution) if captured else None,
        )
        if captured:
            information = information_frame(self.path)
        else:
            information = pd.DataFrame(columns=list(INFORMATION_COLUMNS))
        meta = {
            **w.describe(),
            "roster": list(self.names),
            "every": {arm.name: arm.every for arm in self.arms},
            "capital": self.options.capital,
            **self.options.margin,
        }
        if self.path.information is not None and not self.reference:
            meta["oracle_news_pnl"] = self.oracle_news_pnl  # what info_capture divides by
        if self.canaries:
            meta["canaries"], meta["canary_hits"] = self.canaries, self.canary_hits
        if self.options.model_cutoff:
            meta["model_cutoff"] = dict(self.options.model_cutoff)
        return Results(
            scorecard=card,
            equity=equity,
            exposure=exposure,
            orders=orders,
            errors=errors,
            meta=meta,
            attribution=(
                attribution.frame()
                if attribution is not None
                else pd.DataFrame(columns=list(ATTRIBUTION_COLUMNS))
            ),
            information=information,
            closes=self._closes(list(meta.get("symbols") or [])),
        )

    def _equity_frame(self) -> pd.DataFrame:
        w = self.world
        # from_product's index, its first marked rows, built from their codes at once
        codes: Any = np.divmod(np.arange(self.marked), w.steps_per_day)  # day, step
        levels: Any = [pd.RangeIndex(w.days), pd.RangeIndex(w.steps_per_day)]
        index = pd.MultiIndex(
            levels=levels,
            codes=codes,
            names=["day", "step"],
            verify_integrity=False,
        )
        return pd.DataFrame(self.equity[: self.marked], index=index, columns=list(self.names))

    def _closes(self, symbols: list[str]) -> pd.DataFrame:
        """Every name's close at each trading step the run marked (for the report's plots)."""
        first = self.path.warmup_steps
        closes = np.asarray(self.path.close[first : first + self.marked])
        if closes.ndim != 2 or closes.shape[1] != len(symbols):
            return pd.DataFrame()
        return pd.DataFrame(closes, columns=symbols)

    def _capture(self, attribution: Attribution | None) -> dict[str, np.ndarray]:
        """The scorecard's information columns, in its row order (see
        ``workbench.evaluation.capture``)."""
        if attribution is None:
            news_pnl = dict.fromkeys(self.names, math.nan)
        else:
            by_arm = attribution.by_arm("selection_news")
            news_pnl = {arm: math.fsum(by_arm[arm].tolist()) for arm in self.names}
        followed = {seat.name: seat.followed for seat in self.seats}
        placebo = {seat.name: seat.placebo for seat in self.seats}
        columns = capture_columns(news_pnl, self.oracle_news_pnl, followed, placebo)
        return {
            column: np.array([values[arm] for arm in self.names])
            for column, values in columns.items()
        }

    def _attribution(self, rows: list[tuple[Any, ...]], equity: pd.DataFrame) -> Attribution | None:
        """The run's own split, or None with a warning if it cannot be trusted: the run is
        never lost (nor the error that stopped it hidden) over a view derived from it."""
        try:
            split = split_pnl(
                self.path,
                rows,
                equity,
                capital=self.options.capital,
                intervals={seat.name: seat.interval for seat in self.seats},
                strict=False,
            )
        except Exception as exc:  # a derived view: whatever goes wrong, the run is kept
            reason = f"{type(exc).__name__}: {exc}"
        else:
            if split.unexplained is None:
                return split
            reason = split.unexplained
        warnings.warn(
            f"P&L attribution is left out of these results: {reason}. The scorecard's "
            "pnl_market_pct and pnl_selection_pct are empty and results.attribution has no "
            "rows; the run's equity, orders and transcripts are unaffected. Please report "
            "this as a workbench bug.",
            RuntimeWarning,
            stacklevel=2,
        )
        return None


_NOTHING_DONE = ExecutionReport()  # the report of a decision with no actions
# DecisionRequest's slots, each set through its descriptor: a frozen dataclass's __init__
# sets them through object.__setattr__, twice the cost of a request built at every ask
_SET_ARM, _SET_DAY, _SET_STEP, _SET_INDEX, _SET_PAYLOAD, _SET_PRESET = (
    DecisionRequest.__dict__[f.name].__set__ for f in dataclasses.fields(DecisionRequest)
)


def _new_request(
    arm: str, day: int, step: int, index: int, payload: dict[str, Any], preset: PresetStamp
) -> DecisionRequest:
    """``DecisionRequest(arm, day, step, index, payload, preset)``."""
    request = _new(DecisionRequest)
    _SET_ARM(request, arm)
    _SET_DAY(request, day)
    _SET_STEP(request, step)
    _SET_INDEX(request, index)
    _SET_PAYLOAD(request, payload)
    _SET_PRESET(request, preset)
    return request


_new = object.__new__
_NO_ERRORS = pd.DataFrame([], columns=list(ERROR_COLUMNS))


def _own(arm: Agent, method: str) -> bool:
    """Whether ``arm`` has a ``method`` of its own, not ``Agent``'s (which does nothing)."""
    return getattr(getattr(arm, method), "__func__", None) is not getattr(Agent, method)


def _failure(arm: Agent, exc: Exception) -> RunError:
    """What a failed ask is: the arm's DecisionError or FrameworkError as it is, any other
    exception a FrameworkError naming the arm; another WorkbenchError (a replay miss, a
    bad configuration) is raised and stops the run."""
    if isinstance(exc, DecisionError | FrameworkError):
        return exc
    if isinstance(exc, WorkbenchError):
        raise exc
    wrapped = FrameworkError(f"arm {arm.name!r} raised {type(exc).__name__}: {exc}")
    wrapped.__cause__ = exc
    return wrapped


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The first original exception inside a (possibly nested) exception group."""
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def _scorecard_sources(
    attribution: Attribution | None, equity: pd.DataFrame
) -> dict[str, dict[str, np.ndarray]]:
    """The market and selection P&L per step by arm (NaN when the split was left out)."""
    if attribution is None:
        empty = {str(arm): np.full(len(equity), np.nan) for arm in equity.columns}
        return {"market": empty, "selection": empty}
    return {name: attribution.by_arm(name) for name in ("market", "selection")}


def _end_every(arms: list[Agent], stopping: BaseException | None) -> None:
    """``end`` every arm, even after one fails; the first failure is raised after them all,
    or, when the run is ``stopping`` on an error, noted on that error instead."""
    failures: list[BaseException] = []
    for arm in arms:
        try:
            arm.end()
        except Exception as exc:  # every arm still ends: each may hold a file or a process
            exc.add_note(f"raised by arm {arm.name!r} as its run ended")
            failures.append(exc)
    if stopping is not None:
        for failure in failures:
            stopping.add_note(f"also, as the run ended: {type(failure).__name__}: {failure}")
    elif failures:
        raise failures[0]
