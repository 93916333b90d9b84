"""DNS rebinding: the local-mode dashboard (a real `streamlit run app.py`) answers only requests addressed to a
loopback name or one listed in GRAPHRAG_ALLOWED_HOSTS, over HTTP and on the websocket."""

from __future__ import annotations

import http.client
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


def _other_port(port: int) -> int:
    return port + 1 if port < 65535 else port - 1


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "[::1]", "dashboard.lan"])
def test_a_page_of_another_local_origin_gets_no_websocket_and_no_page(server: tuple[str, int], name: str) -> None:
    """Another web server on this machine (a dev server, another local app) serves a page from another port or
    scheme: the browser sends the dashboard's own Host but that page's Origin, which must be refused."""
    _, port = server
    other = _other_port(port)
    for origin in (f"http://{name}:{other}", f"http://localhost:{other}", f"http://127.0.0.1:{other}",
                   f"https://{name}", f"http://{name}", "https://localhost", f"chrome-extension://{name}:{port}"):
        assert not _websocket(port, name, origin), origin
        assert _get(port, "/", f"{name}:{port}", origin=origin) == 403, origin
    # the same port under another loopback name is another origin too
    for alias in {"127.0.0.1", "localhost", "[::1]"} - {name}:
        assert not _websocket(port, name, f"http://{alias}:{port}"), alias


def test_two_origin_or_host_headers_are_refused(server: tuple[str, int]) -> None:
    """No browser sends two: which one Streamlit would read is not this guard's to guess."""
    _, port = server
    for headers in ([("Host", f"localhost:{port}"), ("Origin", "http://evil.example"),
                     ("Origin", f"http://localhost:{port}")],
                    [("Host", "evil.example"), ("Host", f"localhost:{port}")]):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            c.putrequest("GET", "/", skip_host=True)
            for k, v in headers:
                c.putheader(k, v)
            c.endheaders()
            assert c.getresponse().status in (400, 403), headers
        finally:
            c.close()
