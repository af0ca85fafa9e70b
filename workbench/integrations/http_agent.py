"""Agents behind a URL: POST each decision request, read the answer (same protocol as stdio).

The body is the ``decide`` message of ``workbench-agent/1`` (docs/process-agents.md);
the response body is the answer object. A status other than 2xx, a refused
connection or no answer within ``timeout`` is a ``FrameworkError`` for that
decision (the run goes on); the call runs in a worker thread with a socket
timeout, so a silent server never keeps the process alive. Headers are only
what ``headers=`` passes, plus ``Authorization: Bearer $VAR`` when ``token_env``
names a variable.
"""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping
from typing import Any, Unpack
from urllib.parse import urlsplit

from workbench.agents import DecisionRequest
from workbench.errors import ConfigError, FrameworkError
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
        self.url, self.answer_timeout = url, own_timeout(options)  # ours is the socket's
        self.headers = {"Content-Type": "application/json", **(headers or {})}
        if token_env is not None:
            if token_env not in os.environ:
                raise ConfigError(f"token_env names {token_env!r}, which is not set")
            self.headers["Authorization"] = f"Bearer {os.environ[token_env]}"
        super().__init__(**options)
        self.label = f"agent at {url} (arm {self.name!r})"

    def default_name(self) -> str:
        name = urlsplit(self.url).hostname if self.url else None
        if name is None:
            raise ConfigError("a replay without a url needs name= (the recorded arm's name)")
        return name

    async def ask(self, request: DecisionRequest, sent: Any) -> Any:
        body = json.dumps({"type": "decide", "protocol": PROTOCOL, "payload": sent}).encode()
        text = await asyncio.to_thread(self._post, body)
        raw, usage = read_answer(text, self.label)
        self.note_usage(**usage)
        return raw

    def _post(self, body: bytes) -> str:
        assert self.url is not None  # a replay never asks
        sent = urllib.request.Request(self.url, data=body, headers=self.headers, method="POST")
        try:
            with urllib.request.urlopen(sent, timeout=self.answer_timeout) as response:
                data = response.read(MAX_LINE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", errors="replace")
            raise FrameworkError(f"{self.label} answered HTTP {exc.code}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise FrameworkError(
                f"{self.label} could not be reached or gave no answer within "
                f"{self.answer_timeout}s: {reason}"
            ) from None
        if len(data) > MAX_LINE_BYTES:
            raise FrameworkError(f"{self.label} answered more than {MAX_LINE_BYTES} bytes")
        return data.decode("utf-8", errors="replace")

    @classmethod
    def from_replay_spec(cls, spec: dict[str, Any], transcript: Transcript) -> BaseAdapter:
        """Rebuild for replay from the name, cadence and info only: a recording cannot
        make a replay start a program or call a URL, whatever else its spec holds."""
        return cls(**replay_options(spec, transcript))


def http_agent(url: str, **kwargs: Any) -> HttpAgentAdapter:
    """``HttpAgentAdapter(url, **kwargs)``: e.g. ``http_agent("http://127.0.0.1:8000/decide")``."""
    return HttpAgentAdapter(url, **kwargs)


__all__ = ["HttpAgentAdapter", "http_agent"]
