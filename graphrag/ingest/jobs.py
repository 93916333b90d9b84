"""Background ingest jobs owned by the process, not by a page's script run.

A page (or the dashboard's first start) submits a job and may watch it; a rerun, a page
change or a closed tab only stops the watching. One worker thread per store runs the jobs in
the order they were submitted, so two ingests never compete for the same store or the cores.
Any session can read a job's state: queued, running, done or failed, with its progress, an ETA,
and the report or the error.
"""

from __future__ import annotations

import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from graphrag.errors import GraphRAGError
from graphrag.ingest.pipeline import IngestReport, ProgressFn
from graphrag.model import LOADING_MODELS, READING, Progress

log = logging.getLogger(__name__)

QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
Work = Callable[[ProgressFn], IngestReport]


def eta_seconds(done: int, total: int, elapsed_s: float) -> float | None:
    """Remaining seconds at the rate so far; None until one unit of work is done."""
    if done <= 0 or total <= 0 or elapsed_s <= 0:
        return None
    return max(0.0, elapsed_s / done * (total - done))


MIN_RATE_DOCS = 2  # documents measured after the first window before an ETA is shown ...
MIN_RATE_S = 5.0  # ... or seconds of work measured, for documents slow enough that one takes this long


def _perf_counter() -> float:
    return time.perf_counter()  # looked up on each call, so a test may replace it


class EtaClock:
    """An ETA smoothed over the documents done, that counts down between progress updates.

    The rate is seconds per document, measured only at the moments progress arrives (documents
    come in windows), from the first finished window on: the first window also pays for loading the
    models, so there is no estimate until the work after it is enough to measure (``MIN_RATE_DOCS``
    documents or ``MIN_RATE_S`` seconds); an estimate from the start-up read "5 min 33 s left" and
    "4 s left" a second later. Between updates the estimate counts down from the
    last one instead of dividing a growing elapsed time by an unchanged count, which made the ETA
    grow while a window ran. It stops at one document's time while a window runs long, and moves
    up again only when a window ends and the measured rate has truly slowed."""

    def __init__(self, clock: Callable[[], float] | None = None) -> None:
        self._clock = clock or _perf_counter  # a test passes its own
        self._t0 = self._clock()
        self._first: tuple[float, int] | None = None  # (time, documents) at the first finished window
        self._last: tuple[float, int] | None = None  # ... at the latest update with more documents done

    def update(self, done: int) -> None:
        """Note progress; the first call with work done starts the measured window."""
        if done <= 0 or (self._last is not None and done <= self._last[1]):
            return
        now = self._clock()
        if self._first is None:
            self._first = (now, done)
        self._last = (now, done)

    def rate(self) -> float | None:
        """Seconds per document after the first window, or None until enough work after it is measured."""
        if self._last is None or self._first is None:
            return None
        (t1, d1), (t2, d2) = self._first, self._last
        if d2 - d1 >= MIN_RATE_DOCS or (d2 > d1 and t2 - t1 >= MIN_RATE_S):
            return (t2 - t1) / (d2 - d1)
        return None

    def eta(self, done: int, total: int) -> float | None:
        """Seconds left for ``total`` units after ``done``, or None until a rate is known."""
        rate = self.rate()
        if rate is None or self._last is None:
            return None
        left = max(0, total - done)
        if not left:
            return 0.0
        since = max(0.0, self._clock() - self._last[0])
        return max(rate * left - since, rate)


def format_eta(seconds: float | None) -> str:
    """The ETA as a page shows it: "3 min 05 s left", "40 s left", or "estimating…" before there is one."""
    if seconds is None:
        return "estimating…"
    s = int(round(seconds))
    return f"{s // 60} min {s % 60:02d} s left" if s >= 60 else f"{s} s left"


@dataclass(frozen=True)
class JobStatus:
    """What any session may read about a job at one moment."""

    id: int
    label: str  # e.g. "First start: the sample corpus"; never a document's own name
    state: str
    done: int = 0
    total: int = 0
    submitted_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    eta_s: float | None = None
    report: IngestReport | None = None
    error: str | None = None
    owner: str | None = None  # the session that submitted it, so only it sees the report's rows
    message: str = ""  # the ingest's last progress message (graphrag.model.Progress)
    detail: str = ""  # while the files are read: "page 3 of 12 read by OCR"

    @property
    def active(self) -> bool:
        """Whether the job is still queued or running."""
        return self.state in (QUEUED, RUNNING)

    @property
    def loading_models(self) -> bool:
        """Whether the job is waiting for the models to load before its first document."""
        return self.state == RUNNING and self.message == LOADING_MODELS

    @property
    def reading(self) -> bool:
        """Whether the job is reading its files (a scan's OCR page by page) before it stores any."""
        return self.state == RUNNING and self.message == READING

    @property
    def fraction(self) -> float:
        """Share of the work done, in [0, 1]; a finished job with no counted work is 1."""
        return min(1.0, self.done / self.total) if self.total else (1.0 if self.state == DONE else 0.0)


class IngestJob:
    """One submitted ingest. Its state changes only on the worker thread, read under a lock."""

    def __init__(self, job_id: int, label: str, work: Work, owner: str | None) -> None:
        self._work = work
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._status = JobStatus(job_id, label, QUEUED, submitted_at=time.time(), owner=owner)
        self._clock: EtaClock | None = None

    @property
    def id(self) -> int:
        """The runner's number for this job."""
        return self._status.id

    def status(self) -> JobStatus:
        """A snapshot of the job's state, with a fresh ETA while it runs."""
        with self._lock:
            s = self._status
        if s.state == RUNNING and self._clock is not None:
            return replace(s, eta_s=self._clock.eta(s.done, s.total))
        return s

    def wait(self, timeout: float | None = None) -> bool:
        """True once the job is done or failed."""
        return self._finished.wait(timeout)

    def _set(self, **changes: Any) -> None:  # JobStatus fields
        with self._lock:
            self._status = replace(self._status, **changes)

    def _progress(self, p: Progress) -> None:
        if self._clock is not None:
            self._clock.update(p.done)
        self._set(done=p.done, total=p.total, message=p.message, detail=p.detail)

    def _run(self) -> None:
        self._clock = EtaClock()
        self._set(state=RUNNING, started_at=time.time())
        try:
            report = self._work(self._progress)
        except GraphRAGError as exc:
            self._set(state=FAILED, error=str(exc), finished_at=time.time())
        except Exception as exc:  # a job must end in a state a page can show (logged with its traceback)
            log.exception("ingest job %s failed", self.id)
            self._set(state=FAILED, error=f"{type(exc).__name__}: {exc}", finished_at=time.time())
        else:
            self._set(state=DONE, report=report, finished_at=time.time())
        finally:
            self._finished.set()


class JobRunner:
    """The jobs of one store: run one at a time, in order, on a daemon thread of this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: list[IngestJob] = []
        self._works: dict[int, tuple[str, Work, str | None]] = {}
        self._wake = threading.Condition(self._lock)
        self._ids = itertools.count(1)
        self._thread: threading.Thread | None = None

    def submit(self, label: str, work: Work, owner: str | None = None) -> IngestJob:
        """Queue ``work`` under ``label`` and start the worker thread if none is running."""
        with self._lock:
            job = IngestJob(next(self._ids), label, work, owner)
            self._jobs.append(job)
            self._works[job.id] = (label, work, owner)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="graphrag-ingest", daemon=True)
                self._thread.start()
            self._wake.notify()
            return job

    def retry(self, job_id: int) -> IngestJob:
        """Submit a failed job's work again (documents already stored are reported unchanged)."""
        with self._lock:
            if job_id not in self._works:
                raise KeyError(f"job {job_id} cannot be retried (unknown, or it finished)")
            label, work, owner = self._works[job_id]
        return self.submit(label, work, owner)

    def get(self, job_id: int) -> IngestJob | None:
        """The job with this id, or None."""
        with self._lock:
            return next((j for j in self._jobs if j.id == job_id), None)

    def jobs(self) -> list[JobStatus]:
        """Snapshots of every job, oldest first."""
        with self._lock:
            jobs = list(self._jobs)
        return [j.status() for j in jobs]

    def active(self) -> list[JobStatus]:
        """Snapshots of the jobs still queued or running."""
        return [s for s in self.jobs() if s.active]

    def find(self, label: str) -> IngestJob | None:
        """The newest job with this label."""
        with self._lock:
            return next((j for j in reversed(self._jobs) if j.status().label == label), None)

    def _next(self) -> IngestJob:
        with self._lock:
            while True:
                job = next((j for j in self._jobs if j.status().state == QUEUED), None)
                if job is not None:
                    return job
                self._wake.wait()

    def _loop(self) -> None:
        while True:
            job = self._next()
            job._run()
            if job.status().state == DONE:  # only a failed job can be retried: free what it held (uploads)
                with self._lock:
                    self._works.pop(job.id, None)
