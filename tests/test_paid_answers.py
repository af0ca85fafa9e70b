"""Nothing paid is lost: resume never truncates what it resumes from, every answer is recorded
(NaN, infinity and unpaired surrogates included), a killed run resumes paying only what is
missing, and a budget stop is one recorded stop after which the arm holds."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from workbench.errors import BudgetExhausted, DecisionError, UsageLimitReached
from workbench.evaluation import evaluate
from workbench.integrations import CallableAgentAdapter, callable_agent
from workbench.integrations.base import journal_path
from workbench.transcript import Transcript

MARKET: dict[str, Any] = {"seed": 5, "universe": 4, "days": 4}
ROOT = Path(__file__).resolve().parents[1]


class Died(BaseException):
    """The process stops here (what was answered is in the journal)."""


class Counter:
    """A scripted agent that counts its calls and answers the same way every run."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        symbol = sorted(payload["symbols"])[payload["step"] % len(payload["symbols"])]
        side = "buy" if payload["day"] % 2 == 0 else "sell"
        return {"actions": [{"symbol": symbol, "side": side, "quantity": 5.0}], "rationale": "x"}


def _killed_run(tmp_path: Path, after: int) -> tuple[Path, int]:
    """A recorded run that died after ``after`` answers (its journal is all that is left)."""
    recorder = tmp_path / "run.json"
    agent = Counter()

    def dies(payload: dict[str, Any]) -> dict[str, Any]:
        if agent.calls == after:
            raise Died
        return agent(payload)

    arm = callable_agent(dies, name="arm", every=1, mode="record", recorder=recorder)
    arm.end = lambda: None  # type: ignore[method-assign]  # as if killed: nothing saved
    with pytest.raises(Died):
        evaluate([arm, "momentum"], **MARKET)
    assert not recorder.exists() and journal_path(recorder).is_file()
    return recorder, after


@pytest.mark.parametrize("prior", ["run.json", "run.json.journal"])
@pytest.mark.slow
def test_resume_reads_the_journal_it_is_about_to_rewrite(tmp_path: Path, prior: str) -> None:
    recorder, answered = _killed_run(tmp_path, after=9)
    whole = evaluate([callable_agent(Counter(), name="arm", every=1), "momentum"], **MARKET)
    agent = Counter()
    arm = callable_agent(
        agent, name="arm", every=1, mode="record", recorder=recorder, prior=tmp_path / prior
    )
    assert len(Transcript.load(journal_path(recorder))) == answered  # carried, not truncated
    resumed = evaluate([arm, "momentum"], **MARKET)
    total = int(whole.scorecard.loc["arm", "decisions"])
    assert agent.calls == total - answered
    assert resumed.digest() == whole.digest()
    assert len(Transcript.load(recorder)) == total


@pytest.mark.slow
def test_resume_from_a_saved_transcript_into_its_own_path_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    first = callable_agent(Counter(), name="arm", every=1, mode="record", recorder=path)
    recorded = evaluate([first], **MARKET)
    again = Counter()
    arm = callable_agent(again, name="arm", every=1, mode="record", recorder=path, prior=path)
    assert evaluate([arm], **MARKET).digest() == recorded.digest()
    assert again.calls == 0 and len(Transcript.load(path)) == len(first.recorder)


ODD_ANSWERS: list[Any] = [
    float("nan"),
    float("inf"),
    float("-inf"),
    {"actions": [], "rationale": "lone \ud800 surrogate"},
    {"actions": [{"symbol": "X", "side": "buy", "quantity": float("nan")}], "rationale": ""},
    {"actions": [], "rationale": "\ud83d\ude00 two surrogates, not an emoji"},
    {"actions": [], "rationale": "a real emoji \U0001f600 is fine"},
]


@pytest.mark.slow
def test_a_record_run_keeps_nan_inf_and_surrogate_answers_and_replays_them(
    tmp_path: Path,
) -> None:
    answers = iter(ODD_ANSWERS * 10)
    path = tmp_path / "odd.json"
    arm = callable_agent(lambda p: next(answers), name="odd", every=1, mode="record", recorder=path)
    recorded = evaluate([arm, "cash"], seed=2, universe=3, days=2)  # 11 decisions
    kinds = recorded.errors["kind"].tolist()
    assert kinds == ["DecisionError"] * 10  # every odd answer refused; the emoji one trades
    assert "unpaired surrogate" in recorded.errors["message"].iloc[3]
    text = path.read_text(encoding="utf-8")  # valid UTF-8 on disk
    assert '"response_b64"' in text and "\ud800" not in text
    saved = [e.response for e in Transcript.load(path)]
    exact = [json.dumps(a, allow_nan=True, sort_keys=True) for a in (saved[:7], ODD_ANSWERS)]
    assert exact[0] == exact[1]  # lossless, the two surrogates included
    again = CallableAgentAdapter(None, name="odd", every=1, mode="replay", transcript=path)
    replayed = evaluate([again, "cash"], seed=2, universe=3, days=2)
    assert replayed.digest() == recorded.digest()


@pytest.mark.slow
def test_an_error_message_with_a_surrogate_is_written_escaped(tmp_path: Path) -> None:
    def fails(payload: dict[str, Any]) -> Any:
        raise ValueError("bad \udcff byte")

    path = tmp_path / "f.json"
    arm = callable_agent(fails, name="f", every=6, mode="record", recorder=path)
    recorded = evaluate([arm], seed=2, universe=3, days=1)
    assert "\\udcff" in recorded.errors["message"].iloc[0]
    recorded.save(tmp_path / "out")  # every file writes as UTF-8
    again = CallableAgentAdapter(None, name="f", every=6, mode="replay", transcript=path)
    assert evaluate([again], seed=2, universe=3, days=1).digest() == recorded.digest()


# --- budgets ----------------------------------------------------------------------------
@pytest.mark.slow
def test_a_spent_budget_stops_the_arm_once_and_it_holds(tmp_path: Path) -> None:
    agent = Counter()
    path = tmp_path / "b.json"
    arm = callable_agent(agent, name="arm", every=1, max_calls=2, mode="record", recorder=path)
    capped = evaluate([arm, "momentum"], **MARKET)
    assert agent.calls == 2
    assert capped.errors["kind"].tolist() == ["BudgetExhausted"]
    row = capped.scorecard.loc["arm"]
    assert row["errors"] == 1 and row["decisions"] == 3 and row["model_calls"] == 2
    assert "holds for the rest of the run" in row["last_error"]
    equity = capped.equity["arm"]
    assert equity.iloc[3:].diff().dropna().abs().max() > 0  # it holds its position, not cash
    assert issubclass(BudgetExhausted, UsageLimitReached)

    again = CallableAgentAdapter(None, name="arm", every=1, mode="replay", transcript=path)
    assert evaluate([again, "momentum"], **MARKET).digest() == capped.digest()


@pytest.mark.slow
def test_a_resume_with_a_larger_budget_asks_again_from_the_stop(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    evaluate(
        [callable_agent(Counter(), name="arm", every=1, max_calls=2, recorder=path, mode="record")],
        **MARKET,
    )
    agent = Counter()
    more = callable_agent(agent, name="arm", every=1, mode="record", recorder=path, prior=path)
    resumed = evaluate([more], **MARKET)
    whole = evaluate([callable_agent(Counter(), name="arm", every=1)], **MARKET)
    assert resumed.errors.empty and resumed.digest() == whole.digest()
    assert agent.calls == int(whole.scorecard.loc["arm", "decisions"]) - 2


@pytest.mark.slow
def test_a_committee_budget_stops_the_committee_and_replays() -> None:
    from workbench.committee import Committee

    capped = Committee(max_calls=3, mode="record")
    result = evaluate([capped, "cash"], seed=3, universe=3, days=2)
    assert result.errors["kind"].tolist() == ["BudgetExhausted"]
    assert capped.calls_made == 3
    again = Committee(mode="replay", transcript=capped.recorder)
    assert evaluate([again, "cash"], seed=3, universe=3, days=2).digest() == result.digest()


def test_the_runner_keeps_asking_after_an_ordinary_framework_error() -> None:
    def flaky(payload: dict[str, Any]) -> Any:
        raise DecisionError("not a budget") if payload["step"] == 0 else ConnectionError("x")

    result = evaluate([callable_agent(flaky, every=1)], **MARKET)
    assert len(result.errors) == int(result.scorecard.loc["flaky", "decisions"])


# --- kill -9 ----------------------------------------------------------------------------
SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from workbench.evaluation import evaluate
    from workbench.integrations import callable_agent

    recorder, counts, kill_after = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    resume = sys.argv[4] == "resume"

    def agent(payload):
        paid = len(counts.read_text()) if counts.exists() else 0
        if paid == kill_after:
            os.kill(os.getpid(), signal.SIGKILL)
        with counts.open("a") as out:
            out.write("x")
        symbol = sorted(payload["symbols"])[payload["step"] % len(payload["symbols"])]
        side = "buy" if payload["day"] % 2 == 0 else "sell"
        return {"actions": [{"symbol": symbol, "side": side, "quantity": 5.0}],
                "rationale": "x"}

    arm = callable_agent(agent, name="arm", every=1, mode="record", recorder=recorder,
                         prior=recorder if resume else None)
    results = evaluate([arm, "momentum"], seed=5, universe=4, days=4)
    print(results.digest())
    """
)


def _run(tmp_path: Path, tag: str, kill_after: int, mode: str) -> subprocess.CompletedProcess:
    script = tmp_path / "run_agent.py"
    script.write_text(SCRIPT)
    recorder, counts = tmp_path / f"{tag}.json", tmp_path / f"{tag}.{mode}.count"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(script), str(recorder), str(counts), str(kill_after), mode]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


def _paid(tmp_path: Path, tag: str, mode: str) -> int:
    counts = tmp_path / f"{tag}.{mode}.count"
    return len(counts.read_text()) if counts.exists() else 0


@pytest.mark.slow
def test_a_run_killed_at_any_point_resumes_to_the_same_results_paying_only_the_rest(
    tmp_path: Path,
) -> None:
    whole = _run(tmp_path, "whole", -1, "fresh")
    assert whole.returncode == 0, whole.stderr
    total = _paid(tmp_path, "whole", "fresh")
    for kill_after in (1, total // 3, total - 1):
        tag = f"killed{kill_after}"
        killed = _run(tmp_path, tag, kill_after, "fresh")
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert _paid(tmp_path, tag, "fresh") == kill_after
        resumed = _run(tmp_path, tag, -1, "resume")
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout == whole.stdout  # identical results digest
        assert _paid(tmp_path, tag, "resume") == total - kill_after


@pytest.mark.slow
def test_a_run_killed_while_writing_a_line_asks_that_one_again(tmp_path: Path) -> None:
    whole = _run(tmp_path, "whole", -1, "fresh")
    total = _paid(tmp_path, "whole", "fresh")
    killed = _run(tmp_path, "cut", total // 2, "fresh")
    assert killed.returncode == -signal.SIGKILL
    journal = tmp_path / "cut.json.journal"
    text = journal.read_text(encoding="utf-8")
    journal.write_text(text[: text.rstrip("\n").rfind("\n") + 40], encoding="utf-8")
    resumed = _run(tmp_path, "cut", -1, "resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "unfinished line" in resumed.stderr
    assert resumed.stdout == whole.stdout
    assert _paid(tmp_path, "cut", "resume") == total - total // 2 + 1
