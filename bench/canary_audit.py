"""What the canary audit costs a run: an arm that writes its whole payload as its rationale
every day, on the example-sized sample bars with news and fundamentals, run with
``canaries=3`` (every rationale read for nine canaries) and with none (nothing read),
timed in turn; and the audit of one large text (a model input) against a plain
case-folded substring search of the same tokens, the cheapest reading there is.

    PYTHONPATH=. python bench/canary_audit.py
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
from _timing import best_of_interleaved

from workbench import Agent, evaluate
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.evaluation.canaries import canary_hits

BARS = sample_bars(days=250, names=6, seed=3)
DATES = sorted(BARS["date"].unique())
SYMBOLS = sorted(BARS["symbol"].unique())


def stamp(row: int) -> str:
    return pd.Timestamp(f"{DATES[row]} 09:00").tz_localize("America/New_York").isoformat()


NEWS = pd.DataFrame(
    [
        (stamp(r), s, f"{s} item {r}", f"{s} said sales rose {r}%.")
        for r in range(250)
        for s in SYMBOLS
    ],
    columns=["published", "symbols", "headline", "body"],
)
REPORTS = pd.DataFrame(
    [(stamp(r), s, 1 + r / 100, 2e9 + r) for r in range(5, 250, 60) for s in SYMBOLS],
    columns=["published", "symbol", "eps", "revenue"],
)


class Writer(Agent):
    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        return {"actions": [], "rationale": json.dumps(payload, default=str)}


def run(canaries: int) -> None:
    data = Historical.load(
        BARS, news=NEWS, fundamentals=REPORTS, secret="b" * 24, canaries=canaries
    )
    evaluate([Writer("writer")], data=data)


def main() -> None:
    with_audit, without = best_of_interleaved(lambda: run(3), lambda: run(0), repeats=3)
    print(f"run with canaries=3 {with_audit:.3f} s, without {without:.3f} s: "
          f"{with_audit / without:.2f}x")  # fmt: skip
    data = Historical.load(BARS, news=NEWS, fundamentals=REPORTS, secret="b" * 24, canaries=3)
    canaries = evaluate(["cash"], data=data, days=5).meta["canaries"]
    text = json.dumps({"prompt": NEWS.to_dict("records"), "reports": REPORTS.to_dict("records")})
    tokens = [str(c["token"]).casefold() for c in canaries]

    def substring() -> None:
        folded = text.casefold()
        [t for t in tokens if t in folded]

    def audit() -> None:
        canary_hits(canaries, "arm", 0, 0, text, "model input")

    audited, searched = best_of_interleaved(audit, substring, repeats=7)
    print(f"a {len(text):,}-character model input: audit {audited * 1e3:.2f} ms, substring "
          f"{searched * 1e3:.2f} ms: {audited / searched:.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
