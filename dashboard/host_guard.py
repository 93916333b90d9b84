"""Local mode answers only requests addressed to this machine by a loopback name, from its own pages.

A page on ``evil.example`` whose name is made to resolve to 127.0.0.1 (DNS rebinding) is, for the browser,
the same origin as the dashboard: without this check it reads every page and drives the websocket like the
person at the keyboard. The browser still sends the name it used, in ``Host`` (every request) and ``Origin``
(the websocket handshake, cross-origin requests and every POST), so every HTTP request and websocket
upgrade whose ``Host`` names anything but 127.0.0.1, localhost, [::1] or a name listed in
``GRAPHRAG_ALLOWED_HOSTS`` is refused before Streamlit sees it.

A page of another origin on the same machine (``http://localhost:9999``: another local web server, a dev server,
an XSS in another local app) sends the dashboard's own ``Host`` but its own ``Origin``, and Streamlit's websocket
check admits any loopback origin. So an ``Origin``, when there is one, must be the request's own: the same name as
``Host`` and the same port (``Host``'s, or when it names none the default port of the scheme the request came by:
``http://localhost`` is not ``https://localhost``). One port is one server whatever the scheme, so with a port the
scheme is not compared (a proxy terminating TLS on ``localhost:8443`` may not say so); a listed name without a port
may be reached by ``http://`` or ``https://`` (a reverse proxy in front of it). Team mode is not guarded here: it
serves nothing before sign-in, and its session cookie belongs to the name the team uses.

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


_DEFAULT_PORTS = {"http": 80, "https": 443}
# the scheme of the page that opened a websocket is the HTTP one of the upgrade's own (ASGI says ws or wss)
_PAGE_SCHEMES = {"http": "http", "https": "https", "ws": "http", "wss": "https"}


def _authority(value: str) -> tuple[str, str, int | None] | None:
    """(scheme or "", host name, port or None) of a ``Host`` header (``name[:port]``) or an ``Origin``
    (``scheme://name[:port]``): the name lower-cased without a trailing dot or IPv6 brackets; None when it is not
    one (a user, a path, a query, a port that is not a number)."""
    text = value.strip()
    try:
        parts = urllib.parse.urlsplit(text if "://" in text else f"//{text}")
        port = parts.port  # a port that is not a number makes the whole value unusable
    except ValueError:
        return None
    if parts.username is not None or parts.password is not None or parts.path or parts.query or parts.fragment:
        return None
    name = (parts.hostname or "").rstrip(".")
    return (parts.scheme.lower(), name, port) if name else None


def host_name(value: str) -> str | None:
    """The host name of a ``Host`` header (``name[:port]``) or an ``Origin`` (``scheme://name[:port]``),
    lower-cased without a trailing dot or IPv6 brackets; None when it is not one."""
    parts = _authority(value)
    return parts[1] if parts else None


def foreign_origin(host: str, origin: str, allowed: frozenset[str], scheme: str = "http") -> bool:
    """Whether ``origin`` is not the origin of the request that carries it: its ``Host`` header ``host`` (a name
    answered to), come by ``scheme`` (the ASGI scope's: http, https, ws or wss). The same name and the same port:
    ``Host``'s port, or when it gives none the default port of ``scheme``; for a listed (not loopback) name without
    a port, the default port of either scheme."""
    mine, theirs = _authority(host), _authority(origin)
    if mine is None or theirs is None or theirs[0] not in _DEFAULT_PORTS or theirs[1] != mine[1]:
        return True  # "null", another scheme (an extension's page), another name
    their_port = theirs[2] if theirs[2] is not None else _DEFAULT_PORTS[theirs[0]]
    if mine[2] is not None:
        return their_port != mine[2]
    if mine[1] not in LOOPBACK_NAMES and mine[1] in allowed:  # behind a proxy that may not say it ends TLS
        return their_port != _DEFAULT_PORTS[theirs[0]]
    return their_port != _DEFAULT_PORTS.get(_PAGE_SCHEMES.get(scheme, "http"), 80)


def refusal(host: str | None, origin: str | None, allowed: frozenset[str], scheme: str = "http") -> str | None:
    """Why a request with these ``Host`` and ``Origin`` headers, come by ``scheme`` (http, https, ws, wss), is
    refused, or None when it may be served. A request without ``Origin`` is fine (browsers send one wherever a
    foreign page could be the sender); one without ``Host`` is not (HTTP/1.1 requires it)."""
    if host is None or host_name(host) not in allowed:
        return f"the Host {host!r} is not a name this dashboard answers to (list it in GRAPHRAG_ALLOWED_HOSTS)"
    if origin is not None and foreign_origin(host, origin, allowed, scheme):
        return f"the Origin {origin!r} is not this dashboard's own ({host!r} by {scheme})"
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
            headers: dict[str, list[str]] = {}
            for k, v in scope.get("headers", []):
                headers.setdefault(k.decode("latin-1").lower(), []).append(v.decode("latin-1"))
            hosts, origins = headers.get("host", []), headers.get("origin", [])
            if len(hosts) > 1 or len(origins) > 1:  # which one would Streamlit read? No browser sends two
                why: str | None = f"it has {len(hosts)} Host and {len(origins)} Origin headers"
            else:
                why = refusal(next(iter(hosts), None), next(iter(origins), None), allowed,
                              str(scope.get("scheme", "http")))
            if why is not None:
                log.warning("refused a %s request: %s", scope["type"], why)
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


__all__ = ["LOOPBACK_NAMES", "HostGuard", "foreign_origin", "host_name", "refusal"]
