"""Secrets never written: an API key in an exception message is redacted from every writer."""

from __future__ import annotations

import itertools
import json
import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench import callable_agent, evaluate
from workbench.redaction import MARKER, redact, redact_data, redact_texts, secret_values
from workbench.report import render_report
from workbench.transcript import Transcript

FAKE_KEY = "sk-test-" + "Zq7" * 12  # the shape of an OpenAI key; not a real one
ENV_SECRET = "hunter2-correct-horse-battery"  # no key shape: caught only as an env value


@pytest.fixture
def secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("BROKER_PASSWORD", ENV_SECRET)


def leaking_agent(payload: dict[str, Any]) -> Any:
    raise RuntimeError(f"401 Unauthorized: key {FAKE_KEY} and password {ENV_SECRET} refused")


def assert_clean(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert FAKE_KEY not in text and ENV_SECRET not in text, f"{path.name} leaks a secret"
    assert MARKER in text, f"{path.name} shows no redaction marker"


KEY_SHAPES = [
    "sk-ant-api03-" + "a1B2" * 10,
    "sk-proj-" + "x9Y8" * 8,
    "ghp_" + "A1b2C3d4" * 5,
    "github_pat_11ABCDEFG0" + "x" * 30,
    "AKIAIOSFODNN7EXAMPLE",
    "xoxb-1234567890-abcdefghij",
    "hf_" + "aBcD" * 9,
    "AIza" + "Sy" + "B1c2D3e4" * 4 + "x",
]


# --- the redactor --------------------------------------------------------------------
@pytest.mark.parametrize("secret", KEY_SHAPES)
def test_common_key_shapes_are_redacted_wherever_they_appear(secret: str) -> None:
    text = f"failed (key={secret}); retry"
    assert redact(text) == f"failed (key={MARKER}); retry"


@pytest.mark.parametrize("secret", [*KEY_SHAPES, "Bearer abc.def-123_456", "BEARER abcdefgh1"])
@pytest.mark.parametrize("accent", ["", " (é)"])  # ASCII text is ruled out by plain finds
def test_one_key_among_many_ordinary_texts_is_found_and_only_its_text_changes(
    secret: str, accent: str
) -> None:
    texts: list[Any] = [f"order {i} refused: above the cap{accent}" for i in range(500)]
    texts[317] = f"refused: key {secret} rejected"
    cleaned = redact_texts([*texts, None])
    assert cleaned is not None and cleaned[-1] is None
    assert secret not in cleaned[317] and MARKER in cleaned[317]
    assert cleaned[:317] + cleaned[318:-1] == texts[:317] + texts[318:]
    assert redact_texts(texts[:317] + texts[318:]) is None


def test_bearer_tokens_keep_the_word_and_lose_the_token() -> None:
    assert redact("Authorization: Bearer abc.def-123_456") == f"Authorization: Bearer {MARKER}"


def test_secret_environment_values_are_redacted_but_ordinary_text_is_not(secrets: None) -> None:
    assert redact(f"login as bob:{ENV_SECRET} failed") == f"login as bob:{MARKER} failed"
    ordinary = "risk-adjusted-returns-over-time for task-12345678 at sk-learn"
    assert redact(ordinary) == ordinary


def test_only_long_values_of_secret_looking_names_count() -> None:
    env = {
        "OPENAI_API_KEY": "sk-long-enough-1",
        "GITHUB_TOKEN": "ghtoken-1234",
        "TOKENIZERS_PARALLELISM": "false",
        "OPENAI_BASE_URL": "http://localhost:8000/v1",
        "HOME": "/home/someone-long",
    }
    assert secret_values(env) == ("sk-long-enough-1", "ghtoken-1234")


def test_a_secret_set_changed_or_removed_after_a_redaction_is_seen_at_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = f"first {ENV_SECRET} then {ENV_SECRET[::-1]}"
    assert redact(text) == text
    monkeypatch.setenv("BROKER_PASSWORD", ENV_SECRET)
    assert redact(text) == f"first {MARKER} then {ENV_SECRET[::-1]}"
    monkeypatch.setenv("BROKER_PASSWORD", ENV_SECRET[::-1])
    assert redact(text) == f"first {ENV_SECRET} then {MARKER}"
    assert redact_texts([text]) == [f"first {ENV_SECRET} then {MARKER}"]
    monkeypatch.delenv("BROKER_PASSWORD")
    assert redact(text) == text
    assert ENV_SECRET[::-1] not in secret_values()


# Names the environment tests below set: secret-looking, and one naming a host (no secret).
CHANGING_NAMES = ["REVIEW_TOKEN", "REVIEW_API_KEY", "REVIEW_PASSWORD", "REVIEW_HOST"]
# Short alphabets, so one value is often a part of another.
CHANGING_VALUES = st.text(alphabet="ab12", min_size=6, max_size=12)


@contextmanager
def _names_restored(names: list[str]) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@given(
    st.lists(
        st.tuples(st.sampled_from(CHANGING_NAMES), st.none() | CHANGING_VALUES),
        min_size=1,
        max_size=12,
    )
)
def test_each_change_of_the_environment_is_seen_at_the_next_redaction(
    changes: list[tuple[str, str | None]],
) -> None:
    with _names_restored(CHANGING_NAMES):
        for name, value in changes:
            redact("a first redaction scans the environment as it is")
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
            assert secret_values() == secret_values(dict(os.environ))
            live = [os.environ[n] for n in CHANGING_NAMES[:3] if len(os.environ.get(n, "")) >= 8]
            shown = redact(" | ".join(value for _, value in changes if value))
            assert not [secret for secret in live if secret in shown]


@pytest.mark.slow
def test_variables_set_and_removed_by_another_thread_never_break_a_redaction() -> None:
    names = [f"REVIEW_CHURN_TOKEN_{i}" for i in range(40)]
    stop = threading.Event()

    def churn() -> None:
        for turn in itertools.count():
            if stop.is_set():
                return
            os.environ[names[turn % 40]] = f"churned-{turn:08d}"
            os.environ.pop(names[turn * 7 % 40], None)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # the threads take turns as often as they can
    churner = threading.Thread(target=churn)
    with _names_restored(names):
        churner.start()
        try:
            for _ in range(10000):
                secret_values()  # a scan that met a variable removed meanwhile raised KeyError
        finally:
            stop.set()
            churner.join()
            sys.setswitchinterval(interval)
        assert secret_values() == secret_values(dict(os.environ))


def test_redaction_is_deterministic_and_idempotent(secrets: None) -> None:
    text = f"{FAKE_KEY} {ENV_SECRET} Bearer tok3n-value"
    once = redact(text)
    assert once == redact(text) == redact(once)
    assert once == f"{MARKER} {MARKER} Bearer {MARKER}"
    data = {"a": [text, 1, None], "b": {"c": text}}
    assert redact_data(data) == {"a": [once, 1, None], "b": {"c": once}}


# --- every writer --------------------------------------------------------------------
def run_leaking(tmp_path: Path) -> Any:
    arm = callable_agent(
        leaking_agent, name="leaky", mode="record", recorder=tmp_path / "leaky.json"
    )
    return evaluate([arm, "cash"], seed=3, universe=4, days=2)


def test_the_transcript_and_its_journal_hold_no_secret(secrets: None, tmp_path: Path) -> None:
    arm = callable_agent(leaking_agent, name="leaky", mode="record", recorder=tmp_path / "t.json")
    evaluate([arm], seed=3, universe=4, days=1)
    assert_clean(tmp_path / "t.json")
    recorded = Transcript.load(tmp_path / "t.json").exchanges
    assert recorded and all(MARKER in (e.error or {}).get("message", "") for e in recorded)


def test_the_journal_holds_no_secret(secrets: None, tmp_path: Path) -> None:
    journal = Transcript(path=tmp_path / "j.json")
    journal.journal(tmp_path / "j.json.journal")
    journal.add("k1", {"q": 1}, f"answer {FAKE_KEY}", day=0, step=0)
    journal.add("k2", {"q": 2}, None, day=0, step=1, error={"type": "x", "message": ENV_SECRET})
    assert_clean(tmp_path / "j.json.journal")


@pytest.mark.slow
def test_results_json_and_the_scorecard_files_hold_no_secret(secrets: None, tmp_path: Path) -> None:
    results = run_leaking(tmp_path)
    assert results.scorecard.loc["leaky", "errors"] > 0
    assert MARKER in results.scorecard.loc["leaky", "last_error"]
    saved = results.save(tmp_path / "out")
    for key in ("results", "scorecard_csv", "scorecard_json"):
        assert_clean(saved[key])
    assert FAKE_KEY not in results.errors["message"].str.cat()


@pytest.mark.slow
def test_the_html_report_holds_no_secret(secrets: None, tmp_path: Path) -> None:
    results = run_leaking(tmp_path)
    report = render_report(results, tmp_path / "report.html", notes=f"run by {FAKE_KEY}")
    assert_clean(report)
    from_dict = render_report(results.to_dict(), tmp_path / "again.html")
    assert_clean(from_dict)


def test_a_results_dict_that_carries_a_secret_is_redacted_when_read(
    secrets: None, tmp_path: Path
) -> None:
    from workbench.report._data import as_results

    data = json.loads(run_leaking(tmp_path).to_json())
    data["errors"][0]["message"] = f"old run leaked {FAKE_KEY}"
    assert FAKE_KEY not in as_results(data).to_json()


def test_a_replay_of_a_redacted_recording_gives_identical_results(
    secrets: None, tmp_path: Path
) -> None:
    recorded = run_leaking(tmp_path)
    replay = callable_agent(None, name="leaky", mode="replay", transcript=tmp_path / "leaky.json")
    replayed = evaluate([replay, "cash"], seed=3, universe=4, days=2)
    assert replayed.digest() == recorded.digest()


def test_the_cli_error_message_holds_no_secret(
    secrets: None, capsys: pytest.CaptureFixture[str]
) -> None:
    from workbench.cli import main

    assert main(["presets", "show", FAKE_KEY]) == 2
    err = capsys.readouterr().err
    assert FAKE_KEY not in err and MARKER in err


def test_the_panel_shows_a_failed_run_without_its_secret(secrets: None, tmp_path: Path) -> None:
    pytest.importorskip("ipywidgets")
    import asyncio

    from workbench.widgets import panel

    built = panel({"leaky": callable_agent(leaking_agent, name="leaky")}, out_dir=tmp_path)

    async def failed() -> None:
        leaking_agent({})

    async def go() -> None:
        task = asyncio.ensure_future(failed())
        await asyncio.gather(task, return_exceptions=True)
        built._finished(task)

    asyncio.run(go())
    shown = built.status.value
    assert "RuntimeError" in shown and MARKER in shown
    assert FAKE_KEY not in shown and ENV_SECRET not in shown
