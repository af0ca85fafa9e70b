"""Sweeps over seeds x presets, in-process and on a real Dask cluster on loopback."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pandas as pd
import pytest

from workbench.baselines import RandomTrader
from workbench.errors import ConfigError
from workbench.evaluation import evaluate, scorecards, sweep
from workbench.evaluation.columns import VOLATILE_COLUMNS
from workbench.evaluation.sweep import MAX_CONNECT_TIMEOUT_S, MIN_CONNECT_TIMEOUT_S

GRID = {"seeds": [1, 2], "presets": ["calm-v1", "crisis-v1"], "universe": 6, "days": 2}


def seeded_random() -> RandomTrader:
    return RandomTrader(seed=5)


def test_an_in_process_sweep_runs_every_cell_in_grid_order() -> None:
    runs = sweep(["buy_and_hold", seeded_random], **GRID)
    assert [(r.meta["preset"], r.meta["seed"]) for r in runs] == [
        ("calm-v1", 1),
        ("calm-v1", 2),
        ("crisis-v1", 1),
        ("crisis-v1", 2),
    ]
    alone = evaluate(
        ["buy_and_hold", RandomTrader(seed=5)], seed=2, preset="crisis-v1", universe=6, days=2
    )
    assert runs[3].digest() == alone.digest()
    table = scorecards(runs)
    assert len(table) == 8 and list(table.index.names) == ["preset", "seed", "arm"]
    one = runs[3].scorecard.drop(columns=list(VOLATILE_COLUMNS))
    pd.testing.assert_frame_equal(table.xs(("crisis-v1", 2)), one)


def test_agent_objects_are_refused_because_cells_need_fresh_arms() -> None:
    with pytest.raises(ConfigError, match="factories returning an Agent"):
        sweep([RandomTrader()], seeds=[1])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="at least one seed"):
        sweep(["cash"], seeds=[])
    with pytest.raises(ConfigError, match="seeds must be whole numbers"):
        sweep(["cash"], seeds=[1.7, True])  # type: ignore[list-item]
    with pytest.raises(ConfigError, match="a sweep sets seed itself"):
        sweep(["cash"], seeds=[1], seed=3)


@pytest.mark.slow
def test_a_dask_cluster_gives_the_same_bits_as_in_process() -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = sweep(["momentum", seeded_random], scheduler=client, **GRID)
        by_address = sweep(
            ["momentum"], scheduler=cluster.scheduler_address, seeds=[1], universe=6, days=2
        )
    local = sweep(["momentum", seeded_random], **GRID)
    assert [r.digest() for r in remote] == [r.digest() for r in local]
    assert by_address[0].digest() == sweep(["momentum"], seeds=[1], universe=6, days=2)[0].digest()


def closed_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.slow
def test_an_unreachable_scheduler_is_a_config_error_naming_it_and_the_local_cluster() -> None:
    pytest.importorskip("distributed")
    address = f"tcp://127.0.0.1:{closed_loopback_port()}"
    started = time.monotonic()
    with pytest.raises(ConfigError, match="LocalCluster") as caught:
        sweep(["cash"], seeds=[1], scheduler=address, connect_timeout=1, universe=3, days=1)
    assert address in str(caught.value) and "within 1 s" in str(caught.value)
    assert time.monotonic() - started >= 1  # the scheduler was given the whole second


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf"), "10", None, True])
def test_a_connect_timeout_that_is_no_duration_is_refused_before_connecting(
    timeout: object,
) -> None:
    with pytest.raises(ConfigError, match="connect_timeout"):
        sweep(["cash"], seeds=[1], scheduler="tcp://127.0.0.1:9", connect_timeout=timeout)


@contextmanager
def silent_server() -> Iterator[tuple[str, list[socket.socket]]]:
    """A loopback address that accepts every connection and never answers; its connections."""
    accepted: list[socket.socket] = []
    stop = threading.Event()
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.05)

        def serve() -> None:
            while not stop.is_set():
                try:
                    accepted.append(server.accept()[0])
                except TimeoutError:
                    continue

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield f"tcp://127.0.0.1:{server.getsockname()[1]}", accepted
        finally:
            stop.set()
            thread.join()
            for connection in accepted:
                connection.close()


@pytest.mark.timeout(60)  # before the bound, these waited at the silent port for ever
@pytest.mark.parametrize("timeout", [1e300, 1e12, MAX_CONNECT_TIMEOUT_S + 0.5])
def test_a_connect_timeout_past_an_hour_is_refused_before_connecting(timeout: float) -> None:
    with silent_server() as (address, accepted), pytest.raises(ConfigError) as caught:
        sweep(["cash"], seeds=[1], scheduler=address, connect_timeout=timeout)
    assert f"connect_timeout must be at most 3600 seconds (an hour); got {timeout!r}" in str(
        caught.value
    )
    assert "start the scheduler first" in str(caught.value)
    assert accepted == []  # refused before any connection was tried


@pytest.mark.timeout(60)
@pytest.mark.parametrize("timeout", [np.int64(4000), np.float32(3601), np.float64(3600.5)])
def test_a_numpy_connect_timeout_past_an_hour_is_refused_by_the_bound(timeout: object) -> None:
    with silent_server() as (address, accepted), pytest.raises(ConfigError) as caught:
        sweep(["cash"], seeds=[1], scheduler=address, connect_timeout=timeout)
    assert f"connect_timeout must be at most 3600 seconds (an hour); got {timeout!r}" in str(
        caught.value
    )
    assert accepted == []


@pytest.mark.parametrize("timeout", [10**400, 10**5000, -(10**400)], ids=["e400", "e5000", "-e400"])
def test_a_whole_number_too_large_to_be_seconds_is_a_config_error_naming_it(
    timeout: int,
) -> None:
    with silent_server() as (address, accepted), pytest.raises(ConfigError) as caught:
        sweep(["cash"], seeds=[1], scheduler=address, connect_timeout=timeout)
    assert (
        "connect_timeout must be a finite number of seconds > 0; got a whole number of about "
        in (str(caught.value))
    )
    assert "10**400" in str(caught.value) or "10**5000" in str(caught.value)
    assert accepted == []


@pytest.mark.parametrize("timeout", [1e-300, 0.001, np.float64(0.009)])
def test_a_connect_timeout_under_a_hundredth_of_a_second_is_refused(timeout: float) -> None:
    with silent_server() as (address, accepted), pytest.raises(ConfigError) as caught:
        sweep(["cash"], seeds=[1], scheduler=address, connect_timeout=timeout)
    assert f"connect_timeout must be at least 0.01 seconds; got {timeout!r}" in str(caught.value)
    assert "not milliseconds" in str(caught.value)
    assert accepted == []


@pytest.mark.parametrize("timeout", [MIN_CONNECT_TIMEOUT_S, np.int64(10), np.float32(2.5)])
def test_a_connect_timeout_from_a_hundredth_of_a_second_is_allowed(timeout: float) -> None:
    assert "at least 0.01" in (sweep.__doc__ or "")
    runs = sweep(["cash"], seeds=[1], connect_timeout=timeout, universe=3, days=1)
    assert len(runs) == 1


def test_a_connect_timeout_of_an_hour_is_allowed() -> None:
    assert MAX_CONNECT_TIMEOUT_S == 3600 and "at most 3600" in (sweep.__doc__ or "")
    runs = sweep(["cash"], seeds=[1], connect_timeout=MAX_CONNECT_TIMEOUT_S, universe=3, days=1)
    assert len(runs) == 1
