"""Edges of the sweep's connect_timeout found in review."""

from __future__ import annotations

import socket

import pytest

from workbench.errors import ConfigError
from workbench.evaluation.sweep import sweep


@pytest.mark.parametrize("timeout", [float("nan"), True, "1"])
def test_a_connect_timeout_that_is_no_duration_is_refused_without_a_scheduler_too(
    timeout: object,
) -> None:
    with pytest.raises(ConfigError, match=f"connect_timeout .*got {timeout!r}"):
        sweep(["cash"], seeds=[1], connect_timeout=timeout, universe=3, days=1)


def test_the_default_connect_timeout_is_the_one_the_docs_state() -> None:
    import inspect

    default = inspect.signature(sweep).parameters["connect_timeout"].default
    assert default == 10 and "10 by default" in (sweep.__doc__ or "")


@pytest.mark.timeout(60)  # without the handshake's own deadline this waited forever
def test_a_port_that_accepts_and_never_answers_is_a_config_error_not_a_hang() -> None:
    pytest.importorskip("distributed")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        with pytest.raises(ConfigError, match="TimeoutError") as caught:
            sweep(["cash"], seeds=[1], scheduler=address, connect_timeout=0.5, universe=3, days=1)
    assert address in str(caught.value) and "within 0.5 s" in str(caught.value)
