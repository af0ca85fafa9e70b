"""Record FinRobot as a process arm: ``python -m workbench.testing.finrobot_run``.

``make finrobot`` calls this after building ``.venv-finrobot`` (FinRobot 0.1.5,
autogen 0.2 and their real dependencies, numpy < 2) and ``.venv-llm`` (the
local model server): it starts SmolLM2 on llama.cpp's OpenAI-compatible server
(as ``make test-llm`` does), runs FinRobot in its own environment through
``finrobot_bridge.py`` (workbench-agent/2 on stdio) beside a baseline, writes
``recordings/finrobot-smollm2``, stops the server and replays the recording. The
recording replays in ``make test`` with FinRobot absent, like every other.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from workbench.integrations.process import ProcessAgentAdapter, process_agent

BRIDGE = Path(__file__).with_name("finrobot_bridge.py")
MARKET: dict[str, Any] = {"seed": 11, "universe": 3, "days": 3, "preset": "standard-v2"}
PORT = 8766


def finrobot_arm(python: str, base_url: str, model: str, **kwargs: Any) -> ProcessAgentAdapter:
    """FinRobot behind the bridge, in the environment whose interpreter is ``python``."""
    env = {"OPENAI_BASE_URL": base_url, "FINROBOT_MODEL": model}
    return process_agent([python, str(BRIDGE)], name="finrobot", env=env, **kwargs)


def record_finrobot(folder: Path, python: str, url: str, model: str, timeout: float) -> Any:
    from workbench.recordings import record

    arm = finrobot_arm(python, url, model, mode="record", timeout=timeout)
    started = time.perf_counter()
    results = record(folder, [arm, "buy_and_hold"], **MARKET, overwrite=True)
    print(results.scorecard[["decisions", "errors", "trades", "model_calls", "tokens"]])
    print(f"recorded {folder} in {time.perf_counter() - started:.0f}s")
    return results


def main(argv: list[str] | None = None) -> int:
    from workbench.recordings import replay
    from workbench.testing.smollm2 import MODEL, find_gguf, llama_server

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--python", default=".venv-finrobot/bin/python")
    parser.add_argument("--llm-python", default=".venv-llm/bin/python")
    parser.add_argument("--out", type=Path, default=Path("recordings/finrobot-smollm2"))
    parser.add_argument("--timeout", type=float, default=600.0)
    args = parser.parse_args(argv)
    log = Path("out/llama-server-finrobot.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    with llama_server(args.llm_python, find_gguf(args.llm_python), PORT, log) as url:
        record_finrobot(args.out, args.python, url, MODEL, args.timeout)
    replay(args.out, check=True)  # the server is gone: this replay cannot ask it
    print(f"{args.out}: replays with the server stopped")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
