"""How the dashboard is deployed: local (one person, no sign-in) or team (sign-in, policy), the
access policy file, and the folders a server-side ingest may read.

The settings (``GRAPHRAG_MODE``, ``GRAPHRAG_ACCESS_POLICY``, ``GRAPHRAG_INGEST_ROOTS``) come in a
``graphrag.config.Config``, read from the environment and then the dashboard's secrets; the ``[auth]``
section of the secrets, which Streamlit's own sign-in reads, is passed in as a mapping (this package
imports no Streamlit).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphrag.access.identity import Policy, PolicyError, load_policy
from graphrag.config import Config
from graphrag.errors import InputError

LOCAL, TEAM = "local", "team"
ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = ROOT / "sample_corpus"
# Streamlit's own sign-in reads these from the [auth] section of .streamlit/secrets.toml.
AUTH_KEYS = ("redirect_uri", "cookie_secret")
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")
MIN_COOKIE_SECRET = 32


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


def deployment(config: Config, auth: Any = None) -> Deployment:
    """The mode and, in team mode, everything missing for it to serve safely (``auth``: the secrets' [auth]
    section). A mode that is neither local nor team never gets here: ``Config`` refuses it, and the
    dashboard then serves nothing."""
    policy_path = config.access_policy
    if config.mode == LOCAL:
        return Deployment(LOCAL, policy_path)
    problems = auth_problems(auth)
    if not policy_path.is_file():
        problems.append(f"the access policy {policy_path} does not exist (set GRAPHRAG_ACCESS_POLICY, or copy "
                        "access.example.toml to access.toml)")
    else:
        try:
            cached_policy(policy_path)
        except (PolicyError, OSError) as exc:  # a malformed policy: say what, refuse to serve
            problems.append(str(exc))
    return Deployment(TEAM, policy_path, tuple(problems))


# The access door's name for it: a door name equal to one of its modules' (``deployment``) would be shadowed by
# that module once anything imports it (importing a submodule sets it as the package's attribute).
deployment_for = deployment


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

def ingest_roots(config: Config) -> tuple[Path, ...]:
    """Resolved folders the Ingest page may read from (GRAPHRAG_INGEST_ROOTS, else the mode's default); none
    means the option is off."""
    if config.ingest_roots is None:
        return () if config.mode == TEAM else (SAMPLE_CORPUS.resolve(), Path.cwd().resolve())
    return tuple(p.resolve() for p in config.ingest_roots)


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
