"""The cited document opened in the browser (graphrag.present.document_view): only through the use case that checks
the viewer's labels, the PDF with the sentence's boxes as highlights, other documents as text with the span marked."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from graphrag.access.identity import Identity, Viewer
from graphrag.config import Config
from graphrag.ingest.documents import Source
from graphrag.model import PageSize, SpanLayout
from graphrag.present import DocumentHidden, Highlight, open_cited_document, text_html
from graphrag.store import Store
from graphrag.store.documents import DocumentWrite
from graphrag.store.layout import LayoutWrite
from helpers import INTERNAL_TEXT, PUBLIC_TEXT, write_document_rows

pytestmark = pytest.mark.unit
CONFIG = Config.from_env({})
PDF_BYTES = b"%PDF-1.7 the stored original file"
PDF_TEXT = "Incidents are reported within 72 hours. Customers are told."


def person(labels: tuple[str, ...]) -> Viewer:
    return Viewer(Identity("sub-ana", "ana@example.com", frozenset(), "iss"), frozenset(labels), "viewer", team=True)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = Store(tmp_path / "s.db")
    write_document_rows(s, "policy", PUBLIC_TEXT, ("public",), [], [])
    write_document_rows(s, "ops", INTERNAL_TEXT, ("internal",), [], [])
    src = Source("manual", "Security manual", PDF_TEXT, access=("internal",))
    layouts = [SpanLayout(page=2, boxes=((2, 72.0, 100.0, 300.0, 114.0),)),
               SpanLayout(page=2, page_end=3, boxes=((2, 72.0, 700.0, 200.0, 714.0), (3, 72.0, 80.0, 150.0, 94.0)))]
    s.write_document(DocumentWrite(
        src.as_document(), "scripted", "ok", [(0, 39, PDF_TEXT[:39]), (40, len(PDF_TEXT), PDF_TEXT[40:])], None,
        [], {}, [], [], LayoutWrite("application/pdf", layouts, [PageSize(n, 612, 792, None) for n in (1, 2, 3)],
                                    PDF_BYTES)))
    yield s
    s.close()


def test_a_document_the_viewers_labels_do_not_show_is_refused_and_names_nothing_of_it(store: Store) -> None:
    public = person(("public",))
    for doc_id in ("ops", "manual"):  # a text document and a PDF, both internal
        with pytest.raises(DocumentHidden) as refused:
            open_cited_document(store, public, CONFIG, doc_id, 1, 0)
        assert "Falcon" not in str(refused.value) and "Security manual" not in str(refused.value)
    with pytest.raises(DocumentHidden):  # a version that is not there is refused alike
        open_cited_document(store, public, CONFIG, "policy", 2, 0)
    assert open_cited_document(store, public, CONFIG, "policy", 1, 0).text == PUBLIC_TEXT


def test_a_superseded_version_the_labels_show_still_opens(store: Store) -> None:
    write_document_rows(store, "policy", "Snapshot exports remain available for 60 days.", ("public",), [], [])
    old = open_cited_document(store, person(("public",)), CONFIG, "policy", 1, 0)
    assert old.text == PUBLIC_TEXT and old.version == 1


def test_a_cited_pdf_sentence_opens_at_its_page_with_each_line_highlighted(store: Store) -> None:
    doc = open_cited_document(store, person(("internal",)), CONFIG, "manual", 1, 1)
    assert doc.pdf == PDF_BYTES and doc.page == 2 and doc.pages == 3
    # a sentence over a page break: one highlight per printed line, each on its own page, width and height in points
    assert doc.highlights == (Highlight(2, 72.0, 700.0, 128.0, 14.0), Highlight(3, 72.0, 80.0, 78.0, 14.0))
    assert doc.text[doc.start:doc.end] == "Customers are told."


def test_a_text_document_is_shown_escaped_with_the_cited_span_marked_and_scrolled_to(store: Store) -> None:
    doc = open_cited_document(store, person(("public",)), CONFIG, "policy", 1, 0)
    assert doc.pdf is None and doc.highlights == ()
    hostile = replace(doc, text="<script>alert(1)</script> " + PUBLIC_TEXT + " tail", start=26,
                      end=26 + len(PUBLIC_TEXT))
    page = text_html(hostile)
    assert f"<mark id='cited'>{PUBLIC_TEXT}</mark> tail" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)" in page
    assert "getElementById('cited').scrollIntoView" in page
    # a long document: a window of text around the span, the cuts marked
    far = replace(hostile, text="x" * 500 + hostile.text + "y" * 500, start=526, end=526 + len(PUBLIC_TEXT))
    cut = text_html(far, window=100)
    assert "… " + "x" * 74 + "&lt;script" in cut and PUBLIC_TEXT in cut and "y" * 500 not in cut
