"""A contamination audit: can an agent tell which real names and dates it is trading?

The audit plays many runs a data set could produce — each a window of the data
at a random start, masked with its own freshly drawn secret, as a recording
would be — builds the payloads an agent would see, and runs adversaries
against them. Each adversary holds something an agent (or the model behind
it) might hold:

- ``seed_alias`` — the run's seed and the real symbol list: it replays the
  alias order an unkeyed mask would have drawn from the seed;
- ``dollar_volume`` — per-name statistics from *before* the window (the typical
  traded value of each real name): it matches them with each alias's traded
  value in the payloads;
- ``volatility`` — likewise with the realised volatility of daily returns;
- ``return_match`` — the data set itself: a least-squares match of the first
  payload's log returns against every name and every date of the data;
- ``calendar`` — only a market index of the data (here its equal-weight index):
  the correlation of the payload's index returns with the index at every date.

For names, the recovery rate is the share of aliases matched to their real
name, against chance 1/names (a random guess matches one alias per run on
average); for the calendar, the share of runs whose first date is found,
against chance 1/offsets. ``p_value`` is the chance of a rate at least this high
by guessing (Monte Carlo over random permutations, or binomial).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from workbench._checks import is_whole
from workbench.engine.bars import read_bars
from workbench.engine.historical import Historical
from workbench.engine.presets import preset
from workbench.engine.variants import Variant
from workbench.errors import ConfigError
from workbench.evaluation.observation import market_payload
from workbench.schema import HISTORY_STEPS

AUDIT_COLUMNS = ("holds", "target", "trials", "recovered", "rate", "chance", "lift", "p_value")
_NULL_DRAWS = 10_000


@dataclass(frozen=True)
class Public:
    """What the adversaries hold: the unmasked data set and the run's public facts."""

    symbols: list[str]  # the real names, sorted
    close: np.ndarray  # (dates, names), the columns in ``symbols`` order
    volume: np.ndarray
    seed: int = 0

    @classmethod
    def of(cls, data: Historical, seed: int = 0) -> Public:
        panel = data.real_panel
        symbols = sorted(data.mapping.values())
        return cls(symbols=symbols, close=panel["close"], volume=panel["volume"], seed=seed)

    @cached_property
    def returns(self) -> np.ndarray:
        """(dates - 1, names) daily log returns of the whole data set."""
        return np.diff(np.log(self.close), axis=0)

    def before(self, start: int, dates: int) -> slice:
        """The rows of the ``dates`` dates before date index ``start`` (nothing of the window)."""
        return slice(max(start - dates, 0), start)


@dataclass(frozen=True)
class Run:
    """One masked run: its payloads, the truth, and where it starts in the data."""

    payloads: list[dict[str, Any]]
    truth: dict[str, str]  # alias -> real
    start: int  # date index of the window's first date
    first_return: int  # index into Public.returns of the first payload's first return

    @property
    def aliases(self) -> list[str]:
        return list(self.payloads[0]["symbols"])


Guess = dict[str, str]


def guess_seed_alias(run: Run, public: Public) -> Guess:
    """The alias order an unkeyed mask draws from the seed (what masking used to do)."""
    order = np.random.default_rng(public.seed).permutation(len(public.symbols))
    return {f"ASSET{rank + 1:03d}": public.symbols[i] for rank, i in enumerate(order)}


def guess_dollar_volume(run: Run, public: Public, pre: slice) -> Guess:
    value = np.log(np.maximum(public.close[pre] * public.volume[pre], 1.0))
    real = np.median(value, axis=0)
    seen = {a: np.median([_log_value(p["symbols"][a]) for p in run.payloads]) for a in run.aliases}
    return _assigned(seen, real, public.symbols)


def guess_volatility(run: Run, public: Public, pre: slice) -> Guess:
    real = np.std(np.diff(np.log(public.close[pre]), axis=0), axis=0, ddof=1)
    seen = {a: float(np.std(np.diff(np.log(_closes(run, a))), ddof=1)) for a in run.aliases}
    return _assigned(seen, real, public.symbols)


def guess_return_match(run: Run, public: Public) -> tuple[Guess, int]:
    """Each alias's best (name, date) by least squares; the calendar is the most common date."""
    windows, seen = _windows(public), _first_returns(run)
    guess, offsets = {}, []
    for i, alias in enumerate(run.aliases):
        error = ((windows - seen[i]) ** 2).sum(axis=-1)  # (offsets, names)
        offset, name = np.unravel_index(int(np.argmin(error)), error.shape)
        guess[alias] = public.symbols[int(name)]
        offsets.append(int(offset))
    return guess, int(np.bincount(offsets).argmax())


def guess_calendar(run: Run, public: Public) -> int:
    index = public.returns.mean(axis=1)
    windows = np.lib.stride_tricks.sliding_window_view(index, HISTORY_STEPS - 1)
    seen = _first_returns(run).mean(axis=0)
    centred = windows - windows.mean(axis=1, keepdims=True)
    score = centred @ (seen - seen.mean()) / (np.linalg.norm(centred, axis=1) + 1e-12)
    return int(np.argmax(score))


def _log_value(quote: dict[str, Any]) -> float:
    return float(np.log(max(quote["volume"] * quote["last"], 1.0)))


def _closes(run: Run, alias: str) -> np.ndarray:
    first = run.payloads[0]["symbols"][alias]["history"]
    return np.array(first + [p["symbols"][alias]["last"] for p in run.payloads[1:]])


def _first_returns(run: Run) -> np.ndarray:
    history = np.array([run.payloads[0]["symbols"][a]["history"] for a in run.aliases])
    return np.diff(np.log(history), axis=1)


def _windows(public: Public) -> np.ndarray:
    """(offsets, names, HISTORY_STEPS - 1): every stretch of returns the data holds."""
    view = np.lib.stride_tricks.sliding_window_view(public.returns, HISTORY_STEPS - 1, axis=0)
    return view


def _assigned(seen: dict[str, float], real: np.ndarray, names: list[str]) -> Guess:
    """The one-to-one matching of aliases to names with the least total distance."""
    from scipy.optimize import linear_sum_assignment

    aliases = list(seen)
    cost = np.abs(np.array([seen[a] for a in aliases])[:, None] - real[None, :])
    rows, cols = linear_sum_assignment(np.nan_to_num(cost, nan=1e9))
    return {aliases[r]: str(names[c]) for r, c in zip(rows, cols, strict=True)}


# --- the audit --------------------------------------------------------------------------
def audit(
    data: str | Path | pd.DataFrame | Historical,
    *,
    days: int = 60,
    trials: int = 50,
    pre_days: int = 120,
    variant: Variant | str | None = None,
    mask: bool = True,
    seed: int = 0,
) -> pd.DataFrame:
    """Recovery rate of each adversary against chance, over ``trials`` masked runs.

    ``variant`` audits counterfactual paths instead of the real one (a bootstrap
    variant gets a different seed in every trial); ``mask=False`` audits raw bars.
    """
    bars = data.bars if isinstance(data, Historical) else read_bars(data)
    whole = Historical(bars, mask=mask)
    dates = len(whole.dates)
    _check_shape(dates, days, trials, pre_days)
    public, rng = Public.of(whole), np.random.default_rng(seed)
    tallies = _Tallies(len(public.symbols), len(public.returns) - HISTORY_STEPS + 2)
    for trial in range(trials):
        start = int(rng.integers(pre_days, dates - HISTORY_STEPS - days + 1))
        secret = rng.bytes(16).hex()  # a fresh secret per run, as every recording draws one
        run = _masked_run(whole, start, days, secret, Variant.parse(variant), trial)
        tallies.add(run, public, public.before(start, pre_days))
    return tallies.table(rng)


def _check_shape(dates: int, days: int, trials: int, pre_days: int) -> None:
    for name, value in (("days", days), ("trials", trials), ("pre_days", pre_days)):
        if not is_whole(value) or value < 1:
            raise ConfigError(f"{name} must be a whole number >= 1, got {value!r}")
    needed = pre_days + HISTORY_STEPS + days
    if dates < needed:
        raise ConfigError(
            f"the data has {dates} dates; an audit needs pre_days + {HISTORY_STEPS} history + "
            f"days = {needed}; pass fewer days or pre_days, or more data"
        )


def _masked_run(
    data: Historical, start: int, days: int, secret: str, variant: Variant, trial: int
) -> Run:
    if variant.kind == "bootstrap":
        variant = Variant("bootstrap", variant.seed + trial, variant.block)
    part = data.window(start, start + HISTORY_STEPS + days, secret=secret, variant=variant)
    path = part.path(preset(), warmup_days=HISTORY_STEPS, days=days)
    rows = range(path.warmup_steps, path.warmup_steps + days)
    payloads = [market_payload(path, row) for row in rows]
    return Run(payloads, part.mapping, start, start + 1)


class _Tallies:
    """Hits per adversary over the trials, and the chance level of each."""

    def __init__(self, names: int, offsets: int) -> None:
        self.names, self.offsets, self.trials = names, offsets, 0
        self.hits: dict[str, list[int]] = {key: [] for key in ADVERSARIES}

    def add(self, run: Run, public: Public, pre: slice) -> None:
        self.trials += 1
        matched, offset = guess_return_match(run, public)
        guesses: dict[str, Guess] = {
            "seed_alias": guess_seed_alias(run, public),
            "dollar_volume": guess_dollar_volume(run, public, pre),
            "volatility": guess_volatility(run, public, pre),
            "return_match": matched,
        }
        for key, guess in guesses.items():
            self.hits[key].append(sum(guess.get(a) == real for a, real in run.truth.items()))
        self.hits["return_match_calendar"].append(int(offset == run.first_return))
        self.hits["calendar"].append(int(guess_calendar(run, public) == run.first_return))

    def table(self, rng: np.random.Generator) -> pd.DataFrame:
        rows = {}
        for key, (holds, target) in ADVERSARIES.items():
            total, names = sum(self.hits[key]), target == "names"
            count = self.trials * (self.names if names else 1)
            chance = 1 / self.names if names else 1 / self.offsets
            p = _names_p(total, self.trials, self.names, rng) if names else _dates_p(total, self)
            rows[key] = (holds, target, self.trials, total, total / count, chance, 0.0, p)
        table = pd.DataFrame.from_dict(rows, orient="index", columns=list(AUDIT_COLUMNS))
        table["lift"] = table["rate"] / table["chance"]
        table.index.name = "adversary"
        return table


def _names_p(total: int, trials: int, names: int, rng: np.random.Generator) -> float:
    """P(at least ``total`` aliases right over ``trials`` runs of random one-to-one guesses)."""
    draws = rng.permuted(
        np.tile(np.arange(names, dtype=np.int8), (_NULL_DRAWS, trials, 1)), axis=-1
    )
    fixed = (draws == np.arange(names)).sum(axis=(1, 2))
    return float((1 + np.sum(fixed >= total)) / (1 + _NULL_DRAWS))


def _dates_p(total: int, tallies: _Tallies) -> float:
    from scipy.stats import binom

    return float(binom.sf(total - 1, tallies.trials, 1 / tallies.offsets))


ADVERSARIES: dict[str, tuple[str, str]] = {
    "seed_alias": ("the seed and the symbol list", "names"),
    "dollar_volume": ("traded value of each name before the window", "names"),
    "volatility": ("volatility of each name before the window", "names"),
    "return_match": ("the data set itself", "names"),
    "return_match_calendar": ("the data set itself", "first date"),
    "calendar": ("an index of the data set", "first date"),
}


def format_audit(table: pd.DataFrame) -> str:
    """The audit as plain text: one line per adversary, rate against chance."""
    lines = [f"{'adversary':<22} {'holds':<46} {'recovered':>12} {'chance':>8} {'p':>7}"]
    for key, row in table.iterrows():
        lines.append(
            f"{key!s:<22} {row['holds']:<46} {row['rate']:>11.1%} {row['chance']:>8.1%} "
            f"{row['p_value']:>7.3f}"
        )
    return "\n".join(lines)


def audit_section(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The audit as a report section: ``render_report(..., sections=audit_section(t))``."""
    shown = table[["holds", "target", "trials", "rate", "chance", "lift", "p_value"]].copy()
    return {"Contamination audit": shown}
