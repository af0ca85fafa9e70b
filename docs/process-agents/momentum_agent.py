"""A workbench-agent/2 agent in plain Python: buys the name that rose most, one line at a time."""

import json
import sys

PROTOCOL = "workbench-agent/2"


def decide(payload):
    quotes, held = payload["symbols"], payload["portfolio"]["positions"]
    best = max(quotes, key=lambda s: quotes[s]["last"] / quotes[s]["history"][0])
    if held.get(best):
        return {"actions": [], "rationale": f"already hold {best}"}
    order = {"symbol": best, "side": "buy", "quantity": 10}
    return {"actions": [order], "rationale": f"{best} rose most"}


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        answer = {"type": "hello", "protocol": PROTOCOL}
    else:
        decision = decide(message["payload"])
        answer = {"type": "decision", "id": message["id"], "decision": decision}
    print(json.dumps(answer), flush=True)
