"""Price tables: what a model's tokens cost, and an arm's dollar budget.

Prices are the user's, in US dollars per million tokens: input, output and cached
input (prompt tokens a provider served from its cache), given in code
(``PriceTable.from_mapping``) or a YAML file (``PriceTable.load``):

    gpt-4o-mini: {input: 0.15, output: 0.60, cached_input: 0.075}
    smollm2-135m-instruct: {input: 0, output: 0, cached_input: 0}

No price is assumed: a model missing from the table costs ``None`` ("not
known"), never 0, and a price that is missing, negative or not a number is
refused. The cost of one call, with input tokens counted as providers count them
(cached ones included):

    cost = ((input - cached) * input_price + cached * cached_input_price
            + output * output_price) / 1e6

An adapter given ``prices=`` writes each call's cost into its transcript, so a
replay reports the recorded cost and spends nothing. ``CostMeter`` is the dollar
budget of one arm (``max_cost_usd=``): the call asked once the spend has reached
the budget is the one past it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from workbench.errors import ConfigError

PRICE_FIELDS = ("input", "output", "cached_input")
PER_TOKENS = 1_000_000
TOKEN_COUNTS = ("input_tokens", "cached_input_tokens", "output_tokens")


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cached_input: float

    def cost(self, input_tokens: int, output_tokens: int, cached_input_tokens: int = 0) -> float:
        if cached_input_tokens > input_tokens:
            raise ConfigError(
                f"cached input tokens ({cached_input_tokens}) exceed input tokens "
                f"({input_tokens}); input tokens count the cached ones too"
            )
        fresh = input_tokens - cached_input_tokens
        total = (
            fresh * self.input
            + cached_input_tokens * self.cached_input
            + output_tokens * self.output
        )
        return total / PER_TOKENS


@dataclass(frozen=True)
class PriceTable:
    """Prices by model name; ``price(model)`` is None for a model not in the table."""

    prices: Mapping[str, Price]

    @classmethod
    def from_mapping(cls, table: Mapping[str, Mapping[str, Any]]) -> PriceTable:
        if not isinstance(table, Mapping):
            raise ConfigError(
                "a price table maps model names to {input, output, cached_input} in US dollars "
                f"per million tokens, got {type(table).__name__}"
            )
        return cls({str(model): _price(str(model), entry) for model, entry in table.items()})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> PriceTable:
        import yaml

        file = Path(path)
        try:
            data = yaml.safe_load(file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read the price table {file}: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise ConfigError(f"the price table {file} is not valid YAML: {exc}") from None
        return cls.from_mapping(data or {})

    def price(self, model: str | None) -> Price | None:
        return None if model is None else self.prices.get(model)

    def cost(self, model: str | None, usage: Mapping[str, Any]) -> float | None:
        """Dollars for ``usage`` (input_tokens, output_tokens, cached_input_tokens) on
        ``model``; None when the table has no price for it."""
        price = self.price(model)
        if price is None:
            return None
        counts = {key: count_of(usage, key) for key in TOKEN_COUNTS}
        return price.cost(
            counts["input_tokens"], counts["output_tokens"], counts["cached_input_tokens"]
        )


class CostMeter:
    """An arm's dollar budget (``max_cost_usd``): ``charge`` each call's usage after it is
    made; once ``exhausted``, the next call is the one past the budget and is not made.
    A budget needs a price for the model: without one it could never be enforced."""

    def __init__(self, prices: PriceTable, model: str | None, max_cost_usd: float) -> None:
        if isinstance(max_cost_usd, bool) or not isinstance(max_cost_usd, int | float):
            raise ConfigError(f"max_cost_usd must be a number of US dollars, got {max_cost_usd!r}")
        if not math.isfinite(max_cost_usd) or max_cost_usd < 0:
            raise ConfigError(f"max_cost_usd must be a finite number >= 0, got {max_cost_usd!r}")
        if prices.price(model) is None:
            raise ConfigError(
                f"max_cost_usd needs a price for the model {model!r}, and the price table has "
                f"none (it prices {sorted(prices.prices) or 'no model'}); add one"
            )
        self.prices, self.model, self.max_cost_usd = prices, model, float(max_cost_usd)
        self.spent_usd = 0.0

    def charge(self, usage: Mapping[str, Any]) -> float:
        """Add one call's cost; returns it."""
        cost = self.prices.cost(self.model, usage) or 0.0
        self.spent_usd += cost
        return cost

    @property
    def exhausted(self) -> bool:
        return self.spent_usd >= self.max_cost_usd


def _price(model: str, entry: Any) -> Price:
    if not isinstance(entry, Mapping):
        raise ConfigError(
            f"price of {model!r} must be a mapping with {', '.join(PRICE_FIELDS)} (US dollars "
            f"per million tokens), got {entry!r}"
        )
    unknown = sorted(set(map(str, entry)) - set(PRICE_FIELDS))
    missing = [key for key in PRICE_FIELDS if key not in entry]
    if unknown or missing:
        raise ConfigError(
            f"price of {model!r}: missing {missing or 'nothing'}, unknown {unknown or 'nothing'}; "
            f"give exactly {', '.join(PRICE_FIELDS)} (0 for free, never left out)"
        )
    values = {key: entry[key] for key in PRICE_FIELDS}
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"price of {model!r}: {key} must be a number, got {value!r}")
        if not math.isfinite(value) or value < 0:
            raise ConfigError(
                f"price of {model!r}: {key} must be a finite number >= 0 (US dollars per "
                f"million tokens), got {value!r}"
            )
    return Price(**{key: float(value) for key, value in values.items()})


def count_of(usage: Mapping[str, Any], key: str) -> int:
    value = usage.get(key, 0) or 0
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"usage {key} must be a whole number >= 0, got {value!r}")
    return int(value)


PriceSource = PriceTable | Mapping[str, Mapping[str, Any]] | str | os.PathLike[str]


def as_price_table(prices: PriceSource | None) -> PriceTable | None:
    """A ``PriceTable`` from a table, a mapping of model to prices or a YAML file's path."""
    if prices is None or isinstance(prices, PriceTable):
        return prices
    if isinstance(prices, str | os.PathLike):
        return PriceTable.load(prices)
    return PriceTable.from_mapping(prices)


__all__ = [
    "PER_TOKENS",
    "PRICE_FIELDS",
    "TOKEN_COUNTS",
    "CostMeter",
    "Price",
    "PriceSource",
    "PriceTable",
    "as_price_table",
    "count_of",
]
