"""Historical runs repeat by default: the mask secret is derived, not drawn, and travels with
the results; the bars' digest reads their content, not their order."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from workbench import Agent, evaluate
from workbench.engine import masking
from workbench.engine.historical import Historical
from workbench.engine.sample_bars import sample_bars
from workbench.errors import ConfigError

ARMS = ["mean_reversion", "random", "momentum"]
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bars_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bars") / "bars.csv"
    sample_bars(days=80, names=5, seed=11).to_csv(path, index=False)
    return path


def _returns(results: Any) -> dict[str, float]:
    return results.scorecard["return_pct"].round(12).to_dict()


@pytest.mark.slow
def test_two_identical_calls_give_identical_results(bars_file: Path) -> None:
    bars = pd.read_csv(bars_file)
    first = evaluate(ARMS, data=bars, seed=1)
    again = evaluate(ARMS, data=bars, seed=1)
    assert first.digest() == again.digest()
    assert _returns(first) == _returns(again)


@pytest.mark.slow
def test_identical_calls_in_other_processes_give_identical_results(bars_file: Path) -> None:
    here = evaluate(ARMS, data=bars_file, seed=1).digest()
    script = (
        "import sys; from workbench import evaluate; "
        f"print(evaluate({ARMS!r}, data=sys.argv[1], seed=1).digest())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "random"}
    started = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(bars_file)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=bars_file.parent,
        )
        for _ in range(2)
    ]
    for child in started:  # two at once: each with its own hash seed
        out, _ = child.communicate(timeout=300)
        assert child.returncode == 0
        assert out.strip() == here


@pytest.mark.slow
def test_shuffled_rows_and_columns_give_the_same_fingerprint_and_results(
    bars_file: Path, tmp_path: Path
) -> None:
    bars = pd.read_csv(bars_file)
    shuffled = tmp_path / "shuffled.csv"
    columns = list(reversed(bars.columns))
    bars.sample(frac=1.0, random_state=7)[columns].to_csv(shuffled, index=False)
    extra = tmp_path / "extra.csv"
    bars.assign(adj_close=bars["close"] * 0.5).to_csv(extra, index=False)
    loaded = [Historical.load(source) for source in (bars_file, shuffled, extra)]
    assert len({data.digest for data in loaded}) == 1
    assert len({data.secret for data in loaded}) == 1
    digests = {evaluate(ARMS, data=data, seed=1).digest() for data in loaded}
    assert len(digests) == 1


@pytest.mark.slow
def test_the_digest_reads_every_value(bars_file: Path) -> None:
    bars = pd.read_csv(bars_file)
    base = Historical.load(bars).digest
    for column, change in (("close", 1e-9), ("volume", 1.0)):
        edited = bars.copy()
        edited.loc[17, column] += change
        edited.loc[17, "high"] = max(edited.loc[17, "high"], edited.loc[17, "close"])
        assert Historical.load(edited).digest != base, column
    renamed = bars.replace({"symbol": {bars["symbol"].iloc[0]: "ZZZZ"}})
    assert Historical.load(renamed).digest != base


@pytest.mark.slow
def test_the_secret_used_travels_with_the_results_and_repeats_the_run_anywhere(
    bars_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = evaluate(ARMS, data=bars_file, seed=1)
    secret = first.meta["data"]["secret"]
    monkeypatch.setenv(masking.KEY_FILE_VARIABLE, str(tmp_path / "another-project" / "key"))
    elsewhere = evaluate(ARMS, data=bars_file, seed=1)
    assert elsewhere.meta["data"]["secret"] != secret, "another project, another mask"
    repeated = evaluate(ARMS, data=Historical.load(bars_file, secret=secret), seed=1)
    assert repeated.digest() == first.digest()


class Spy(Agent):
    def __init__(self) -> None:
        super().__init__("spy")
        self.told: list[str] = []

    def begin(self, run: Any) -> None:
        self.told.append(repr(run))

    def decide(self, payload: dict[str, Any]) -> dict[str, Any]:
        self.told.append(json.dumps(payload))
        return {"actions": []}


def test_neither_the_key_nor_the_secret_reaches_an_agent(bars_file: Path) -> None:
    spy = Spy()
    results = evaluate([spy], data=bars_file, seed=1)
    told = "".join(spy.told)
    key = masking.key_file().read_text().strip()
    assert results.meta["data"]["secret"] not in told and key not in told
    assert key not in results.to_json(), "the results keep the run's secret, never the key"


def test_the_project_key_is_drawn_once_private_and_never_committed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "notebooks").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    monkeypatch.delenv(masking.KEY_FILE_VARIABLE)
    monkeypatch.chdir(project / "notebooks")  # a notebook runs in a folder of the project
    first = masking.derived_secret("d" * 64)
    path = project / ".workbench" / "mask-key"
    assert masking.key_file() == path and path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (project / ".workbench" / ".gitignore").read_text().splitlines()[-1] == "*"
    monkeypatch.chdir(project)
    assert masking.derived_secret("d" * 64) == first, "read again, not drawn again"
    assert masking.derived_secret("e" * 64) != first, "each data set its own secret"
    assert len(first) == 32 and path.read_text().strip() not in first


@pytest.mark.slow
def test_processes_starting_at_once_agree_on_one_key(tmp_path: Path) -> None:
    path = tmp_path / "key"
    script = (
        "import sys; from pathlib import Path; from workbench.engine.masking import "
        "project_key; print(project_key(Path(sys.argv[1])).hex())"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True, env=env
        )
        for _ in range(4)
    ]
    keys = {child.communicate(timeout=300)[0].strip() for child in started}
    assert keys == {path.read_text().strip()}


def test_a_damaged_or_unwritable_key_is_refused_naming_the_file(tmp_path: Path) -> None:
    damaged = tmp_path / "key"
    damaged.write_text("not hex\n")
    with pytest.raises(ConfigError, match=r"mask key .*key is damaged"):
        masking.project_key(damaged)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigError, match=r"cannot be read or made.*WORKBENCH_MASK_FILE"):
        masking.project_key(blocker / "key")


def test_a_later_bar_moves_neither_the_derived_mask_nor_an_earlier_fill(bars_file: Path) -> None:
    # the derived secret reads the first date's bars: the masked volumes, and with them the
    # book's depth a fill walks, know nothing of later bars (the whole-data digest did)
    bars = pd.read_csv(bars_file)
    last = bars["date"] == bars["date"].max()
    edited = bars.copy()
    edited.loc[last, "volume"] = (edited.loc[last, "volume"] * 0.5).round()
    edited.loc[last, ["close", "high"]] *= 1.0001
    base, later = Historical.load(bars), Historical.load(edited)
    assert later.digest != base.digest and later.secret == base.secret
    runs = [evaluate(["equal_weight", "momentum"], data=data, seed=1) for data in (base, later)]
    before_last = [run.orders[run.orders["day"] < run.orders["day"].max()] for run in runs]
    assert len(before_last[0]) > 0
    pd.testing.assert_frame_equal(*before_last)
    first = bars[bars["date"] == bars["date"].min()].index[0]
    opening = bars.copy()
    opening.loc[first, "volume"] += 1.0
    assert Historical.load(opening).secret != base.secret, "another first day, another mask"
