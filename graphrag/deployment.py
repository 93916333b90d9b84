"""How the dashboard is deployed: local (one person, no sign-in) or team (sign-in, policy), the
access policy file, and the folders a server-side ingest may read.

Settings come from the environment first, then from the dashboard's secrets (passed in as a
mapping: this package imports no Streamlit):

- ``GRAPHRAG_MODE``: ``local`` (default) or ``team``;
- ``GRAPHRAG_ACCESS_POLICY``: the policy file (default ``access.toml`` in the current folder);
- ``GRAPHRAG_INGEST_ROOTS``: folders the Ingest page may read from the server's disk, separated
  by ``os.pathsep``; default in local mode the sample corpus and the current folder, in team
  mode none (the option is hidden and refused).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphrag.errors import InputError
from graphrag.identity import Policy, PolicyError, load_policy

LOCAL, TEAM = "local", "team"
ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = ROOT / "sample_corpus"
# Streamlit's own sign-in reads these from the [auth] section of .streamlit/secrets.toml.
AUTH_KEYS = ("redirect_uri", "cookie_secret")
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
MIN_COOKIE_SECRET = 32


def setting(name: str, secrets: Mapping[str, Any] | None = None) -> str | None:
    """A setting from the environment, else from the secrets; None when unset or empty."""
    value = os.environ.get(name)
    if value:
        return value
    v = (secrets or {}).get(name)
    return str(v) if v not in (None, "") else None


@dataclass(frozen=True)
class Deployment:
    """How this server is deployed: the mode ("local" or "team"), the access policy file, and what stops team
    mode from serving."""

    mode: str
    policy_path: Path
    problems: tuple[str, ...] = ()  # team mode only: what stops it from serving

    @property
    def team(self) -> bool:
        """Whether this is team mode (sign-in and an access policy)."""
        return self.mode == TEAM


def deployment(secrets: Mapping[str, Any] | None = None) -> Deployment:
    """The mode and, in team mode, everything missing for it to serve safely."""
    mode = (setting("GRAPHRAG_MODE", secrets) or LOCAL).strip().lower()
    policy_path = Path(setting("GRAPHRAG_ACCESS_POLICY", secrets) or "access.toml")
    if mode not in (LOCAL, TEAM):
        return Deployment(TEAM, policy_path, (f"GRAPHRAG_MODE is {mode!r}: it must be 'local' or 'team'",))
    if mode == LOCAL:
        return Deployment(LOCAL, policy_path)
    problems = auth_problems((secrets or {}).get("auth"))
    if not policy_path.is_file():
        problems.append(f"the access policy {policy_path} does not exist (set GRAPHRAG_ACCESS_POLICY, or copy "
                        "access.example.toml to access.toml)")
    else:
        try:
            cached_policy(policy_path)
        except (PolicyError, OSError) as exc:  # a malformed policy: say what, refuse to serve
            problems.append(str(exc))
    return Deployment(TEAM, policy_path, tuple(problems))


def auth_problems(auth: Any) -> list[str]:
    """What the [auth] section of .streamlit/secrets.toml lacks for Streamlit's OpenID Connect sign-in."""
    if not isinstance(auth, Mapping) or not auth:
        return ["no [auth] section in .streamlit/secrets.toml (redirect_uri, cookie_secret, client_id, "
                "client_secret, server_metadata_url)"]
    out = [f"[auth] {k} is missing from .streamlit/secrets.toml" for k in AUTH_KEYS if not auth.get(k)]
    secret = auth.get("cookie_secret")
    if secret and len(str(secret)) < MIN_COOKIE_SECRET:
        out.append(f"[auth] cookie_secret is shorter than {MIN_COOKIE_SECRET} characters: anyone who guesses it "
                   "can forge a sign-in (generate one with: python -c 'import secrets; print(secrets.token_hex(32))')")
    uri = str(auth.get("redirect_uri") or "")
    if uri and not uri.rstrip("/").endswith("/oauth2callback"):
        out.append(f"[auth] redirect_uri must end with /oauth2callback (is {uri!r})")
    provider = {k: v for k, v in auth.items() if not isinstance(v, Mapping)}
    nested = [v for v in auth.values() if isinstance(v, Mapping)]
    if not any(k in provider for k in PROVIDER_KEYS) and nested:
        provider = dict(nested[0])  # a named provider ([auth.example]); the dashboard signs in with the first
    out += [f"[auth] {k} is missing from .streamlit/secrets.toml" for k in PROVIDER_KEYS if not provider.get(k)]
    return out


def provider_name(auth: Mapping[str, Any]) -> str | None:
    """The provider ``st.login`` should use: None for the keys at the top of [auth], else the first named one."""
    if any(k in auth for k in PROVIDER_KEYS):
        return None
    return next((k for k, v in auth.items() if isinstance(v, Mapping)), None)


_policy_lock = threading.Lock()
_policy_cache: dict[Path, tuple[tuple[int, int], Policy]] = {}


def cached_policy(path: Path) -> Policy:
    """The policy as the file says now: re-read whenever it changes (a user removed from it loses
    access on their next rerun), parsed once per change otherwise."""
    p = Path(path).resolve()
    st = p.stat()
    stamp = (st.st_mtime_ns, st.st_size)
    with _policy_lock:
        hit = _policy_cache.get(p)
        if hit is not None and hit[0] == stamp:
            return hit[1]
    policy = load_policy(p)
    with _policy_lock:
        _policy_cache[p] = (stamp, policy)
    return policy


# --- folders a server-side ingest may read ------------------------------------------------------

def ingest_roots(mode: str, secrets: Mapping[str, Any] | None = None) -> tuple[Path, ...]:
    """Resolved folders the Ingest page may read from; none means the option is off."""
    raw = setting("GRAPHRAG_INGEST_ROOTS", secrets)
    if raw is None:
        return () if mode == TEAM else (SAMPLE_CORPUS.resolve(), Path.cwd().resolve())
    return tuple(Path(p).expanduser().resolve() for p in raw.split(os.pathsep) if p.strip())


def allowed_path(path: str, roots: Sequence[Path]) -> Path:
    """``path`` resolved (links and ``..`` followed) when it lies inside one of ``roots``; else
    ``InputError``. Checked before anything is read."""
    if not roots:
        raise InputError("ingesting from the server's disk is turned off here (no GRAPHRAG_INGEST_ROOTS): "
                         "upload the files instead")
    text = path.strip()
    if not text or "\x00" in text:
        raise InputError("name a folder or file to ingest")
    real = Path(text).expanduser().resolve()
    if any(real == r or real.is_relative_to(r) for r in roots):
        return real
    raise InputError(f"{text} is outside the folders this dashboard may read ("
                     + ", ".join(str(r) for r in roots) + "); add its folder to GRAPHRAG_INGEST_ROOTS")
