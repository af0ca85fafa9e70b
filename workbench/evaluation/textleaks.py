"""The leak report: words left in the masked text that still point at one name.

Masking replaces the symbols, the company names the researcher listed, dates and
prices (``workbench.engine.textmask``). What it cannot know is the rest: a
product, a city, a chief executive, in the news or in a figure's name
(``roadrunner_units``: each report a decision sees counts as an item whose words are
the names of its figures). Such a word gives a name away when it shows up
in the items about one name far more often than that name's share of the items
would make it.

For every token (``workbench.evaluation.leaktokens``: a word in any case, spelling
or width, its possessive, hyphenated parts and plural read as one; a run of one
script in text written without spaces; three letters or more, not a stop word, an
alias or a mask mark), over the items that concern one name: ``items`` is how many of
them hold the word, ``with_name`` how many of those concern the name it is seen with
most, and ``expected`` what that name's share of all such items would give. An item
concerns its one symbol or, untagged, the one alias its masked text writes (where the
mask put a ticker or a company name); an item about several names (tagged so, or a
round-up naming many) is not counted, as it tells no word's owner. The word is
listed when ``with_name >= min_items``, at least ``share`` of its items concern that
name, and a one-sided binomial test of ``with_name`` against ``items`` draws at that
name's share gives a p-value below ``alpha`` divided by the number of words tested
(Bonferroni). ``token`` shows the spelling seen in most items, ``spellings`` every one
seen. Add what it lists (each spelling the mask should catch) to the ``names=`` map, run
it again, and the list empties.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

import pandas as pd

from workbench.engine.historical import Historical
from workbench.engine.textfeed import TextFeed
from workbench.engine.variants import Variant
from workbench.evaluation.leaktokens import item_words, most_seen, stems, tokens
from workbench.evaluation.world import World

# token: the spelling seen in most items; spellings: every one seen, most seen first
LEAK_COLUMNS = (
    *("token", "alias", "symbol", "with_name", "items", "expected", "p_value", "spellings"),
)


def leak_report(
    data: Historical,
    *,
    days: int | None = None,
    variants: Sequence[Variant | str] = (),
    min_items: int = 5,
    share: float = 0.6,
    alpha: float = 0.01,
) -> pd.DataFrame:
    """Words in the masked news that identify one name (see the module docstring), most
    telling first; empty when the data carries no news or nothing stands out.

    It reads what agents saw: the items the payloads of a run of ``days`` (every tradable
    date when None) carry on the data's path, or, given ``variants`` (the counterfactual
    paths a comparison's seeds trade), on each of those paths of the same bars under the
    data's mask, as they carried them. An item counts once however many paths or rows show
    it, and an item no payload carried (published after the last decision, or left out by
    a payload's cap) does not count, nor a canary the run planted."""
    if data.text is None or data.text.news is None:
        return pd.DataFrame(columns=list(LEAK_COLUMNS))
    items, reports = _shown(data, days, variants)
    words, counts, spelt = _word_counts(items + reports, frozenset(data.mapping))
    total = sum(counts.values())
    rows = [
        _row(spelt[word], seen, counts, total)
        for word, seen in words.items()
        if max(seen.values()) >= min_items  # fewer is never listed: no test needed
    ]
    table = pd.DataFrame(rows, columns=list(LEAK_COLUMNS))
    limit = alpha / max(len(words), 1)
    listed = (table["with_name"] >= min_items) & (table["with_name"] >= share * table["items"])
    table = table[listed & (table["p_value"] < limit)]
    table["symbol"] = table["alias"].map(data.mapping)
    return table.sort_values(["p_value", "token"]).reset_index(drop=True)


def shown_items(
    data: Historical, *, days: int | None = None, variants: Sequence[Variant | str] = ()
) -> list[dict[str, Any]]:
    """Each news item the runs' payloads carry (see ``leak_report``) once, masked as the
    first path that shows it carries it, in path order."""
    return _shown(data, days, variants)[0]


def _shown(
    data: Historical, days: int | None, variants: Sequence[Variant | str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The news items the runs' payloads carry and the reports their decisions see, each
    once, a report as an item whose text is the names of the figures it gives."""
    paths = [data.with_variant(v) for v in variants] if variants else [data]
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    reports: dict[tuple[Any, ...], dict[str, Any]] = {}
    for path in paths:
        world = World(data=path, days=days)
        feed = world.path.text
        assert feed is not None
        planted = [c["token"] for c in feed.canaries if c["channel"] == "news"]
        for item in _carried(feed, world.warmup_days, world.days):
            source = feed.source(item["id"])
            if source in seen or any(token in source[2] for token in planted):
                continue  # masked once, however many paths show it; a canary is not your text
            seen[source] = item
        last = world.warmup_days + world.days - 2  # the last day decides nothing
        for source, alias, figures in feed.figure_names(last):
            text = " ".join(figures)
            reports.setdefault(source, {"symbols": [alias], "headline": text, "body": ""})
    return list(seen.values()), list(reports.values())


def _carried(feed: TextFeed, first: int, days: int) -> Iterator[dict[str, Any]]:
    """The items the payloads of an arm reading every day carry, in path order: the first
    decision's window starts at the feed's beginning, and each holds at most NEWS_CAP (an
    arm deciding less often is shown a subset of these). The last day decides nothing."""
    after = -1
    for row in range(first, first + days - 1):
        yield from reversed(feed.news(after, row)["news"])
        after = row


def _word_counts(
    items: list[dict], aliases: frozenset[str]
) -> tuple[dict[str, Counter[str]], Counter[str], dict[str, Counter[str]]]:
    """Per token (``leaktokens``), the items holding it by the one name they concern
    (``_one_name``); items per name; and each token's spellings by the items they are seen
    in."""
    # each item kept as one string, its alias and words joined by NUL: a container kept per
    # item would set the garbage collector going over the whole heap all the sooner
    about: list[str] = []
    written: Counter[str] = Counter()  # each word as written, by the items holding it
    for item in items:
        text = f"{item['headline']} {item['body']}"
        alias = _one_name(item["symbols"], text, aliases)
        if alias is not None:
            words = item_words(text)
            about.append("\0".join((alias, *words)))
            written.update(words)
    keys, spellings = _tokens_of(written)
    per_token: dict[str, Counter[str]] = defaultdict(Counter)
    counts: Counter[str] = Counter()
    for kept in about:
        alias, *held = kept.split("\0")
        counts[alias] += 1
        for token in frozenset().union(*map(keys.__getitem__, held)):
            per_token[token][alias] += 1
    return per_token, counts, spellings


_ALIAS = re.compile(r"ASSET\d+")  # how the mask writes a name (``engine.masking``)


def _one_name(symbols: Sequence[str], text: str, aliases: frozenset[str]) -> str | None:
    """The one name an item concerns, or None: its one symbol, or, untagged, the one alias
    its masked text writes. An item about several (tagged so, or a round-up naming every
    ticker) tells no word's owner, and a rival named in passing in an item tagged with one
    name does not take its words."""
    names = set(symbols) or {a for a in _ALIAS.findall(text) if a in aliases}
    return names.pop() if len(names) == 1 else None


def _tokens_of(
    written: Counter[str],
) -> tuple[dict[str, frozenset[str]], dict[str, Counter[str]]]:
    """Each distinct word's tokens (plurals folded to a stem seen), read once however many
    items hold it; and each token's spellings by the items they are seen in."""
    read = {word: tokens(word) for word in written}
    folded = stems(token for found in read.values() for token, _ in found)
    keys: dict[str, frozenset[str]] = {}
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    for word, found in read.items():
        keys[word] = frozenset(folded.get(token, token) for token, _ in found)
        for token, spelling in found:
            spellings[folded.get(token, token)][spelling] += written[word]
    return keys, spellings


def _row(spellings: Counter[str], seen: Counter[str], counts: Counter[str], total: int) -> tuple:
    from scipy.stats import binom

    alias, with_name = seen.most_common(1)[0]
    items = sum(seen.values())
    rate = counts[alias] / total
    p_value = float(binom.sf(with_name - 1, items, rate))
    expected, spelt = round(items * rate, 2), most_seen(spellings)
    return (spelt[0], alias, "", with_name, items, expected, p_value, ", ".join(spelt))


def leak_section(table: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The leak report as a report section: ``render_report(..., sections=leak_section(t))``."""
    return {"Text leak report": table.copy()}
