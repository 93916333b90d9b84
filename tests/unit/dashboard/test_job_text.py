"""The job line a page shows while an ingest runs: it says when the models are loading instead of "0 of N"."""

from __future__ import annotations

import threading

import pytest

from dashboard.jobs import job_text
from graphrag.ingest import DONE, JobRunner
from graphrag.ingest.pipeline import IngestReport
from graphrag.model import LOADING_MODELS, Progress

pytestmark = pytest.mark.unit


def test_a_job_loading_its_models_says_so_then_counts_documents() -> None:
    reported, go_on = threading.Event(), threading.Event()

    def work(progress):  # type: ignore[no-untyped-def]
        progress(Progress(0, 80, LOADING_MODELS))
        reported.set()
        go_on.wait(10)
        progress(Progress(3, 80, "doc-3"))
        return IngestReport(())

    job = JobRunner().submit("Folder ingest", work)
    assert reported.wait(10)
    loading = job.status()
    assert loading.loading_models
    assert job_text(loading) == "Folder ingest: starting (loading the models)…"
    go_on.set()
    assert job.wait(10)
    done = job.status()
    assert done.state == DONE and not done.loading_models


def _report(*statuses: str) -> IngestReport:
    from graphrag.ingest.pipeline import DocumentReport

    return IngestReport(tuple(DocumentReport(f"d{i}", f"D{i}", 1, s) for i, s in enumerate(statuses)))


def test_a_running_job_counts_its_files_and_says_time_left_only_once_it_knows() -> None:
    """Issue 60: the sidebar's line said "estimating…" until the ingest ended (a short one never has an estimate)."""
    from dataclasses import replace

    from graphrag.ingest import RUNNING
    from graphrag.ingest.jobs import JobStatus

    running = JobStatus(1, "Upload of 3 files", RUNNING, done=1, total=3, message="d1")
    assert job_text(running) == "Upload of 3 files: 1 of 3 files stored"
    assert job_text(replace(running, eta_s=65)) == "Upload of 3 files: 1 of 3 files stored, 1 min 05 s left"


def test_an_ended_job_says_what_it_stored_and_refused() -> None:
    """Issue 60: the line vanished with no "done"; it now says what was stored and what was refused."""
    from graphrag.ingest.jobs import JobStatus

    done = JobStatus(2, "Upload of 3 files", DONE, done=3, total=3, report=_report("ok", "unchanged", "rejected"))
    assert job_text(done) == "Upload of 3 files: done · 3 files: 1 stored, 1 unchanged, 1 refused"
    clean = JobStatus(3, "Folder ingest", DONE, report=_report("ok", "ok"))
    assert job_text(clean) == "Folder ingest: done · 2 files: 2 stored, none refused"


def test_the_first_start_counts_its_files_as_its_progress_did_and_ties_them_to_the_sidebars() -> None:
    """Issue 60: the first start counted 15 documents as it went, then said 13 documents (14 versions) with nothing
    to tie the two: the files it stored, then how many of them the labels show, in the sidebar's words."""
    from dashboard.first_start import first_start_text
    from graphrag.answer import Overview

    said = first_start_text(15, Overview(13, 14, 200, 146, 0, 0))
    assert said.startswith("First start: ingested the sample corpus, 15 files stored as 15 document versions, 14 of "
                           "them under your labels: 13 documents (14 versions) · 200 entities"), said
    assert ", 14 of them" not in first_start_text(14, Overview(13, 14, 200, 146, 0, 0))  # all of them shown


def test_the_sidebar_says_how_an_ingest_it_showed_running_ended(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Issue 60: the sidebar's ingest line vanished when the ingest ended, with no word that it was done. It says
    what was stored and refused, until put away."""
    from app_helpers import app, ok
    from dashboard import jobs
    from graphrag.store import Store
    from helpers import write_document_rows

    with Store(tmp_path / "store.db") as s:
        write_document_rows(s, "policy", "Snapshot exports remain available for 30 days.", ("public",), ["export"], [])
        path = s.path
    at = ok(app(monkeypatch, path))
    go = threading.Event()

    def work(progress):  # type: ignore[no-untyped-def]
        progress(Progress(1, 2, "d0"))
        go.wait(10)
        return _report("ok", "rejected")

    job = jobs.runner().submit("Upload of 2 files", work)
    at = ok(at.run())
    assert any("Upload of 2 files: 1 of 2 files stored" in str(p.proto.text) for p in at.sidebar.get("progress"))
    go.set()
    assert job.wait(10)
    at = ok(at.run())
    said = [str(m.value).replace("\\", "") for m in at.sidebar.success]  # as Markdown shows it
    assert said == ["Upload of 2 files: done · 2 files: 1 stored, 1 refused"], said
    at = ok(at.sidebar.button(key=f"ingest_dismiss_{job.id}").click())
    assert not at.sidebar.success
