"""Counterfactual variants keep the text aligned: each item moves with its bar's block."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench import World, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError

BARS = sample_bars(days=90, names=3, seed=12)
DATES = sorted(BARS["date"].unique())
SECRET = "variant-secret-0123456789"


def stamp(row: int) -> str:
    return pd.Timestamp(f"{DATES[row]} 10:00").tz_localize("America/New_York").isoformat()


NEWS = pd.DataFrame(
    {
        "published": [stamp(r) for r in range(90)],
        "symbols": ["ACME"] * 90,
        "headline": [f"ACME item {r}" for r in range(90)],
        "body": [f"Dated {DATES[r]}, ACME at $100.00." for r in range(90)],
    }
)


def headlines_by_row(data: Historical) -> dict[int, list[str]]:
    text = World(data=data).path.text
    out: dict[int, list[str]] = {}
    for i, row in enumerate(text.news_rows):
        out.setdefault(row, []).append(text.item(i)["headline"])
    return out


def test_a_bootstrap_moves_each_item_with_its_bar() -> None:
    real = Historical.load(BARS, news=NEWS, secret=SECRET)
    variant = real.with_variant("bootstrap:4")
    source = variant.variant.source_rows(len(DATES))
    shown, original = headlines_by_row(variant), headlines_by_row(real)
    rows = World(data=variant).path.close.shape[0]
    for row in range(rows):
        assert shown.get(row, []) == original.get(int(source[row]), [])
    assert len(set(source[:rows].tolist())) < rows  # a block repeated a bar: so did its items


def test_a_bootstrap_path_hides_calendar_dates_and_prices_in_the_text() -> None:
    variant = Historical.load(BARS, news=NEWS, secret=SECRET, variant="bootstrap:4")
    item = World(data=variant).path.text.item(5)
    assert item["body"] == f"Dated [date], {item['symbols'][0]} at $[amount]."


def test_a_bootstrap_with_text_runs_and_repeats() -> None:
    variant = Historical.load(BARS, news=NEWS, secret=SECRET, variant="bootstrap:4")
    first = evaluate(["headline_sentiment"], data=variant)
    again = evaluate(["headline_sentiment"], data=variant)
    assert first.digest() == again.digest()


@pytest.mark.parametrize("variant", ["reversed", "flipped"])
@pytest.mark.slow
def test_variants_that_turn_moves_around_refuse_text(variant: str) -> None:
    with pytest.raises(ConfigError, match=f"cannot follow the {variant} variant: it turns"):
        Historical.load(BARS, news=NEWS, variant=variant)


def test_canaries_stay_on_the_real_path() -> None:
    with pytest.raises(ConfigError, match="canaries are planted on the real path only"):
        Historical.load(BARS, news=NEWS, canaries=2, variant="bootstrap:1")
