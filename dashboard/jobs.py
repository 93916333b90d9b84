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
from dashboard.session import INGEST_DISMISSED, INGEST_SEEN, session_token
from graphrag.ingest import FAILED, QUEUED, RUNNING, IngestJob, IngestReport, JobRunner, JobStatus, format_eta
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


def outcome_text(report: IngestReport | None) -> str:
    """What an ingest stored and refused, in counts only (never a document's name): "15 files: 15 stored, none
    refused"; "3 files: 1 stored, 1 unchanged, 1 refused (see the Ingest page)"."""
    if report is None:
        return "nothing reported"
    docs = report.documents
    refused = sum(d.not_ingested for d in docs)
    unchanged = sum(d.status == "unchanged" for d in docs)
    parts = [f"{len(docs) - refused - unchanged} stored"] + ([f"{unchanged} unchanged"] if unchanged else [])
    parts.append(f"{refused} refused" if refused else "none refused")
    skipped = " · files skipped, see the Ingest page" if report.skipped else ""
    return f"{counted(len(docs), 'file')}: {', '.join(parts)}" + skipped


def job_text(s: JobStatus) -> str:
    """One line about a job, built from counts and our own labels only (never a document's name). Its files are
    counted as the first start's message and the Ingest page count them; time left only once there is an estimate
    (a short job never has one: its line said "estimating…" until it went)."""
    if s.state == QUEUED:
        return f"{s.label}: queued behind another ingest"
    if s.state == RUNNING:
        if s.reading:  # OCR's page counts: never a file's name
            return f"{s.label}: reading the files, {s.detail}…"
        if not s.total or s.loading_models:
            return f"{s.label}: starting (loading the models)…"
        return (f"{s.label}: {s.done:,} of {counted(s.total, 'file')} stored"
                + (f", {format_eta(s.eta_s)}" if s.eta_s is not None else ""))
    if s.state == FAILED:
        return f"{s.label}: failed"
    return f"{s.label}: done · {outcome_text(s.report)}"


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
    """The sidebar's line about ingests: live progress while one runs (on every page), then how it ended (what
    it stored and refused) until put away: the line used to vanish with no word that the ingest was done."""
    if shown_jobs():
        with st.sidebar:
            _live_jobs()
    seen = st.session_state.get(INGEST_SEEN, set())
    put_away = st.session_state.setdefault(INGEST_DISMISSED, set())
    ended = [j for j in shown_jobs(every=True) if j.id in seen and j.id not in put_away and not j.active]
    for s in ended[-1:]:  # the latest: an earlier one's outcome was on screen before it
        line = st.sidebar.columns([5, 1], vertical_alignment="center")
        (line[0].error if s.state == FAILED else line[0].success)(plain(job_text(s)))
        line[1].button("", icon=":material/close:", key=f"ingest_dismiss_{s.id}", help="Put this away",
                       on_click=put_away.add, args=(s.id,))


def shown_jobs(every: bool = False) -> list[JobStatus]:
    """The running ingests this viewer may know of (``every``: ended ones too): every one locally; in team mode only
    this session's and the first start's (the sample corpus), since another's upload count is activity their
    labels may not show."""
    jobs = runner().jobs() if every else runner().active()
    if not principal().team:
        return jobs
    mine = session_token()
    return [j for j in jobs if j.owner in (None, mine)]


@st.fragment(run_every=1.0)
def _live_jobs() -> None:
    active = shown_jobs()
    st.session_state.setdefault(INGEST_SEEN, set()).update(s.id for s in active)  # say how they end
    if not active:
        st.rerun()  # the ingest ended: redraw the whole page so counts and lists include it, and its outcome
    for s in active:
        st.progress(s.fraction, text=job_text(s))
