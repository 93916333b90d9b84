"""A fake Ollama server for tests: real HTTP on 127.0.0.1, scripted replies.

The real ``ollama`` client talks to it over the wire, so request building, error parsing and
timeouts are the client's own. Knobs:

- ``models``: names ``/api/tags`` lists; a chat for any other model gets Ollama's real 404.
- ``responder``: ``request dict -> str | Reply`` produces each ``/api/chat`` reply.
- ``delay``: seconds to wait before every chat reply (to trigger client timeouts).
- ``stop_after``: take the server down right after answering that many chat calls.
- ``requests`` / ``calls``: every chat request body received, and how many.
- ``errors``: exceptions the responder raised (answered as 500; the fixture fails the test).
- ``stop()`` / ``start()``: down and up again on the same port.

Use the ``fake_ollama`` fixture (conftest.py shares it with every module), or ``dead_host`` for a URL
with nothing listening.
"""

from __future__ import annotations

import hashlib
import json
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Reply:
    """One scripted chat reply: content, or an HTTP error, or a misbehaviour."""

    content: str = ""
    status: int = 200
    error: str | None = None  # sent as {"error": ...} with ``status``
    delay: float = 0.0
    raw: str | None = None  # a raw HTTP body (e.g. not JSON at all)
    drop: bool = False  # close the connection without answering (a reset)
    logprobs: list[dict[str, Any]] | None = None


Responder = Callable[[dict[str, Any]], "str | Reply"]


def json_reply(obj: Any) -> str:
    return json.dumps(obj)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True  # a reply still sleeping on a delay must not block stop()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out has closed its end; writing the late reply then fails.
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _same_model(a: str, b: str) -> bool:
    def norm(m: str) -> str:
        return m if ":" in m.rsplit("/", 1)[-1] else f"{m}:latest"

    return norm(a) == norm(b)


def not_found_error(model: str) -> str:
    return f'model "{model}" not found, try pulling it first'


class FakeOllama:
    def __init__(
        self,
        models: tuple[str, ...] | list[str] = ("llama3.1:8b", "bespoke-minicheck:latest"),
        responder: Responder | None = None,
        delay: float = 0.0,
    ) -> None:
        self.models = list(models)
        self.responder: Responder = responder or (lambda req: "")
        self.delay = delay
        self.stop_after: int | None = None
        self.requests: list[dict[str, Any]] = []
        self.calls = 0
        self.errors: list[Exception] = []  # exceptions raised by ``responder``
        self.port = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle ----------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> FakeOllama:
        """Listen on 127.0.0.1 (a free port the first time, the same port after a stop)."""
        self._stopping.clear()
        server = _QuietServer(("127.0.0.1", self.port), _handler_for(self))
        self.port = server.server_address[1]
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop listening: new connections are refused. Safe to call from a handler thread."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()  # wakes any reply still sleeping on a delay
        server.shutdown()
        server.server_close()

    def chat_contents(self) -> list[str]:
        """The user message text of every chat request, in order."""
        return [m["content"] for r in self.requests for m in r["messages"] if m["role"] == "user"]

    # --- replies ------------------------------------------------------------------------

    def pulled(self, model: str) -> bool:
        return any(_same_model(model, m) for m in self.models)

    def tags(self) -> dict[str, Any]:
        return {"models": [_model_entry(m) for m in self.models]}

    def next_chat(self, body: dict[str, Any]) -> tuple[Reply, bool]:
        """Record the request and script the reply; the bool says "stop after answering"."""
        with self._lock:
            self.calls += 1
            self.requests.append(body)
            stop = self.stop_after is not None and self.calls >= self.stop_after
        model = body.get("model", "")
        if not self.pulled(model):
            return Reply(status=404, error=not_found_error(model)), stop
        try:
            produced = self.responder(body)
        except Exception as e:  # noqa: BLE001 - a bug in the test's script: answer 500, report at teardown
            self.errors.append(e)
            return Reply(status=500, error=f"responder raised {type(e).__name__}: {e}"), stop
        reply = produced if isinstance(produced, Reply) else Reply(content=produced)
        return reply, stop

    def wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


def _model_entry(name: str) -> dict[str, Any]:
    digest = hashlib.sha256(name.encode()).hexdigest()
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 4_000_000_000,
        "digest": digest,
        "details": {
            "format": "gguf",
            "family": "llama",
            "parameter_size": "8B",
            "quantization_level": "Q4_K_M",
        },
    }


def _fake_embedding(text: str, dim: int = 8) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [(b - 128) / 128 for b in digest[:dim]]


def _handler_for(fake: FakeOllama) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output quiet
            pass

        def _send_json(self, status: int, obj: Any) -> None:
            self._send_raw(status, json.dumps(obj))

        def _send_raw(self, status: int, body: str) -> None:
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> dict[str, Any]:
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"{}")

        def do_GET(self) -> None:
            if self.path == "/api/tags":
                self._send_json(200, fake.tags())
            elif self.path == "/api/version":
                self._send_json(200, {"version": "0.12.6"})
            elif self.path == "/api/ps":
                self._send_json(200, {"models": []})
            else:
                self._send_raw(404, "404 page not found")

        def do_POST(self) -> None:
            body = self._body()
            if self.path == "/api/chat":
                self._chat(body)
            elif self.path == "/api/embed":
                self._embed(body)
            elif self.path == "/api/show":
                self._show(body)
            else:
                self._send_raw(404, "404 page not found")

        def _chat(self, body: dict[str, Any]) -> None:
            reply, stop = fake.next_chat(body)
            fake.wait(fake.delay + reply.delay)
            if stop:
                fake.stop()  # listening socket closed before this reply goes out
            if reply.drop:
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return
            if reply.raw is not None:
                self._send_raw(reply.status, reply.raw)
            elif reply.error is not None:
                self._send_json(reply.status, {"error": reply.error})
            else:
                self._send_chat(body, reply)

        def _send_chat(self, body: dict[str, Any], reply: Reply) -> None:
            message = {
                "model": body.get("model"),
                "created_at": "2025-01-01T00:00:00Z",
                "message": {"role": "assistant", "content": reply.content},
                "done": True,
                "done_reason": "stop",
                "total_duration": 1000,
                "prompt_eval_count": 10,
                "eval_count": 5,
            }
            if reply.logprobs is not None:
                message["logprobs"] = reply.logprobs
            if body.get("stream"):
                self._send_raw(reply.status, json.dumps(message) + "\n")
            else:
                self._send_json(reply.status, message)

        def _embed(self, body: dict[str, Any]) -> None:
            model = body.get("model", "")
            if not fake.pulled(model):
                self._send_json(404, {"error": not_found_error(model)})
                return
            inputs = body.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else inputs
            self._send_json(200, {"model": model, "embeddings": [_fake_embedding(t) for t in inputs]})

        def _show(self, body: dict[str, Any]) -> None:
            model = body.get("model", "")
            if not fake.pulled(model):
                self._send_json(404, {"error": not_found_error(model)})
                return
            entry = _model_entry(model)
            show = {"modelfile": "", "template": "", "details": entry["details"], "model_info": {}}
            self._send_json(200, show)

    return Handler


def free_port() -> int:
    """A port with nothing listening on it (bound briefly, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def fake_ollama() -> Iterator[FakeOllama]:
    fake = FakeOllama().start()
    try:
        yield fake
    finally:
        fake.stop()
    if fake.errors:
        raise AssertionError(f"the fake server's responder raised: {fake.errors[0]!r}") from fake.errors[0]


@pytest.fixture
def dead_host() -> str:
    return f"http://127.0.0.1:{free_port()}"


__all__ = ["FakeOllama", "Reply", "dead_host", "fake_ollama", "free_port", "json_reply", "not_found_error"]
