"""Sweeps: the same arms over seeds x presets, in-process or on a Dask cluster.

Every (preset, seed) cell is one independent ``evaluate`` with fresh arms, so a
cell can run anywhere: in this process by default, or on a Dask cluster when
``scheduler`` is given (an address such as ``"tcp://127.0.0.1:8786"`` or a
``distributed.Client``; an address that answers nothing within ``connect_timeout``
seconds is a ConfigError). Results come back in grid order either way, and equal
bit for bit to the in-process run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from workbench._checks import is_whole, seconds
from workbench.agents import Agent
from workbench.bridge import run_sync
from workbench.errors import ConfigError, MissingDependency
from workbench.evaluation.columns import VOLATILE_COLUMNS
from workbench.evaluation.results import Results

ArmSpec = str | Callable[[], Agent]
CONNECT_TIMEOUT_S = 10.0  # how long a scheduler address may take to answer, by default
# The longest connect_timeout. asyncio and Dask take any finite number (Dask retries a
# refused connection until it runs out), so 1e12 s waits for ever at a silent or closed
# port; a scheduler still starting after an hour is not starting.
MAX_CONNECT_TIMEOUT_S = 3600.0
# The shortest. Even a scheduler on this machine takes milliseconds to accept a connection
# and answer Dask's handshake, so a shorter wait can only time out: 1e-3 or 1e-300 is a
# mistake (milliseconds meant, say), and it would be reported as an unreachable scheduler.
MIN_CONNECT_TIMEOUT_S = 0.01


@dataclass(frozen=True)
class Cell:
    """One point of the grid."""

    preset: str | Mapping[str, Any] | None
    seed: int


def sweep(
    arms: Sequence[ArmSpec],
    *,
    seeds: Sequence[int],
    presets: Sequence[str | Mapping[str, Any] | None] = (None,),
    scheduler: Any = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
    **world: Any,
) -> list[Results]:
    """Run ``arms`` on every (preset, seed); ``world`` takes evaluate's other keywords.

    An arm is a baseline name or a zero-argument factory returning a fresh Agent
    (arms keep state, so each cell builds its own). ``connect_timeout``: the seconds
    (10 by default, at least 0.01, at most 3600) a scheduler given by its address may take to answer
    before the sweep stops with a ConfigError (a Dask scheduler that is still starting
    refuses connections for a while); a ``distributed.Client`` given as ``scheduler`` is
    connected already, and the option has nothing to wait for. It is checked even without
    a scheduler.
    """
    connect_timeout = _check_connect_timeout(connect_timeout)
    if not seeds:
        raise ConfigError("a sweep needs at least one seed, e.g. seeds=range(5)")
    if any(not is_whole(s) for s in seeds):
        raise ConfigError(f"seeds must be whole numbers, got {list(seeds)!r}")
    taken = sorted({"seed", "preset", "model", "agents"} & set(world))
    if taken:
        raise ConfigError(
            f"a sweep sets {', '.join(taken)} itself; pass seeds=[...] and presets=[...] instead"
        )
    for arm in arms:
        if not (isinstance(arm, str) or callable(arm)) or isinstance(arm, Agent):
            raise ConfigError(
                "sweep arms are baseline names or factories returning an Agent "
                f"(e.g. lambda: MyAgent()), got {arm!r}"
            )
    cells = [Cell(preset, seed) for preset in presets for seed in seeds]
    if scheduler is None:
        return [run_cell(cell, arms, world) for cell in cells]
    return _on_dask(scheduler, cells, arms, world, connect_timeout)


def _check_connect_timeout(value: Any) -> float:
    """``value`` as a Python number of seconds, or a ConfigError naming the bound it misses."""
    timeout = seconds("connect_timeout", value)
    if timeout < MIN_CONNECT_TIMEOUT_S:
        raise ConfigError(
            f"connect_timeout must be at least {MIN_CONNECT_TIMEOUT_S:g} seconds; got "
            f"{value!r}. It is how long a scheduler address may take to answer, and even a "
            "scheduler on this machine takes milliseconds: give seconds (10 is the default), "
            "not milliseconds"
        )
    if timeout > MAX_CONNECT_TIMEOUT_S:
        raise ConfigError(
            f"connect_timeout must be at most {MAX_CONNECT_TIMEOUT_S:g} seconds (an hour); "
            f"got {value!r}. It is how long a scheduler address may take to answer, and a "
            "longer wait is a hang: start the scheduler first and give it a few seconds, "
            "or pass a connected distributed.Client as scheduler"
        )
    return timeout


def run_cell(cell: Cell, arms: Sequence[ArmSpec], world: Mapping[str, Any]) -> Results:
    from workbench.evaluation.runner import evaluate

    fresh = [arm if isinstance(arm, str) else arm() for arm in arms]
    return evaluate(fresh, seed=cell.seed, preset=cell.preset, **world)


def _on_dask(
    scheduler: Any,
    cells: list[Cell],
    arms: Sequence[ArmSpec],
    world: Mapping[str, Any],
    connect_timeout: float,
) -> list[Results]:
    try:
        from distributed import Client
    except ImportError as exc:
        raise MissingDependency("distributed", "dask", "a sweep on a Dask cluster") from exc
    if isinstance(scheduler, Client):
        client = scheduler
    else:
        client = _connect(Client, scheduler, connect_timeout)
    try:
        futures = client.map(run_cell, cells, arms=list(arms), world=dict(world), pure=False)
        return list(client.gather(futures))
    finally:
        if client is not scheduler:
            client.close()


def _connect(client_type: Any, address: Any, timeout: float) -> Any:
    """A client of the scheduler at ``address``, or a ConfigError naming it and the fix."""
    try:
        if isinstance(address, str):
            _handshake(address, timeout)
        return client_type(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ConfigError(
            f"no Dask scheduler answered at {address!r} within {timeout:g} s "
            f"({type(exc).__name__}). Start one (`dask scheduler` and `dask worker ADDRESS`) "
            "or run a local cluster and pass it: `from distributed import LocalCluster, "
            "Client; client = Client(LocalCluster(host='127.0.0.1', processes=False))`, then "
            "scheduler=client; or leave scheduler out to run in this process"
        ) from exc


def _handshake(address: str, timeout: float) -> None:
    """Return once a scheduler at ``address`` completes Dask's handshake within ``timeout``.

    A Client waits for the handshake's reply without limit, so a server that accepts the
    connection and says nothing (another service on that port) would hang it; here that
    is a TimeoutError. ``run_sync`` runs the probe where a loop is running too (a notebook).
    """
    from distributed.comm import connect

    async def shake() -> None:
        comm = await connect(address, timeout=timeout)
        await comm.close()

    run_sync(shake(), timeout=timeout)


def scorecards(runs: Sequence[Results]) -> pd.DataFrame:
    """Every run's scorecard in one table, indexed by preset, seed and arm.

    Each run's ``results.scorecard`` is indexed by arm; this table adds the run's
    preset and seed in front, so ``table.loc[("calm-v1", 3, "momentum")]`` is a row
    and ``table["return_pct"].unstack("arm")`` puts the arms side by side.
    """
    frames = []
    for run in runs:
        card = run.scorecard.drop(columns=list(VOLATILE_COLUMNS))
        keys = [(run.meta["preset"], run.meta["seed"], arm) for arm in card.index]
        card.index = pd.MultiIndex.from_tuples(keys, names=["preset", "seed", "arm"])
        frames.append(card)
    return pd.concat(frames)
