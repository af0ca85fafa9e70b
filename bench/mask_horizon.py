"""What numbering an item's future dates from its own day costs the mask.

    python bench/mask_horizon.py

The items of ``bench/historical_news.py`` a run over 600 of its dates carries (each
decision's news, at most NEWS_CAP), masked as the feed masks them (``TextFeed``: each
item's dates on the calendar known at the close it is first seen, ``TextMask.known_until``)
against the same texts masked on the bars' whole calendar (one horizon, as before the
rule), each on a fresh mask, timed in turn, best CPU of five. Ratio = with horizons /
whole calendar.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE)]

import historical_news as bench  # noqa: E402
from _timing import best_of_interleaved  # noqa: E402

from workbench.engine.historical import Historical  # noqa: E402
from workbench.engine.sample_bars import sample_bars  # noqa: E402
from workbench.engine.textfeed import UnseenTextWarning  # noqa: E402
from workbench.evaluation.world import World  # noqa: E402

DAYS = 600


def main() -> None:
    bars = sample_bars(days=bench.DAYS + 20, names=bench.NAMES, seed=3)
    texted = Historical.load(bars, secret="bench-secret-0123456789").with_text(
        news=bench.news(bars), fundamentals=bench.reports(bars), names=bench.NAMES_MAP
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenTextWarning)  # a run shorter than the feed
        feed = World(data=texted, days=DAYS).path.text
    assert feed is not None and feed.mask is not None
    rows = [list(bench.shown_items(feed, row)) for row in range(20, 20 + DAYS)]
    news = feed._news
    texts = [[(news[k][i], news["symbols"][i]) for i in items for k in ("headline", "body")]
             for items in rows]  # fmt: skip

    def with_horizons() -> None:
        mask = texted.text_mask(feed_first_close, 20)
        for row, batch in zip(range(20, 20 + DAYS), texts, strict=True):
            with mask.known_until(row):
                mask.texts(batch)

    def whole_calendar() -> None:
        mask = texted.text_mask(feed_first_close, 20)
        for batch in texts:
            mask.texts(batch)

    feed_first_close = texted.panel["close"][0]
    count = sum(map(len, rows))
    horizons, whole = best_of_interleaved(with_horizons, whole_calendar, repeats=5)
    print(f"{count:,} items carried over {DAYS} decisions: masked with each item's horizon "
          f"{horizons / count * 1e6:.1f} us, on the whole calendar {whole / count * 1e6:.1f} us"
          f"  ratio {horizons / whole:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
