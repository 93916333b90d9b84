"""A sentence read by OCR keeps the recogniser's confidence beside its page and boxes, in the store (schema 12), in
`ask --json` and in the words the Ask and Review pages show ("p. 1 · read by OCR, confidence 0.71").

Before: each OCR line's confidence was in the reading report only; a citation of a scanned sentence looked like one
from a text layer."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from graphrag.ingest.documents import Source
from graphrag.ingest.pipeline import Ingestor
from graphrag.ingest.readers.layout import PDF, Layout, TextLine
from graphrag.model import PageSize
from graphrag.present.serialize import layout_json
from graphrag.store import Store
from graphrag.store.schema import SCHEMA_VERSION
from proc_helpers import HashEmbedder, PatternExtractor

pytestmark = pytest.mark.unit

LINES = [("Porter uses Ledger at the east", 0.95), ("gate.", 0.71), ("Badges go back to the desk.", None)]


def _scan_source(doc_id: str = "gate") -> Source:
    """Two lines read by OCR (one sentence over both) and a line from a text layer (the next sentence)."""
    text, lines, pos = "", [], 0
    for i, (line, confidence) in enumerate(LINES):
        sep = "" if i == 0 else ("\n" if i == 1 else "\n\n")
        text += sep + line
        pos += len(sep)
        xs = np.arange(len(line), dtype=np.float32) * 5 + 72
        lines.append(TextLine(1, pos, pos + len(line), 100.0 + 20 * i, 112.0 + 20 * i, xs, xs + 5, confidence))
        pos += len(line)
    layout = Layout(PDF, "0" * 64, b"%PDF-1.4", (PageSize(1, 595, 842),), tuple(lines))
    return Source(doc_id, "Gate", text, layout=layout)


def _ingest(store: Store, source: Source) -> None:
    (doc,) = Ingestor(store, PatternExtractor(), HashEmbedder()).ingest([source]).documents
    assert doc.status == "ok", doc


def test_a_sentence_read_by_ocr_keeps_the_confidence_of_its_least_sure_line(tmp_path: Path) -> None:
    with Store(tmp_path / "s.db") as store:
        _ingest(store, _scan_source())
        scanned, printed = store.layout("gate", 1, 0), store.layout("gate", 1, 1)
    assert scanned is not None and printed is not None
    assert scanned.ocr_confidence == 0.71 and len(scanned.boxes) == 2
    assert scanned.source_text == "p. 1 · read by OCR, confidence 0.71"
    assert layout_json(scanned)["ocr_confidence"] == 0.71
    # a text layer's sentence says nothing of OCR
    assert printed.ocr_confidence is None and printed.source_text == "p. 1"
    assert layout_json(printed)["ocr_confidence"] is None


def test_a_store_from_before_schema_12_gains_the_column_and_keeps_its_sentences(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with Store(path) as store:
        _ingest(store, _scan_source("old"))
    with sqlite3.connect(path) as c:  # the store as schema 11 left it: no column for the confidence
        c.execute("ALTER TABLE span_layout DROP COLUMN ocr_confidence")
        c.execute("UPDATE meta SET value='11' WHERE key='schema_version'")
        c.execute("PRAGMA user_version = 11")
    with Store(path) as store:
        assert store.database.version == SCHEMA_VERSION
        old = store.layout("old", 1, 0)
        assert old is not None and old.ocr_confidence is None and old.page == 1
        _ingest(store, _scan_source("new"))
        new = store.layout("new", 1, 0)
        assert new is not None and new.ocr_confidence == 0.71
