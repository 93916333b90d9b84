"""Where each sentence of a PDF, HTML or DOCX document sits: pages, boxes, heading paths.

Pages and boxes are provenance attached to spans: the sentences table and everything that
cites it are unchanged. They are written in the document's own transaction (see
``documents.write``), so a document is never stored without its layout. The original PDF is
kept too, so the review page can render the cited page on the server.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, RowMapping, text

from graphrag.model import PageSize, SpanLayout


@dataclass(frozen=True)
class LayoutWrite:
    """The layout rows of one document version. ``spans`` is parallel to DocumentWrite.sentences
    (None for a sentence with no layout); boxes are [[page, x0, y0, x1, y1], ...] in PDF points."""

    media_type: str
    spans: Sequence[SpanLayout | None]
    pages: Sequence[PageSize] = ()
    data: bytes | None = None  # the original file, kept so the review page can render its pages


def write(c: Connection, doc_id: str, version: int, w: LayoutWrite) -> None:
    """Insert a document version's span layouts, its page sizes and, when kept, its original file."""
    rows = [{"d": doc_id, "v": version, "i": i, "page": s.page, "page_end": s.page_end, "label": s.page_label,
             "boxes": json.dumps([list(b) for b in s.boxes]), "heading": s.heading_path, "para": s.paragraph,
             "kind": s.kind, "ocr": s.ocr_confidence}
            for i, s in enumerate(w.spans) if s is not None]
    if rows:
        c.execute(text("INSERT INTO span_layout (doc_id, version, idx, page, page_end, page_label, boxes, "
                       "heading_path, paragraph, kind, ocr_confidence) VALUES (:d, :v, :i, :page, :page_end, :label, "
                       ":boxes, :heading, :para, :kind, :ocr)"), rows)
    if w.pages:
        c.execute(text("INSERT INTO page_sizes (doc_id, version, page, width, height, label) "
                       "VALUES (:d, :v, :p, :w, :h, :label)"),
                  [{"d": doc_id, "v": version, "p": p.number, "w": p.width, "h": p.height, "label": p.label}
                   for p in w.pages])
    if w.data is not None:
        c.execute(text("INSERT INTO document_files (doc_id, version, media_type, data) VALUES (:d, :v, :m, :data)"),
                  {"d": doc_id, "v": version, "m": w.media_type, "data": w.data})


def _span_layout(r: RowMapping) -> SpanLayout:
    boxes = tuple((int(p), float(x0), float(y0), float(x1), float(y1)) for p, x0, y0, x1, y1 in json.loads(r["boxes"]))
    return SpanLayout(r["page"], r["page_end"], r["page_label"], boxes, r["heading_path"], r["paragraph"], r["kind"],
                      r.get("ocr_confidence"))


def layouts(c: Connection, doc_id: str, version: int) -> dict[int, SpanLayout]:
    """The layouts of a document version's sentences, by sentence index."""
    rows = c.execute(text("SELECT * FROM span_layout WHERE doc_id=:d AND version=:v ORDER BY idx"),
                     {"d": doc_id, "v": version}).mappings()
    return {r["idx"]: _span_layout(r) for r in rows}


def span_layouts(c: Connection, keys: Iterable[tuple[str, int, int]]) -> dict[tuple[str, int, int], SpanLayout]:
    """The layouts of the given (document, version, sentence) keys; keys with none are left out."""
    out: dict[tuple[str, int, int], SpanLayout] = {}
    q = text("SELECT * FROM span_layout WHERE doc_id=:d AND version=:v AND idx=:i")
    for d, v, i in set(keys):
        r = c.execute(q, {"d": d, "v": v, "i": i}).mappings().first()
        if r is not None:
            out[(d, v, i)] = _span_layout(r)
    return out


def page_sizes(c: Connection, doc_id: str, version: int) -> list[PageSize]:
    """The page sizes of a document version, in page order."""
    rows = c.execute(text("SELECT page, width, height, label FROM page_sizes WHERE doc_id=:d AND version=:v "
                          "ORDER BY page"), {"d": doc_id, "v": version})
    return [PageSize(p, w, h, label) for p, w, h, label in rows]


def document_file(c: Connection, doc_id: str, version: int) -> tuple[str, bytes] | None:
    """The original file of a document version as (media type, bytes), or None when none was kept."""
    r = c.execute(text("SELECT media_type, data FROM document_files WHERE doc_id=:d AND version=:v"),
                  {"d": doc_id, "v": version}).first()
    return (r[0], bytes(r[1])) if r else None
