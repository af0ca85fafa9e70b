"""MLflow: a run logged to a local file-based tracking store and read back with MlflowClient."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

from workbench.cli import main
from workbench.errors import ConfigError, MissingDependency
from workbench.evaluation import evaluate
from workbench.evaluation.results import Results
from workbench.services.tracking import log_to_mlflow, run_metrics

# found, not imported: MLflow's import (about a CPU-second) is paid by the worker that runs
# these tests, not by every worker that collects them
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mlflow") is None, reason='needs pip install "workbench[mlflow]"'
)
SMALL = {"universe": 8, "days": 3}


@pytest.fixture
def store_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A file-based tracking store in tmp_path: no server, no network."""
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3 asks for the opt-in
    return (tmp_path / "mlruns").as_uri()


@pytest.fixture(scope="module")
def seeds() -> list[Results]:
    return [evaluate(["buy_and_hold", "momentum"], seed=s, **SMALL) for s in (1, 2)]


@pytest.mark.slow
def test_a_logged_run_reads_back_its_params_metrics_and_files(
    store_uri: str, seeds: list[Results]
) -> None:
    from mlflow.tracking import MlflowClient

    run_id = log_to_mlflow(seeds[0], tracking_uri=store_uri, experiment="tests")
    client = MlflowClient(tracking_uri=store_uri)
    run = client.get_run(run_id)
    card = seeds[0].scorecard
    for arm in ("buy_and_hold", "momentum"):
        assert run.data.metrics[f"{arm}.sharpe"] == card.at[arm, "sharpe"]
        assert run.data.metrics[f"{arm}.return_pct"] == card.at[arm, "return_pct"]
    sheet = seeds[0].tearsheet()
    for column in ("sortino", "annual_volatility_pct", "var_95_pct", "cvar_95_pct", "skew"):
        value = sheet.at["momentum", column]
        assert math.isnan(value) or run.data.metrics[f"momentum.{column}"] == value
    assert run.data.metrics["momentum.beta"] == sheet.at["momentum", "beta"]
    params = run.data.params
    assert params["seeds"] == "1" and params["arms"] == "buy_and_hold,momentum"
    assert params["market"] == seeds[0].meta["preset"] and params["steps_per_day"] == "6"
    assert params["cadence"] == "buy_and_hold=day,momentum=day"
    assert run.data.tags["results_digest.seed_1"] == seeds[0].digest()
    files = {f.path for f in client.list_artifacts(run_id)}
    assert files == {"report.html", "results"}
    saved = {f.path for f in client.list_artifacts(run_id, "results")}
    assert {"results/results.json", "results/equity.parquet"} <= saved
    assert run.info.status == "FINISHED"


@pytest.mark.slow
def test_several_seeds_log_the_mean_and_each_seed(store_uri: str, seeds: list[Results]) -> None:
    from mlflow.tracking import MlflowClient

    run_id = log_to_mlflow(seeds, tracking_uri=store_uri, report=False)
    client = MlflowClient(tracking_uri=store_uri)
    mean = math.fsum(r.scorecard.at["momentum", "sharpe"] for r in seeds) / 2
    assert client.get_run(run_id).data.metrics["momentum.sharpe"] == mean
    history = client.get_metric_history(run_id, "momentum.sharpe.by_seed")
    assert sorted((m.step, m.value) for m in history) == [
        (r.meta["seed"], r.scorecard.at["momentum", "sharpe"]) for r in seeds
    ]
    assert {f.path for f in client.list_artifacts(run_id, "results")} == {
        "results/seed-1",
        "results/seed-2",
    }
    assert client.get_experiment_by_name("workbench") is not None


def test_metric_keys_are_ones_mlflow_takes(seeds: list[Results]) -> None:
    keys = {key for key, _, _ in run_metrics(seeds)}
    assert "momentum.max_drawdown_pct" in keys and "momentum.last_error" not in keys
    assert all(all(c.isalnum() or c in "_-. /" for c in key) for key in keys)


def test_bad_input_and_a_missing_mlflow_say_what_to_do(
    seeds: list[Results], monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(ConfigError, match="takes a Results or a non-empty list"):
        log_to_mlflow([])
    monkeypatch.setitem(__import__("sys").modules, "mlflow.tracking", None)
    with pytest.raises(MissingDependency, match=r'pip install "workbench\[mlflow\]"'):
        log_to_mlflow(seeds[0])


def test_a_store_mlflow_refuses_is_a_config_error_with_its_reason(
    tmp_path: Path, seeds: list[Results], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "false")
    with pytest.raises(ConfigError, match=r"MLflow at .* refused the run: .*FILE_STORE"):
        log_to_mlflow(seeds[0], tracking_uri=(tmp_path / "refused").as_uri())


@pytest.mark.slow
def test_evaluate_on_the_cli_logs_to_mlflow(store_uri: str, capsys: pytest.CaptureFixture) -> None:
    from mlflow.tracking import MlflowClient

    argv = ["evaluate", "--arms", "cash,momentum", "--universe", "8", "--days", "3"]
    assert main([*argv, "--mlflow", store_uri]) == 0
    out = capsys.readouterr().out
    run_id = out.strip().splitlines()[-1].split()[-1]
    metrics = MlflowClient(tracking_uri=store_uri).get_run(run_id).data.metrics
    assert metrics["cash.return_pct"] == 0.0 and "momentum.sharpe" in metrics


def _unused_loopback_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed on exit: nothing listens there


def test_a_server_that_is_not_there_fails_at_once_naming_the_uri(
    seeds: list[Results], capsys: pytest.CaptureFixture
) -> None:
    uri = f"http://127.0.0.1:{_unused_loopback_port()}"
    with pytest.raises(ConfigError, match=f"no MLflow server answers at {uri}"):
        log_to_mlflow(seeds[0], tracking_uri=uri)  # the probe's answer, not MLflow's retries
    argv = ["evaluate", "--arms", "cash", "--universe", "4", "--days", "2", "--mlflow", uri]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert uri in captured.err and "cash" not in captured.out  # refused before evaluating
