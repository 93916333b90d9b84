"""Huge input is bounded: an oversized upload is refused with the limit, and extraction of a long document runs in
calls of bounded size (the parser's memory grew with the document). The 5 MB one-line file through the command line
is in tests/integration/test_large_documents.py."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from doc_helpers import one_line
from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest import pipeline
from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import EXTRACT_CHARS_PER_CALL, Ingestor
from graphrag.ingest.uploads import Upload, prepare_uploads
from graphrag.language.sentences import Sentence
from graphrag.model import ExtractedEntity, ExtractionResult, ExtractionStatus
from graphrag.store import Store
from proc_helpers import HashEmbedder

pytestmark = pytest.mark.unit


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


def test_a_long_document_is_extracted_in_bounded_calls_with_every_sentence_kept(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    # The bound scaled down tenfold (the rule is the same): a 350,000-character document took 2 s of the unit tier.
    bound = EXTRACT_CHARS_PER_CALL // 10
    monkeypatch.setattr(pipeline, "EXTRACT_CHARS_PER_CALL", bound)
    text = " ".join(f"Alpha{i} uses Beacon{i} in step {i}." for i in range(1_200))  # ~35,000 characters
    x = RecordingExtractor()
    report = Ingestor(store, x, HashEmbedder()).ingest([Source("long", "Long", text)])
    (doc,) = report.documents
    assert doc.status == "ok" and doc.sentences == 1_200 and doc.entities == 1_200
    assert len(x.calls) >= 3 and max(x.calls) <= bound
    spans = store.sentences("long", 1)
    assert all(text[s.start:s.end] == s.text for s in spans)
    x.calls.clear()
    Ingestor(store, x, HashEmbedder()).ingest([Source("short", "Short", "Alpha uses Beacon.")])
    assert len(x.calls) == 1  # a document under one call's size is extracted whole, as before
