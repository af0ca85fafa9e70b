"""The payload reference page is generated from the schemas and matches what arms receive."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from workbench.evaluation import evaluate
from workbench.evaluation.payload_fields import PAYLOAD_FIELDS, fields_of_schema, keys_of
from workbench.evaluation.payload_page import main, render_page
from workbench.integrations import callable_agent

PAGE = Path(__file__).resolve().parents[1] / "docs" / "payload.md"


def keys_sent(preset: str, universe: int, days: int) -> set[str]:
    """Every key path of every payload a trading arm asked at every step was sent."""
    seen: set[str] = set()

    def trade(payload: dict[str, Any]) -> dict[str, Any]:
        seen.update(keys_of(payload))
        first = sorted(payload["symbols"])[0]
        side = "sell" if payload["portfolio"]["positions"] else "buy"
        return {"actions": [{"symbol": first, "side": side, "quantity": 10}]}

    arm = callable_agent(trade, name="reader", every="step")
    evaluate([arm], preset=preset, seed=7, universe=universe, days=days)
    return seen


def paths(version: str) -> set[str]:
    return {f.path for f in fields_of_schema(version)}


def test_a_price_only_payload_carries_exactly_the_schema_1_keys() -> None:
    assert keys_sent("standard-v1", universe=3, days=2) == paths("1")


@pytest.mark.slow
def test_a_payload_with_news_carries_exactly_the_schema_2_keys() -> None:
    # 60 days x 10 names releases every kind of item, reports and consensus included
    assert keys_sent("standard-v2", universe=10, days=60) == paths("2")


def test_a_key_the_table_lacks_is_found() -> None:
    payload = {"symbols": {"AAA": {"last": 1.0, "beta": 1.2}}, "news": [{"id": 1, "mood": 3}]}
    undocumented = keys_of(payload) - {f.path for f in PAYLOAD_FIELDS}
    assert undocumented == {"symbols.<symbol>.beta", "news[].mood"}


@pytest.mark.slow
def test_the_page_is_what_the_schemas_give() -> None:
    assert PAGE.read_text() == render_page(), (
        "docs/payload.md is stale: run `python -m workbench.evaluation.payload_page "
        "docs/payload.md` and commit it"
    )


@pytest.mark.slow
def test_the_check_fails_on_a_stale_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "payload.md"
    assert main([str(page)]) == 0 and main([str(page), "--check"]) == 0
    page.write_text(page.read_text().replace("`portfolio.cash`", "`portfolio.money`"))
    assert main([str(page), "--check"]) == 1
    assert "is not what the schemas give" in capsys.readouterr().err
