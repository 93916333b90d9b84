"""Background ingest jobs as the pages show them: the server's job runner, a job's progress line, watching a
job until it ends, and the sidebar's live line while one runs.

Jobs belong to the server, not to the script run, the session or the tab that started them: a rerun or a
closed tab stops the watching, never the job.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from dashboard.actor import principal
from dashboard.render import plain
from dashboard.resources import store_path
from dashboard.session import session_token
from graphrag.ingest import FAILED, QUEUED, RUNNING, IngestJob, JobRunner, JobStatus, format_eta
from graphrag.language.sentences import counted


@st.cache_resource(show_spinner=False)
def job_runner(path: str) -> JobRunner:
    """The ingest job runner for the store at ``path``, one per server process."""
    # One runner per store for the whole server: jobs outlive the script run, the session and the tab
    # that started them, and run one at a time.
    return JobRunner()


def runner() -> JobRunner:
    """The job runner of this deployment's store."""
    return job_runner(store_path())


def job_text(s: JobStatus) -> str:
    """One line about a job, built from counts and our own labels only (never a document's name)."""
    if s.state == QUEUED:
        return f"{s.label}: queued behind another ingest"
    if s.state == RUNNING:
        if s.reading:  # OCR's page counts: never a file's name
            return f"{s.label}: reading the files, {s.detail}…"
        if not s.total or s.loading_models:
            return f"{s.label}: starting (loading the models)…"
        return f"{s.label}: {s.done:,} of {counted(s.total, 'document')}, {format_eta(s.eta_s)}"
    if s.state == FAILED:
        return f"{s.label}: failed"
    return f"{s.label}: done"


def watch_job(job: IngestJob, label: str, done_label: Callable[[JobStatus], str] | None = None) -> JobStatus:
    """Show a job's progress until it ends. A rerun or a closed tab stops the watching, not the job."""
    with st.status(label, expanded=True) as box:
        bar = st.progress(0.0, text="Starting…")
        while not job.wait(0.5):
            s = job.status()
            bar.progress(s.fraction, text=job_text(s))
        s = job.status()
        if s.state == FAILED:
            box.update(label=plain(f"{label} Failed: {s.error}"), state="error")
        else:
            box.update(label=done_label(s) if done_label else f"{label} Done.", state="complete", expanded=False)
    return s


def job_panel() -> None:
    """The sidebar's line about ingests: live progress while one runs (on every page)."""
    if shown_jobs():
        with st.sidebar:
            _live_jobs()


def shown_jobs() -> list[JobStatus]:
    """The running ingests this viewer may know of: every one locally; in team mode only this session's and
    the first start's (the sample corpus), since another's upload count is activity their labels may not show."""
    active = runner().active()
    if not principal().team:
        return active
    mine = session_token()
    return [j for j in active if j.owner in (None, mine)]


@st.fragment(run_every=1.0)
def _live_jobs() -> None:
    active = shown_jobs()
    if not active:
        st.rerun()  # the ingest ended: redraw the whole page so counts and lists include it
    for s in active:
        st.progress(s.fraction, text=job_text(s))
