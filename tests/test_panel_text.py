"""The panel takes news= and fundamentals= beside data=, as evaluate does."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pandas as pd
import pytest

from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError
from workbench.widgets import panel

BARS = sample_bars(days=40, names=3, seed=2)
NEWS = pd.DataFrame(
    {
        "published": ["2016-02-02T09:00:00-05:00", "2016-02-10T09:00:00-05:00"],
        "symbols": ["ACME", "BOLT"],
        "headline": ["ACME raises outlook", "BOLT cuts outlook"],
        "body": ["", ""],
    }
)


@pytest.mark.slow
def test_the_panel_passes_news_through_to_the_run(tmp_path: Path) -> None:
    async def go():
        built = panel(out_dir=tmp_path, data=BARS, news=NEWS, seeds="1")
        built.arms.value = ("headline_sentiment",)
        await built.start()
        return built

    (results,) = asyncio.run(go()).results
    assert results.meta["data"]["text"]["news_items"] == 2


def test_news_without_bars_is_refused_by_the_panel(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="join text to historical bars: pass data="):
        panel(out_dir=tmp_path, news=NEWS)


@pytest.mark.slow
def test_the_panel_takes_the_clis_text_options_and_a_model_cutoff(tmp_path: Path) -> None:
    names = tmp_path / "names.csv"
    names.write_text("symbol,name\nACME,Acme Industries\nBOLT,Bolt Systems\n")
    cutoff = str(sorted(BARS["date"].unique())[25])[:10]  # in the middle of the run

    async def go():
        built = panel(
            out_dir=tmp_path / "out",
            data=BARS,
            news=NEWS,
            seeds="1",
            company_names=names,
            embargo="1h",
            canaries=1,
            model_cutoff={"headline_sentiment": cutoff},
        )
        built.arms.value = ("headline_sentiment",)
        await built.start()
        return built

    (results,) = asyncio.run(go()).results
    assert results.meta["model_cutoff"] == {"headline_sentiment": cutoff}
    text = results.meta["data"]["text"]
    assert (text["news_items"], text["embargo"], text["canaries"]) == (2, "0 days 01:00:00", 1)


def test_text_options_without_bars_are_refused_by_the_panel(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"embargo= join text to historical bars: pass data="):
        panel(out_dir=tmp_path, embargo="15min")


def test_a_bad_embargo_is_refused_when_the_panel_is_built(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="embargo"):
        panel(out_dir=tmp_path, data=BARS, news=NEWS, embargo="soon")


@pytest.mark.parametrize(
    ("cutoff", "message"),
    [
        ({"nobody": "2016-02-20"}, r"names 'nobody', which is no arm offered here \(arms: .*"),
        ({"momentum": "yesterday"}, "model_cutoff of 'momentum' is 'yesterday', which is no date"),
        ({"momentum": 20160220}, "model_cutoff of 'momentum' is 20160220, which is no date"),
        ("momentum=2016", "model_cutoff of 'momentum' is '2016', which is no date"),
        ("momentum", "model_cutoff item 'momentum' is not ARM=DATE"),
    ],
)
def test_a_bad_model_cutoff_is_refused_when_the_panel_is_built(
    tmp_path: Path, cutoff: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        panel(out_dir=tmp_path, data=BARS, model_cutoff=cutoff)


def test_a_model_cutoff_without_bars_is_refused_when_the_panel_is_built(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="which the simulated market has not"):
        panel(out_dir=tmp_path, model_cutoff={"momentum": "2016-02-20"})


def test_the_panel_takes_the_clis_form_of_a_model_cutoff(tmp_path: Path) -> None:
    built = panel(out_dir=tmp_path, data=BARS, model_cutoff="momentum=2016-02-20,cash=2016-03-01")
    assert built.model_cutoff == {"cash": "2016-03-01", "momentum": "2016-02-20"}
