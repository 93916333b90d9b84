"""The cited document itself, for a viewer in the browser: the original PDF with the cited sentence's boxes, or the
stored text of any other document with the sentence's span, and an HTML rendering of that text.

``open_cited_document`` is the only way the dashboard's document viewer gets a document's bytes or text: it takes
the cited sentence's (document id, version, sentence index), never a path or URL, and refuses a version the viewer's
labels do not show (superseded versions included, as Review shows them marked) with ``DocumentHidden``, whose message
names nothing of the hidden document. A version that is gone (removed) is refused the same way.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphrag.access.rule import Access
from graphrag.config import Config
from graphrag.errors import GraphRAGError
from graphrag.model import SpanLayout

if TYPE_CHECKING:
    from graphrag.access.identity import Viewer
    from graphrag.store import Store

PDF_MEDIA_TYPE = "application/pdf"
TEXT_WINDOW = 60_000  # characters of stored text shown each side of the cited span (a document may hold 2 M)


class DocumentHidden(GraphRAGError):
    """The viewer's labels do not show this document version (or it is gone): nothing of it is served."""


@dataclass(frozen=True)
class Highlight:
    """One printed line of the cited sentence on its page: PDF points, origin at the page's top-left corner."""

    page: int  # 1-based
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class CitedDocument:
    """A cited sentence's document as the viewer may open it: the PDF and its highlights, or the stored text and
    the span (a PDF stored without its file, an HTML, DOCX, Markdown or text document)."""

    document_id: str
    version: int
    title: str
    sentence_index: int
    start: int  # the sentence's span in ``text``
    end: int
    text: str
    layout: SpanLayout | None
    pdf: bytes | None  # the original file, when it is a PDF kept in the store
    highlights: tuple[Highlight, ...]  # the sentence's boxes, on the PDF's pages
    pages: int  # the PDF's page count (0 for a document shown as text)

    @property
    def page(self) -> int | None:
        """The page the sentence starts on (a PDF's), where the viewer opens."""
        return self.layout.page if self.layout is not None else None


def open_cited_document(store: Store, viewer: Viewer, config: Config, document_id: str, version: int,
                        sentence_index: int) -> CitedDocument:
    """Sentence ``sentence_index`` of ``document_id`` version ``version`` with its document, for ``viewer``;
    raises ``DocumentHidden`` unless the viewer's labels show that version (the pages that offer it require the
    viewer role, as for every read model here)."""
    access = store.access_of(document_id, version)
    if access is None or not Access.of(viewer.labels, include_superseded=True).sees(*access):
        raise DocumentHidden(f"this document ({document_id!r}, version {version}) is not one your access labels "
                             "show, or it was removed: it cannot be opened")
    doc = store.document(document_id, version)
    span = store.span(document_id, version, sentence_index)
    if doc is None or span is None:  # removed between the two reads
        raise DocumentHidden(f"{document_id!r} version {version} was removed: it cannot be opened")
    layout = store.layout(document_id, version, sentence_index)
    stored = store.document_file(document_id, version)
    pdf = stored[1] if stored is not None and stored[0] == PDF_MEDIA_TYPE else None
    boxes = layout.boxes if layout is not None and pdf is not None else ()
    pages = len(store.page_sizes(document_id, version)) if pdf is not None else 0
    return CitedDocument(document_id, version, doc.title, sentence_index, span.start, span.end, doc.text, layout,
                         pdf, tuple(Highlight(int(p), x0, y0, x1 - x0, y1 - y0) for p, x0, y0, x1, y1 in boxes),
                         pages)


def text_html(doc: CitedDocument, window: int = TEXT_WINDOW) -> str:
    """The stored text around the cited span as a standalone HTML page: every character escaped, the span marked
    (``<mark id="cited">``) and scrolled into view when the page loads; ``window`` characters each side at most."""
    first, last = max(0, doc.start - window), min(len(doc.text), doc.end + window)
    before = ("… " if first else "") + doc.text[first:doc.start]
    after = doc.text[doc.end:last] + (" …" if last < len(doc.text) else "")
    return (
        "<!doctype html><html><head><meta charset='utf-8'><style>"
        "body{font:15px/1.55 system-ui,sans-serif;margin:0;padding:12px 16px;white-space:pre-wrap;color:#222}"
        "mark{background:#ffe066;outline:2px solid #d67800;padding:1px 0}</style></head><body>"
        f"{html.escape(before)}<mark id='cited'>{html.escape(doc.text[doc.start:doc.end])}</mark>"
        f"{html.escape(after)}"
        "<script>document.getElementById('cited').scrollIntoView({block:'center'})</script></body></html>")
