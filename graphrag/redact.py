"""Secrets out of text that people see: the one function every shown URL, setting, message and log passes.

A database URL carries its password in three forms, all redacted: ``user:password@host``, a query key
(``?password=``, ``&sslpassword=``, ``passfile=``, and any key naming a password, secret, token or key),
and libpq's ``key=value`` connection strings (``host=db password=...``), which drivers quote in errors.
"""

from __future__ import annotations

import re

HIDDEN = "***"
# A URL's scheme and authority: the user information ends at the last "@" before the path, query or fragment.
_URL = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<rest>[^\s'\"<>]*)")
# A key that names a secret, then its value: in a query (?k=v&k=v) or a libpq connection string (k=v k='v').
_SECRET_KEY = r"[\w.\-]*(?:pass|secret|token|api[_\-]?key|private[_\-]?key|sslkey|credential)[\w.\-]*"
_SECRET_VALUE = re.compile(rf"(?i)(?P<key>(?:^|(?<=[?&;\s]))({_SECRET_KEY})\s*=\s*)(?P<value>'(?:[^'\\]|\\.)*'|[^&#;\s]*)")


def is_secret_key(key: str) -> bool:
    """Whether a URL query or connection-string key names a secret (its value is never shown)."""
    return re.fullmatch(_SECRET_KEY, key, re.IGNORECASE) is not None


def _userinfo(match: re.Match[str]) -> str:
    scheme, rest = match.group("scheme"), match.group("rest")
    end = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    at = rest.rfind("@", 0, end)
    if at < 0:
        return scheme + rest
    user, colon, _ = rest[:at].partition(":")
    return f"{scheme}{user}:{HIDDEN}{rest[at:]}" if colon else scheme + rest


def redact(text: str) -> str:
    """``text`` with every password, secret query value and secret connection-string value it holds replaced
    by ``***``; the rest (scheme, user, host, port, database, other options) kept, so people can tell stores
    apart."""
    text = _URL.sub(_userinfo, text)
    return _SECRET_VALUE.sub(lambda m: f"{m.group('key')}{HIDDEN}" if m.group("value") else m.group(0), text)


__all__ = ["HIDDEN", "is_secret_key", "redact"]
