"""Layout provenance a reader returns beside a document's text, and its mapping onto sentences.

A reader gives the exact text the rest of the pipeline splits into sentences, plus, per
character range, where that text sits in the original: printed lines with their boxes (PDF)
or blocks with a heading path and paragraph number (HTML, DOCX). Sentences are found later
(graphrag/language/sentences.py); ``Layout.span_layout`` turns a sentence's character range into its pages
and one box per line it touches.

Coordinates are PDF points with the origin at the page's top-left corner (y grows downward),
so a box maps onto a rendered page image by one scale factor.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from graphrag.model import PageSize, SpanLayout

PDF = "application/pdf"
HTML = "text/html"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


@dataclass(frozen=True, eq=False)
class TextLine:
    """One printed line: ``text[start:end]`` came from it; ``x0s``/``x1s`` give each character's
    horizontal extent (NaN for spaces the PDF does not draw)."""

    page: int  # 1-based
    start: int
    end: int
    y0: float
    y1: float
    x0s: np.ndarray
    x1s: np.ndarray
    confidence: float | None = None  # read by OCR: the recogniser's confidence in the line (None: a text layer)

    def box(self, start: int, end: int) -> tuple[float, float, float, float] | None:
        """The box of this line's characters within [start, end), or None if none is drawn."""
        a, b = max(start, self.start) - self.start, min(end, self.end) - self.start
        if a >= b:
            return None
        x0, x1 = self.x0s[a:b], self.x1s[a:b]
        drawn = ~np.isnan(x0)
        if not drawn.any():
            return None
        return float(x0[drawn].min()), self.y0, float(x1[drawn].max()), self.y1


@dataclass(frozen=True)
class Block:
    """A paragraph of an HTML page or a DOCX file: ``text[start:end]`` and where it sits."""

    start: int
    end: int
    heading_path: str  # "Refunds > Annual plans"; "" before the first heading
    paragraph: int  # 1-based, in document order
    kind: str = "body"  # PDF: what the printed lines are (graphrag.ingest.readers.pdf_kinds.LineKind)


@dataclass(frozen=True)
class ReadLine:
    """A printed line as the PDF reader classified it, whether or not its text was kept: the reading
    report counts these, and the review page can outline them on the page."""

    page: int
    kind: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in points, origin at the top-left corner
    text: str


@dataclass(frozen=True, eq=False)
class Layout:
    """Where each part of a document's text came from. One per read file."""

    media_type: str
    sha256: str  # of the original bytes: a changed layout is a new version even with the same text
    data: bytes | None = None  # the original bytes, kept when the review page renders from them (PDF)
    pages: tuple[PageSize, ...] = ()
    lines: tuple[TextLine, ...] = ()  # in text order
    blocks: tuple[Block, ...] = ()  # in text order
    notes: tuple[str, ...] = ()
    read: tuple[ReadLine, ...] = ()  # PDF: every printed line with its kind (not stored)
    _line_ends: list[int] = field(default_factory=list, repr=False)
    _block_ends: list[int] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        self._line_ends.extend(ln.end for ln in self.lines)
        self._block_ends.extend(b.end for b in self.blocks)

    def span_layout(self, start: int, end: int) -> SpanLayout | None:
        """Pages, boxes (one per line touched), heading path and paragraph of text[start:end], and, for text read
        by OCR, the confidence of its least sure line."""
        boxes: list[tuple[int, float, float, float, float]] = []
        confidences: list[float] = []
        i = bisect.bisect_right(self._line_ends, start)
        while i < len(self.lines) and self.lines[i].start < end:
            ln = self.lines[i]
            b = ln.box(start, end)
            if b is not None:
                x0, y0, x1, y1 = b
                boxes.append((ln.page, round(x0, 2), round(y0, 2), round(x1, 2), round(y1, 2)))
                if ln.confidence is not None:
                    confidences.append(ln.confidence)
            i += 1
        heading, paragraph = None, None
        j = bisect.bisect_right(self._block_ends, start)
        if j < len(self.blocks) and self.blocks[j].start < end:
            heading, paragraph = self.blocks[j].heading_path or None, self.blocks[j].paragraph
        if not boxes and heading is None and paragraph is None:
            return None
        page = boxes[0][0] if boxes else None
        page_end = boxes[-1][0] if boxes else None
        label = self.pages[page - 1].label if page is not None and page <= len(self.pages) else None
        return SpanLayout(page=page, page_end=page_end if page_end != page else None, page_label=label,
                          boxes=tuple(boxes), heading_path=heading, paragraph=paragraph,
                          kind=self.kind_at(start) if self.blocks else None,
                          ocr_confidence=round(min(confidences), 3) if confidences else None)

    def kind_at(self, start: int) -> str:
        """The kind of the block holding character ``start`` ("body" where the reader gives none)."""
        j = bisect.bisect_right(self._block_ends, start)
        return self.blocks[j].kind if j < len(self.blocks) and self.blocks[j].start <= start else "body"

    def span_layouts(self, ranges: Sequence[tuple[int, int]]) -> list[SpanLayout | None]:
        """The layout of each (start, end) character range, None where it has none."""
        return [self.span_layout(s, e) for s, e in ranges]


def sha256_bytes(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def join_blocks(blocks: Sequence[tuple[str, str] | tuple[str, str, str]]) -> tuple[str, tuple[Block, ...]]:
    """A document's text from its (text, heading path[, kind]) blocks, a blank line between blocks, and
    each block's span in that text (paragraphs numbered from 1): how HTML and DOCX keep their place.
    A block without a kind is body text."""
    parts: list[str] = []
    out: list[Block] = []
    pos = 0
    for i, block in enumerate(blocks):
        t, heading = block[0], block[1]
        kind = block[2] if len(block) > 2 else "body"
        if parts:
            parts.append("\n\n")
            pos += 2
        out.append(Block(pos, pos + len(t), heading, i + 1, kind))
        parts.append(t)
        pos += len(t)
    return "".join(parts), tuple(out)
