"""Ingest progress on the command line: a bar with an ETA on a terminal, plain lines when piped,
counts only (never a document's name), updated per window."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from graphrag.cli.ingest import IngestProgress
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.model import Progress
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
    assert all(ln.endswith(" left") for ln in lines[:-1])
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
