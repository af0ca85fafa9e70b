"""A digest of what the text mask writes, to check a change of the mask leaves it alone.

    python bench/text_mask_digest.py [--reference]

Masks the headline and body of every item of ``bench/historical_news.py`` (100,000,
twenty at a time as decisions carry them, and 2,000 alone; with the run's names and
with a map of 500) and a corpus built from the text-mask tests' fragments (each
fragment after each separator, and 6,000 random strings of them) with the tests' three
masks, each text alone and twenty at a time; and prints a SHA-256 prefix of each. Two
trees that print the same digests write the same masked text. ``--reference`` adds the
tests' corpus masked the long way (``TextMask.text_by_pattern``), which must match.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent / "tests")]

import historical_news as bench  # noqa: E402
from test_text_scan import FEW, FRAGMENTS, MANY, PLAIN, SEPARATORS  # noqa: E402

from workbench.engine.historical import Historical  # noqa: E402
from workbench.engine.sample_bars import sample_bars  # noqa: E402
from workbench.engine.textmask import TextMask  # noqa: E402
from workbench.evaluation import World  # noqa: E402

Texts = list[tuple[str, list[str]]]
ABOUT = (["ACME"], ["BOLT"], ["IT"], ["ACME", "BOLT"], [])


def digest(texts: Iterable[str]) -> str:
    hashed = hashlib.sha256()
    for text in texts:
        hashed.update(text.encode("utf-8", "surrogatepass") + b"\1")
    return hashed.hexdigest()[:16]


def fresh(mask: TextMask) -> TextMask:
    """The same mask with nothing masked yet (no text met before)."""
    return TextMask(mask.aliases, mask.price_factor, mask.dates, mask.warmup_days, mask.names)


def in_blocks(mask: TextMask, texts: Sequence[tuple[str, list[str]]], size: int) -> list[str]:
    out: list[str] = []
    for start in range(0, len(texts), size):
        out += mask.texts(texts[start : start + size])
    return out


def bench_texts() -> tuple[TextMask, Texts]:
    bars = sample_bars(days=bench.DAYS + 20, names=bench.NAMES, seed=3)
    data = Historical.load(bars, secret="bench-secret-0123456789").with_text(
        news=bench.news(bars), names=bench.NAMES_MAP
    )
    feed = World(data=data, days=bench.DAYS).path.text
    assert feed is not None and feed.mask is not None
    news = feed._news
    texts = [
        (news[key][i], list(news["symbols"][i]))
        for i in range(len(news["headline"]))
        for key in ("headline", "body")
    ]
    return feed.mask, texts


def test_corpus() -> Texts:
    rng = np.random.default_rng(12345)
    corpus = [
        (f"x{gap}{fragment}{gap}{fragment}.", list(ABOUT[k % 5]))
        for k, (fragment, gap) in enumerate((f, g) for f in FRAGMENTS for g in SEPARATORS)
    ]
    for _ in range(6_000):
        picks = range(int(rng.integers(1, 13)))
        text = "".join(
            FRAGMENTS[int(rng.integers(len(FRAGMENTS)))]
            + SEPARATORS[int(rng.integers(len(SEPARATORS)))]
            for _ in picks
        )
        corpus.append((text, list(ABOUT[int(rng.integers(5))])))
    return corpus


def main() -> None:
    mask, texts = bench_texts()
    started = time.process_time()
    digests = {"bench": digest(in_blocks(fresh(mask), texts, 40))}
    spent = time.process_time() - started
    wide = bench.many_names(fresh(mask), 500)
    digests["bench, 500 names"] = digest(in_blocks(wide, texts[:40_000], 40))
    digests["bench, alone"] = digest(fresh(mask).text(t, s) for t, s in texts[:4_000])
    corpus = test_corpus()
    for name, each in (("few", FEW), ("many", MANY), ("plain", PLAIN)):
        digests[f"{name}, alone"] = digest(fresh(each).text(t, s) for t, s in corpus)
        digests[f"{name}, together"] = digest(in_blocks(fresh(each), corpus, 20))
        if "--reference" in sys.argv:
            digests[f"{name}, reference"] = digest(each.text_by_pattern(t, s) for t, s in corpus)
    for name, value in digests.items():
        print(f"  {name:20} {value}")
    print(f"  (the bench's {len(texts) // 2:,} items masked in {spent:.2f} s CPU)")


if __name__ == "__main__":
    main()
