"""Huge input is bounded: a 5 MB one-line file is refused at once with the limit, and extraction
of a long document runs in calls of bounded size (the parser's memory grew with the document).

Before, a 5 MB single-line upload was still ingesting after 2 min 44 s at about 2 GB.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import EXTRACT_CHARS_PER_CALL, Ingestor
from graphrag.ingest.uploads import Upload, prepare_uploads
from graphrag.model import ExtractedEntity, ExtractionResult, ExtractionStatus
from graphrag.store import Store
from graphrag.text import Sentence
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[3]


def one_line(n_bytes: int) -> bytes:
    words = b"export snapshot account owner policy retention cluster worker billing invoice uses keeps "
    return (words * (n_bytes // len(words) + 1))[:n_bytes]


def test_a_5mb_single_line_file_is_refused_within_seconds_and_little_memory(tmp_path: Path) -> None:
    big = tmp_path / "big.md"
    big.write_bytes(one_line(4_999_000))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    # The child reports its own peak (VmHWM of its address space). getrusage would not do:
    # RUSAGE_CHILDREN is the largest child this test process ever waited for, and a child's own
    # ru_maxrss starts from its parent's size at fork (it survives execve).
    run = ("import re, sys\nfrom graphrag.cli import main\ncode = main(sys.argv[1:])\n"
           "hwm = re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1)\n"
           "print('PEAK_KB', hwm, file=sys.stderr)\nsys.exit(code)")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", run, "ingest", str(big), "--store", str(tmp_path / "s.db")],
                          env=env, capture_output=True, text=True, timeout=180)
    seconds = time.perf_counter() - t0
    peak_mb = int(done.stderr.split("PEAK_KB")[1].split()[0]) / 1024
    assert done.returncode == 1, done.stderr  # nothing was ingested (the one document was refused)
    assert "rejected" in done.stdout and f"the limit is {MAX_DOCUMENT_CHARS:,} characters" in done.stdout
    assert seconds < 60, f"took {seconds:.0f} s"
    assert peak_mb < 1024, f"peak {peak_mb:.0f} MB"


def test_an_oversized_upload_is_refused_with_the_limit(store: Store) -> None:
    (item,) = prepare_uploads([Upload("big.md", one_line(5_000_000))], store, viewer_access=("public",),
                              labels=("public",))
    assert f"5,000,000 characters of text; the limit is {MAX_DOCUMENT_CHARS:,}" in item.reason
    assert "split" in item.reason


class RecordingExtractor:
    """One entity per sentence; records how many characters each call was given."""

    name = "recording"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def extract(self, sentences: Sequence[Sentence]) -> ExtractionResult:
        self.calls.append(sum(len(s.text) for s in sentences))
        return ExtractionResult(ExtractionStatus.OK, self.name,
                                tuple(ExtractedEntity(f"Thing{s.index}", "concept", "", s.index) for s in sentences))


def test_a_long_document_is_extracted_in_bounded_calls_with_every_sentence_kept(store: Store) -> None:
    text = " ".join(f"Alpha{i} uses Beacon{i} in step {i}." for i in range(12_000))  # ~350,000 characters
    x = RecordingExtractor()
    report = Ingestor(store, x, HashEmbedder()).ingest([Source("long", "Long", text)])
    (doc,) = report.documents
    assert doc.status == "ok" and doc.sentences == 12_000 and doc.entities == 12_000
    assert len(x.calls) >= 3 and max(x.calls) <= EXTRACT_CHARS_PER_CALL
    spans = store.sentences("long", 1)
    assert all(text[s.start:s.end] == s.text for s in spans)
    x.calls.clear()
    Ingestor(store, x, HashEmbedder()).ingest([Source("short", "Short", "Alpha uses Beacon.")])
    assert len(x.calls) == 1  # a document under one call's size is extracted whole, as before
