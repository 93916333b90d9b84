"""Shared state for the pages: cached resources, session defaults, the sidebar, first start.

Heavy things (the store handle, the embedding model, spaCy, the Asker) are created once per
process with ``st.cache_resource``; the Ollama status is cached for 30 s so a server that is
down costs one short timeout per half minute, not one per rerun.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import streamlit as st

from dashboard.render import plain
from graphrag.ask import Asker
from graphrag.cli import default_store
from graphrag.embed import MODEL_NAME, Embedder, get_embedder
from graphrag.errors import GraphRAGError, InputError
from graphrag.extract.base import Extractor
from graphrag.ingest import Ingestor, IngestReport
from graphrag.model import PUBLIC, Progress
from graphrag.ollama_util import (
    DEFAULT_EXTRACT_MODEL,
    DEFAULT_GENERATE_MODEL,
    OllamaStatus,
    ollama_status,
    pull_hint,
    resolve_host,
)
from graphrag.review import clean_reviewer
from graphrag.store import Store
from graphrag.text import counted

log = logging.getLogger(__name__)
ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = ROOT / "sample_corpus"

# session_state keys shared by the pages
ACCESS = "access"
REVIEWER = "reviewer"
EXTRACTOR = "extractor"
EXTRACT_MODEL = "extract_model"
GENERATOR = "generator"
GENERATE_MODEL = "generate_model"
ANSWER_ID = "answer_id"  # the answer shown on the ask page
ANSWER_WARNINGS = "answer_warnings"
REVIEW_ANSWER = "review_answer_filter"  # the review page's answer filter (a widget key)
PENDING_REVIEW_ANSWER = "pending_review_answer"  # set by "review this answer", read once by the review page
REVIEW_CURRENT = "review_current"  # (answer id, claim index) under review
LAST_REPORT = "last_report"
QUESTION = "question"


def store_path() -> str:
    """The store to open: GRAPHRAG_STORE, else ``GRAPHRAG_STORE`` in .streamlit/secrets.toml (the
    place for a PostgreSQL URL with a password), else data/graphrag.db."""
    return os.environ.get("GRAPHRAG_STORE") or _secret_store() or default_store()


def _secret_store() -> str | None:
    try:
        value = st.secrets.get("GRAPHRAG_STORE")
    except Exception:  # no secrets file, or one that does not parse: the other sources decide
        return None
    return str(value) if value else None


@st.cache_resource(show_spinner=False)
def open_store(path: str) -> Store:
    # One handle per store for the whole server: Store is thread-safe (a connection pool).
    return Store(path)


@st.cache_resource(show_spinner="Loading the embedding model…")
def embedder() -> Embedder:
    return get_embedder()


@st.cache_resource(show_spinner="Loading the rules extractor (spaCy)…")
def rules_extractor() -> Extractor:
    from graphrag.extract import make_extractor

    return make_extractor("rules")


@st.cache_resource(show_spinner=False)
def asker(path: str) -> Asker:
    return Asker(open_store(path), embedder=embedder())


@st.cache_data(ttl=30, show_spinner=False)
def ollama_status_cached(host: str) -> OllamaStatus:
    return ollama_status(host, timeout=1.0)


@st.cache_resource(show_spinner=False)
def _first_start_guard(path: str) -> tuple[threading.Lock, set[str]]:
    # A lock so two sessions never ingest the sample at once, and a memory of having tried,
    # so a store left empty (every document failed) is not re-ingested on every rerun.
    return threading.Lock(), set()


def store() -> Store:
    return open_store(store_path())


def init_session() -> None:
    """Defaults for the keys every page reads, set once per session before any widget uses them."""
    defaults = {
        ACCESS: [PUBLIC],
        # No default from the OS account: the verdict names whoever types their name here.
        REVIEWER: os.environ.get("GRAPHRAG_REVIEWER", ""),
        EXTRACTOR: "rules",
        EXTRACT_MODEL: DEFAULT_EXTRACT_MODEL,
        GENERATOR: "extractive",
        GENERATE_MODEL: DEFAULT_GENERATE_MODEL,
        QUESTION: "",
    }
    for k, v in defaults.items():
        st.session_state.setdefault(k, v)


def persist(key: str, *, callback: bool = True) -> dict[str, object]:
    """Widget kwargs that keep ``key`` in session_state across pages.

    Streamlit drops a widget's state when a run does not draw it (another page, or a
    st.switch_page), so the value lives under ``key`` and the widget under ``_w_<key>`` is
    refilled from it on every run. Widgets in a form cannot have callbacks: call ``commit``
    after the form is submitted instead.
    """
    wkey = f"_w_{key}"
    if callback or wkey not in st.session_state:
        # (a form widget keeps its own state until submit: refill it only after it was dropped)
        st.session_state[wkey] = st.session_state[key]
    return {"key": wkey, "on_change": commit, "args": (key,)} if callback else {"key": wkey}


def commit(*keys: str) -> None:
    for key in keys:
        if f"_w_{key}" in st.session_state:
            st.session_state[key] = st.session_state[f"_w_{key}"]


def access() -> tuple[str, ...]:
    return tuple(sorted(set(st.session_state.get(ACCESS) or [])))


def reviewer() -> str:
    """The reviewer name as it will be stored, or "" when none (or an invalid one) is set."""
    try:
        return clean_reviewer(str(st.session_state.get(REVIEWER, "")))
    except InputError:
        return ""


def progress_bar(label: str):  # noqa: ANN201 - returns the Progress callback
    bar = st.progress(0.0, text=label)

    def update(p: Progress) -> None:
        frac = p.done / p.total if p.total else 1.0
        bar.progress(min(frac, 1.0), text=f"{label} {p.done}/{p.total} {p.message}"[:120])

    return update


def first_start(s: Store) -> None:
    """On an empty store, ingest the sample corpus with the embedded defaults, saying so."""
    if os.environ.get("GRAPHRAG_SAMPLE", "1") == "0" or not SAMPLE_CORPUS.is_dir():
        return
    lock, tried = _first_start_guard(s.url.key)
    if s.url.key in tried or s.counts()["versions"]:
        return
    with lock:
        if s.url.key in tried or s.counts()["versions"]:
            return
        tried.add(s.url.key)
        with st.status("First start: the store is empty, so the sample corpus (the Larkspur handbook) is being "
                       "ingested with the embedded rules extractor…", expanded=True) as status:
            try:
                report = Ingestor(s, rules_extractor(), embedder()).ingest_paths(
                    [SAMPLE_CORPUS], progress_bar("Ingesting"))
            except GraphRAGError as exc:
                status.update(label=f"First start failed: {exc}", state="error")
                return
            t = report.totals()
            status.update(label=f"First start: ingested the sample corpus ({counted(t.get('ok', 0), 'document')}, "
                                f"{counted(t.get('entities', 0), 'entity', 'entities')}, "
                                f"{counted(t.get('relations', 0), 'relation')}). "
                                "Ask a question on the Ask page.", state="complete", expanded=False)
        st.session_state[LAST_REPORT] = report


LOOPBACK = ("127.0.0.1", "localhost", "::1")


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


def set_report(report: IngestReport) -> None:
    st.session_state[LAST_REPORT] = report


def sidebar(s: Store) -> None:
    sb = st.sidebar
    counts = s.counts()
    sb.markdown("**Store**")
    sb.caption(plain(f"{s.url.label}: {s.url.display}"))  # never the password
    sb.caption(f"{counted(counts['documents'], 'document')} ({counted(counts['versions'], 'version')}) · "
               f"{counted(counts['entities'], 'entity', 'entities')} · {counted(counts['relations'], 'relation')} · "
               f"{counted(counts['answers'], 'answer')} · {counted(counts['verdicts'], 'verdict')}")
    labels = sorted({lab for d in s.documents() for lab in d.access} | {PUBLIC} | set(access()))
    sb.multiselect("Access labels (what the asker may see)", labels, **persist(ACCESS),
                   help="Documents are visible when they share a label with these. Used on every page.")
    sb.text_input("Reviewer name", help="Recorded with every verdict.", **persist(REVIEWER))
    if st.session_state.get(REVIEWER, "").strip():
        try:
            clean_reviewer(st.session_state[REVIEWER])
        except InputError as exc:
            sb.warning(plain(str(exc)))
    with sb.expander("Backends", expanded=False):
        _backends()


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
    host = resolve_host()
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


@st.cache_data(ttl=30, show_spinner=False)
def _checker_status() -> str:
    from graphrag.support import make_checker

    try:
        make_checker("embedded")
    except GraphRAGError as exc:
        return f"not available ({exc})"
    return "ready"
