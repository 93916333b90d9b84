"""Background ingest jobs: one at a time per store, readable from any thread, failures kept with a
retry, progress with an ETA; and the windowed pipeline's promises (one parse per window, nothing
encoded twice, an unchanged corpus costs no model call)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from graphrag.errors import StoreError
from graphrag.ingest.documents import Source
from graphrag.ingest.jobs import DONE, FAILED, QUEUED, RUNNING, JobRunner, eta_seconds, format_eta
from graphrag.ingest.pipeline import MAX_WINDOW_DOCS, Ingestor, IngestReport, _windows
from graphrag.language.sentences import Sentence
from graphrag.model import ExtractionResult, Progress
from graphrag.store import Store
from proc_helpers import BatchPattern, HashEmbedder, PatternExtractor, doc_text, store_snapshot


def _report() -> IngestReport:
    return IngestReport(())


@pytest.mark.unit
def test_a_job_runs_off_the_caller_thread_and_reports_progress_and_eta() -> None:
    runner = JobRunner()
    go, halfway = threading.Event(), threading.Event()
    seen: list[str] = []

    def work(progress):
        seen.append(threading.current_thread().name)
        progress(Progress(0, 5))
        progress(Progress(1, 5))  # the first window: it pays for the start-up, so it gives no rate
        progress(Progress(3, 5))  # two documents after it: a rate, so an ETA
        halfway.set()
        go.wait(10)
        progress(Progress(5, 5))
        return _report()

    job = runner.submit("Folder ingest", work, owner="s1")
    assert halfway.wait(10)
    s = job.status()
    assert (s.state, s.done, s.total, s.owner) == (RUNNING, 3, 5, "s1")
    assert s.eta_s is not None and s.eta_s >= 0 and s.fraction == 0.6
    assert runner.active() == [s] or runner.active()[0].id == job.id
    go.set()
    assert job.wait(10)
    s = job.status()
    assert s.state == DONE and s.report is not None and s.error is None and not s.active
    assert seen == ["graphrag-ingest"]  # not the submitting thread: a page's rerun cannot cancel it
    assert runner.active() == []


@pytest.mark.unit
def test_jobs_of_one_store_run_one_at_a_time_in_order() -> None:
    runner = JobRunner()
    release = threading.Event()
    order: list[str] = []

    def slow(progress):
        order.append("first")
        release.wait(10)
        return _report()

    def quick(progress):
        order.append("second")
        return _report()

    a = runner.submit("a", slow)
    b = runner.submit("b", quick)
    assert not b.wait(0.3)
    assert b.status().state == QUEUED and a.status().state == RUNNING
    release.set()
    assert b.wait(10)
    assert order == ["first", "second"]


@pytest.mark.unit
def test_a_failed_job_keeps_its_error_and_can_be_retried() -> None:
    runner = JobRunner()
    attempts: list[int] = []

    def flaky(progress):
        attempts.append(1)
        if len(attempts) == 1:
            raise StoreError("the disk holding s.db is full: nothing was written")
        return _report()

    job = runner.submit("Upload of 2 files", flaky, owner="s1")
    assert job.wait(10)
    s = job.status()
    assert s.state == FAILED and s.error == "the disk holding s.db is full: nothing was written"
    again = runner.retry(job.id)
    assert again.wait(10) and again.status().state == DONE
    assert (again.status().label, again.status().owner) == ("Upload of 2 files", "s1")
    with pytest.raises(KeyError):
        runner.retry(again.id)  # a finished job holds nothing to run again


@pytest.mark.unit
def test_an_unexpected_exception_is_a_failure_not_a_dead_runner() -> None:
    runner = JobRunner()
    bad = runner.submit("x", lambda progress: 1 / 0)
    assert bad.wait(10) and bad.status().state == FAILED and "ZeroDivisionError" in (bad.status().error or "")
    good = runner.submit("y", lambda progress: _report())
    assert good.wait(10) and good.status().state == DONE


@pytest.mark.unit
def test_eta() -> None:
    assert eta_seconds(0, 10, 5.0) is None
    assert eta_seconds(5, 10, 5.0) == pytest.approx(5.0)
    assert eta_seconds(10, 10, 5.0) == 0.0
    assert format_eta(None) == "estimating…"
    assert format_eta(42.4) == "42 s left"
    assert format_eta(125) == "2 min 05 s left"


# --- the windowed pipeline --------------------------------------------------------------------


class CountingEmbedder(HashEmbedder):
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.calls = 0

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        self.calls += 1
        self.texts += list(texts)
        return super().encode(texts, batch_size)


def _docs(n: int) -> list[Source]:
    return [Source(f"d{i:03d}", f"Doc {i}", doc_text(i)) for i in range(n)]


@pytest.mark.unit
def test_windows_grow_from_one_document_to_the_bound() -> None:
    sizes = [len(w) for w in _windows(_docs(300))]
    assert sizes[:7] == [1, 2, 4, 8, 16, 32, 64] and max(sizes) == MAX_WINDOW_DOCS and sum(sizes) == 300


@pytest.mark.unit
@pytest.mark.parametrize("overlap", [True, False])
def test_windowed_ingest_equals_one_document_at_a_time(tmp_path: Path, overlap: bool) -> None:
    docs = _docs(40)
    batched, plain = BatchPattern(), PatternExtractor()
    with Store(tmp_path / "a.db") as a, Store(tmp_path / "b.db") as b:
        ra = Ingestor(a, batched, HashEmbedder(), overlap=overlap).ingest(docs)
        rb = Ingestor(b, plain, HashEmbedder()).ingest(docs)
    assert [d.status for d in ra.documents] == [d.status for d in rb.documents] == ["ok"] * 40
    assert store_snapshot(tmp_path / "a.db") == store_snapshot(tmp_path / "b.db")
    # one extractor call per window, not per document (the first window, one document, uses extract)
    assert batched.windows == [2, 4, 8, 16, 9]
    assert plain.calls == 40


@pytest.mark.unit
def test_entity_names_are_encoded_once_and_an_unchanged_corpus_costs_no_model_call(tmp_path: Path) -> None:
    docs = _docs(40)
    emb, ex = CountingEmbedder(), BatchPattern()
    with Store(tmp_path / "s.db") as s:
        ing = Ingestor(s, ex, emb)
        first = ing.ingest(docs)
        sentences = sum(d.sentences for d in first.documents)
        names = s.counts()["entities"]
        # every sentence once, every entity name once: nothing already stored is encoded again
        assert len(emb.texts) == sentences + names
        assert first.timings.encode_calls == emb.calls < 40
        calls, windows = emb.calls, len(ex.windows)
        again = ing.ingest(docs)
    assert {d.status for d in again.documents} == {"unchanged"}
    assert emb.calls == calls and len(ex.windows) == windows  # 0 model calls: a hash and a lookup
    assert again.timings.encode_calls == first.timings.encode_calls
    assert again.timings.extract_calls == first.timings.extract_calls


@pytest.mark.unit
def test_the_eta_leaves_out_the_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphrag.ingest.jobs as jobs

    now = [100.0]
    monkeypatch.setattr(jobs.time, "perf_counter", lambda: now[0])
    clock = jobs.EtaClock()
    now[0] = 130.0  # the first window took 30 s, most of it loading models
    clock.update(10)
    assert clock.eta(10, 110) is None  # no rate yet: the start-up is no measure of the work
    now[0] = 140.0  # then 10 more documents in 10 s
    clock.update(20)
    assert clock.eta(20, 110) == pytest.approx(90.0)


class _OneAtATime:
    """The rules extractor without its batch entry point: every document parsed on its own."""

    def __init__(self, inner) -> None:
        self.inner, self.name = inner, inner.name

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        return self.inner.extract(sentences)


@pytest.mark.model
@pytest.mark.parametrize("overlap", [False, True])
def test_rules_windows_store_what_one_document_at_a_time_stores(tmp_path: Path, overlap: bool) -> None:
    from graphrag.ingest.extract.rules import RulesExtractor

    sample = Path(__file__).resolve().parents[2] / "sample_corpus"
    with Store(tmp_path / "w.db") as w, Store(tmp_path / "o.db") as o:
        rw = Ingestor(w, RulesExtractor(), HashEmbedder(), overlap=overlap).ingest_paths([sample])
        ro = Ingestor(o, _OneAtATime(RulesExtractor()), HashEmbedder()).ingest_paths([sample])
        assert rw.timings.extract_calls < ro.timings.extract_calls
    assert [(d.id, d.status, d.version) for d in rw.documents] == [(d.id, d.status, d.version) for d in ro.documents]
    assert store_snapshot(tmp_path / "w.db") == store_snapshot(tmp_path / "o.db")
