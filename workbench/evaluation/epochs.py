"""Epochs: each model-backed arm run several times on the same market path.

An LLM arm is random twice: the market path (the seed) and the model's own
sampling. Running each live arm ``epochs`` times on one path separates the two.
Epoch ``k`` of arm ``x`` is simply the arm ``x.epoch<k>`` (k from 1) in the same
run, a fresh instance built by the arm's factory, with its own transcript; the
model's sampling is left as the user set it (a model at temperature 0 with a fixed
seed gives N identical epochs, which the agreement below then shows). Baselines
and other rule-based arms do not sample, so they run once.

Read across epochs (``epoch_comparison`` puts them beside the paired test):

- ``agreement``: the share of decision points at which every epoch made the
  identical decision (the same orders requested, or the same failure); 1.0 for an
  arm that never disagrees with itself.
- ``within_sd`` / ``across_sd``: the spread of the metric between epochs on one path
  (the model's) and between the paths' epoch means (the market's, plus the model's
  share of it divided by N); ``model_share`` is the model's part of one run's
  variance by the one-way random-effects estimator (Searle, Casella and McCulloch
  1992, ch. 3): ``within / (within + max(0, across² - within/N))``, from variances.
- ``se_clustered``: the standard error of the mean difference against the benchmark
  clustered by path (seed): epochs on one path share its market, so they are not
  independent observations. With equal clusters it is the standard deviation of the
  per-seed mean differences over sqrt(seeds), the CR1 sandwich with the G/(G-1)
  correction (Cameron and Miller 2015, section II.C); ``se_naive`` treats every
  (seed, epoch) as independent, for contrast. The interval and p-value use
  Student t with seeds - 1 degrees of freedom.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.agents import Agent
from workbench.errors import ConfigError
from workbench.evaluation.results import Results

EPOCH_MARK = ".epoch"
EPOCH_COLUMNS = (
    "benchmark",
    "seeds",
    "epochs",
    "mean_diff",
    "se_naive",
    "se_clustered",
    "ci_low",
    "ci_high",
    "p_value",
    "agreement",
    "within_sd",
    "across_sd",
    "model_share",
)
ArmItem = Agent | str | Callable[..., Agent]


def epoch_name(arm: str, k: int) -> str:
    """The name of epoch ``k`` (from 1) of ``arm``."""
    return f"{arm}{EPOCH_MARK}{k}"


def base_arm(name: str) -> tuple[str, int | None]:
    """``("x", k)`` for an epoch's name ``x.epoch<k>``, ``(name, None)`` for any other."""
    head, mark, tail = name.rpartition(EPOCH_MARK)
    if mark and head and tail.isdigit() and not tail.startswith("0"):
        return head, int(tail)
    return name, None


def check_epochs(epochs: Any) -> int:
    if not is_whole(epochs) or int(epochs) < 1:
        raise ConfigError(f"epochs must be a whole number >= 1, got {epochs!r}")
    return int(epochs)


def epoch_roster(
    agents: Sequence[ArmItem] | Mapping[str, ArmItem], epochs: int, **options: Any
) -> dict[str, ArmItem]:
    """The roster of a run with ``epochs`` epochs, by name, nothing built but to learn a
    factory's default name: a factory (``"module:factory"`` or a callable taking
    ``name=``) under each epoch's name, every other arm once under its own."""
    n = check_epochs(epochs)
    items = agents.items() if isinstance(agents, Mapping) else [(None, a) for a in agents]
    roster: dict[str, ArmItem] = {}
    for name, item in items:
        if isinstance(item, Agent | str) and not _is_factory(item):
            _add(roster, {name or _name_of(item): _once(item, n)})
            continue
        base = name or _factory(item)(**options).name
        _add(roster, {epoch_name(base, k): item for k in range(1, n + 1)})
    return roster


def _add(roster: dict[str, ArmItem], arms: Mapping[str, ArmItem]) -> None:
    twice = sorted(set(roster) & set(arms))
    if twice:
        raise ConfigError(
            f"arm names must be unique; {', '.join(map(repr, twice))} appear more than once "
            "(an arm given twice, or two copies of one factory). Pass each arm once, or a "
            "dict {name: factory} to name them apart."
        )
    roster.update(arms)


def epoch_arms(
    agents: Sequence[ArmItem] | Mapping[str, ArmItem], epochs: int, **options: Any
) -> dict[str, Agent | str]:
    """The arms of a run with ``epochs`` epochs, by name: each model-backed arm ``epochs``
    times, built fresh by its factory (``"module:factory"`` or a callable taking
    ``name=``; ``options`` go to it, e.g. ``mode="record"``), every other arm once."""
    return {
        name: item if isinstance(item, Agent | str) and not _is_factory(item)
        else _factory(item)(name=name, **options)
        for name, item in epoch_roster(agents, epochs, **options).items()
    }  # fmt: skip


def with_epochs(agents: Any, epochs: Any) -> Any:
    """``agents`` as given when ``epochs`` is None (a factory refused), else
    ``epoch_arms(agents, epochs)``: whenever ``epochs=`` is passed, 1 included, each
    factory builds its arms, named ``<arm>.epoch1`` ... ``<arm>.epoch<N>``."""
    if epochs is None:
        _refuse_factories(agents)
        return agents
    return epoch_arms(_listed(agents), epochs)


def arm_names(agents: Any, epochs: Any = None) -> list[str]:
    """The names the arms will run under, learnt before anything runs (a factory is
    called once, without running, to learn its default name)."""
    from workbench.evaluation.arms import resolve_arms

    if epochs is None:
        _refuse_factories(agents)
        return [arm.name for arm in resolve_arms(agents)]
    return list(epoch_roster(_listed(agents), epochs))


def _listed(agents: Any) -> Any:
    return [agents] if isinstance(agents, Agent | str) else agents


def _refuse_factories(agents: Any) -> None:
    items = agents.values() if isinstance(agents, Mapping) else _listed(agents)
    factories = [item for item in items if _is_factory(item)]
    if factories:
        raise ConfigError(
            f"{factories[0]!r} is a factory, which builds arms only with epochs=: pass "
            "epochs=1 (or more) to build it, or an Agent built yourself (e.g. "
            "workbench.integrations.callable_agent(fn, name=...))"
        )


def _is_factory(item: Any) -> bool:
    return isinstance(item, str) and ":" in item


def _factory(item: Any) -> Callable[..., Agent]:
    if isinstance(item, str):
        from workbench._names import resolve

        factory: Callable[..., Agent] = resolve(item)
        return factory
    if callable(item):
        return item
    raise ConfigError(f"an arm must be an Agent, a baseline name or a factory, got {item!r}")


def _once(item: Agent | str, epochs: int) -> Agent | str:
    from workbench.integrations.base import BaseAdapter

    if epochs > 1 and isinstance(item, BaseAdapter):
        raise ConfigError(
            f"arm {item.name!r} is one adapter, and epochs={epochs} needs a fresh one per epoch: "
            "pass its factory instead ('module:factory', or a callable taking name=)"
        )
    return item


def _name_of(item: Agent | str) -> str:
    return item if isinstance(item, str) else item.name


# --- reading epochs ---------------------------------------------------------------------
def epochs_of(names: Sequence[str]) -> dict[str, list[str]]:
    """Each arm that ran in epochs, with its epochs' names in epoch order."""
    found: dict[str, dict[int, str]] = {}
    for name in names:
        base, k = base_arm(str(name))
        if k is not None:
            found.setdefault(base, {})[k] = str(name)
    return {base: [ks[k] for k in sorted(ks)] for base, ks in found.items()}


def epoch_agreement(results: Results) -> pd.Series:
    """Per arm run in epochs: the share of its decision points at which every epoch made
    the identical decision (the same orders requested, or the same failure)."""
    shares = {}
    for base, names in epochs_of(list(results.scorecard.index)).items():
        points = int(results.scorecard.loc[names, "decisions"].min())
        choices = [_decisions(results, name) for name in names]
        steps = set().union(*choices)
        differ = sum(len({c.get(step, ()) for c in choices}) > 1 for step in steps)
        shares[base] = (points - differ) / points if points else math.nan
    return pd.Series(shares, name="agreement", dtype=float)


def _decisions(results: Results, arm: str) -> dict[tuple[int, int], tuple[Any, ...]]:
    """What the arm decided at each (day, step) it traded or failed at: its requested orders
    and its failure's kind; a step missing from it was a hold."""
    decided: dict[tuple[int, int], list[Any]] = {}
    orders = results.orders[results.orders["arm"] == arm]
    for row in orders.to_dict(orient="records"):
        order = tuple(row[k] for k in ("symbol", "side", "order_type", "requested", "limit_price"))
        decided.setdefault((int(row["day"]), int(row["step"])), []).append(order)
    errors = results.errors[results.errors["arm"] == arm]
    for row in errors.to_dict(orient="records"):
        decided.setdefault((int(row["day"]), int(row["step"])), []).append(("failed", row["kind"]))
    return {step: tuple(map(str, choice)) for step, choice in decided.items()}


def epoch_comparison(
    runs: Sequence[Results], benchmark: str, *, metric: str = "return_pct", alpha: float = 0.05
) -> pd.DataFrame:
    """One row per arm run in epochs: its mean difference over ``benchmark`` with naive and
    path-clustered standard errors, a t interval and p-value from the clustered one, the
    decision agreement (mean over seeds) and the within- and across-path spread."""
    if not runs:
        raise ConfigError("epoch_comparison needs at least one run (one per seed)")
    cards = [run.scorecard for run in runs]
    if benchmark not in cards[0].index:
        raise ConfigError(f"benchmark arm {benchmark!r} is not in the runs; arms are "
                          f"{list(cards[0].index)}")  # fmt: skip
    grouped = epochs_of(list(cards[0].index))
    if not grouped:
        raise ConfigError(
            "no arm ran in epochs (arms named 'x.epoch1', 'x.epoch2', ...); build the runs "
            "with epoch_arms(agents, epochs) or record with epochs="
        )
    agreement = pd.concat([epoch_agreement(run) for run in runs], axis=1).mean(axis=1)
    rows = {
        base: {
            "benchmark": benchmark,
            **_clustered(_differences(cards, names, benchmark, metric), alpha),
            "agreement": float(agreement.get(base, math.nan)),
            **spread(np.array([[card.loc[n, metric] for n in names] for card in cards])),
        }
        for base, names in grouped.items()
    }
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(EPOCH_COLUMNS))
    frame.index.name = "arm"
    return frame


def _differences(
    cards: Sequence[pd.DataFrame], names: list[str], benchmark: str, metric: str
) -> np.ndarray:
    """Seeds × epochs: the metric of each epoch minus the benchmark's on that seed."""
    for index, card in enumerate(cards):
        missing = [n for n in [*names, benchmark] if n not in card.index]
        if missing:
            raise ConfigError(f"run {index + 1} lacks arms {missing}: every seed must run the "
                              "same arms and epochs")  # fmt: skip
    values = [card[metric].astype(float) for card in cards]
    return np.array([[v[n] - v[benchmark] for n in names] for v in values])


def _clustered(diffs: np.ndarray, alpha: float) -> dict[str, float]:
    seeds, epochs = diffs.shape
    mean = float(diffs.mean())
    naive = float(diffs.std(ddof=1) / math.sqrt(diffs.size)) if diffs.size > 1 else math.nan
    clustered = float(diffs.mean(axis=1).std(ddof=1) / math.sqrt(seeds)) if seeds > 1 else math.nan
    out = {"seeds": seeds, "epochs": epochs, "mean_diff": mean, "se_naive": naive,
           "se_clustered": clustered}  # fmt: skip
    if not clustered > 0:
        return {**out, "ci_low": math.nan, "ci_high": math.nan, "p_value": math.nan}
    from scipy import stats  # here, not at import: scipy.stats costs most of an import

    quantile = float(stats.t.ppf(1 - alpha / 2, seeds - 1))
    p_value = float(2 * stats.t.sf(abs(mean / clustered), seeds - 1))
    return {**out, "ci_low": mean - quantile * clustered, "ci_high": mean + quantile * clustered,
            "p_value": p_value}  # fmt: skip


def spread(values: np.ndarray) -> dict[str, float]:
    """Seeds × epochs of one metric: the within-path and across-path standard deviations
    and the model's share of one run's variance (see the module doc)."""
    seeds, epochs = values.shape
    within = float(values.var(axis=1, ddof=1).mean()) if epochs > 1 else math.nan
    across = float(values.mean(axis=1).var(ddof=1)) if seeds > 1 else math.nan
    between = across - within / epochs
    if not math.isnan(between):  # max(0.0, nan) is 0.0: one seed must leave it unknown
        between = max(0.0, between)
    total = within + between
    share = within / total if total > 0 else math.nan
    return {"within_sd": math.sqrt(within), "across_sd": math.sqrt(across), "model_share": share}


__all__ = [
    "EPOCH_COLUMNS",
    "EPOCH_MARK",
    "arm_names",
    "base_arm",
    "check_epochs",
    "epoch_agreement",
    "epoch_arms",
    "epoch_comparison",
    "epoch_name",
    "epoch_roster",
    "epochs_of",
    "spread",
    "with_epochs",
]
