"""Real bars through the committee: masked names, no-data markers, and no look-ahead."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from workbench.committee import NO_DATA, Committee
from workbench.engine.historical import Historical
from workbench.evaluation import evaluate
from workbench.transcript import Transcript

REAL = ["MSFT", "AAPL", "XOM", "JPM"]
SECRET = "5" * 32  # one mask for both runs, so only the rewritten bars differ


def bars(seed: int, tail_seed: int | None = None, dates: int = 40) -> pd.DataFrame:
    """A random-walk panel of real tickers; ``tail_seed`` rewrites every bar after the 30th."""
    steps = np.random.default_rng(seed).normal(0, 0.01, (dates, len(REAL)))
    if tail_seed is not None:
        steps[30:] = np.random.default_rng(tail_seed).normal(0, 0.03, (dates - 30, len(REAL)))
    close = 100 * np.exp(np.cumsum(steps, axis=0))
    rows = [
        {
            "date": day,
            "symbol": s,
            "open": c,
            "high": c * 1.01,
            "low": c * 0.99,
            "close": c,
            "volume": 1e6,
        }
        for d, day in enumerate(pd.bdate_range("2021-03-01", periods=dates))
        for s, c in zip(REAL, close[d], strict=True)
    ]
    return pd.DataFrame(rows)


def run(data: pd.DataFrame) -> tuple[Committee, Transcript]:
    recorder = Transcript()
    committee = Committee(recorder=recorder, every=1)
    evaluate([committee], data=Historical.load(data, secret=SECRET))
    return committee, recorder


@pytest.mark.slow
def test_no_role_ever_sees_a_real_ticker_or_date() -> None:
    committee, recorder = run(bars(seed=1))
    prompts = "\n".join(exchange.input["input"] for exchange in recorder.exchanges)
    assert not any(symbol in prompts for symbol in REAL) and "2021" not in prompts
    snapshot = committee.decision_log[0]["snapshot"]
    assert snapshot["macro"]["growth"].startswith(f"{NO_DATA}: macro.growth")
    assert "growth NO_DATA_AVAILABLE" in committee.decision_log[0]["memo"]


@pytest.mark.slow
def test_memos_before_a_date_do_not_depend_on_any_later_bar() -> None:
    honest, _ = run(bars(seed=1))
    rewritten, _ = run(bars(seed=1, tail_seed=9))
    before = [e for e in honest.decision_log if e["day"] < 9]
    assert before and len(honest.decision_log) == len(rewritten.decision_log)
    for ours, theirs in zip(before, rewritten.decision_log, strict=False):
        assert ours["memo"] == theirs["memo"] and ours["decision"] == theirs["decision"]
    assert honest.decision_log[-1]["memo"] != rewritten.decision_log[-1]["memo"]
