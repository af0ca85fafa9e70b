"""The suite's own guards (tests/conftest.py) hold."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest
from conftest import credential_names


def test_an_outside_address_is_refused_before_any_packet() -> None:
    with socket.socket() as sock, pytest.raises(OSError, match="only connect to loopback"):
        sock.connect(("192.0.2.1", 443))  # TEST-NET-1: never routed


def test_a_host_name_is_refused_too() -> None:
    with socket.socket() as sock, pytest.raises(OSError, match="only connect to loopback"):
        sock.connect(("api.openai.com", 443))


def test_loopback_still_works() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        with socket.socket() as client:
            client.connect(server.getsockname())
            accepted, _ = server.accept()
            accepted.close()


def test_credential_names_are_recognised() -> None:
    environ = {"OPENAI_API_KEY": "x", "HF_TOKEN": "x", "DB_PASSWORD": "x", "PATH": "/bin"}
    assert credential_names(environ) == ["OPENAI_API_KEY", "HF_TOKEN", "DB_PASSWORD"]


def test_credentials_are_not_in_the_environment_of_tests_or_their_children() -> None:
    assert credential_names(os.environ) == []
    code = "import os; print([n for n in os.environ if 'TOKEN' in n or 'API_KEY' in n])"
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert child.stdout.strip() == "[]"
