"""The text mask's tests' shared parts: a mask over 300 trading days from 2016-01-04, and
what it writes for a text, asserted alike by each of its routes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from workbench.engine.textmask import TextMask

DATES = [str(d.date()) for d in pd.bdate_range("2016-01-04", periods=300)]


def text_mask(
    aliases: Mapping[str, str],
    price_factor: Mapping[str, float],
    names: Mapping[str, Sequence[str]],
) -> TextMask:
    """A mask of these names over ``DATES``, 20 of them warm-up."""
    return TextMask(
        aliases=aliases, price_factor=price_factor, dates=DATES, warmup_days=20, names=names
    )


def acme_and_bolt() -> TextMask:
    """Two names whose prices scale by different factors (0.5 and 2.0), Acme also known
    by its short name: the mask the price tests read."""
    return text_mask(
        aliases={"ACME": "ASSET001", "BOLT": "ASSET002"},
        price_factor={"ACME": 0.5, "BOLT": 2.0},
        names={"ACME": ("Acme Industries", "Acme"), "BOLT": ("Bolt Systems",)},
    )


def every_route(
    mask: TextMask,
    text: str,
    about: Sequence[str],
    beside: tuple[str, Sequence[str]] | None = None,
) -> str:
    """What ``mask`` writes for ``text`` about ``about``: the reference (its pattern tried at
    every place), asserted equal to one text masked alone and to the text masked with others
    (``beside``, masked as it is alone)."""
    written = mask.text_by_pattern(text, about)
    assert mask.text(text, about) == written
    together = [(text, about), *([beside] if beside else [])]
    expected = [written, *([mask.text(*beside)] if beside else [])]
    assert mask.texts(together) == expected
    return written
