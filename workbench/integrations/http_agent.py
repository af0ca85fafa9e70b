"""Agents behind a URL: POST each decision request, read the answer (same protocol as stdio).

The body is the ``decide`` message of ``workbench-agent/2`` (docs/process-agents.md);
the response body is the answer object (its ``id``, when given, must be the
request's). A status other than 2xx, a refused connection, a body cut short or no
whole answer within ``timeout`` seconds (one deadline for the whole exchange,
however slowly the server sends) is a ``FrameworkError`` for that decision and
the run goes on. Headers are only what ``headers=`` passes, plus ``Authorization:
Bearer $VAR`` when ``token_env`` names a variable.

Redirects are not followed (as httpx does by default): a 3xx is a
``FrameworkError`` naming where it pointed, so the token and the payload go to
``url`` and nowhere else, and no other host's answer is ever taken.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import socket
import time
from collections.abc import Mapping
from typing import Any, Unpack
from urllib.parse import urlsplit

from workbench._checks import is_whole
from workbench.agents import DecisionRequest
from workbench.errors import ConfigError, DecisionError, FrameworkError
from workbench.integrations._child import MAX_LINE_BYTES
from workbench.integrations._protocol import PROTOCOL
from workbench.integrations.base import (
    AdapterOptions,
    BaseAdapter,
    mode_of,
    replay_options,
)
from workbench.integrations.process import own_timeout, read_answer
from workbench.transcript import Transcript


class HttpAgentAdapter(BaseAdapter):
    """An arm answered by an HTTP endpoint; see the module doc."""

    framework = "http"

    def __init__(
        self,
        url: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        token_env: str | None = None,
        **options: Unpack[AdapterOptions],
    ) -> None:
        if url is None and mode_of(options) != "replay":
            raise ConfigError("http_agent needs a url; only a replay runs without one")
        if url is not None and urlsplit(url).scheme not in ("http", "https"):
            raise ConfigError(f"url must start with http:// or https://, got {url!r}")
        self.url, self.answer_timeout = url, own_timeout(options)  # the whole exchange's
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        if token_env is not None:
            if token_env not in os.environ:
                raise ConfigError(f"token_env names {token_env!r}, which is not set")
            self.headers["Authorization"] = f"Bearer {os.environ[token_env]}"
        super().__init__(**options)
        self.label = f"agent at {url} (arm {self.name!r})"
        self.requests = 0  # the id of the last request sent

    def default_name(self) -> str:
        name = urlsplit(self.url).hostname if self.url else None
        if name is None:
            raise ConfigError("a replay without a url needs name= (the recorded arm's name)")
        return name

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        assert self.url is not None  # a replay never asks
        self.requests += 1
        message = {"type": "decide", "protocol": PROTOCOL, "id": self.requests, "payload": sent}
        post = Post(self.url, self.headers, json.dumps(message).encode(), self.label)
        try:
            text = await asyncio.wait_for(asyncio.to_thread(post.send, self.answer_timeout),
                                          self.answer_timeout)  # fmt: skip
        except TimeoutError:
            post.abort()  # the worker thread's socket is shut: it ends at once
            raise no_answer(self.label, self.answer_timeout) from None
        raw, usage = read_answer(text, self.label)
        self._check_id(text)
        self.note_usage(**usage)
        return raw

    def _check_id(self, text: str) -> None:
        with contextlib.suppress(ValueError, RecursionError):
            answered = json.loads(text)
            got = answered.get("id") if isinstance(answered, dict) else None
            if got is not None and not (is_whole(got) and got == self.requests):
                self.note_answer(text)
                raise DecisionError(
                    f"{self.label} answered request {self.requests} with id {got!r}; an "
                    "answer carries its request's id, or none"
                )

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        """Rebuild for replay from the name, cadence and info only: a recording cannot
        make a replay start a program or call a URL, whatever else its spec holds."""
        return cls(**replay_options(spec, transcript))


class HttpAgentOptions(AdapterOptions, total=False):
    """``HttpAgentAdapter``'s own keywords beside the adapter keywords."""

    headers: Mapping[str, str] | None
    token_env: str | None


def http_agent(url: str, **options: Unpack[HttpAgentOptions]) -> HttpAgentAdapter:
    """``HttpAgentAdapter(url, **options)``: e.g. ``http_agent("http://127.0.0.1:8000/decide")``."""
    return HttpAgentAdapter(url, **options)


def no_answer(label: str, timeout: float) -> FrameworkError:
    return FrameworkError(
        f"{label} gave no answer within {timeout}s (all of it must arrive by then); "
        "raise timeout= or check the server"
    )


class Post:
    """One POST with one deadline; ``abort()`` from another thread ends it at once."""

    def __init__(self, url: str, headers: Mapping[str, str], body: bytes, label: str) -> None:
        self.url, self.headers, self.body, self.label = url, dict(headers), body, label
        self.connection: http.client.HTTPConnection | None = None
        self.response: http.client.HTTPResponse | None = None
        self.sock: socket.socket | None = None  # kept: the response may own it alone

    def send(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        try:
            response = self._response(timeout)
            data = self._body(response, deadline)
        except TimeoutError:
            raise no_answer(self.label, timeout) from None
        except (OSError, ValueError, http.client.HTTPException) as exc:
            raise FrameworkError(
                f"{self.label} could not be reached or gave no whole answer within "
                f"{timeout}s: {type(exc).__name__}: {exc}"
            ) from None
        finally:
            self._close()
        return data.decode("utf-8", errors="replace")

    def _response(self, timeout: float) -> http.client.HTTPResponse:
        parts = urlsplit(self.url)
        kind = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        self.connection = kind(parts.hostname or "", parts.port, timeout=timeout)
        self.connection.connect()
        self.sock = self.connection.sock
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.connection.request("POST", target, body=self.body, headers=self.headers)
        response = self.response = self.connection.getresponse()
        if 300 <= response.status < 400:
            where = response.getheader("Location", "nowhere")
            raise FrameworkError(
                f"{self.label} answered HTTP {response.status}, a redirect to {where}; "
                "redirects are not followed (the request and its token go to url= only): "
                "give url= the address that answers"
            )
        if not 200 <= response.status < 300:
            detail = response.read(300).decode("utf-8", errors="replace")
            raise FrameworkError(f"{self.label} answered HTTP {response.status}: {detail}")
        return response

    def _body(self, response: http.client.HTTPResponse, deadline: float) -> bytes:
        declared = response.getheader("Content-Length")
        chunks, size = [], 0
        while size <= MAX_LINE_BYTES:
            self._wait_at_most(deadline)
            chunk = response.read1(MAX_LINE_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_LINE_BYTES:
            raise FrameworkError(f"{self.label} answered more than {MAX_LINE_BYTES} bytes")
        if declared is not None and declared.isdigit() and size < int(declared):
            raise FrameworkError(
                f"{self.label} cut its answer short: {size} of the {declared} bytes it "
                "announced came before the connection closed"
            )
        return b"".join(chunks)

    def _wait_at_most(self, deadline: float) -> None:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the answer did not arrive whole before the deadline")
        if self.sock is not None:
            self.sock.settimeout(left)

    def abort(self) -> None:
        """Shut the socket (from any thread): the read waiting on it returns at once."""
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)

    def _close(self) -> None:
        for part in (self.response, self.connection):
            if part is not None:
                part.close()


__all__ = ["HttpAgentAdapter", "http_agent"]
