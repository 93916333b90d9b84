"""The first start: on an empty store, the sample corpus is ingested once with the embedded defaults, as a
background job any session can watch, with a retry when it fails (GRAPHRAG_SAMPLE=0 starts empty)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from pathlib import Path

import streamlit as st

from dashboard.actor import shown_counts
from dashboard.jobs import runner, watch_job
from dashboard.render import counts_text, plain
from dashboard.resources import config
from dashboard.session import LAST_REPORT
from graphrag.answer import Overview
from graphrag.ingest import DONE, FAILED, Ingestor, IngestReport, JobStatus, ProgressFn, Work
from graphrag.language.sentences import counted
from graphrag.store import Store

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_CORPUS = ROOT / "sample_corpus"
FIRST_START = "First start: the sample corpus"


@st.cache_resource(show_spinner=False)
def _first_start_lock(path: str) -> threading.Lock:
    return threading.Lock()


def _sample_work(s: Store) -> Work:
    cfg = config()  # read here, on the script's thread

    def work(progress: ProgressFn) -> IngestReport:
        from graphrag.ingest import store_extractor

        # Models load here, on the job's thread: a page never waits for them to start the job.
        return Ingestor(s, store_extractor("rules", s), config=cfg).ingest_paths([SAMPLE_CORPUS], progress)

    return work


@functools.cache
def _export_pending() -> bool:
    """Whether this start exports MiniLM to ONNX (no export of these weights in the cache yet): the longest part of
    a machine's first start, which the progress names. Asked once per process (it hashes the weights)."""
    cfg = config()
    if cfg.encoder != "onnx":
        return False
    from graphrag.language.embed_onnx import default_cache_dir, export_target
    from graphrag.language.encoding import model_path

    try:
        return not export_target(cfg.embed_model or model_path(), cfg.onnx_cache or default_cache_dir()).is_file()
    except OSError:  # unreadable weights: the encoder's own load says why
        return False


def first_start_text(stored: int, shown: Overview) -> str:
    """The first start's last word: the files it stored, counted as its progress counted them, then what this
    viewer's labels show of them in the sidebar's words, so the two counts read as one ("15 files stored as 15
    document versions, 14 of them under your labels: 13 documents (14 versions) ..."; it once said 15 documents,
    then 13 (14 versions), with nothing to tie them)."""
    under = (f", {shown.versions} of them under your labels" if shown.versions != stored else "")
    return (f"First start: ingested the sample corpus, {counted(stored, 'file')} stored as "
            f"{counted(stored, 'document version')}{under}: {counts_text(shown)}. Ask a question on the Ask page.")


def _first_start_done(s: Store) -> Callable[[JobStatus], str]:
    def done(status: JobStatus) -> str:
        # The sidebar's own figures (the store as this viewer's labels show it), not the report's totals, which
        # add up entities per document: one entity named in three documents counted three times.
        report = status.report
        stored = sum(not d.not_ingested for d in report.documents) if report is not None else s.counts()["versions"]
        return first_start_text(stored, shown_counts(s))

    return done


def first_start(s: Store) -> None:
    """On an empty store, ingest the sample corpus with the embedded defaults, as a background job.

    The job belongs to the server: clicking elsewhere while it runs (a rerun) does not cancel it,
    and the next run, in any session, watches the same job. A failed first start offers a retry.
    """
    if not config().sample or not SAMPLE_CORPUS.is_dir():
        return
    jobs = runner()
    job = jobs.find(FIRST_START)
    if job is None:
        if s.counts()["versions"]:
            return
        with _first_start_lock(s.url.key):
            job = jobs.find(FIRST_START)
            if job is None and not s.counts()["versions"]:
                _export_pending()  # asked before the export ends, so the progress can say it is running
                job = jobs.submit(FIRST_START, _sample_work(s))
        if job is None:
            return
    status = job.status()
    if status.state == DONE:
        return  # finished before this run: nothing to watch
    if status.state == FAILED:
        if not s.counts()["versions"]:
            st.error(plain(f"First start failed: {status.error}"))
            if st.button("Retry the first start", key="first_start_retry"):
                jobs.retry(job.id)
                st.rerun()
        return
    export = (" This machine had no ONNX export of the MiniLM encoder, so this start makes one (once: a later "
              "start reuses it).") if _export_pending() else ""
    status = watch_job(job, "First start: the store is empty, so the sample corpus (the Larkspur handbook) is "
                            "being ingested with the embedded rules extractor…"
                       + export, _first_start_done(s))
    if status.state == DONE and status.report is not None:
        st.session_state[LAST_REPORT] = status.report
    elif status.state == FAILED:
        st.rerun()  # show the failure with its retry button
