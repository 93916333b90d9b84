"""The gate app.py runs before any page: team mode's sign-in page (and its audit row), the refusal to serve a
team mode that is not fully configured, and local mode's warning when it is reachable from other machines.

Who acts once past the gate is ``dashboard.actor``'s.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import cast

import streamlit as st

from dashboard.actor import principal
from dashboard.render import plain
from dashboard.resources import config, secrets
from graphrag.access import Deployment, Viewer, provider_name
from graphrag.store import Store
from graphrag.verify import record_sign_in

log = logging.getLogger(__name__)

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def refuse_misconfigured_team_mode(dep: Deployment) -> None:
    """Team mode serves nothing until its sign-in and policy are complete: say exactly what is missing."""
    if not dep.problems:
        return
    if "team_refused" not in (seen := _warned_once()):
        seen.add("team_refused")
        log.error("team mode cannot serve: %s", "; ".join(dep.problems))
    st.error("Team mode is not configured, so this dashboard serves nothing. Missing or wrong:\n\n"
             + "\n".join(f"- {plain(p)}" for p in dep.problems))
    st.stop()


def sign_in_gate(s: Store, dep: Deployment) -> Viewer:
    """Team mode: the sign-in page until the visitor is signed in and the policy grants them access."""
    if not st.user.is_logged_in:
        st.title("Sign in")
        st.write("This dashboard is shared by a team: sign in with your organisation's account to see the "
                 "documents your access grants.")
        if st.button("Sign in", type="primary", key="sign_in"):
            auth = cast(dict[str, object], secrets().get("auth") or {})  # the [auth] table of the secrets
            problem = provider_problem(auth)
            if problem:
                st.error(plain(problem))
            else:
                st.login(provider_name(auth))
        st.stop()
    me = principal()
    if not me.may("viewer"):
        st.title("No access")
        st.error(plain(f"You are signed in as {me.name or 'an unknown user'}, but this dashboard's access policy "
                       "grants you nothing. Ask its administrator to add you."))
        if st.button("Sign out", key="sign_out_denied"):
            st.logout()
        st.stop()
    assert me.identity is not None
    if st.session_state.get("_signed_in_as") != me.identity.subject:
        st.session_state["_signed_in_as"] = me.identity.subject
        # One event per sign-in and store, not per tab or reload: the ID token's issue time names the sign-in
        # (the store too: a process serving another store has not audited the sign-in there)
        key = (s.url.display, me.identity.subject, str(st.user.get("iat") or ""), str(st.user.get("nonce") or ""))
        seen = _signins_seen()
        if key not in seen:
            seen.add(key)
            record_sign_in(s, me, config(), issued_at=st.user.get("iat"))
    return me


@st.cache_resource(show_spinner=False)
def _signins_seen() -> set[tuple[str, str, str, str]]:
    return set()


def provider_problem(auth: dict[str, object]) -> str | None:
    """Why the identity provider cannot be used right now (down, not answering), or None.

    Checked before sending the browser there: otherwise a provider that is down ends the
    sign-in on a bare "Authentication error" page of the server."""
    import json
    import urllib.request
    from urllib.parse import urlparse

    name = provider_name(auth)
    cfg = auth.get(name) if name else auth
    url = str(cast(Mapping[str, object], cfg or {}).get("server_metadata_url") or "")
    host = urlparse(url).netloc or url
    try:
        with urllib.request.urlopen(url, timeout=5) as r:  # the URL is the deployment's own setting
            meta = json.loads(r.read(1_000_000))
        if not isinstance(meta, dict) or "authorization_endpoint" not in meta:
            return f"The identity provider at {host} sent no OpenID configuration: sign-in is not possible now."
    except (OSError, ValueError) as exc:
        return (f"The identity provider at {host} does not answer ({type(exc).__name__}): sign-in is not "
                "possible now. Try again in a minute; if it persists, tell this dashboard's administrator.")
    return None


def served_beyond_this_machine() -> str | None:
    """The address when the server listens beyond loopback (no address means every interface)."""
    address = str(st.get_option("server.address") or "")
    return None if address in LOOPBACK or address.startswith("127.") else (address or "every interface")


@st.cache_resource(show_spinner=False)
def _warned_once() -> set[str]:
    return set()


def warn_if_exposed() -> None:
    """Local mode has no sign-in: say so loudly when the server is reachable from other machines."""
    where = served_beyond_this_machine()
    if where is None:
        return
    msg = (f"This dashboard listens on {where}, and local mode has no sign-in: anyone who can reach this port "
           "can read every document (by choosing access labels), record verdicts under any name and ingest "
           "files this server can read. Serve it on 127.0.0.1 (the default in .streamlit/config.toml).")
    if where not in (seen := _warned_once()):
        seen.add(where)
        log.warning(msg)
    st.warning(plain(msg), icon=":material/warning:")
