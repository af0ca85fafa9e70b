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
from collections.abc import Iterator
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
# Each run is a process of its own, forked from one that has imported workbench (so a run
# pays for its work, not for the imports) and killed there with SIGKILL, as by `kill -9`.
RUNS = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from workbench.evaluation import evaluate
    from workbench.integrations import callable_agent

    def run(recorder, counts, kill_after, resume):
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

    def forked(recorder, counts, kill_after, mode, out, err):
        for name, fd in ((out, 1), (err, 2)):
            os.dup2(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
        code = 0
        try:
            run(Path(recorder), Path(counts), int(kill_after), mode == "resume")
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)

    for line in sys.stdin:  # one run a line; its exit code goes back on stdout
        child = os.fork()
        if child == 0:
            forked(*line.split())
        print(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]), flush=True)
    """
)
THOROUGH = os.environ.get("WORKBENCH_THOROUGH") == "1"


class Runs:
    """The forking process, and what each run it forked printed and paid."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        (folder / "runs.py").write_text(RUNS)
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, str(folder / "runs.py")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip

    def run(self, tag: str, kill_after: int, mode: str) -> subprocess.CompletedProcess:
        base = self.folder / f"{tag}.{mode}"
        fields = (self.folder / f"{tag}.json", f"{base}.count", kill_after, mode)
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(" ".join(map(str, (*fields, f"{base}.out", f"{base}.err"))))
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        assert answer, "the forking process ended early: its error is in the captured stderr"
        code = int(answer)
        out, err = (Path(f"{base}.{end}").read_text() for end in ("out", "err"))
        return subprocess.CompletedProcess(fields, code, out, err)

    def paid(self, tag: str, mode: str) -> int:
        counts = self.folder / f"{tag}.{mode}.count"
        return len(counts.read_text()) if counts.exists() else 0

    def close(self) -> None:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0
        self.process.stdout.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    forking = Runs(tmp_path_factory.mktemp("killed"))
    yield forking
    forking.close()


@pytest.fixture(scope="module")
def whole(runs: Runs) -> tuple[str, int]:
    """The digest and the number of answers of the run nobody kills."""
    done = runs.run("whole", -1, "fresh")
    assert done.returncode == 0, done.stderr
    return done.stdout, runs.paid("whole", "fresh")


def _kill_points(total: int) -> list[int]:
    """After the first answer (the journal just begun), one a third in and the last one (the
    run about to save); every point with WORKBENCH_THOROUGH=1."""
    return list(range(1, total)) if THOROUGH else [1, total // 3, total - 1]


@pytest.mark.slow
def test_a_run_killed_at_any_point_resumes_to_the_same_results_paying_only_the_rest(
    runs: Runs, whole: tuple[str, int]
) -> None:
    digest, total = whole
    for kill_after in _kill_points(total):
        tag = f"killed{kill_after}"
        killed = runs.run(tag, kill_after, "fresh")
        assert killed.returncode == -signal.SIGKILL, killed.stderr
        assert runs.paid(tag, "fresh") == kill_after
        resumed = runs.run(tag, -1, "resume")
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stdout == digest  # identical results digest
        assert runs.paid(tag, "resume") == total - kill_after


@pytest.mark.slow
def test_a_run_killed_while_writing_a_line_asks_that_one_again(
    runs: Runs, whole: tuple[str, int]
) -> None:
    digest, total = whole
    killed = runs.run("cut", total // 2, "fresh")
    assert killed.returncode == -signal.SIGKILL
    journal = runs.folder / "cut.json.journal"
    text = journal.read_text(encoding="utf-8")
    journal.write_text(text[: text.rstrip("\n").rfind("\n") + 40], encoding="utf-8")
    resumed = runs.run("cut", -1, "resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "unfinished line" in resumed.stderr
    assert resumed.stdout == digest
    assert runs.paid("cut", "resume") == total - total // 2 + 1
