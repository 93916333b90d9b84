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
