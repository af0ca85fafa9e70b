"""The names a market trades: synthetic tickers with sectors, or symbols you give."""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass

from workbench._checks import is_whole
from workbench.errors import ConfigError

SECTORS: tuple[str, ...] = (
    "technology",
    "financials",
    "health",
    "energy",
    "industrials",
    "consumer",
    "utilities",
    "materials",
)
_MAX_NAMES = 5000


@dataclass(frozen=True)
class Universe:
    """An ordered list of symbols, each with a sector.

    ``Universe.synthetic(40)`` makes 40 deterministic tickers spread over the
    sectors; ``Universe.of(["AAA", "BBB"])`` uses your symbols (sectors assigned
    round-robin unless given).
    """

    symbols: tuple[str, ...]
    sectors: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.symbols:
            raise ConfigError("a universe needs at least one name; pass names >= 1")
        if len(set(self.symbols)) != len(self.symbols):
            raise ConfigError("universe symbols must be unique")
        if len(self.sectors) != len(self.symbols):
            raise ConfigError("give one sector per symbol")

    @classmethod
    def synthetic(cls, names: int = 40) -> Universe:
        if not is_whole(names):
            raise ConfigError(f"universe must be a whole number of synthetic names, got {names!r}")
        if not 1 <= names <= _MAX_NAMES:
            raise ConfigError(
                f"universe must be between 1 and {_MAX_NAMES} synthetic names, got {names}"
            )
        symbols = tuple(_ticker(i) for i in range(names))
        return cls(symbols=symbols, sectors=_round_robin(names))

    @classmethod
    def of(cls, symbols: Sequence[str], sectors: Sequence[str] | None = None) -> Universe:
        symbols = tuple(str(s).strip().upper() for s in symbols)
        if any(not s for s in symbols):
            raise ConfigError("symbols must be non-empty strings")
        return cls(symbols=symbols, sectors=tuple(sectors or _round_robin(len(symbols))))

    @property
    def size(self) -> int:
        return len(self.symbols)

    def sector_index(self) -> tuple[int, ...]:
        """Each name's sector as a number, sectors numbered in order of first appearance."""
        number: dict[str, int] = {}
        for sector in self.sectors:
            number.setdefault(sector, len(number))
        return tuple(number[s] for s in self.sectors)

    def describe(self) -> dict[str, object]:
        return {"names": self.size, "symbols": list(self.symbols), "sectors": list(self.sectors)}


def _round_robin(count: int) -> tuple[str, ...]:
    return tuple(SECTORS[i % len(SECTORS)] for i in range(count))


def _ticker(index: int) -> str:
    """Three or four letters, stable for a given index: AAB, AAC, ... (vowel-spaced)."""
    letters = string.ascii_uppercase
    # a stride coprime with 26**3 spreads consecutive indices over the alphabet
    code = (index * 7919 + 1021) % (26**3)
    text = letters[code // 676] + letters[(code // 26) % 26] + letters[code % 26]
    return text if index < 26**3 else text + letters[index // 26**3 % 26]


def resolve_universe(universe: Universe | int | Sequence[str]) -> Universe:
    if isinstance(universe, Universe):
        return universe
    if is_whole(universe):
        return Universe.synthetic(universe)
    if isinstance(universe, Sequence) and not isinstance(universe, str):
        return Universe.of(universe)
    raise ConfigError(
        f"universe must be a Universe, a number of names or a list of symbols, got {universe!r}"
    )
