"""The MCP surface against the service core: parity, reach, descriptions, refusals, audit, wall."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args, get_type_hints

import anyio
import pytest

pytest.importorskip("mcp")

from mcp import Client

from workbench.mcp import DEFERRED_PARAMS, EXPOSED_TOOLS, FORBIDDEN_TOOLS, reproduce
from workbench.mcp.audit import AUDIT_LOG, AuditLog
from workbench.mcp.server import build_server, check_wall
from workbench.mcp.tools import TOOL_METRICS, Toolbox
from workbench.services import SERVICES
from workbench.services.glossary import CAVEATS, COMPARISON, METRICS
from workbench.services.store import RunStore

RECORDINGS = Path(__file__).resolve().parents[1] / "recordings"

# A non-default value for every exposed argument of every tool; ``names``, the old name of
# ``universe``, is refused beside it by the tool itself, so it is sent alone (OLD_NAMES).
OLD_NAMES = {"names": "universe"}
SAMPLES: dict[str, dict[str, Any]] = {
    "list_presets": {},
    "describe_preset": {"name": "calm-v1"},
    "diff_presets": {"a": "calm-v1", "b": "crisis-v1"},
    "list_agents": {},
    "metrics_glossary": {},
    "run_evaluation": {
        "arms": ["momentum", "cash"],
        "seed": 11,
        "preset": "calm-v1",
        "universe": 9,
        "days": 4,
        "steps_per_day": 3,
        "ticks_per_step": 20,
        "capital": 500_000.0,
        "leverage_cap": 1.5,
        "fee_bps": 1.25,
    },
    "compare_runs": {
        "arms": ["cash", "momentum"],
        "benchmark": "momentum",
        "seeds": [4, 5],
        "metric": "sharpe",
        "confidence": 0.9,
        "method": "bootstrap",
        "preset": "turbulent-v1",
        "universe": 7,
        "days": 2,
        "steps_per_day": 2,
        "ticks_per_step": 30,
    },
    "replay_recording": {"name": "callable-sync-trend"},
    "render_report": {"run_id": "evaluation-000000000000"},
    "list_runs": {"kind": "replay", "limit": 7},
    "get_run": {"run_id": "evaluation-000000000000"},
    "compare_stored_runs": {"a": "evaluation-000000000000", "b": "evaluation-111111111111"},
}


def make_server(store: Path, services: dict[str, Callable[..., Any]] | None = None) -> Any:
    runs = RunStore.open(store)
    toolbox = Toolbox(
        runs, AuditLog(runs.root / AUDIT_LOG), recordings=RECORDINGS, services=services
    )
    return build_server(toolbox)


def call(server: Any, tool: str, arguments: dict[str, Any]) -> Any:
    async def go() -> Any:
        async with Client(server) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(go)


def listed(server: Any) -> dict[str, Any]:
    async def go() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in anyio.run(go)}


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content)


def store_files(root: Path) -> dict[str, bytes]:
    """The run store's files, without the audit log (which every call appends to)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.name != AUDIT_LOG
    }


@pytest.fixture
def server(tmp_path: Path) -> Any:
    return make_server(tmp_path / "store")


# --- the wall and the surface --------------------------------------------------------
def test_exposed_and_forbidden_tools_are_disjoint_and_the_server_lists_exactly_the_exposed(
    server: Any,
) -> None:
    assert not EXPOSED_TOOLS & FORBIDDEN_TOOLS
    assert set(listed(server)) == EXPOSED_TOOLS
    assert set(SERVICES) == EXPOSED_TOOLS
    with pytest.raises(Exception, match="forbidden"):
        check_wall(EXPOSED_TOOLS | {"record_recording"})
    with pytest.raises(Exception, match="differ"):
        check_wall(EXPOSED_TOOLS - {"get_run"})


def keyword_parameters(service: Callable[..., Any]) -> set[str]:
    """A service's parameter names, with ``**keywords: Unpack[SomeTypedDict]`` spelt out."""
    names = set()
    hints = get_type_hints(service, include_extras=True)
    for parameter in inspect.signature(service).parameters.values():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            (typed,) = get_args(hints[parameter.name])
            names |= set(typed.__annotations__)
        else:
            names.add(parameter.name)
    return names


def test_every_service_parameter_is_exposed_or_deferred_with_a_reason(server: Any) -> None:
    tools = listed(server)
    for name in sorted(EXPOSED_TOOLS):
        service_params = keyword_parameters(SERVICES[name])
        exposed = set(tools[name].input_schema.get("properties", {}))
        deferred = DEFERRED_PARAMS.get(name, {})
        assert exposed <= service_params, f"{name} exposes what its service does not take"
        assert not exposed & set(deferred), f"{name} both exposes and defers a parameter"
        missing = service_params - exposed - set(deferred)
        assert not missing, f"{name}: {sorted(missing)} neither exposed nor in DEFERRED_PARAMS"
        assert all(len(reason) > 40 for reason in deferred.values())
    assert set(DEFERRED_PARAMS) <= EXPOSED_TOOLS


@pytest.mark.slow
def test_every_exposed_argument_reaches_its_service(tmp_path: Path) -> None:
    received: dict[str, dict[str, Any]] = {}

    def spy(tool: str) -> Callable[..., dict[str, Any]]:
        def service(**kwargs: Any) -> dict[str, Any]:
            received[tool] = kwargs
            return {"spied": tool}

        return service

    server = make_server(tmp_path / "store", {name: spy(name) for name in EXPOSED_TOOLS})
    tools = listed(server)
    assert set(SAMPLES) == EXPOSED_TOOLS
    for name, sample in SAMPLES.items():
        properties = tools[name].input_schema.get("properties", {})
        old = {k: v for k, v in OLD_NAMES.items() if k in properties}
        assert set(sample) == set(properties) - set(old), f"SAMPLES[{name!r}]: every argument"
        for old_name, new_name in old.items():
            renamed = {**{k: v for k, v in sample.items() if k != new_name}, old_name: 8}
            assert not call(server, name, renamed).is_error
            assert received.pop(name)[old_name] == 8
        for arg, value in sample.items():
            assert value != properties[arg].get("default"), f"{name}.{arg}: use a non-default"
        result = call(server, name, sample)
        assert not result.is_error, text(result)
        got = received.pop(name)
        assert {k: got[k] for k in sample} == sample
        bound = set(got) - set(sample) - set(old)
        assert bound == set(DEFERRED_PARAMS.get(name, {}))
        if "store" in bound:
            assert got["store"].root == (tmp_path / "store").resolve()
        if "recordings" in bound:
            assert got["recordings"] == RECORDINGS


# --- descriptions are a contract -----------------------------------------------------
def test_descriptions_carry_the_glossary_and_the_withheld_parameters(server: Any) -> None:
    tools = listed(server)
    for name, tool in tools.items():
        assert len(tool.description) > 150, f"{name} needs a substantive description"
        assert "refused, never ignored" in tool.description
        for param, reason in DEFERRED_PARAMS.get(name, {}).items():
            assert param in tool.description and reason in tool.description
        for metric in TOOL_METRICS.get(name, ()):
            definition = {**METRICS, **COMPARISON}[metric][0]
            assert definition in tool.description, f"{name}: glossary text for {metric}"
        for arg, schema in tool.input_schema.get("properties", {}).items():
            assert schema.get("description"), f"{name}.{arg} has no description"
    assert "Holm" in tools["compare_runs"].description


@pytest.mark.slow
def test_rankings_carry_their_caveats_as_data(server: Any) -> None:
    result = call(
        server, "run_evaluation", {"arms": ["cash", "momentum"], "universe": 6, "days": 2}
    )
    ranking = result.structured_content["ranking"]
    assert ranking["seeds"] == 1 and ranking["arms_compared"] == 2
    assert ranking["evidence"].startswith("in-sample")
    assert ranking["caveats"] and ranking["evaluations_in_store"] == 1
    assert ranking["trials_in_store"] == 1 and CAVEATS["trials"] in ranking["caveats"]
    again = call(server, "run_evaluation", {"arms": ["cash", "momentum"], "universe": 6, "days": 2})
    assert again.structured_content["ranking"]["trials_in_store"] == 1  # a repeat: no trial
    assert "trials" in listed(server)["compare_runs"].description


# --- unknown arguments are refused ---------------------------------------------------
def test_a_typo_is_refused_with_the_nearest_real_parameter(tmp_path: Path) -> None:
    called: list[Any] = []
    server = make_server(tmp_path / "s", {n: lambda **k: called.append(k) or {} for n in SERVICES})
    result = call(server, "run_evaluation", {"arms": ["cash"], "sead": 3})
    assert result.is_error
    message = text(result)
    assert "run_evaluation does not accept: sead." in message
    assert "not a parameter of this tool. Did you mean 'seed'?" in message
    assert "Refused rather than ignored" in message
    assert called == []


def test_a_withheld_parameter_is_refused_with_its_reason(tmp_path: Path) -> None:
    server = make_server(tmp_path / "s")
    result = call(server, "replay_recording", {"name": "x", "recordings": "/tmp", "stor": "/"})
    message = text(result)
    assert result.is_error
    assert "recordings: withheld from this tool on purpose" in message
    assert DEFERRED_PARAMS["replay_recording"]["recordings"] in message
    assert "stor: not a parameter of this tool" in message


def test_when_in_doubt_about_a_schema_nothing_is_refused() -> None:
    from workbench.mcp.server import _declared

    assert _declared({"properties": {"a": {}}}) == {"a"}
    assert _declared({"properties": {"a": {}}, "additionalProperties": True}) is None
    assert _declared({"type": "object"}) is None


# --- the audit log -------------------------------------------------------------------
@pytest.mark.slow
def test_the_audit_log_reproduces_a_call_exactly(tmp_path: Path) -> None:
    server = make_server(tmp_path / "store")
    arguments = {"arms": ["buy_and_hold", "random"], "seed": 5, "universe": 6, "days": 3}
    result = call(server, "run_evaluation", arguments)
    call(server, "replay_recording", {"name": "callable-async-contrarian"})
    log = tmp_path / "store" / AUDIT_LOG
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [e["outcome"] for e in lines] == ["started", "ok", "started", "ok"]
    assert lines[0]["call"] == lines[1]["call"] != lines[2]["call"] == lines[3]["call"]
    evaluation, replay = lines[1], lines[3]
    assert evaluation["tool"] == "run_evaluation" and evaluation["outcome"] == "ok"
    assert evaluation["arguments"] == {  # validated: defaults filled in, types settled
        **arguments,
        "preset": None,
        "names": None,
        "steps_per_day": 6,
        "ticks_per_step": 65,
        "capital": 1_000_000.0,
        "leverage_cap": 2.0,
        "fee_bps": 0.5,
    }
    assert evaluation["run_id"] == result.structured_content["run_id"]
    assert evaluation["version"] and evaluation["time"].endswith("Z")
    assert evaluation["summary"]["results_digest"] == result.structured_content["results_digest"]
    for entry in (evaluation, replay):
        again = reproduce(entry, store=tmp_path / "elsewhere")
        assert again == entry["summary"]


@pytest.mark.slow
def test_the_audit_log_is_append_only_and_records_refusals(tmp_path: Path) -> None:
    server = make_server(tmp_path / "store")
    log = tmp_path / "store" / AUDIT_LOG
    call(server, "list_presets", {})
    first = log.read_bytes()
    call(server, "describe_preset", {"nam": "calm-v1"})
    call(server, "describe_preset", {"name": 5})
    call(server, "describe_preset", {"name": "calm-v9"})
    assert log.read_bytes().startswith(first)
    outcomes = [json.loads(line)["outcome"] for line in log.read_text().splitlines()]
    assert outcomes == ["started", "ok", "refused", "invalid", "started", "error"]
    for line in log.read_text().splitlines()[2:4]:
        with pytest.raises(Exception, match="nothing ran"):
            reproduce(json.loads(line))


# --- bad input to every tool -----------------------------------------------------------
BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("list_presets", {"verbose": True}, "does not accept: verbose"),
    ("describe_preset", {"name": 5}, "name: Input should be a valid string"),
    ("describe_preset", {"name": "calmm-v1"}, "Did you mean 'calm-v1'"),
    ("diff_presets", {"a": "standard-v1"}, "b: Field required"),
    ("diff_presets", {"a": "standard-v1", "b": "nope-v1"}, "unknown preset 'nope-v1'"),
    ("list_agents", {"recordings": "/etc"}, "recordings: withheld"),
    ("metrics_glossary", {"metric": "sharpe"}, "does not accept: metric"),
    ("run_evaluation", {"arms": "cash"}, "arms: Input should be a valid list"),
    ("run_evaluation", {"arms": ["cash"], "seed": "abc"}, "seed: Input should be a valid int"),
    ("run_evaluation", {"arms": ["cash"], "preset": "nope-v1"}, "unknown preset 'nope-v1'"),
    ("run_evaluation", {"arms": ["cash"], "days": 0}, "days: Input should be greater"),
    ("run_evaluation", {"arms": ["cash"], "days": True}, "days: Input should be a valid int"),
    ("run_evaluation", {"arms": ["cash"], "seed": 2.0}, "seed: Input should be a valid int"),
    ("run_evaluation", {"arms": ["cash"], "store": "/tmp/x"}, "store: withheld"),
    ("run_evaluation", {"arms": ["cahs"]}, "Did you mean 'cash'"),
    (
        "run_evaluation",
        {"arms": ["cash"], "universe": 5000, "days": 900},
        "above the service limit",
    ),
    ("compare_runs", {"arms": ["cash"], "benchmark": "cash", "seeds": "1,2"}, "seeds: Input"),
    ("compare_runs", {"arms": ["cash", "momentum"], "benchmark": "random", "seeds": [1]}, "must"),
    (
        "compare_runs",
        {"arms": ["cash", "random"], "benchmark": "cash", "seeds": [1], "preset": "x"},
        "unknown preset",
    ),
    ("replay_recording", {"name": "../../etc/passwd"}, "recordings folder are refused"),
    ("replay_recording", {"name": 3}, "name: Input should be a valid string"),
    ("replay_recording", {"name": "no-such-recording"}, "no recording 'no-such-recording'"),
    ("render_report", {"run_id": "../../etc/passwd"}, "Paths outside the run store are refused"),
    ("render_report", {"run_id": "evaluation-000000000000"}, "no run 'evaluation-000000000000'"),
    ("list_runs", {"limit": "ten"}, "limit: Input should be a valid int"),
    ("list_runs", {"kind": "all"}, "kind: Input should be"),
    ("get_run", {"run_id": "../../etc/passwd"}, "Paths outside the run store are refused"),
    ("get_run", {"run_id": "/etc/passwd"}, "Paths outside the run store are refused"),
    ("get_run", {}, "run_id: Field required"),
    ("compare_stored_runs", {"a": "../../etc", "b": "x"}, "outside the run store are refused"),
    ("compare_stored_runs", {"a": "evaluation-000000000000", "b": "x"}, "no run 'evaluation-00"),
    ("compare_stored_runs", {"a": "x"}, "b: Field required"),
]


def test_every_tool_has_bad_input_cases() -> None:
    assert {tool for tool, _, _ in BAD_CALLS} == EXPOSED_TOOLS


@pytest.mark.parametrize(("tool", "arguments", "expected"), BAD_CALLS)
@pytest.mark.slow
def test_bad_input_is_a_tool_error_with_a_clear_message_and_the_store_is_unchanged(
    tmp_path: Path, tool: str, arguments: dict[str, Any], expected: str
) -> None:
    store = tmp_path / "store"
    server = make_server(store)
    call(server, "run_evaluation", {"arms": ["cash"], "universe": 5, "days": 2})
    before = store_files(store)
    result = call(server, tool, arguments)
    assert result.is_error
    message = text(result)
    assert expected in message
    assert "Error executing tool" not in message or "invalid arguments" in message
    assert store_files(store) == before
    last = json.loads((store / AUDIT_LOG).read_text().splitlines()[-1])
    assert last["tool"] == tool and last["outcome"] in ("refused", "invalid", "error")
