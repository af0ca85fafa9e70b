"""Send a run to MLflow: parameters, every arm's metrics, and the result files and report.

``log_to_mlflow(results, tracking_uri=...)`` makes one MLflow run in ``experiment``
and returns its id. One ``Results`` (one seed) or a list of them (one per seed):

- parameters: the market (preset or data digest, seeds, days, names, cadence), the
  arms with their cadences, the money settings, and the versions of workbench,
  Python, NumPy and pandas; the results digest (one per seed) is a tag;
- metrics: ``<arm>.<column>`` for every numeric scorecard and tearsheet column
  (Sortino, volatility, VaR, CVaR, Calmar, beta, alpha, ...), the mean over the
  seeds; with several seeds each seed's value is also logged as the history of
  ``<arm>.<column>.by_seed`` (its step is the seed);
- artefacts: the files ``Results.save`` writes (under ``results/``, one folder per
  seed when there are several) and, unless ``report=False``, the HTML report.

MLflow is imported on first use (``pip install "workbench[mlflow]"``, which brings
the light ``mlflow-skinny`` client). Its errors are translated here, at one boundary.
An ``http(s)`` tracking URI is probed first (a TCP connection with a
``PROBE_SECONDS`` timeout), so a server that is not there fails at once, not after
MLflow's minutes of retries; ``check_tracking_uri`` runs that probe on its own, so the
CLI can refuse before it spends an evaluation.
"""

from __future__ import annotations

import math
import os
import platform
import re
import socket
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from workbench._version import __version__
from workbench.errors import ConfigError, MissingDependency
from workbench.evaluation import Results
from workbench.evaluation.columns import SCORECARD_COLUMNS, VOLATILE_COLUMNS
from workbench.evaluation.tearsheet import TEARSHEET_COLUMNS

EXPERIMENT = "workbench"
_NOT_METRICS = ("last_error", "bust_step", *VOLATILE_COLUMNS)
_KEY = re.compile(r"[^\w\-. /]")  # what MLflow takes in a key; anything else becomes "_"
PROBE_SECONDS = 3.0


def log_to_mlflow(
    results: Results | Sequence[Results],
    *,
    tracking_uri: str | None = None,
    experiment: str = EXPERIMENT,
    run_name: str | None = None,
    report: bool = True,
) -> str:
    """Log ``results`` as one MLflow run (see the module doc) and return the run's id.
    ``tracking_uri`` defaults to MLflow's own (``$MLFLOW_TRACKING_URI``)."""
    seeds = _as_list(results)
    client_class = _client_class()
    check_tracking_uri(tracking_uri)
    try:
        return _log(client_class(tracking_uri=tracking_uri), seeds, experiment, run_name, report)
    except Exception as exc:
        if not type(exc).__module__.startswith("mlflow"):
            raise
        where = tracking_uri or "the default tracking URI"
        raise ConfigError(f"MLflow at {where} refused the run: {exc}") from exc


def _log(
    client: Any, seeds: Sequence[Results], experiment: str, run_name: str | None, report: bool
) -> str:
    run_id = _start(client, experiment, run_name or _name(seeds))
    try:
        client.log_batch(run_id, params=_params(seeds), tags=_tags(seeds))
        client.log_batch(run_id, metrics=_metrics(seeds))
        with tempfile.TemporaryDirectory(prefix="workbench-mlflow-") as folder:
            _log_files(client, run_id, seeds, Path(folder), report=report)
    except BaseException:
        client.set_terminated(run_id, "FAILED")  # MLflow shows it failed, not running
        raise
    client.set_terminated(run_id)
    return run_id


def check_tracking_uri(tracking_uri: str | None) -> None:
    """Refuse an ``http(s)`` tracking URI (default ``$MLFLOW_TRACKING_URI``) where nothing
    accepts a connection within ``PROBE_SECONDS``; other URIs (files, databases) pass."""
    from urllib.parse import urlsplit

    uri = tracking_uri or os.environ.get("MLFLOW_TRACKING_URI") or ""
    parts = urlsplit(uri)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=PROBE_SECONDS).close()
    except OSError as exc:
        raise ConfigError(
            f"no MLflow server answers at {uri} ({exc.strerror or exc}); start one "
            f"(mlflow server --port {port}) or give a local store such as "
            "file:///path/to/mlruns"
        ) from None


def run_params(seeds: Sequence[Results]) -> dict[str, str]:
    """The parameters of a run as MLflow keeps them (text, one value each)."""
    import numpy as np
    import pandas as pd

    meta = seeds[0].meta
    data = meta.get("data") if isinstance(meta.get("data"), Mapping) else None
    every = meta.get("every", {})
    params: dict[str, Any] = {
        "market": f"data:{data['bars_sha256']}" if data else meta.get("preset"),
        "seeds": ",".join(str(r.meta.get("seed")) for r in seeds),
        "arms": ",".join(str(arm) for arm in seeds[0].scorecard.index),
        "cadence": ",".join(f"{arm}={every[arm]}" for arm in every),
        "workbench_version": __version__,
        "python_version": platform.python_version(),
        "numpy_version": np.__version__,
        "pandas_version": pd.__version__,
    }
    for key in ("days", "names", "steps_per_day", "ticks_per_step", "capital", "leverage_cap"):
        params[key] = meta.get(key)
    return {key: str(value) for key, value in params.items() if value is not None}


def run_metrics(seeds: Sequence[Results]) -> list[tuple[str, float, int]]:
    """(key, value, step) of every arm's numeric scorecard columns: the mean over seeds at
    step 0, then with several seeds each seed's value under ``.by_seed`` at its seed."""
    rows = []
    card = [c for c in SCORECARD_COLUMNS if c not in _NOT_METRICS]
    columns = [*card, *(c for c in TEARSHEET_COLUMNS if c not in card and c != "benchmark")]
    tables = [_metric_table(r) for r in seeds]
    steps = [int(r.meta.get("seed", i)) for i, r in enumerate(seeds)]
    for arm in seeds[0].scorecard.index:
        for column in columns:
            values = [_value(table, arm, column) for table in tables]
            finite = [v for v in values if math.isfinite(v)]
            if finite:
                rows.append((_key(f"{arm}.{column}"), math.fsum(finite) / len(finite), 0))
            if len(seeds) > 1:
                by_seed = zip(values, steps, strict=True)
                rows += [
                    (_key(f"{arm}.{column}.by_seed"), v, s) for v, s in by_seed if math.isfinite(v)
                ]
    return rows


def _client_class() -> Any:
    try:
        from mlflow.tracking import MlflowClient
    except ImportError as exc:
        raise MissingDependency("mlflow-skinny", "mlflow", "logging a run to MLflow") from exc
    return MlflowClient


def _start(client: Any, experiment: str, name: str) -> str:
    found = client.get_experiment_by_name(experiment)
    experiment_id = found.experiment_id if found else client.create_experiment(experiment)
    return str(client.create_run(experiment_id, run_name=name).info.run_id)


def _params(seeds: Sequence[Results]) -> list[Any]:
    from mlflow.entities import Param

    return [Param(key, value) for key, value in run_params(seeds).items()]


def _tags(seeds: Sequence[Results]) -> list[Any]:
    from mlflow.entities import RunTag

    digests = {f"results_digest.seed_{r.meta.get('seed')}": r.digest() for r in seeds}
    return [RunTag(key, value) for key, value in {"workbench": __version__, **digests}.items()]


def _metrics(seeds: Sequence[Results]) -> list[Any]:
    from mlflow.entities import Metric

    return [Metric(key, value, 0, step) for key, value, step in run_metrics(seeds)]


def _log_files(
    client: Any, run_id: str, seeds: Sequence[Results], folder: Path, *, report: bool
) -> None:
    many = len(seeds) > 1
    for results in seeds:
        label = f"seed-{results.meta.get('seed')}"
        results.save(folder / label)
        client.log_artifacts(run_id, str(folder / label), f"results/{label}" if many else "results")
    if report:
        from workbench.report import render_report

        page = render_report(list(seeds), folder / "report.html", title=_name(seeds))
        client.log_artifact(run_id, str(page))


def _as_list(results: Results | Sequence[Results]) -> list[Results]:
    seeds = [results] if isinstance(results, Results) else list(results)
    if not seeds or not all(isinstance(r, Results) for r in seeds):
        raise ConfigError(
            "log_to_mlflow takes a Results or a non-empty list of them (one per seed)"
        )
    return seeds


def _name(seeds: Sequence[Results]) -> str:
    meta = seeds[0].meta
    return f"{meta.get('preset')} seeds {','.join(str(r.meta.get('seed')) for r in seeds)}"


def _metric_table(results: Results) -> Any:
    """The scorecard beside the tearsheet's columns it does not have (one row per arm)."""
    sheet = results.tearsheet()
    extra = [c for c in sheet.columns if c not in results.scorecard.columns]
    return results.scorecard.join(sheet[extra])


def _value(card: Any, arm: str, column: str) -> float:
    """A table cell as a float; NaN when the arm or the column has no number there."""
    if arm not in card.index or column not in card.columns:
        return math.nan
    value: Any = card.at[arm, column]
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _key(text: str) -> str:
    return _KEY.sub("_", text)
