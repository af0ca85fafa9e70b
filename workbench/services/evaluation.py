"""Run an evaluation into the run store and report it as data, with its caveats attached."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, TypedDict, TypeGuard, Unpack

import pandas as pd

from workbench._checks import caller_outside_package, is_whole, renamed_keyword
from workbench.engine.historical import Historical
from workbench.engine.presets import DEFAULT_PRESET
from workbench.engine.textdata import read_names
from workbench.errors import ConfigError
from workbench.evaluation import MARKET_DEFAULTS, Results, World
from workbench.evaluation.options import MODEL_CUTOFF_NEEDS_DATES, model_cutoffs
from workbench.services._answers import finish
from workbench.services._summary import summarise
from workbench.services.agents import build_arms, check_arm_names
from workbench.services.limits import estimate, refuse_oversized
from workbench.services.store import RunStore

STORED_UNIVERSE = "names"  # the key of ``universe`` in a stored request (see MarketRequest)


class MarketKeywords(TypedDict, total=False):
    """The simulated market of a stored request, as keywords (defaults in ``MarketRequest``;
    ``names`` is the deprecated name of ``universe``)."""

    preset: str | None
    universe: int | None
    names: int | None
    days: int
    steps_per_day: int
    ticks_per_step: int


@dataclass(frozen=True, init=False)
class MarketRequest:
    """The simulated market a stored evaluation or comparison runs on, checked before use.

    ``names`` is the deprecated name of ``universe`` (a warning; both given is refused).
    Its stored form (``stored``, inside the request whose digest is the run id) keeps the
    key ``names`` for ``universe``: renaming the key would give every stored run a new id.
    No preset is the default, stored by its name: a request is the market it ran, so a
    run made under an earlier default (stored as None) is never taken for one under this.
    """

    preset: str | None = None
    universe: int = MARKET_DEFAULTS.universe
    days: int = MARKET_DEFAULTS.days
    steps_per_day: int = MARKET_DEFAULTS.steps_per_day
    ticks_per_step: int = MARKET_DEFAULTS.ticks_per_step

    def __init__(
        self,
        preset: str | None = None,
        universe: int | None = None,
        days: int = MARKET_DEFAULTS.days,
        steps_per_day: int = MARKET_DEFAULTS.steps_per_day,
        ticks_per_step: int = MARKET_DEFAULTS.ticks_per_step,
        *,
        names: int | None = None,
    ) -> None:
        universe = _renamed_universe(universe, names, "MarketRequest")
        chosen = MARKET_DEFAULTS.universe if universe is None else universe
        market = DEFAULT_PRESET if preset is None else preset
        given = {"preset": market, "universe": chosen, "days": days}
        given |= {"steps_per_day": steps_per_day, "ticks_per_step": ticks_per_step}
        for field, value in given.items():
            object.__setattr__(self, field, value)

    @property
    def names(self) -> int:
        """The deprecated name of ``universe`` (a warning naming it)."""
        warnings.warn(
            "MarketRequest.names is deprecated: read universe; names goes in the next release",
            DeprecationWarning,
            stacklevel=caller_outside_package(),
        )
        return self.universe

    def world(self, seed: int) -> World:
        """The market for ``seed`` (built lazily: this checks every argument)."""
        return World(
            seed=seed,
            universe=_universe(self.universe),
            days=self.days,
            steps_per_day=self.steps_per_day,
            ticks_per_step=self.ticks_per_step,
            preset=self.preset,
        )

    def check(self, arms: list[str], seed: int, *, seeds: int = 1) -> None:
        """Every argument checked and the work sized, for one run or ``seeds`` runs, before
        the store is touched; the arms are built once to prove they can be."""
        self.world(seed)
        size = estimate(
            check_arm_names(arms), self.universe, self.days, self.steps_per_day, self.ticks_per_step
        )
        refuse_oversized(size, seeds=seeds)
        build_arms(arms)

    @classmethod
    def of(cls, caller: str, **market: Unpack[MarketKeywords]) -> MarketRequest:
        """The request from keywords: the deprecated ``names`` becomes ``universe`` (with a
        warning), and a None is the default."""
        given: dict[str, Any] = dict(market)
        renamed_keyword(given, "names", "universe", caller=caller)
        return cls(**{k: v for k, v in given.items() if v is not None})

    def stored(self) -> dict[str, Any]:
        """The request's stored form (``universe`` under its old key ``names``)."""
        form = asdict(self)
        return {STORED_UNIVERSE if key == "universe" else key: form[key] for key in form}

    @classmethod
    def from_stored(cls, request: Mapping[str, Any], ran: str | None = None) -> MarketRequest:
        """The market of a stored request (``stored``'s form). A request stored before the
        default was named (preset None) ran the default of its day: ``ran``, the preset
        its outcome records, else the run cannot be made again for sure."""
        keys = {f.name: STORED_UNIVERSE if f.name == "universe" else f.name for f in fields(cls)}
        given = {name: request[key] for name, key in keys.items()}
        if given["preset"] is None:
            if ran is None:
                raise ConfigError(
                    "this stored request names no preset and its outcome records none: it ran "
                    "an earlier default market, which cannot be told; run it again"
                )
            given["preset"] = ran
        return cls(**given)


def evaluate_arms(
    arms: list[str],
    *,
    seed: int = 7,
    preset: str | dict[str, Any] | None = None,
    universe: int | None = None,
    days: int | None = None,
    steps_per_day: int | None = None,
    ticks_per_step: int | None = None,
    capital: float = 1_000_000.0,
    leverage_cap: float = 2.0,
    fee_bps: float = 0.5,
    data: str | Path | Historical | None = None,
    progress: bool = False,
    model_cutoff: dict[str, str] | None = None,
    names: int | None = None,
) -> Results:
    """The shared code path of every front end: check everything, then run once in process.

    ``data`` (a bars file or a loaded ``Historical``) trades historical bars; then
    ``universe``, ``steps_per_day`` and ``ticks_per_step`` must be left out and ``days``
    defaults to every tradable date. On the simulator they default to ``MARKET_DEFAULTS``.
    ``names`` is the deprecated name of ``universe`` (a warning; both given is refused).
    ``progress`` draws a bar (step, arms waiting, calls, tokens) on stderr. ``preset`` is a
    name or a name with dials moved, ``{"base": "standard-v2", "injection_rate": 0.2}``.
    ``model_cutoff`` is each arm's training cutoff (``workbench.evaluation.cutoff``).
    """
    from workbench.bridge import run_sync
    from workbench.evaluation import run_world

    check_arm_names(arms)
    universe = _renamed_universe(universe, names, "evaluate_arms")
    if data is None:
        world = World(
            seed=seed,
            universe=None if universe is None else _universe(universe),
            days=days,
            steps_per_day=steps_per_day,
            ticks_per_step=ticks_per_step,
            preset=preset,
        )
    else:
        shape = {"universe": universe, "steps_per_day": steps_per_day}
        shape["ticks_per_step"] = ticks_per_step
        passed = [key for key, value in shape.items() if value is not None]
        if passed:
            raise ConfigError(
                f"{', '.join(passed)} cannot be set with data: historical bars bring their own "
                "names and trade one step per date; leave them out"
            )
        world = World(seed=seed, days=days, preset=preset, data=data)
    agents = build_arms(arms)
    money = _numbers({"capital": capital, "leverage_cap": leverage_cap, "fee_bps": fee_bps})
    return run_sync(
        run_world(
            world,
            agents,
            capital=money["capital"],
            leverage_cap=money["leverage_cap"],
            fee_bps=money["fee_bps"],
            progress=progress,
            **({"model_cutoff": model_cutoff} if model_cutoff else {}),
        )
    )


def cutoffs_from(items: Sequence[str], *, where: str, example: str) -> dict[str, str]:
    """``ARM=DATE`` items (each may hold several, comma-separated) as each arm's training
    cutoff (YYYY-MM-DD), every date checked: the CLI's ``--model-cutoff`` and the
    notebooks' ``model_cutoff``; ``where`` and ``example`` name the option in a refusal."""
    cutoffs: dict[str, str] = {}
    for given in (part for item in items for part in item.split(",") if part.strip()):
        arm, _, date = (side.strip() for side in given.partition("="))
        if not arm or not date:
            raise ConfigError(f"{where} {given!r} is not ARM=DATE; write e.g. {example}")
        if arm in cutoffs:
            raise ConfigError(
                f"{where} gives {arm!r} two cutoffs, {cutoffs[arm]} and {date}; give each arm one"
            )
        cutoffs[arm] = date
    return model_cutoffs(cutoffs)


def run_cutoffs(given: Any, *, arms: Sequence[str], dated: bool) -> dict[str, str]:
    """``model_cutoff`` of a front end that knows its arms (the panel): a mapping or the
    CLI's ``"arm=YYYY-MM-DD,..."`` form, every date checked, every arm among ``arms``, and
    only on historical bars (``dated``). None or empty: no cutoff."""
    if given is None or (isinstance(given, str | Mapping) and not given):
        return {}
    if isinstance(given, str):
        example = "model_cutoff='momentum=2016-09-01' or {'momentum': '2016-09-01'}"
        cutoffs = cutoffs_from([given], where="model_cutoff item", example=example)
    else:
        cutoffs = model_cutoffs(given)
    if not dated:
        raise ConfigError(MODEL_CUTOFF_NEEDS_DATES)
    unknown = sorted(set(cutoffs) - set(arms))
    if unknown:
        raise ConfigError(
            f"model_cutoff names {', '.join(map(repr, unknown))}, which is no arm offered here "
            f"(arms: {', '.join(arms)}); key each cutoff by one of them"
        )
    return cutoffs


def cutoff_table(results: Results) -> tuple[Any, list[str]]:
    """Every metric before and after each arm's model cutoff (``cutoff_split``), and a note
    for each cutoff outside the run's dates (``cutoff_notes``)."""
    from workbench.evaluation.cutoff import cutoff_notes, cutoff_split

    return cutoff_split(results), cutoff_notes(results)


def carries_news(data: object) -> TypeGuard[Historical]:
    """Whether ``data`` is loaded bars with the researcher's news (what ``text_leaks``
    reads); a bars file or frame not loaded yet carries none."""
    return isinstance(data, Historical) and data.text is not None and data.text.news is not None


def text_leaks(data: Historical, *, days: int | None = None, variants: Sequence[str] = ()) -> Any:
    """The leak report of masked text (``workbench.evaluation.textleaks``) over what the
    runs of ``days`` showed on the data's path or on its ``variants``; an empty table
    when the data is not masked (no alias to give away). Bars without news are refused:
    with no text there is nothing to scan, which an empty table would report as no leak."""
    from workbench.evaluation.textleaks import LEAK_COLUMNS, leak_report

    if not isinstance(data, Historical):
        raise ConfigError(
            f"text_leaks takes the loaded bars and their news, got {type(data).__name__}: "
            "pass load_bars(bars, news=...) (or Historical.load(bars, news=...))"
        )
    if data.text is None or data.text.news is None:
        raise ConfigError(
            "these bars carry no news, so there is no text to scan for leaks: load them "
            "with news= to get a leak report, or leave leaks out"
        )
    if not data.mask:
        return pd.DataFrame(columns=list(LEAK_COLUMNS))
    return leak_report(data, days=days, variants=variants)


def load_bars(
    path: str | Path | pd.DataFrame,
    *,
    secret: str | None = None,
    variant: str | None = None,
    news: str | Path | pd.DataFrame | None = None,
    fundamentals: str | Path | pd.DataFrame | None = None,
    company_names: str | Path | None = None,
    embargo: str | None = None,
    canaries: int | None = None,
    close_time: str | None = None,
    timezone: str | None = None,
) -> Historical:
    """Historical bars from a CSV or Parquet file or a DataFrame, checked and masked
    (``secret`` repeats an earlier mask; ``variant`` trades a counterfactual path, e.g.
    ``bootstrap:3``), with the researcher's ``news`` and ``fundamentals`` files joined
    point in time, the company
    names of ``company_names`` (a ``symbol,name`` file) masked in their text and an
    optional ``embargo`` (e.g. ``15min``); ``canaries`` plants that many items per
    channel dated after the decisions they test (``workbench.engine.canaries``);
    ``close_time`` and ``timezone`` set each date's decision time (16:00 New York unless
    told)."""
    text: dict[str, Any] = {"news": news, "fundamentals": fundamentals, "embargo": embargo}
    if canaries:
        text["canaries"] = canaries
    timing = {"close_time": close_time, "timezone": timezone}
    given = {**timing, "embargo": embargo, "company_names": company_names}
    textless = [key for key, value in given.items() if value is not None]
    if textless and news is None and fundamentals is None:
        raise ConfigError(
            f"{', '.join(textless)} apply to news and fundamentals: pass news= (or "
            "fundamentals=) too, or leave them out"
        )
    text.update({k: v for k, v in timing.items() if v is not None})
    if company_names is not None:
        text["names"] = read_names(company_names)
    if all(value is None for value in text.values()):
        return Historical.load(path, secret=secret, variant=variant)
    return Historical.load(path, secret=secret, variant=variant, **text)


def run_evaluation(
    store: RunStore | str | Path,
    arms: list[str],
    *,
    seed: int = 7,
    capital: float = 1_000_000.0,
    leverage_cap: float = 2.0,
    fee_bps: float = 0.5,
    **market: Unpack[MarketKeywords],
) -> dict[str, Any]:
    """Run the arms on one market path; artefacts go to a run directory, a summary comes back.

    The market keywords are ``MarketRequest``'s (preset, universe, days, steps_per_day,
    ticks_per_step; ``names`` is the deprecated name of ``universe``). A request that runs
    (not one answered from the store) is counted as a trial."""
    runs = RunStore.open(store)
    money = {"capital": capital, "leverage_cap": leverage_cap, "fee_bps": fee_bps}
    path = MarketRequest.of("run_evaluation", **market)
    request = evaluation_request(arms, seed=seed, market=path, **money)
    return evaluation_run(runs, request, trial=True)


def evaluation_request(
    arms: list[str],
    *,
    seed: int,
    market: MarketRequest,
    capital: float = 1_000_000.0,
    leverage_cap: float = 2.0,
    fee_bps: float = 0.5,
) -> dict[str, Any]:
    """The stored form of an evaluation request (its digest names the run)."""
    return {
        "arms": check_arm_names(arms),
        "seed": seed,
        **market.stored(),
        **_numbers({"capital": capital, "leverage_cap": leverage_cap, "fee_bps": fee_bps}),
    }


def evaluation_run(runs: RunStore, request: dict[str, Any], *, trial: bool) -> dict[str, Any]:
    """The evaluation run for ``request`` (``evaluation_request``'s form), made or reused;
    with ``trial`` a run that was made counts as a trial (a comparison's seeds do not)."""
    market = MarketRequest.from_stored(request)
    market.check(request["arms"], request["seed"])

    def build(folder: Path) -> dict[str, Any]:
        keywords = {k: v for k, v in request.items() if k != STORED_UNIVERSE}
        results = evaluate_arms(**keywords, universe=market.universe)
        return summarise(results, folder)

    run_id, manifest, reused = runs.create("evaluation", request, build, trial=trial)
    return finish(runs, run_id, manifest, reused)


def _universe(universe: Any) -> int:
    if not is_whole(universe):
        raise ConfigError(f"universe must be a whole number of synthetic names, got {universe!r}")
    return universe


def _renamed_universe(universe: int | None, names: int | None, caller: str) -> int | None:
    given: dict[str, Any] = {"universe": universe, "names": names}
    renamed_keyword(given, "names", "universe", caller=caller)
    return given["universe"]


def _numbers(options: dict[str, Any]) -> dict[str, float]:
    """Money options as floats: a number, never a bool or a string, finite."""
    out = {}
    for key, value in options.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{key} must be a number, got {value!r}")
        if not math.isfinite(value):
            raise ConfigError(f"{key} must be a finite number, got {value!r}")
        out[key] = float(value)
    return out


__all__ = [
    "MARKET_DEFAULTS",
    "MarketKeywords",
    "MarketRequest",
    "evaluate_arms",
    "evaluation_request",
    "evaluation_run",
    "load_bars",
    "run_evaluation",
]
