"""A loopback stand-in for an OpenAI-compatible server, for tests and examples with no model.

``StubServer(answer)`` serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free
port) from a daemon thread. ``answer(body)`` returns ``(status, json_body)``;
the default answers every request with ``decision_text(body)``: a hold, or a
buy of the first symbol for a rendered observation. Every request body is kept
in ``requests``. ``silent=True`` accepts connections and never answers.

Use it as a context manager; ``url`` is the base URL to give ``Endpoint``.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from workbench.integrations._frameworks import PAYLOAD_HEADER

Answer = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
# How often the serving thread looks for a shutdown: the default half second is what
# leaving the ``with`` block would wait.
POLL_S = 0.02


def completion(text: str, *, model: str = "stub-model", tool: bool = False) -> dict[str, Any]:
    """A chat-completions response carrying ``text`` (as tool arguments when ``tool``)."""
    message: dict[str, Any] = {"role": "assistant", "content": None if tool else text}
    if tool:
        message["tool_calls"] = [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "submit_decision", "arguments": text},
            }
        ]
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": "tool_calls" if tool else "stop"}
        ],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
    }


def decision_text(body: dict[str, Any]) -> str:
    """Buy one share of the first symbol in the rendered observation (or hold)."""
    for message in reversed(body.get("messages") or []):
        content = message.get("content")
        if isinstance(content, str) and PAYLOAD_HEADER in content:
            payload = json.loads(content.split(PAYLOAD_HEADER, 1)[1])
            first = sorted(payload.get("symbols") or {})[:1]
            actions = [{"symbol": s, "side": "buy", "quantity": 1} for s in first]
            return json.dumps({"actions": actions, "rationale": "stub"})
    return json.dumps({"actions": [], "rationale": "hold"})


def answer_decisions(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    return 200, completion(decision_text(body), tool=bool(body.get("tools")))


class StubServer:
    """A loopback chat-completions server answering from ``answer``; see the module doc."""

    def __init__(self, answer: Answer = answer_decisions, *, silent: bool = False) -> None:
        self.answer, self.silent = answer, silent
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._socket: socket.socket | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> StubServer:
        if self.silent:
            self._socket = socket.create_server(("127.0.0.1", 0))
            self.port = self._socket.getsockname()[1]  # listens, never answers
            return self
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, args=(POLL_S,), daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._socket is not None:
            self._socket.close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as real servers: pooled connections

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(body)
                    status, reply = stub.answer(body)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return

        return Handler


def failing_first(statuses: list[int], then: Answer = answer_decisions) -> Answer:
    """Answer with each status in ``statuses`` once (an error body), then like ``then``."""
    left = list(statuses)

    def answer(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if left:
            return left.pop(0), {"error": {"message": "try again later"}}
        return then(body)

    return answer


__all__ = [
    "StubServer",
    "answer_decisions",
    "completion",
    "decision_text",
    "failing_first",
]
