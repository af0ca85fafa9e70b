"""Record FinRobot as a process arm: ``python -m workbench.testing.finrobot_run FOLDER``.

``make finrobot`` calls this after building ``.venv-finrobot`` and starting the
local model server: FinRobot runs in its own environment through
``finrobot_bridge.py`` (workbench-agent/1 on stdio), beside a baseline, on the
small market the other real-model recordings use. The recording replays with
FinRobot absent, like every other.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from workbench.integrations.process import ProcessAgentAdapter, process_agent

BRIDGE = Path(__file__).with_name("finrobot_bridge.py")
MARKET: dict[str, Any] = {"seed": 11, "universe": 5, "days": 3}


def finrobot_arm(python: str, base_url: str, model: str, **kwargs: Any) -> ProcessAgentAdapter:
    """FinRobot behind the bridge, in the environment whose interpreter is ``python``."""
    env = {"OPENAI_BASE_URL": base_url, "FINROBOT_MODEL": model}
    return process_agent([python, str(BRIDGE)], name="finrobot", env=env, **kwargs)


def main() -> None:
    from workbench.recordings import record

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--python", default=".venv-finrobot/bin/python")
    parser.add_argument("--base-url", default="http://127.0.0.1:8765/v1")
    parser.add_argument("--model", default="smollm2")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args()
    arm = finrobot_arm(args.python, args.base_url, args.model, mode="record", timeout=args.timeout)
    results = record(args.folder, [arm, "buy_and_hold"], **MARKET, overwrite=True)
    print(results.scorecard[["decisions", "errors", "trades", "model_calls", "tokens"]])
    print(f"recorded {args.folder}")


if __name__ == "__main__":
    main()
