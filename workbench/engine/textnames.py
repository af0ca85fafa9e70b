"""The company names the mask replaces in the text, read and checked before any is used.

``names=`` maps a real symbol to its company name or names (text, or a list of texts),
or is a ``symbol,name`` table (a CSV or Parquet path, or a DataFrame) read with
``read_names``; a ``name`` column of the bars adds every name it gives a symbol (a
company renamed during the bars has both), checked the same way. Each name is masked
wherever it stands, in any case, so a name is refused when the mask could not say
whose it is:

- a name claimed by two symbols (``"Acme Corp"`` for ACME and BOLT): one of them would
  be masked as the other's alias;
- a name that is another symbol's ticker (``"BOLT"`` for ACME): every BOLT in the text
  would become ACME's alias;
- a value that is not text (None, a number, NaN), or a name with no letter (``"???"``)
  or of two characters or fewer, which would mask every such word;
- a name that is a word of any text or a legal suffix alone (``"The"``, ``"Inc."``,
  ``"Holdings"``): every item would read as that company's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from workbench.engine.textdata import Source, read_names
from workbench.engine.textscan import name_key
from workbench.errors import ConfigError

NamesSource = Mapping[str, str | Sequence[str]] | Source

_FORM = (
    "pass a mapping symbol → name or names ({'ACME': ['Acme Industries']}), or a "
    "symbol,name table (a .csv or .parquet path, or a DataFrame)"
)


def names_map(given: NamesSource | None, bars: pd.DataFrame) -> dict[str, tuple[str, ...]]:
    """Real symbol → company names, from ``names=`` and a ``name`` column of the bars."""
    out = _bars_names(bars)
    known = set(bars["symbol"].astype(str))
    for symbol, value in _mapping(given).items():
        if str(symbol) not in known:
            fix = (
                f"symbols match in their case: write {str(symbol).upper()!r}"
                if str(symbol).upper() in known
                else "drop that entry (only the bars' names are masked)"
            )
            raise ConfigError(
                f"names= has company names for {symbol!r}, which the bars do not hold; {fix}"
            )
        out.setdefault(str(symbol), []).extend(
            _company_name(symbol, n) for n in _listed(symbol, value)
        )
    names = {s: tuple(dict.fromkeys(ns)) for s, ns in out.items()}
    _one_owner_each(names, known)
    return names


def _bars_names(bars: pd.DataFrame) -> dict[str, list[str]]:
    """Every name the bars' ``name`` column gives each symbol (a company renamed has two),
    checked as ``names=`` is; a blank cell names nothing."""
    out: dict[str, list[str]] = {}
    if "name" not in bars.columns:
        return out
    for symbol, name in bars[["symbol", "name"]].drop_duplicates().itertuples(index=False):
        if not _blank(name):
            checked = _company_name(symbol, name, "the bars' name column")
            out.setdefault(str(symbol), []).append(checked)
    return out


def _blank(value: object) -> bool:
    if isinstance(value, str):
        return not value.strip()
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _mapping(given: NamesSource | None) -> Mapping[str, object]:
    if given is None:
        return {}
    if isinstance(given, (str, Path, pd.DataFrame)):
        return read_names(given)
    if not isinstance(given, Mapping):
        raise ConfigError(f"names= is a {type(given).__name__}, not company names; {_FORM}")
    return given


def _listed(symbol: str, value: object) -> list[object]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)):
        return list(value)
    raise ConfigError(
        f"names= gives {symbol!r} {value!r}, which is not a company name; give it as text "
        "or a list of texts ({'ACME': ['Acme Industries', 'Acme']})"
    )


def _company_name(symbol: str, name: object, given: str = "names=") -> str:
    if not isinstance(name, str):
        raise ConfigError(
            f"{given} gives {symbol!r} the company name {name!r}, which is not text; write "
            "the name as text or drop it"
        )
    text = name.strip()
    if len(text) <= 2:
        raise ConfigError(
            f"{given} gives {symbol!r} the company name {name!r}: blank or two letters or "
            "fewer would mask every such word in the text; give the full name"
        )
    if text.casefold().rstrip(".") in _GENERIC:
        raise ConfigError(
            f"{given} gives {symbol!r} the company name {name!r}, a word any text uses: "
            f"every {text!r} in the news would read as {symbol}; give the full name "
            "('Acme Industries Inc.', not 'Inc.')"
        )
    if not any(c.isalpha() for c in text) or not text.isprintable():
        raise ConfigError(
            f"{given} gives {symbol!r} the company name {name!r}, which has no letter or "
            "holds a control character; give the name as it is written in the text"
        )
    return text


# words of any news text, and a company name's legal suffixes: never a name on their own
_GENERIC = frozenset((
    "the", "and", "for", "with", "from", "that", "this", "its", "has", "was", "are", "but",
    "not", "all", "new", "inc", "incorporated", "corp", "corporation", "company", "ltd",
    "limited", "plc", "llc", "group", "holdings", "shares", "stock", "market", "said",
))  # fmt: skip


def _one_owner_each(names: Mapping[str, Sequence[str]], symbols: set[str]) -> None:
    """Refuse a name that two symbols claim, or that is another symbol's ticker: names are
    masked in any case and however their words are joined (``Acme Corp``, ``AcmeCorp``), so
    the mask could not tell whose it is."""
    owner = {s.casefold(): s for s in sorted(symbols)}
    claimed: dict[str, str] = {}
    for symbol in sorted(names):
        for name in names[symbol]:
            folded = name.casefold()
            ticker = owner.get(folded)
            if ticker is not None and ticker.casefold() != symbol.casefold():
                raise ConfigError(
                    f"names= gives {symbol!r} the company name {name!r}, which is the ticker "
                    f"of {ticker!r}: every {ticker} in the text would read as {symbol}; drop "
                    "that name"
                )
            first = claimed.setdefault(name_key(name), symbol)
            if first != symbol:
                raise ConfigError(
                    f"names= gives the company name {name!r} to both {first!r} and {symbol!r}: "
                    "the mask could not tell whose it is; keep it for one of them"
                )
