"""A browser tab that comes back to a restarted dashboard.

Streamlit keeps a session in the server process. When the dashboard restarts (a crash, a deploy), an open tab
reconnects by itself, to a new and empty session, and its frontend asks for a run at once only while the page holds
a timed fragment; otherwise the old page stays on screen, a "Recorded …" banner and an Undo the new session knows
nothing of included, until the next click. So every page holds ``watch``, a timed fragment that draws nothing: the
reconnected tab asks for a run, and the page is drawn again from the store. ``restarted`` tells that run from a page
that was just opened, so the page can say that whatever was pressed while it was reconnecting was not recorded.
"""

from __future__ import annotations

import streamlit as st

WATCH_S = 600  # the fragment's timer; only its being there matters (one empty run per tab every ten minutes)
_STARTED = "_session_started"  # set on a session's first run


@st.fragment(run_every=WATCH_S)
def _watch() -> None:
    """Draws nothing: see the module's docstring."""


def watch() -> None:
    """Hold the timed fragment that makes a reconnected tab ask for a run (in the sidebar, out of the page's way)."""
    with st.sidebar:
        _watch()


def restarted() -> bool:
    """True on the first run of a session that a tab opened before this dashboard process started came back to:
    its browser asked to resume a session this process never had. Call it once per run, before anything may stop
    the run."""
    if st.session_state.get(_STARTED):
        return False
    st.session_state[_STARTED] = True
    # Streamlit's frontend names the session it had as the third entry of the WebSocket's subprotocol header; a page
    # just opened names none, and a session resumed by this same process is not on its first run.
    entries = [e.strip() for e in st.context.headers.get("Sec-WebSocket-Protocol", "").split(",")]
    return len(entries) >= 3 and bool(entries[2])
