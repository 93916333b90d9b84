"""A PDF page with what the reader made of each printed line outlined: body text, headings, captions,
table rows, footnotes, the title block, references, running headers ... (a debugging view for a reviewer
who wonders why a sentence reads as it does).

The kinds are not stored: the PDF is read again from its stored bytes, as ingest read it, and the result
kept per file for the process (a document version never changes). Drawing goes through ``pages.render_page``'s
bounds: the same scale limit, the same errors.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter, OrderedDict

from graphrag.ingest.readers.layout import ReadLine
from graphrag.present.pages import DPI, MAX_PIXELS, PageNotDrawn, render_page

# One colour per kind: prose blue, structure purple and green, what is left out in greys and reds.
KIND_COLOURS: dict[str, tuple[int, int, int]] = {
    "body": (31, 119, 180), "heading": (148, 103, 189), "caption": (44, 160, 44), "table": (255, 127, 14),
    "infobox": (255, 187, 120),
    "author": (140, 86, 75), "footnote": (227, 119, 194), "equation": (23, 190, 207),
    "figure_label": (188, 189, 34), "reference": (214, 39, 40), "running": (127, 127, 127),
    "page_number": (127, 127, 127), "stamp": (214, 39, 40),
}
_READS = 4  # files whose lines are kept read
_reads: OrderedDict[str, tuple[ReadLine, ...]] = OrderedDict()
_lock = threading.Lock()


def read_lines(data: bytes, file_sha256: str | None = None) -> tuple[ReadLine, ...]:
    """Every printed line of a PDF with its kind, as ingest read it (kept for the last few files)."""
    from graphrag.ingest.readers.pdf import read_pdf

    key = file_sha256 or hashlib.sha256(data).hexdigest()
    with _lock:
        if key in _reads:
            _reads.move_to_end(key)
            return _reads[key]
    lines = read_pdf(data)[2].read
    with _lock:
        _reads[key] = lines
        while len(_reads) > _READS:
            _reads.popitem(last=False)
    return lines


def render_kinds(data: bytes, page: int, file_sha256: str | None = None, dpi: int = DPI,
                 max_pixels: int = MAX_PIXELS) -> tuple[bytes, Counter[str]]:
    """PNG bytes of ``page`` with each printed line outlined in its kind's colour, and the page's lines
    counted by kind (for the legend). Raises PageNotDrawn as ``render_page`` does."""
    try:
        lines = [ln for ln in read_lines(data, file_sha256) if ln.page == page]
    except Exception as exc:  # noqa: BLE001 - the reader's own message, never a traceback
        raise PageNotDrawn(f"page {page}: its lines could not be read ({exc})") from None
    outlines = tuple((ln.page, *ln.box, KIND_COLOURS.get(ln.kind, (0, 0, 0))) for ln in lines)
    png = render_page(data, page, (), dpi=dpi, file_sha256=file_sha256, max_pixels=max_pixels, outlines=outlines)
    return png, Counter(ln.kind for ln in lines)
