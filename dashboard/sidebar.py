"""The sidebar on every page: the store and what this viewer's labels show of it, the ingest in progress, who
is signed in (or, locally, the access labels and the reviewer name), and the backends with the configuration."""

from __future__ import annotations

import streamlit as st

from dashboard.actor import access, principal, shown_counts
from dashboard.jobs import job_panel
from dashboard.render import counts_text, plain
from dashboard.resources import config, ollama_host, ollama_status_cached
from dashboard.session import (
    ACCESS,
    EXTRACT_MODEL,
    EXTRACTOR,
    GENERATE_MODEL,
    GENERATOR,
    REVIEWER,
    persist,
    reviewer_from_address,
    reviewer_to_address,
)
from graphrag.access import Viewer
from graphrag.errors import GraphRAGError, InputError
from graphrag.language.encoding import MODEL_NAME
from graphrag.model import PUBLIC
from graphrag.ollama_util import pull_hint
from graphrag.store import Store
from graphrag.verify import clean_reviewer


def sidebar(s: Store) -> None:
    """Draw the sidebar: the store and its counts, who is signed in (or the local access labels and reviewer
    name), and the backends."""
    sb = st.sidebar
    me = principal()
    sb.markdown("**Store**")
    sb.caption(plain(f"{s.url.label}: {s.url.display}"))  # never the password
    sb.caption(counts_text(shown_counts(s)))  # what this viewer may see, never the whole store
    if s.url.kind == "postgresql":  # where a team's vectors are searched, and how to move it into the database
        found = s.vector_search()
        sb.caption(plain(f"Vector search by the database (pgvector {found.pgvector})" if found.index_ready
                         else f"Vector search: {found.note}"))
    job_panel()
    if me.team:
        _identity_panel(me)
    else:
        _local_panel(s)
    with sb.expander("Backends", expanded=False):
        _backends()
        _configuration()


def _identity_panel(me: Viewer) -> None:
    sb = st.sidebar
    sb.markdown("**Signed in**")
    sb.caption(plain(f"{me.name} · role {me.role} · labels {', '.join(sorted(me.labels))}"))
    sb.caption("Team mode: your labels and role come from the access policy; verdicts carry your identity.")
    if sb.button("Sign out", key="sign_out"):
        st.logout()


def _local_panel(s: Store) -> None:
    sb = st.sidebar
    labels = sorted({lab for d in s.documents() for lab in d.access} | {PUBLIC} | set(access()))
    sb.multiselect("Access labels (what the asker may see)", labels, **persist(ACCESS),
                   help="Documents are visible when they share a label with these. Used on every page.")
    sb.caption("Local mode: these labels are a filter for you on this machine, not a permission.")
    reviewer_from_address()
    sb.text_input("Reviewer name", help="Recorded with every verdict; kept in the page's address (?reviewer=…), "
                                        "so a reload or a bookmark keeps it.", **persist(REVIEWER))
    reviewer_to_address()
    if st.session_state.get(REVIEWER, "").strip():
        try:
            clean_reviewer(st.session_state[REVIEWER])
        except InputError as exc:
            sb.warning(plain(str(exc)))


def _backends() -> None:
    # Model names are typed by the user and host names come from the environment or the
    # server: every one is shown as plain text, never as Markdown.
    extractor, generator = st.session_state[EXTRACTOR], st.session_state[GENERATOR]
    st.markdown(f"- Extractor: **{plain(extractor)}**" + (f" ({plain(st.session_state[EXTRACT_MODEL])})"
                                                           if extractor == "ollama" else " (spaCy, embedded)"))
    st.markdown(f"- Generator: **{plain(generator)}**" + (f" ({plain(st.session_state[GENERATE_MODEL])})"
                                                           if generator == "ollama" else " (embedded)"))
    st.markdown(f"- Embeddings: {plain(MODEL_NAME)} (local)")
    st.markdown(f"- Support checker: embedded — {plain(_checker_status())}")
    host = ollama_host()
    status = ollama_status_cached(host)
    if status.reachable:
        st.markdown(f"- Ollama at {plain(host)}: reachable; pulled: "
                    + (", ".join(plain(m) for m in status.models) or "no models"))
    else:
        st.markdown(f"- Ollama at {plain(host)}: **not reachable** (start it with `ollama serve`)")
    for used, model in ((extractor == "ollama", st.session_state[EXTRACT_MODEL]),
                        (generator == "ollama", st.session_state[GENERATE_MODEL])):
        if used and status.reachable and not status.has(model):
            st.warning(f"Model {plain(model)} is not pulled. Run:")
            st.code(pull_hint(model), language="bash")


def _configuration() -> None:
    # Every setting with where it came from; values are shown as plain text (a path or host is not Markdown)
    # and a URL's password as ***.
    st.markdown("**Configuration** (read when the server started; see `graphrag/config.py`)")
    st.caption("\n\n".join(f"`{name}` · *{source}*  \n{plain(value) or '(empty)'}"
                             for name, value, source in config().describe()))


@st.cache_data(ttl=30, show_spinner=False)
def _checker_status() -> str:
    from graphrag.verify import make_checker

    try:
        make_checker("embedded")
    except GraphRAGError as exc:
        return f"not available ({exc})"
    return "ready"
