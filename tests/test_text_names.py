"""The company names the mask replaces: whose each is, what is text, the forms names= takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench import World
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError

BARS = sample_bars(days=40, names=3, seed=5)
NEWS = pd.DataFrame(
    [("2016-01-05T09:00:00Z", "ACME", "Acme Corp buys Bolt Systems", "")],
    columns=["published", "symbols", "headline", "body"],
)
SECRET = "names-secret-0123456789"


def load(names: Any) -> Historical:
    return Historical.load(BARS, news=NEWS, names=names, secret=SECRET)


def test_a_name_claimed_by_two_symbols_is_refused_naming_both() -> None:
    with pytest.raises(
        ConfigError, match=r"'Acme Corp' to both 'ACME' and 'BOLT'.*keep it for one"
    ):
        load({"ACME": ["Acme Corp"], "BOLT": ["Acme Corp"]})


@pytest.mark.parametrize("name", ["BOLT", "bolt", "Acme"])
def test_a_name_that_is_another_symbols_ticker_is_refused(name: str) -> None:
    owner, other = ("CRUX", "ACME") if name == "Acme" else ("ACME", "BOLT")
    with pytest.raises(
        ConfigError,
        match=rf"'{owner}' the company name '{name}', which is the "
        rf"ticker of '{other}'.*drop that name",
    ):
        load({owner: [name]})


def test_a_name_spelling_its_own_ticker_is_kept() -> None:
    assert load({"ACME": ["Acme", "Acme Corp"]}).text.names["ACME"] == ("Acme", "Acme Corp")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, "'ACME' None, which is not a company name"),
        (5, "'ACME' 5, which is not a company name"),
        (float("nan"), "'ACME' nan, which is not a company name"),
        ({"Acme": 1}, r"'ACME' \{'Acme': 1\}, which is not a company name"),
        (["Acme Corp", None], "'ACME' the company name None, which is not text"),
        (["Acme Corp", 5.0], "'ACME' the company name 5.0, which is not text"),
        ("???", "'ACME' the company name '\\?\\?\\?', which has no letter"),
        ("....", "'ACME' the company name '....', which has no letter"),
        (
            "Acme\x00",
            "'ACME' the company name 'Acme\\\\x00', which has no letter or holds a control",
        ),
    ],
)
def test_a_name_that_is_not_text_or_has_no_letter_is_refused(value: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load({"ACME": value})


@pytest.mark.parametrize("names", [["ACME", "Acme Corp"], ("ACME",), 3])
def test_names_in_another_form_are_refused_naming_the_forms(names: Any) -> None:
    with pytest.raises(ConfigError, match=r"not company names; pass a mapping symbol → name"):
        load(names)


def test_a_names_table_is_read_from_a_path_or_a_frame(tmp_path: Path) -> None:
    table = pd.DataFrame(
        {"symbol": ["ACME", "ACME", "BOLT"], "name": ["Acme Corp", "Acme", "Bolt Systems"]}
    )
    path = tmp_path / "names.csv"
    table.to_csv(path, index=False)
    expected = {"ACME": ("Acme Corp", "Acme"), "BOLT": ("Bolt Systems",)}
    for given in (path, str(path), table):
        assert dict(load(given).text.names) == expected
    data = load(str(path))
    alias = {real: alias for alias, real in data.mapping.items()}
    shown = World(data=data).path.text.item(0)["headline"]
    assert shown == f"{alias['ACME']} buys {alias['BOLT']}"


def test_a_names_table_with_a_name_claimed_twice_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "names.csv"
    path.write_text("symbol,name\nACME,Acme Corp\nBOLT,acme corp\n")
    with pytest.raises(ConfigError, match="'acme corp' to both 'ACME' and 'BOLT'"):
        load(path)


def named_bars(names: dict[str, str]) -> pd.DataFrame:
    bars = sample_bars(days=40, names=3, seed=5)
    return bars.assign(name=bars["symbol"].map(names))


@pytest.mark.parametrize(("name", "why"), [("The", "a word any text uses"), ("a", "two letters")])
def test_a_bars_name_column_is_checked_as_names_is(name: str, why: str) -> None:
    bars = named_bars({"ACME": name, "BOLT": "Bolt Systems", "CRUX": "Crux Labs"})
    with pytest.raises(ConfigError, match=rf"the bars' name column gives 'ACME' .*{why}"):
        Historical.load(bars, news=_one_item(bars))


def test_every_name_a_renamed_company_had_in_the_bars_is_masked() -> None:
    bars = named_bars({"ACME": "Facebook", "BOLT": "Bolt Systems", "CRUX": "Crux Labs"})
    dates = sorted(bars["date"].unique())
    bars.loc[(bars["symbol"] == "ACME") & (bars["date"] >= dates[30]), "name"] = "Meta Platforms"
    bars.loc[bars["symbol"] == "CRUX", "name"] = None  # a blank name names nothing
    data = Historical.load(bars, news=_one_item(bars), secret="names-secret-0123456789")
    assert data.text is not None
    assert data.text.names == {"ACME": ("Facebook", "Meta Platforms"), "BOLT": ("Bolt Systems",)}
    feed = World(data=data).path.text
    assert feed is not None
    alias = feed.alias_of["ACME"]
    assert feed.item(0)["body"] == f"{alias} renamed to {alias}."


def _one_item(bars: pd.DataFrame) -> pd.DataFrame:
    when = f"{sorted(bars['date'].unique())[25]}T10:00:00-05:00"
    return pd.DataFrame(
        {
            "published": [when],
            "symbols": ["ACME"],
            "headline": ["A note"],
            "body": ["Facebook renamed to Meta Platforms."],
        }
    )
