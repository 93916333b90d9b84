"""Cited pages as images: a PDF page, drawn in a bounded child process, with a sentence's boxes drawn on it.

The review page shows these beside the cited text, so the lines are legible without opening the
whole PDF in the browser's viewer (``document_view``, a button away); nothing is fetched from elsewhere.

Every render is bounded: a page is drawn at ``DPI`` unless that would take more than ``MAX_PIXELS``
pixels, in which case it is drawn smaller (a PDF page may be 200 inches a side: at 150 dpi that
is 900 M pixels, over 10 GB with the overlay). A page that still cannot be drawn raises
``PageNotDrawn`` with a message for the reader, never the library's exception. A sentence may
span hundreds of pages: ``pages_to_show`` picks the few drawn at once.

The page's picture (its pixels: every picture on it decoded) is drawn in the bounded child process that draws
scanned pages at ingest (``picture_child``'s ``render`` job: its JPEGs' scans counted first, then its processor
time, memory and clock ceilings, ``LIMITS``), never in this process: a stored page with a text layer was never
drawn at ingest, and a JPEG of thousands of scans on it cost its whole decoding here each time it was shown. A
page the child refuses, or that a ceiling stops, is ``PageNotDrawn`` with the bound it passed ("page 3's picture
could not be drawn within the limits: ..."); the caller shows it in the picture's place. The boxes, crop and
rewrap are drawn here on the child's pixels. One child runs at a time from this process.

Caches, all per process: the child's pixels by (file hash, page, scale, turn) within a byte budget, so a page is
drawn once whatever is drawn on it (the crop, the whole page, the kinds' outlines); a refusal by the same key, so a
hostile page costs its bound once, not on every rerun (a child that could not be started is not kept); the PNGs by
(file hash, page, boxes, scale, crop) within their own budget. A document version never changes, so entries stay
valid until it is removed (``forget``, called for every removal this process makes: the module listens to
graphrag.ingest.removal when it is loaded, which is before anything is cached).
"""

from __future__ import annotations

import hashlib
import io
import math
import statistics
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphrag.errors import InputError
from graphrag.ingest.readers.limits import LIMITS
from graphrag.ingest.removal import on_removed
from graphrag.model import Document
from graphrag.present.printed import Line, page_lines
from graphrag.present.rewrap import INK, column_span, rewrap

if TYPE_CHECKING:
    from PIL.Image import Image as Picture

DPI = 150
MAX_PIXELS = 8_000_000  # a letter page at 150 dpi is 2.1 M; 8 M is an A2 sheet, about 100 MB to draw
BOX_FILL = (255, 214, 0, 70)  # translucent yellow, so the words stay readable under it
BOX_LINE = (214, 120, 0, 255)
SHOWN_PAGES = 2  # page images drawn at once per citation: its first and last page
_CACHE_ENTRIES = 64
_CACHE_BYTES = 48_000_000
_cache: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
_cache_lock = threading.Lock()
# the child's pixels, (width, height, RGB bytes) by (file hash, page, scale, turn): a letter page at 150 dpi is 6.3 MB,
# the largest picture (MAX_PIXELS) 24 MB; the last one drawn is always kept
_PIXEL_ENTRIES = 8
_PIXEL_BYTES = 32_000_000
_pixels: OrderedDict[tuple[object, ...], tuple[int, int, bytes]] = OrderedDict()
_REFUSALS = 1_024  # refusals kept (a message each), by the same key
_refusals: OrderedDict[tuple[object, ...], str] = OrderedDict()
_child_lock = threading.Lock()  # one child at a time from this process (each may take LIMITS.picture_memory)

Box = Sequence[float]  # (page, x0, y0, x1, y1) in points, origin top-left
Colour = tuple[int, int, int]
Outline = tuple[int, float, float, float, float, Colour]  # (page, x0, y0, x1, y1, colour)


class PageNotDrawn(InputError):
    """A page could not be drawn; ``str(error)`` says which and why, without server details."""


def pages_to_show(pages: Sequence[int], at_once: int = SHOWN_PAGES) -> tuple[list[int], list[int]]:
    """(drawn now, drawn on demand) for the pages a sentence spans: its first and last page at once,
    the pages between when asked for, so a sentence over 281 pages draws two images, not 281."""
    ordered = sorted(set(pages))
    if len(ordered) <= at_once:
        return ordered, []
    first = ordered[: at_once - 1]
    return [*first, ordered[-1]], ordered[len(first):-1]


def render_scale(width: float, height: float, dpi: int = DPI, max_pixels: int = MAX_PIXELS) -> float:
    """Pixels per point for a page of ``width`` x ``height`` points: ``dpi`` / 72, or less so that the
    picture holds at most ``max_pixels`` pixels."""
    if not (width > 0 and height > 0 and math.isfinite(width * height)):
        raise PageNotDrawn(f"the page has no drawable size ({width:g} x {height:g} points)")
    scale = min(dpi / 72.0, math.sqrt(max_pixels / (width * height)))
    while math.ceil(width * scale) * math.ceil(height * scale) > max_pixels:  # PDFium rounds the size up
        scale *= 0.999
    return scale


def render_page(data: bytes, page: int, boxes: Sequence[Box] = (), dpi: int = DPI, around: float | None = None,
                file_sha256: str | None = None, max_pixels: int = MAX_PIXELS,
                outlines: Sequence[Outline] = (), wrap: float | None = None) -> bytes:
    """PNG bytes of ``page`` (1-based) of a PDF, with the boxes that lie on that page drawn on it.

    ``outlines``: (page, x0, y0, x1, y1, colour) boxes drawn as thin outlines in their colour (the
    reader's line kinds, ``page_kinds``).

    ``around``: crop to the boxes plus this many points above and below (and a little to each
    side); None gives the whole page. ``wrap``: with ``around``, the crop's printed lines rewrapped to at most
    this many line heights wide (``rewrap``), so they stay legible in a column a third of a laptop screen wide.
    ``file_sha256``: the file's hash when the caller knows it (the cache key; else it is computed).
    Raises PageNotDrawn (an InputError) when the page is missing or cannot be drawn."""
    import pypdfium2 as pdfium
    from PIL import Image

    on_page = tuple(tuple(float(v) for v in b[1:5]) for b in boxes if int(b[0]) == page)
    lines = tuple((float(o[1]), float(o[2]), float(o[3]), float(o[4]), o[5]) for o in outlines if int(o[0]) == page)
    sha = file_sha256 or hashlib.sha256(data).hexdigest()
    key = (sha, page, on_page, dpi, around, max_pixels, lines, wrap)
    with _cache_lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    try:
        png = _draw(data, page, on_page, dpi, around, max_pixels, lines, wrap, sha)
    except PageNotDrawn:
        raise
    except InputError as exc:  # the PDF cannot be opened: the reader's message says why
        raise PageNotDrawn(f"page {page} could not be drawn: {exc}") from None
    except MemoryError:
        raise PageNotDrawn(f"page {page} could not be drawn: not enough memory on the server") from None
    except Image.DecompressionBombError:
        raise PageNotDrawn(f"page {page} could not be drawn: the picture would be too large") from None
    except (pdfium.PdfiumError, OSError, ValueError):  # their text may name server paths: not shown
        raise PageNotDrawn(f"page {page} could not be drawn: PDFium or the image library failed on it") from None
    with _cache_lock:
        _cache[key] = png
        while len(_cache) > _CACHE_ENTRIES or (len(_cache) > 1 and sum(map(len, _cache.values())) > _CACHE_BYTES):
            _cache.popitem(last=False)
    return png


def _draw(data: bytes, page: int, on_page: tuple[tuple[float, ...], ...], dpi: int, around: float | None,
          max_pixels: int, outlines: tuple[tuple[float, float, float, float, Colour], ...] = (),
          wrap: float | None = None, sha: str | None = None) -> bytes:
    import numpy as np
    from PIL import Image, ImageDraw

    from graphrag.ingest.readers.pdf import PDFIUM_LOCK, open_pdf

    with PDFIUM_LOCK:  # here only the page's size, turn and text layer: no picture on it is decoded
        doc = open_pdf(data)
        try:
            if not 1 <= page <= len(doc):
                raise PageNotDrawn(f"page {page} is not in this PDF (it has {len(doc)} pages)")
            pg = doc[page - 1]
            try:
                width, height = pg.get_size()
                scale = render_scale(width, height, dpi, max_pixels)
                # Boxes are in the page's unrotated space: draw on the unrotated picture, then turn
                # it the way the PDF says the page is shown (/Rotate is clockwise).
                rotation = pg.get_rotation()
                # where the lines and words are, for rewrapping (an upright page's text layer; else its ink)
                printed = []
                if wrap is not None and around is not None and on_page and not rotation:  # the crop's band only
                    top_pt, bottom_pt = min(b[1] for b in on_page) - around, max(b[3] for b in on_page) + around
                    printed = page_lines(pg, (top_pt - 2 * around, bottom_pt + 2 * around))
            finally:
                pg.close()
        finally:
            doc.close()
    image = _picture(data, sha or hashlib.sha256(data).hexdigest(), page, scale, (360 - rotation) % 360)
    if outlines:
        draw = ImageDraw.Draw(image)
        for x0, y0, x1, y1, colour in outlines:
            draw.rectangle((x0 * scale - 1, y0 * scale - 1, x1 * scale + 1, y1 * scale + 1), outline=colour, width=2)
    plain = image  # without the highlight: where rewrapping finds the print
    lines: list[Line] = []  # the crop's printed lines, in its pixels
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
            if wrap is not None:  # the lines around it whole, out to the edges of their column
                band = np.asarray(plain.crop((0, int(y0), plain.width, int(y1))).convert("L")) < INK
                x0, x1 = column_span(band, int(x0), int(x1), gutter=10 * scale)
                lines, y0, y1 = crop_lines(printed, scale, x0, y0, x1, y1, image.height)
            image, plain = (im.crop((int(x0), int(y0), int(x1), int(y1))) for im in (image, plain))
    if rotation:
        image, plain = (im.rotate(-rotation, expand=True) for im in (image, plain))
    if wrap is not None and around is not None and on_page:
        image = rewrap(plain, image, wrap, lines)
    buf = io.BytesIO()
    image.save(buf, format="PNG", compress_level=3)
    return buf.getvalue()


def _picture(data: bytes, sha: str, page: int, scale: float, turn: int) -> Picture:
    """Page ``page`` (1-based) drawn at ``scale`` and turned ``turn`` degrees past its /Rotate, by the bounded child
    (kept, see above). Raises PageNotDrawn with the bound it passed."""
    from PIL import Image

    from graphrag.ingest.readers import picture_child
    from graphrag.ingest.readers.picture_child import Refused, Stopped

    key = (sha, page, scale, turn)
    if (kept := _kept(key)) is not None:  # without waiting for a child drawing another page
        return kept
    with _child_lock:
        if (kept := _kept(key)) is not None:  # a second ask for the same page waited for the first: it is kept
            return kept
        try:
            width, height, rgb, _ = picture_child.render_page(data, page - 1, scale, LIMITS, rotation=turn)
        except Refused as no:
            message = _refusal(page, no.kind, no.value)
        except Stopped as stop:
            if stop.reason == "start":  # the machine's own limits, for now: asked again on the next show
                raise PageNotDrawn(f"page {page} could not be drawn: no process could be started on the server; "
                                   "try again when the machine is less busy") from None
            message = _refusal(page, stop.reason)
        else:
            message = ""
        with _cache_lock:
            if message:
                _refusals[key] = message
                while len(_refusals) > _REFUSALS:
                    _refusals.popitem(last=False)
            else:
                _pixels[key] = (width, height, rgb)
                while len(_pixels) > 1 and (len(_pixels) > _PIXEL_ENTRIES
                                            or sum(len(v[2]) for v in _pixels.values()) > _PIXEL_BYTES):
                    _pixels.popitem(last=False)
    if message:
        raise PageNotDrawn(message) from None
    return Image.frombytes("RGB", (width, height), rgb)


def _kept(key: tuple[object, ...]) -> Picture | None:
    """The kept pixels of ``key`` as a picture; None when there are none; PageNotDrawn when it was refused."""
    from PIL import Image

    with _cache_lock:
        if key in _refusals:
            raise PageNotDrawn(_refusals[key]) from None
        if key not in _pixels:
            return None
        _pixels.move_to_end(key)
        width, height, rgb = _pixels[key]
    return Image.frombytes("RGB", (width, height), rgb)


def _refusal(page: int, kind: str, value: int = 0) -> str:
    """What the reader is told in the picture's place: the bound the page's picture passed in the child."""
    if kind == "undecodable":  # the decoder's words: they are not shown (the old message, kept)
        return f"page {page} could not be drawn: PDFium or the image library failed on it"
    why = {
        "scans": f"it draws a JPEG of {value:,} scans; the limit is {LIMITS.jpeg_scans:,} (a progressive JPEG has "
                 "about 10, and each scan is a pass of the decoder over the whole picture)",
        "time": f"drawing it passed {LIMITS.picture_render_seconds:g} s of processor time or "
                f"{LIMITS.picture_render_wall_seconds:g} s by the clock (its pictures are too complex to decode, or "
                "built to exhaust the server)",
    }.get(kind, f"drawing it needed more than {LIMITS.picture_memory // 1_000_000:,} MB of memory, or the decoder "
                "failed on it (its pictures are too large, corrupt, or built to exhaust the server)")
    return f"page {page}'s picture could not be drawn within the limits: {why}"


def crop_lines(printed: Sequence[Line], scale: float, x0: float, y0: float, x1: float, y1: float,
               height: int) -> tuple[list[Line], int, int]:
    """The printed lines (in points) a crop [x0, x1) x [y0, y1) of a picture drawn at ``scale`` holds, in the crop's
    pixels, and the crop's top and bottom moved to take them whole: a line whose middle is in the crop, with the
    words whose middle is. Each line may reach halfway to the nearest line left out above or below it in its column
    (its ``ceiling`` and ``floor``), never into it. ``height``: the picture's. No lines: the crop as it was."""
    def px(ln: Line) -> Line:
        return Line(ln.top * scale, ln.bottom * scale, (ln.core[0] * scale, ln.core[1] * scale),
                    [(a * scale, b * scale) for a, b in ln.words])

    near = [px(ln) for ln in printed]
    near = [ln for ln in near if any(x0 <= (a + b) / 2 < x1 for a, b in ln.words)]
    inside = [y0 <= (ln.core[0] + ln.core[1]) / 2 < y1 for ln in near]
    kept = [ln for ln, ok in zip(near, inside) if ok]
    if not kept:
        return [], int(y0), math.ceil(y1)
    out_lines = [ln for ln, ok in zip(near, inside) if not ok]
    reach = 0.3 * statistics.median(ln.height for ln in kept)
    for ln in kept:
        ln.ceiling, ln.floor = ln.top - reach, ln.bottom + reach
        for other in out_lines:
            if other.x1 <= ln.x0 or ln.x1 <= other.x0:  # another column
                continue
            if other.core[1] <= ln.core[0]:
                ln.ceiling = max(ln.ceiling, min((other.bottom + ln.top) / 2, ln.core[0]))
            elif other.core[0] >= ln.core[1]:
                ln.floor = min(ln.floor, max((ln.bottom + other.top) / 2, ln.core[1]))
    new_y0 = max(0.0, min(ln.ceiling for ln in kept))
    new_y1 = min(float(height), max(ln.floor for ln in kept))
    top = int(new_y0)
    out = [Line(ln.top - top, ln.bottom - top, (ln.core[0] - top, ln.core[1] - top),
                [(max(a, x0) - x0, min(b, x1) - x0) for a, b in ln.words if x0 <= (a + b) / 2 < x1],
                ln.ceiling - top, ln.floor - top)
           for ln in kept]
    return out, top, math.ceil(new_y1)


def forget_drawn_pages() -> None:
    """Drop this process's page images (PNG) of every file, so the next ``render_page`` draws anew (a benchmark's
    render of a page not yet seen); the pixels kept for drawing stay."""
    with _cache_lock:
        _cache.clear()


def forget(file_sha256: str) -> None:
    """Drop this process's renders of a file, its pixels and refusals (its document was removed)."""
    with _cache_lock:
        for kept in (_cache, _pixels, _refusals):
            for key in [k for k in kept if k[0] == file_sha256]:
                del kept[key]


def _forget_removed(versions: Sequence[Document]) -> None:
    for d in versions:  # a PDF's renders are keyed by the sha256 of its bytes, which is the version's hash
        forget(d.sha256)


on_removed(_forget_removed)
