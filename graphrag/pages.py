"""Cited pages as images: a PDF page rendered on the server with a sentence's boxes drawn on it.

The review page shows these instead of loading a PDF viewer in the browser: nothing is fetched
from elsewhere, and no part of the document reaches the browser except the picture. Renders are
cached by (file hash, page, boxes, dpi); a document version never changes, so entries stay valid
until it is removed (``forget``).
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from collections.abc import Sequence

from graphrag.errors import InputError

DPI = 150
BOX_FILL = (255, 214, 0, 70)  # translucent yellow, so the words stay readable under it
BOX_LINE = (214, 120, 0, 255)
_CACHE_SIZE = 64
_cache: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
_cache_lock = threading.Lock()

Box = Sequence[float]  # (page, x0, y0, x1, y1) in points, origin top-left


def render_page(data: bytes, page: int, boxes: Sequence[Box] = (), dpi: int = DPI, around: float | None = None
                ) -> bytes:
    """PNG bytes of ``page`` (1-based) of a PDF, with the boxes that lie on that page drawn on it.

    ``around``: crop to the boxes plus this many points above and below (and a little to each
    side), so the cited lines are legible in a narrow column; None gives the whole page."""
    import pypdfium2 as pdfium
    from PIL import Image, ImageDraw

    from graphrag.readers.pdf import PDFIUM_LOCK, _open

    on_page = tuple(tuple(float(v) for v in b[1:5]) for b in boxes if int(b[0]) == page)
    key = (hashlib.sha256(data).hexdigest(), page, on_page, dpi, around)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    scale = dpi / 72.0
    with PDFIUM_LOCK:
        doc = _open(data)
        try:
            if not 1 <= page <= len(doc):
                raise InputError(f"page {page} is not in this PDF (it has {len(doc)} pages)")
            pg = doc[page - 1]
            try:
                # Boxes are in the page's unrotated space: draw on the unrotated picture, then turn
                # it the way the PDF says the page is shown (/Rotate is clockwise).
                rotation = pg.get_rotation()
                image = pg.render(scale=scale, rotation=(360 - rotation) % 360).to_pil().convert("RGB")
            except pdfium.PdfiumError as exc:
                raise InputError(f"page {page} could not be rendered: {exc}") from exc
            finally:
                pg.close()
        finally:
            doc.close()
    if on_page:
        overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
        draw = ImageDraw.Draw(overlay)
        pad = 2
        for x0, y0, x1, y1 in on_page:
            draw.rectangle((x0 * scale - pad, y0 * scale - pad, x1 * scale + pad, y1 * scale + pad),
                           fill=BOX_FILL, outline=BOX_LINE, width=3)
        image = Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
        if around is not None:
            x0 = max(0.0, min(b[0] for b in on_page) - 10) * scale
            x1 = min(image.width, (max(b[2] for b in on_page) + 10) * scale)
            y0 = max(0.0, min(b[1] for b in on_page) - around) * scale
            y1 = min(image.height, (max(b[3] for b in on_page) + around) * scale)
            image = image.crop((int(x0), int(y0), int(x1), int(y1)))
    if rotation:
        image = image.rotate(-rotation, expand=True)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=3)
    png = buf.getvalue()
    with _cache_lock:
        _cache[key] = png
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return png


def forget(file_sha256: str) -> None:
    """Drop this process's renders of a file (its document was removed)."""
    with _cache_lock:
        for key in [k for k in _cache if k[0] == file_sha256]:
            del _cache[key]
