"""The MCP front end under hostile but realistic input: loose numbers, oversized requests,
symbolic links in the run store, secrets in messages, and the audit line of every call."""

from __future__ import annotations

import json
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

from workbench import services
from workbench.errors import ConfigError
from workbench.evaluation import World
from workbench.mcp.audit import AUDIT_LOG, AuditLog
from workbench.mcp.server import build_server
from workbench.mcp.tools import Toolbox
from workbench.redaction import MARKER
from workbench.services import limits
from workbench.services.store import RunStore

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"
FAKE_KEY = "sk-test-" + "Qx4" * 12


def make_server(store: Path, services_: dict[str, Callable[..., Any]] | None = None) -> Any:
    runs = RunStore.open(store)
    audit = AuditLog(runs.root / AUDIT_LOG)
    return build_server(Toolbox(runs, audit, recordings=RECORDINGS, services=services_))


def call(server: Any, tool: str, arguments: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(go)


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def audit_lines(store: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (store / AUDIT_LOG).read_text().splitlines()]


@pytest.fixture
def spied(tmp_path: Path) -> tuple[Any, list[Any]]:
    """A server whose services only note that they were called."""
    called: list[Any] = []
    spies = {name: (lambda **k: called.append(k) or {}) for name in services.SERVICES}
    return make_server(tmp_path / "store", spies), called


# --- strict types: no bool or string where a number is expected --------------------------
LOOSE: list[tuple[str, dict[str, Any], str]] = [
    ("run_evaluation", {"arms": ["cash"], "capital": True}, "capital"),
    ("run_evaluation", {"arms": ["cash"], "capital": "1e6"}, "capital"),
    ("run_evaluation", {"arms": ["cash"], "leverage_cap": False}, "leverage_cap"),
    ("run_evaluation", {"arms": ["cash"], "fee_bps": "0.5"}, "fee_bps"),
    ("run_evaluation", {"arms": ["cash"], "universe": "40"}, "universe"),
    ("run_evaluation", {"arms": ["cash"], "names": "40"}, "names"),
    ("list_runs", {"limit": True}, "limit"),
    ("list_runs", {"limit": 2.0}, "limit"),
    ("list_runs", {"limit": "3"}, "limit"),
    ("compare_runs", {"arms": ["cash", "momentum"], "benchmark": "cash", "seeds": [True, 2]}, "0"),
    ("compare_runs", {"arms": ["cash", "momentum"], "benchmark": "cash", "seeds": [1.0]}, "0"),
    ("compare_runs", {"arms": ["cash", "momentum"], "benchmark": "cash", "seeds": ["1"]}, "0"),
    (
        "compare_runs",
        {"arms": ["cash", "momentum"], "benchmark": "cash", "seeds": [1], "confidence": True},
        "confidence",
    ),
    (
        "compare_runs",
        {"arms": ["cash", "momentum"], "benchmark": "cash", "seeds": [1], "days": 2.0},
        "days",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "field"), LOOSE)
@pytest.mark.slow
def test_loose_numbers_are_refused_before_the_service_is_called(
    spied: tuple[Any, list[Any]], tool: str, arguments: dict[str, Any], field: str
) -> None:
    server, called = spied
    result = call(server, tool, arguments)
    assert result.is_error, f"{tool} accepted {arguments}"
    assert "invalid arguments (nothing was run)" in text(result) and field in text(result)
    assert called == []


def test_whole_numbers_are_still_accepted_where_a_decimal_is_expected(
    spied: tuple[Any, list[Any]],
) -> None:
    server, _ = spied
    result = call(server, "run_evaluation", {"arms": ["cash"], "capital": 500000})
    assert not result.is_error, text(result)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"capital": True}, "capital must be a number"),
        ({"capital": "1e6"}, "capital must be a number"),
        ({"fee_bps": float("nan")}, "fee_bps must be a finite number"),
        ({"universe": True}, "universe must be a whole number"),
        ({"days": "3"}, "days must be a whole number"),
        ({"seed": 2.0}, "seed must be a non-negative whole number"),
    ],
)
def test_the_services_refuse_loose_numbers_too(
    tmp_path: Path, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        services.run_evaluation(tmp_path, ["cash"], **arguments)
    assert not any(p.is_dir() for p in tmp_path.iterdir())


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"seeds": [True, 2]}, "seeds must be non-negative whole numbers"),
        ({"seeds": [1], "confidence": "0.9"}, "confidence must be a number"),
        ({"seeds": [1], "confidence": True}, "confidence must be a number"),
    ],
)
def test_compare_refuses_loose_numbers(
    tmp_path: Path, arguments: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        services.compare_runs(tmp_path, ["cash", "momentum"], "cash", **arguments)


def test_list_runs_refuses_a_loose_limit(tmp_path: Path) -> None:
    for limit in (True, 2.0, "3"):
        with pytest.raises(ConfigError, match="limit must be a whole number"):
            services.list_runs(tmp_path, limit=limit)


# --- the work estimate: warm-up days, memory, and a total for many seeds ------------------
def test_the_estimate_counts_the_warm_up_days_the_world_simulates() -> None:
    for steps in (1, 3, 6, 20, 100):
        world = World(universe=5, days=1, steps_per_day=steps)
        size = limits.estimate(["cash"], 5, 1, steps, 65)
        assert size.warmup_days == world.warmup_days
    one_step = limits.estimate(["cash"], 100, 1, 1, 65)
    assert one_step.name_ticks == 100 * (1 + 20) * 65  # 21 times the trading days alone


def test_warm_up_days_count_towards_the_name_tick_limit(tmp_path: Path) -> None:
    # 4,000 names x 50 days x 1 step x 1,000 ticks is exactly the limit without warm-up;
    # the 20 warm-up days make it 1.4 times that, so it is refused, naming them
    with pytest.raises(ConfigError, match="20 warm-up days") as refused:
        services.run_evaluation(
            tmp_path, ["cash"], universe=4000, days=50, steps_per_day=1, ticks_per_step=1000
        )
    assert "280,000,000 name-ticks" in str(refused.value)
    assert "nothing was run" in str(refused.value)
    assert not any(p.is_dir() for p in tmp_path.iterdir())


def test_a_request_that_would_exhaust_memory_is_refused_with_the_numbers(tmp_path: Path) -> None:
    # under the name-tick limit, but one day of 2,500 names x 20 steps x 1,000 ticks
    # holds 50 million ticks at once
    with pytest.raises(ConfigError, match=r"MiB of memory") as refused:
        services.run_evaluation(
            tmp_path, ["cash"], universe=2500, days=1, steps_per_day=20, ticks_per_step=1000
        )
    assert f"limit of {limits.MAX_MEMORY_BYTES / 2**20:,.0f} MiB" in str(refused.value)


def test_arm_work_is_counted_per_name_step(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="arm name-steps"):
        services.run_evaluation(
            tmp_path,
            ["cash", "momentum"],
            universe=1000,
            days=1500,
            steps_per_day=1,
            ticks_per_step=1,
        )


def test_a_multi_seed_request_has_a_total_budget(tmp_path: Path) -> None:
    seeds = list(range(200))
    with pytest.raises(ConfigError, match="200 seeds in total") as refused:
        services.compare_runs(
            tmp_path, ["cash", "momentum"], "cash", seeds, universe=500, days=100, ticks_per_step=65
        )
    assert "nothing was run" in str(refused.value)
    assert not any(p.is_dir() for p in tmp_path.iterdir())


@pytest.mark.slow
def test_the_memory_estimate_holds_for_what_a_run_really_allocates(tmp_path: Path) -> None:
    # the Python and NumPy heap only (tracemalloc); bench/service_limits.py measures RSS
    shapes = [
        (["cash", "mean_reversion"], 40, 100, 1, 10),  # trading every step: arm-bound
        (["cash"], 200, 1, 10, 200),  # one day of many ticks: tick-bound
    ]
    for arms, names, days, steps, ticks in shapes:
        size = limits.estimate(arms, names, days, steps, ticks)
        tracemalloc.start()
        try:
            services.run_evaluation(
                tmp_path, arms, universe=names, days=days, steps_per_day=steps, ticks_per_step=ticks
            )
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < size.memory_bytes - limits.PROCESS_BYTES, (arms, names, days, peak)


def test_an_out_of_memory_failure_is_not_called_a_bug(tmp_path: Path) -> None:
    def exhausted(**_: Any) -> dict[str, Any]:
        raise MemoryError

    server = make_server(tmp_path / "store", {"list_presets": exhausted})
    result = call(server, "list_presets", {})
    assert result.is_error and "ran out of memory" in text(result)
    assert "workbench bug" not in text(result)


# --- symbolic links in the run store -------------------------------------------------------
@pytest.fixture
def store_with_links(tmp_path: Path) -> tuple[Path, str, Path]:
    store = tmp_path / "store"
    outside = tmp_path / "outside-secret-place"
    outside.mkdir()
    (outside / "loot.txt").write_text("not yours")
    answer = services.run_evaluation(store, ["cash"], universe=3, days=1)
    run_id = answer["run_id"]
    os.symlink(outside / "loot.txt", store / run_id / "loot.txt")
    os.symlink(outside, store / run_id / "loot-dir")
    os.symlink(outside, store / "evaluation-linked000000")
    os.symlink(store / run_id, store / "evaluation-inside00000")
    return store, run_id, outside


@pytest.mark.slow
def test_get_run_skips_links_inside_a_run_and_never_names_their_target(
    store_with_links: tuple[Path, str, Path],
) -> None:
    store, run_id, outside = store_with_links
    server = make_server(store)
    result = call(server, "get_run", {"run_id": run_id})
    assert not result.is_error, text(result)
    answer = result.structured_content
    assert f"{run_id}/results.json" in answer["files"]
    assert all("loot" not in name for name in answer["files"])
    assert sorted(answer["links_skipped"]) == [f"{run_id}/loot-dir", f"{run_id}/loot.txt"]
    assert str(outside) not in json.dumps(answer)
    assert str(outside) not in (store / AUDIT_LOG).read_text()


@pytest.mark.slow
def test_one_linked_folder_at_the_store_root_hides_no_other_run(
    store_with_links: tuple[Path, str, Path],
) -> None:
    store, run_id, outside = store_with_links
    (store / "evaluation-broken00000").mkdir()
    (store / "evaluation-broken00000" / "manifest.json").write_text("{not json")
    answer = services.list_runs(store)
    assert [row["run_id"] for row in answer["runs"]] == [run_id]
    skipped = {row["name"]: row["why"] for row in answer["skipped"]}
    assert set(skipped) == {
        "evaluation-linked000000",
        "evaluation-inside00000",
        "evaluation-broken00000",
    }
    assert "symbolic link" in skipped["evaluation-linked000000"]
    assert str(outside) not in json.dumps(answer)


@pytest.mark.parametrize("tool", ["get_run", "render_report"])
@pytest.mark.slow
def test_a_linked_run_folder_is_refused_by_name_without_its_target(
    store_with_links: tuple[Path, str, Path], tool: str
) -> None:
    store, _, outside = store_with_links
    server = make_server(store)
    for linked in ("evaluation-linked000000", "evaluation-inside00000"):
        result = call(server, tool, {"run_id": linked})
        assert result.is_error
        assert "symbolic link" in text(result) and "unexpectedly" not in text(result)
        assert str(outside) not in text(result)
    assert str(outside) not in (store / AUDIT_LOG).read_text()


@pytest.mark.slow
def test_a_linked_report_or_manifest_is_refused(store_with_links: tuple[Path, str, Path]) -> None:
    store, run_id, outside = store_with_links
    os.symlink(outside / "loot.txt", store / run_id / "report.html")
    with pytest.raises(ConfigError, match="symbolic link"):
        services.render_report(store, run_id)
    manifest = store / run_id / "manifest.json"
    (outside / "manifest.json").write_bytes(manifest.read_bytes())
    manifest.unlink()
    os.symlink(outside / "manifest.json", manifest)
    assert services.list_runs(store)["runs"] == []
    with pytest.raises(Exception, match="symbolic link") as refused:
        services.get_run(store, run_id)
    assert str(outside) not in str(refused.value)


# --- secrets and the audit log -------------------------------------------------------------
def test_secrets_in_arguments_and_errors_are_redacted_from_replies_and_the_audit_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BROKER_API_KEY", "correct-horse-battery-staple")
    store = tmp_path / "store"
    server = make_server(store)
    for arguments in ({"name": FAKE_KEY}, {"name": "x correct-horse-battery-staple"}):
        result = call(server, "describe_preset", arguments)
        assert result.is_error and MARKER in text(result)
        assert FAKE_KEY not in text(result) and "correct-horse" not in text(result)
    refused = call(server, "describe_preset", {FAKE_KEY: 1})
    assert refused.is_error and FAKE_KEY not in text(refused)
    log = (store / AUDIT_LOG).read_text()
    assert FAKE_KEY not in log and "correct-horse" not in log and MARKER in log


def test_every_call_that_reaches_its_service_logs_a_start_and_an_end(tmp_path: Path) -> None:
    store = tmp_path / "store"
    seen: list[list[str]] = []

    def watching(**_: Any) -> dict[str, Any]:
        seen.append([e["outcome"] for e in audit_lines(store)])  # while the call runs
        return {}

    server = make_server(store, {"list_presets": watching})
    call(server, "list_presets", {})
    assert seen == [["started"]]
    start, end = audit_lines(store)
    assert (start["outcome"], end["outcome"]) == ("started", "ok")
    assert start["call"] == end["call"] and start["tool"] == end["tool"] == "list_presets"


def test_the_sized_tools_state_their_limits_in_their_descriptions(tmp_path: Path) -> None:
    async def go() -> Any:
        async with Client(make_server(tmp_path / "store")) as client:
            return {tool.name: tool.description for tool in (await client.list_tools()).tools}

    descriptions = anyio.run(go)
    for tool in ("run_evaluation", "compare_runs"):
        assert f"{limits.MAX_NAME_TICKS:,} name-ticks" in descriptions[tool]
        assert "warm-up days" in descriptions[tool]
    assert f"{limits.MAX_TOTAL_NAME_TICKS:,} name-ticks" in descriptions["compare_runs"]
