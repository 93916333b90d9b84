"""The names local mode answers to (dashboard.host_guard): what a Host or Origin header names, read strictly."""

from __future__ import annotations

import pytest

from dashboard.host_guard import LOOPBACK_NAMES, foreign_origin, host_name, refusal

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("value", "name"), [
    ("127.0.0.1:8501", "127.0.0.1"), ("LOCALHOST.:8501", "localhost"), ("[::1]:8501", "::1"), ("localhost", "localhost"),
    ("http://localhost:8501", "localhost"), ("https://[::1]", "::1"),
    ("evil@127.0.0.1", None), ("127.0.0.1:80x", None), ("127.0.0.1/x", None), ("127.0.0.1?x", None), ("", None),
    ("127.0.0.1:8501 .evil.example", None),
])
def test_a_header_names_one_host_or_none(value: str, name: str | None) -> None:
    assert host_name(value) == name


def test_a_request_is_refused_unless_host_and_origin_are_both_answered_to() -> None:
    allowed = LOOPBACK_NAMES | {"dashboard.lan"}
    assert refusal("localhost:8501", "http://localhost:8501", allowed) is None
    assert refusal("dashboard.lan", None, allowed) is None
    assert refusal(None, None, allowed) is not None  # HTTP/1.1 always sends a Host
    assert refusal("evil.example:8501", "http://evil.example:8501", allowed) is not None
    assert refusal("127.0.0.1:8501", "http://evil.example", allowed) is not None
    assert refusal("127.0.0.1:8501", "null", allowed) is not None


@pytest.mark.parametrize(("host", "origin", "scheme", "foreign"), [
    # the dashboard's own pages, as a browser sends them
    ("localhost:8501", "http://localhost:8501", "ws", False), ("[::1]:8501", "http://[::1]:8501", "http", False),
    ("LOCALHOST.:8501", "http://localhost:8501", "ws", False),
    ("localhost", "http://localhost", "ws", False), ("localhost", "https://localhost", "wss", False),
    ("localhost:8443", "https://localhost:8443", "ws", False),  # a proxy ending TLS on 8443: one port, one server
    ("dashboard.lan", "https://dashboard.lan", "ws", False),  # a listed name behind a proxy ending TLS
    ("dashboard.lan", "http://dashboard.lan", "ws", False),
    # another server on this machine: another port, the other default port, another loopback name
    ("localhost:8501", "http://localhost:9999", "ws", True), ("localhost:8501", "http://127.0.0.1:9999", "ws", True),
    ("localhost:8501", "https://localhost", "wss", True), ("localhost:8501", "http://localhost", "ws", True),
    ("localhost:8501", "http://127.0.0.1:8501", "ws", True), ("127.0.0.1:8501", "http://[::1]:8501", "ws", True),
    ("localhost", "https://localhost", "ws", True), ("localhost", "http://localhost", "wss", True),
    ("localhost", "http://localhost:8080", "ws", True),
    ("dashboard.lan", "https://dashboard.lan:8443", "ws", True), ("dashboard.lan:8501", "http://dashboard.lan", "ws", True),
    # not an origin of a web page at all
    ("localhost:8501", "null", "ws", True), ("localhost:8501", "file://localhost:8501", "ws", True),
    ("localhost:8501", "chrome-extension://localhost:8501", "ws", True), ("localhost:8501", "", "ws", True),
    ("localhost:8501", "http://localhost:8501/x", "ws", True),
])
def test_an_origin_is_the_requests_own_by_name_and_port(host: str, origin: str, scheme: str, foreign: bool) -> None:
    allowed = LOOPBACK_NAMES | {"dashboard.lan"}
    assert foreign_origin(host, origin, allowed, scheme) is foreign
    assert (refusal(host, origin, allowed, scheme) is not None) is foreign
