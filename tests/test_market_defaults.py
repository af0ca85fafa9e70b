"""The simulated market's defaults live in one place, ``MARKET_DEFAULTS``, and every front
end takes them from there: ``World``, the services, ``workbench evaluate``/``record`` and
the MCP tool schemas."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any, get_args, get_type_hints

import pytest

from workbench.cli import main
from workbench.evaluation import MARKET_DEFAULTS, World
from workbench.services.evaluation import MarketRequest

SHAPE = dataclasses.asdict(MARKET_DEFAULTS)


def test_a_world_left_to_its_defaults_has_the_default_shape() -> None:
    world = World(seed=0)
    built = {
        "universe": len(world.universe.symbols),
        "days": world.days,
        "steps_per_day": world.steps_per_day,
        "ticks_per_step": world.ticks_per_step,
    }
    assert built == SHAPE


def test_a_stored_request_defaults_to_the_same_market() -> None:
    request = MarketRequest()
    assert (request.universe, request.days, request.steps_per_day, request.ticks_per_step) == tuple(
        SHAPE.values()
    )


@pytest.mark.parametrize("tool", ["run_evaluation", "compare_runs"])
def test_the_mcp_schemas_show_the_defaults(tool: str) -> None:
    pytest.importorskip("pydantic")
    from workbench.mcp.tools import Toolbox

    parameters = inspect.signature(getattr(Toolbox, tool)).parameters
    shown = {key: parameters[key].default for key in SHAPE.keys() - {"universe"}}
    assert shown == {key: SHAPE[key] for key in shown}
    # null = the default, so that universe= beside the deprecated names= can be refused
    assert parameters["universe"].default is None
    hint = get_type_hints(getattr(Toolbox, tool), include_extras=True)["universe"]
    described = " ".join(m.description or "" for m in get_args(hint)[1:])
    assert f"null = {MARKET_DEFAULTS.universe} (the default)" in described


def test_the_cli_flags_say_the_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert f"synthetic universe size (default {MARKET_DEFAULTS.universe})" in shown
    assert f"trading days (default {MARKET_DEFAULTS.days};" in shown
    assert f"decision points per day (default {MARKET_DEFAULTS.steps_per_day})" in shown
    assert f"ticks per step (default {MARKET_DEFAULTS.ticks_per_step})" in shown


def test_record_without_a_shape_asks_for_the_default_market(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}

    def record(path: Path, arms: list[Any], **market: Any) -> Any:
        seen.update(market)
        raise SystemExit(0)

    monkeypatch.setattr("workbench.recordings.record", record)
    with pytest.raises(SystemExit):
        main(["record", str(tmp_path / "rec"), "--arms", "momentum"])
    assert (seen["universe"], seen["days"]) == (MARKET_DEFAULTS.universe, MARKET_DEFAULTS.days)
    assert seen["steps_per_day"] is seen["ticks_per_step"] is None  # World's defaults apply
