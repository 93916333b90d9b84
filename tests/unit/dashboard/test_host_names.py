"""The names local mode answers to (dashboard.host_guard): what a Host or Origin header names, read strictly."""

from __future__ import annotations

import pytest

from dashboard.host_guard import LOOPBACK_NAMES, host_name, refusal

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
