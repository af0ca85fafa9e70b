"""HTTP agents against hostile loopback servers: redirects, dribbled answers, bodies cut short."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from workbench import evaluate
from workbench.integrations.http_agent import http_agent
from workbench.testing.stub_endpoint import POLL_S

ONE_DAY = {"seed": 3, "universe": 5, "days": 1}
Behaviour = Callable[[BaseHTTPRequestHandler, dict], None]


def answer_body(request: dict) -> bytes:
    decision = {"actions": [], "rationale": "from the server"}
    return json.dumps({"type": "decision", "id": request.get("id"), "decision": decision}).encode()


class Server:
    """A loopback server whose POST (and GET) behaviour a test sets; it logs every request."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.seen: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self._serve()

            def do_GET(self) -> None:
                self._serve()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                owner.seen.append({"auth": self.headers.get("Authorization"), **request})
                behaviour(self, request)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/decide"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(POLL_S,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve() -> Iterator[Callable[[Behaviour], Server]]:
    started: list[Server] = []

    def start(behaviour: Behaviour) -> Server:
        started.append(Server(behaviour))
        return started[-1]

    yield start
    for server in started:
        server.close()


def answers(handler: BaseHTTPRequestHandler, request: dict) -> None:
    body = answer_body(request)
    handler.send_response(200)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.mark.slow
def test_a_redirect_to_another_host_is_refused_and_gets_neither_token_nor_payload(
    serve: Callable[[Behaviour], Server], monkeypatch: pytest.MonkeyPatch
) -> None:
    foreign = serve(answers)

    def redirects(handler: BaseHTTPRequestHandler, request: dict) -> None:
        handler.send_response(302)
        handler.send_header("Location", foreign.url)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    home = serve(redirects)
    monkeypatch.setenv("WORKBENCH_AGENT_BEARER", "s3cr3t-value")
    arm = http_agent(home.url, name="web", token_env="WORKBENCH_AGENT_BEARER")
    results = evaluate([arm], **ONE_DAY)
    assert home.seen[0]["auth"] == "Bearer s3cr3t-value"
    assert foreign.seen == []  # today: the foreign host gets the token and its answer counts
    (error,) = results.errors.to_dict("records")
    assert error["kind"] == "FrameworkError"
    assert f"HTTP 302, a redirect to {foreign.url}" in error["message"]
    assert "s3cr3t" not in error["message"]


@pytest.mark.timeout(120)
@pytest.mark.slow
def test_a_server_dribbling_its_answer_is_cut_off_at_the_timeout(
    serve: Callable[[Behaviour], Server],
) -> None:
    def dribbles(handler: BaseHTTPRequestHandler, request: dict) -> None:
        body = answer_body(request)
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        try:
            for byte in body:  # one byte every half second: each read is quick
                handler.wfile.write(bytes([byte]))
                handler.wfile.flush()
                time.sleep(0.5)
        except OSError:
            pass  # the client hung up, as it should

    server = serve(dribbles)
    started = time.monotonic()
    results = evaluate([http_agent(server.url, name="slow", timeout=2)], **ONE_DAY)
    assert time.monotonic() - started < 20  # today: about half a second per byte
    (error,) = results.errors.to_dict("records")
    assert error["kind"] == "FrameworkError" and "within 2s" in error["message"]


@pytest.mark.slow
def test_a_body_cut_short_is_a_framework_error(serve: Callable[[Behaviour], Server]) -> None:
    def cuts(handler: BaseHTTPRequestHandler, request: dict) -> None:
        body = answer_body(request)
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body[:20])
        handler.wfile.flush()
        handler.close_connection = True

    server = serve(cuts)
    results = evaluate([http_agent(server.url, name="cut")], **ONE_DAY)
    (error,) = results.errors.to_dict("records")
    assert error["kind"] == "FrameworkError"  # today: DecisionError (the agent blamed)
    assert "cut its answer short: 20 of the" in error["message"]


@pytest.mark.slow
def test_each_request_carries_an_id_and_an_answer_to_another_is_refused(
    serve: Callable[[Behaviour], Server],
) -> None:
    def answers_the_wrong_one(handler: BaseHTTPRequestHandler, request: dict) -> None:
        answers(handler, {**request, "id": 99})

    server = serve(answers)
    good = evaluate([http_agent(server.url, name="web")], seed=3, universe=5, days=2)
    assert [seen["id"] for seen in server.seen] == [1, 2]
    assert good.scorecard.loc["web", "errors"] == 0
    wrong = serve(answers_the_wrong_one)
    bad = evaluate([http_agent(wrong.url, name="web")], **ONE_DAY)
    (error,) = bad.errors.to_dict("records")
    assert error["kind"] == "DecisionError" and "with id 99" in error["message"]
