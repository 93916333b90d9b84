"""The session's keys: the names the pages share in ``st.session_state``, their defaults, and the widgets
that keep a value across pages.

Streamlit forgets a widget's value when a run does not draw it (another page, a ``st.switch_page``): ``persist``
and ``commit`` keep the value under its key, and the widget refills from it on every run.
"""

from __future__ import annotations

import uuid
from typing import Any

import streamlit as st

from dashboard.resources import config
from graphrag.errors import InputError
from graphrag.ingest import IngestReport
from graphrag.model import PUBLIC
from graphrag.ollama_util import DEFAULT_EXTRACT_MODEL, DEFAULT_GENERATE_MODEL
from graphrag.verify import clean_reviewer

# session_state keys shared by the pages
ACCESS = "access"
REVIEWER = "reviewer"
EXTRACTOR = "extractor"
EXTRACT_MODEL = "extract_model"
GENERATOR = "generator"
GENERATE_MODEL = "generate_model"
ANSWER_ID = "answer_id"  # the answer shown on the ask page
ANSWER_WARNINGS = "answer_warnings"
ANSWER_SEARCH_NOTE = "answer_search_note"  # how the shown answer's question was searched, when not as usual
ASK_SCOPED = "ask_scoped"  # set by "Ask only in <document>": the ask page asks again, scoped, on its next run
ASK_DOCUMENTS = "ask_documents"  # the ask page's document scope (a widget key)
REVIEW_ANSWER = "review_answer_filter"  # the review page's answer filter (a widget key)
PENDING_REVIEW_ANSWER = "pending_review_answer"  # set by "review this answer", read once by the review page
REVIEW_SAMPLE = "review_sample"  # the review page's "Estimate sample" filter (a widget key)
PENDING_REVIEW_SAMPLE = "pending_review_sample"  # set by the Record page's "Review the sample", read once
REVIEW_CURRENT = "review_current"  # (answer id, claim index) under review, or REVIEW_END past the last one
REVIEW_END = "end"  # the review queue's end: nothing left for this reviewer
REVIEW_ORDER = "review_order"  # (the filters, the queue's keys in the order shown): claims keep their numbers
REVIEW_NOTE = "review_note"  # the note typed for the next verdict
REVIEW_UNDO = "review_undo"  # the verdict just given: (verdict id, answer id, claim index), while it can be undone
REVIEW_FLAGGED = "review_flagged"  # the review page's "Flagged only" filter (a widget key)
REVIEW_MINE = "review_mine"  # the review page's "Reviewed by me" filter (a widget key)
REVIEW_DISPUTES = "review_disputes"  # the review page's "Disputes" filter (a widget key): verdicts adjudicate
REVIEW_JUDGED = "review_judged"  # set by a verdict button's callback: a press without it was drawn before a restart
REVIEW_AT_END = "review_at_end"  # the reviewer moved to the queue's end themselves: it stays there
REVIEW_TOAST = "review_toast"  # what the last action did, said once on the next run
REVIEW_ERROR = "review_error"  # why the last action failed, said once on the next run
REVIEW_CITATION = "rv_cite"  # the citation chosen for one claim (a widget key per claim: review_citation_key)
LAST_REPORT = "last_report"
QUESTION = "question"
INGEST_JOB = "ingest_job"  # the id of the job this session submitted on the Ingest page
INGEST_SEEN = "ingest_seen"  # ids of the ingests the sidebar showed running: it says how each ended
INGEST_DISMISSED = "ingest_dismissed"  # ids of the ended ingests whose outcome the person put away
INGEST_UPLOAD_ROUND = "ingest_upload_round"  # counts the Ingest page's uploads: a new one empties the uploader
INGEST_JOB_SHOWN = "ingest_job_shown"  # the job whose end the Ingest page said (said once)
INGEST_DONE = "ingest_done"  # (what the ended ingest did, how many documents had problems), said on the next run
GRAPH_ENTITY = "graph_entity"  # the Graph page's entity (a widget key the page also moves)
GRAPH_QUERY = "graph_query"  # the Graph page's search (a widget key)
GRAPH_OPENED_FOR = "graph_opened_for"  # the answer the Graph page's entity picker was last opened on
GRAPH_LAST_QUERY = "graph_last_query"  # the search the Graph page's picker last moved for
GRAPH_TYPES = "graph_types"  # the Graph page's relation types (a widget key; picks a new hop count lacks dropped)
GRAPH_DOCS = "graph_docs"  # the Graph page's documents (a widget key, likewise)
SESSION_TOKEN = "_session_token"


def review_citation_key(answer_id: int | None, claim_index: int) -> str:
    """The key of the citation chosen for one claim on the review page (each claim keeps its own choice)."""
    return f"{REVIEW_CITATION}_{answer_id}_{claim_index}"


def init_session() -> None:
    """Defaults for the keys every page reads, set once per session before any widget uses them."""
    defaults = {
        ACCESS: [PUBLIC],
        # No default from the OS account: the verdict names whoever types their name here.
        REVIEWER: config().reviewer,
        EXTRACTOR: "rules",
        EXTRACT_MODEL: DEFAULT_EXTRACT_MODEL,
        GENERATOR: "extractive",
        GENERATE_MODEL: DEFAULT_GENERATE_MODEL,
        QUESTION: "",
        REVIEW_NOTE: "",
    }
    for k, v in defaults.items():
        st.session_state.setdefault(k, v)


def persist(key: str, *, callback: bool = True) -> dict[str, Any]:
    """Widget kwargs that keep ``key`` in session_state across pages.

    Streamlit drops a widget's state when a run does not draw it (another page, or a
    st.switch_page), so the value lives under ``key`` and the widget under ``_w_<key>`` is
    refilled from it on every run. Widgets in a form cannot have callbacks: call ``commit``
    after the form is submitted instead.
    """
    wkey = f"_w_{key}"
    kept = st.session_state[key]
    # A form widget keeps its own state until submit: refill it only after it was dropped. A widget that is not
    # drawn yet is refilled only with something: in a new session (the dashboard restarted while the page was
    # open) ``key`` holds its empty default while the browser still shows what was typed, which "" would wipe.
    if (callback and wkey in st.session_state) or (wkey not in st.session_state and kept != ""):
        st.session_state[wkey] = kept
    return {"key": wkey, "on_change": commit, "args": (key,)} if callback else {"key": wkey}


def commit(*keys: str) -> None:
    """Copy each widget's value (``_w_<key>``) to ``key``: a widget's ``on_change``, or called after a form is
    submitted."""
    for key in keys:
        if f"_w_{key}" in st.session_state:
            st.session_state[key] = st.session_state[f"_w_{key}"]


def session_token() -> str:
    """Who submitted a job: only that session sees its report's rows (other sessions see counts)."""
    return st.session_state.setdefault(SESSION_TOKEN, uuid.uuid4().hex)


def set_report(report: IngestReport) -> None:
    """Keep ``report`` as the session's last ingest report."""
    st.session_state[LAST_REPORT] = report


# Local mode: the reviewer name is kept in the page's address too (?reviewer=ana), so a reload, a new tab from a
# bookmark or a restarted server keeps it. Team mode never reads it: the reviewer is the signed-in identity.
REVIEWER_PARAM = "reviewer"
_REVIEWER_READ = "_reviewer_from_address"


def reviewer_from_address() -> None:
    """On a session's first run, take the reviewer name from the address (when it is a valid one)."""
    if st.session_state.get(_REVIEWER_READ):
        return
    st.session_state[_REVIEWER_READ] = True
    name = st.query_params.get(REVIEWER_PARAM)
    if name:
        try:
            st.session_state[REVIEWER] = clean_reviewer(name)
        except InputError:
            pass  # the sidebar's field stays as it was; a bad name in an address is not anyone's


def reviewer_to_address() -> None:
    """Put the session's reviewer name in the address (or take it out when cleared), on every run: a page switch
    may drop the address's parameters."""
    try:
        name = clean_reviewer(str(st.session_state.get(REVIEWER, "")))
    except InputError:
        name = ""
    if name and st.query_params.get(REVIEWER_PARAM) != name:
        st.query_params[REVIEWER_PARAM] = name
    elif not name and REVIEWER_PARAM in st.query_params:
        del st.query_params[REVIEWER_PARAM]
