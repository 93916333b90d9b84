"""Local mode answers only requests addressed to this machine by a loopback name.

A page on ``evil.example`` whose name is made to resolve to 127.0.0.1 (DNS rebinding) is, for the browser,
the same origin as the dashboard: without this check it reads every page and drives the websocket like the
person at the keyboard. The browser still sends the name it used, in ``Host`` (every request) and ``Origin``
(the websocket handshake, cross-origin requests and every POST), so every HTTP request and websocket
upgrade whose ``Host`` or ``Origin`` names anything but 127.0.0.1, localhost, [::1] or a name listed in
``GRAPHRAG_ALLOWED_HOSTS`` is refused before Streamlit sees it. Team mode is not guarded here: it serves
nothing before sign-in, and its session cookie belongs to the name the team uses.

Pure ASGI, so it runs in front of Streamlit's own routes (``app.py`` hands it to ``st.App``).
"""

from __future__ import annotations

import logging
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from graphrag.config import Config, ConfigError

log = logging.getLogger(__name__)

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def host_name(value: str) -> str | None:
    """The host name of a ``Host`` header (``name[:port]``) or an ``Origin`` (``scheme://name[:port]``),
    lower-cased without a trailing dot or IPv6 brackets; None when it is not one."""
    text = value.strip()
    try:
        parts = urllib.parse.urlsplit(text if "://" in text else f"//{text}")
        _ = parts.port  # a port that is not a number makes the whole value unusable
    except ValueError:
        return None
    if parts.username is not None or parts.password is not None or parts.path or parts.query or parts.fragment:
        return None
    name = (parts.hostname or "").rstrip(".")
    return name or None


def refusal(host: str | None, origin: str | None, allowed: frozenset[str]) -> str | None:
    """Why a request with these ``Host`` and ``Origin`` headers is refused, or None when it may be served.
    A request without ``Origin`` is fine (browsers send one wherever a foreign page could be the sender);
    one without ``Host`` is not (HTTP/1.1 requires it)."""
    if host is None or host_name(host) not in allowed:
        return f"the Host {host!r} is not a name this dashboard answers to"
    if origin is not None and host_name(origin) not in allowed:
        return f"the Origin {origin!r} is not a name this dashboard answers to"
    return None


class HostGuard:
    """ASGI middleware refusing, in local mode, requests not addressed to a loopback or listed name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self._decided: tuple[bool, frozenset[str]] | None = None

    def _policy(self) -> tuple[bool, frozenset[str]]:
        """(guarded, the names answered to). Read at the first request: by then Streamlit has copied
        secrets.toml into the environment. A configuration the pages will refuse is guarded as local mode."""
        if self._decided is None:
            try:
                config = Config.from_env()
                guarded, extra = config.mode != "team", config.allowed_hosts
            except ConfigError:
                guarded, extra = True, frozenset()
            self._decided = (guarded, LOOPBACK_NAMES | extra)
        return self._decided

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve the request, or refuse it (HTTP 403, websocket closed before it opens) with a line in the log."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        guarded, allowed = self._policy()
        if guarded:
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            why = refusal(headers.get("host"), headers.get("origin"), allowed)
            if why is not None:
                log.warning("refused a %s request: %s (list it in GRAPHRAG_ALLOWED_HOSTS to serve it)",
                            scope["type"], why)
                await _refuse(scope, send)
                return
        await self.app(scope, receive, send)


async def _refuse(scope: Scope, send: Send) -> None:
    if scope["type"] == "websocket":  # closing before accepting answers the upgrade with 403
        await send({"type": "websocket.close", "code": 1008})
        return
    body = (b"This dashboard answers only on this machine's loopback names (127.0.0.1, localhost, [::1]) "
            b"and the names listed in GRAPHRAG_ALLOWED_HOSTS.\n")
    await send({"type": "http.response.start", "status": 403,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


__all__ = ["LOOPBACK_NAMES", "HostGuard", "host_name", "refusal"]
