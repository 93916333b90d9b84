"""Ingest progress on the command line: a bar with an ETA on a terminal, plain lines when piped,
counts only (never a document's name), updated per window."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from graphrag.cli.ingest import IngestProgress
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import LOADING_MODELS, Progress
from graphrag.store import Store
from proc_helpers import BatchPattern, HashEmbedder, doc_text

pytestmark = pytest.mark.unit


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_piped_progress_prints_counts_and_an_eta_per_window(tmp_path: Path) -> None:
    out = io.StringIO()
    docs = [Source(f"secret-name-{i}", f"Secret title {i}", doc_text(i)) for i in range(40)]
    with Store(tmp_path / "s.db") as s:
        Ingestor(s, BatchPattern(), HashEmbedder()).ingest(docs, IngestProgress(out, every_s=0.0))
    lines = out.getvalue().splitlines()
    # one line per window (1, 2, 4, 8, 16, 9 documents)
    assert [ln.split(" documents")[0] for ln in lines] == [
        "ingest: 1/40", "ingest: 3/40", "ingest: 7/40", "ingest: 15/40", "ingest: 31/40", "ingest: 40/40"]
    # no estimate from the first window (it pays for the start-up), an ETA once the next windows give a rate
    assert lines[0].endswith("estimating…") and all(ln.endswith(" left") for ln in lines[1:-1])
    assert "secret" not in out.getvalue().lower()


def test_piped_progress_is_throttled() -> None:
    out = io.StringIO()
    p = IngestProgress(out, every_s=3600)
    for i in range(50):
        p(Progress(i, 100))
    p(Progress(100, 100))
    assert out.getvalue().splitlines()[0].startswith("ingest: 1/100")
    p(Progress(100, 100))  # the pipeline's closing "done" does not print the last line twice
    assert len(out.getvalue().splitlines()) == 2  # the first update and the last


def test_a_terminal_gets_a_bar_with_an_eta() -> None:
    out = Tty()
    p = IngestProgress(out)
    for i in (0, 10, 50, 100):
        p(Progress(i, 100))
    text = out.getvalue()
    assert "100/100" in text and ("doc/s" in text or "s/doc" in text)
    assert "<" in text  # tqdm's elapsed<remaining


class LoadingExtractor(BatchPattern):
    """An extractor with a model to load, recording what happened in which order."""

    def __init__(self, events: list[str]) -> None:
        super().__init__()
        self.events = events

    def load(self) -> None:
        self.events.append("parser loaded")

    def extract_many(self, documents):  # type: ignore[no-untyped-def]
        self.events.append("parse")
        return super().extract_many(documents)


def _loading_ingest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, events: list[str],
                    progress) -> Store:  # type: ignore[no-untyped-def]
    from graphrag.ingest import pipeline

    def embedder(config: object) -> HashEmbedder:
        events.append("embedder loaded")
        return HashEmbedder()

    monkeypatch.setattr(pipeline, "get_embedder", embedder)
    s = Store(tmp_path / "s.db")
    docs = [Source(f"doc-{i}", f"Runbook {i}", doc_text(i)) for i in range(6)]
    Ingestor(s, LoadingExtractor(events)).ingest(docs, progress)
    return s


def test_both_models_load_before_the_first_document_and_the_progress_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Loaded lazily, the embedder's import came on the first window's encode while the next window was parsed,
    # and a busy machine's first ingest sat at "0 of 80" for minutes with nothing said.
    events: list[str] = []
    seen: list[Progress] = []

    def progress(p: Progress) -> None:
        seen.append(p)
        events.append(f"progress {p.message}" if p.done == 0 else "progress")

    with _loading_ingest(tmp_path, monkeypatch, events, progress):
        pass
    assert events[:3] == [f"progress {LOADING_MODELS}", "parser loaded", "embedder loaded"]
    assert events.index("parse") > events.index("embedder loaded")
    assert seen[0] == Progress(0, 6, LOADING_MODELS)


def test_an_unchanged_reingest_loads_no_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[str] = []
    with _loading_ingest(tmp_path, monkeypatch, events, None) as s:
        events.clear()
        docs = [Source(f"doc-{i}", f"Runbook {i}", doc_text(i)) for i in range(6)]
        out = io.StringIO()
        Ingestor(s, LoadingExtractor(events)).ingest(docs, IngestProgress(out, every_s=0.0))
    assert events == []
    assert LOADING_MODELS not in out.getvalue()


def test_the_command_line_says_it_is_loading_the_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    with _loading_ingest(tmp_path, monkeypatch, [], IngestProgress(out, every_s=0.0)):
        pass
    assert out.getvalue().splitlines()[0] == f"ingest: {LOADING_MODELS}…"
