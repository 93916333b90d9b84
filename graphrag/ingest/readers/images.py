"""PNG, JPEG and TIFF uploads: pictures of pages, read by OCR.

The picture's header is read first (Pillow opens lazily): its format must be what the suffix says, and its
size and frames within the bounds, before a pixel is decoded (a 20,000 x 20,000 picture is 1.2 GB once
decoded). Each frame then becomes a page of a PDF made here, losslessly and byte for byte the same for the same
picture, and that PDF is read like a scanned one (``pdf``, ``ocr``): the same reading order, reading report and
boxes, and the review page renders its pages like any PDF's.
"""

from __future__ import annotations

import io
import re

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import Layout
from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.ingest.readers.ocr import PageProgress

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF"}
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"))


def image_kind(data: bytes) -> str | None:
    """"PNG", "JPEG" or "TIFF" from the file's first bytes; None for anything else."""
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


def read_image(data: bytes, suffix: str, max_chars: int = MAX_DOCUMENT_CHARS, limits: ReadLimits = LIMITS,
               on_ocr_page: PageProgress | None = None) -> tuple[str, str | None, Layout]:
    """(text, title, layout) of a picture of pages, read by OCR (``on_ocr_page`` told page by page); a ReadError
    says why it is refused."""
    from PIL import Image, UnidentifiedImageError

    expected = IMAGE_FORMATS[suffix.lower()]
    kind = image_kind(data)
    if kind != expected:
        what = f"it is a {kind} picture" if kind else "its content is not a picture of that format"
        raise ReadError(f"the extension says {expected} but {what}: rename it to its real type or re-export it")
    try:
        picture = Image.open(io.BytesIO(data))  # the header only: no pixel is decoded yet
    except Image.DecompressionBombError as exc:  # Pillow's own ceiling, far above ours, refused it first
        held = re.search(r"\((\d+) pixels\)", str(exc))  # Pillow names the count, not the sides
        size = f" (it holds {int(held.group(1)):,})" if held else ""
        raise ReadError(f"the picture is larger than {limits.image_pixels:,} pixels a page{size}: scale it down") \
            from None
    except (UnidentifiedImageError, OSError) as exc:
        raise ReadError(f"corrupt {expected}: {exc}") from exc
    w, h = picture.size
    if w * h > limits.image_pixels:
        raise ReadError(f"the picture is {w:,} x {h:,} pixels; the limit is {limits.image_pixels:,} pixels a page "
                        "(a 600 dpi A4 scan has 35 million): scale it down")
    frames = getattr(picture, "n_frames", 1)
    if frames > limits.ocr_pages:
        raise ReadError(f"the {expected} holds {frames:,} pages; OCR reads at most {limits.ocr_pages:,} a document: "
                        "split it")
    pdf = _as_pdf(picture, frames)
    from graphrag.ingest.readers.pdf import read_pdf

    return read_pdf(pdf, max_chars=max_chars, limits=limits, on_ocr_page=on_ocr_page)


def _as_pdf(picture: object, frames: int) -> bytes:
    """The picture's frames as pages of a PDF, each at the picture's size in points at 150 dpi (72 if it says
    none), stored losslessly; ``invariant`` makes the same picture give the same bytes (and the same version)."""
    from PIL import Image
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    assert isinstance(picture, Image.Image)
    out = io.BytesIO()
    c = canvas.Canvas(out, invariant=1)
    for i in range(frames):
        picture.seek(i)
        try:
            frame = picture.convert("RGB")
        except (OSError, ValueError) as exc:
            raise ReadError(f"corrupt picture: page {i + 1} cannot be decoded ({exc})") from exc
        dpi = picture.info.get("dpi", (150, 150))[0] or 150
        w, h = frame.width * 72 / dpi, frame.height * 72 / dpi
        c.setPageSize((w, h))
        c.drawImage(ImageReader(frame), 0, 0, w, h)
        c.showPage()
    c.save()
    return out.getvalue()
