"""DNS rebinding: the local-mode dashboard (a real `streamlit run app.py`) answers only requests addressed to a
loopback name or one listed in GRAPHRAG_ALLOWED_HOSTS, over HTTP and on the websocket."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from graphrag import serve


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    tmp = tmp_path_factory.mktemp("host_guard")
    env = {"GRAPHRAG_SAMPLE": "0", "GRAPHRAG_STORE": str(tmp / "store.db"), "GRAPHRAG_MODE": "local",
           "GRAPHRAG_ALLOWED_HOSTS": "dashboard.lan"}
    with (tmp / "server.log").open("w") as log, serve.dashboard(log, env, timeout_s=90) as url:
        yield url, int(url.rsplit(":", 1)[1])


def _get(port: int, path: str, host: str, origin: str | None = None) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": host})
    if origin is not None:
        req.add_header("Origin", origin)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def _websocket(port: int, host: str, origin: str | None) -> bool:
    """Whether the server accepts the websocket upgrade of a browser that reached it as ``host``."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    try:
        # The URI names the host the Host header carries; the socket goes to 127.0.0.1 whatever it says.
        with connect(f"ws://{host}:{port}/_stcore/stream", sock=sock, origin=origin,  # type: ignore[arg-type]
                     subprotocols=["streamlit"], open_timeout=10):  # type: ignore[list-item]
            return True
    except InvalidStatus as exc:
        assert exc.response.status_code == 403
        return False


FOREIGN = ("evil.example", "127.0.0.1.nip.io", "192.168.1.20", "localhost.evil.example")


@pytest.mark.parametrize("name", FOREIGN)
def test_a_foreign_host_gets_no_page_and_no_websocket(server: tuple[str, int], name: str) -> None:
    _, port = server
    for path in ("/", "/_stcore/health", "/_stcore/host-config", "/review"):
        assert _get(port, path, f"{name}:{port}") == 403, path
    assert not _websocket(port, name, f"http://{name}:{port}")  # the rebinding page: same-origin to itself


def test_a_foreign_origin_on_a_loopback_host_is_refused(server: tuple[str, int]) -> None:
    _, port = server
    assert not _websocket(port, "127.0.0.1", f"http://evil.example:{port}")
    assert not _websocket(port, "localhost", "null")
    assert _get(port, "/", f"127.0.0.1:{port}", origin="http://evil.example") == 403


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]", "dashboard.lan"])
def test_loopback_names_and_listed_names_are_served(server: tuple[str, int], name: str) -> None:
    _, port = server
    assert _get(port, "/", f"{name}:{port}") == 200
    assert _get(port, "/_stcore/health", f"{name.upper()}.:{port}") == 200  # names are case-blind, dot or not
    assert _websocket(port, name, f"http://{name}:{port}")
    assert _websocket(port, name, None)  # a client that sends no Origin (not a browser)
