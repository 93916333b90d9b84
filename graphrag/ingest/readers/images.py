"""PNG, JPEG and TIFF uploads: pictures of pages, read by OCR.

Only the first bytes are read here (the format must be what the suffix says); the picture itself is decoded in a
child process under a memory, processor-time and clock ceiling (``picture_child``), after every frame's header
(size, colour mode, frame count) and a JPEG's scans are checked: a 20,000 x 20,000 picture is 1.2 GB once decoded,
a TIFF's later frame may be larger than its first, and a progressive JPEG's decoding time follows its scans, not
its size. Each frame then becomes a page of a PDF made there, losslessly and byte for byte the same for the same
picture, and that PDF is read like a scanned one (``pdf``, ``ocr``): the same reading order, reading report and
boxes, and the review page renders its pages like any PDF's. Whatever the decoder or a ceiling says is this
document's refusal (a ReadError), never an error that stops the rest of an ingest.
"""

from __future__ import annotations

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import Layout
from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.ingest.readers.ocr import PageProgress
from graphrag.ingest.readers.picture_child import Refused, Stopped, convert_picture

IMAGE_FORMATS = {".png": "PNG", ".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF"}
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "PNG"), (b"\xff\xd8\xff", "JPEG"), (b"II*\x00", "TIFF"), (b"MM\x00*", "TIFF"))


def image_kind(data: bytes) -> str | None:
    """"PNG", "JPEG" or "TIFF" from the file's first bytes; None for anything else."""
    return next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)


def read_image(data: bytes, suffix: str, max_chars: int = MAX_DOCUMENT_CHARS, limits: ReadLimits = LIMITS,
               on_ocr_page: PageProgress | None = None) -> tuple[str, str | None, Layout]:
    """(text, title, layout) of a picture of pages, read by OCR (``on_ocr_page`` told page by page); a ReadError
    says why it is refused."""
    expected = IMAGE_FORMATS[suffix.lower()]
    kind = image_kind(data)
    if kind != expected:
        what = f"it is a {kind} picture" if kind else "its content is not a picture of that format"
        raise ReadError(f"the extension says {expected} but {what}: rename it to its real type or re-export it")
    try:
        pdf = convert_picture(data, expected, limits)
    except Refused as no:
        raise ReadError(refusal(no, expected, limits)) from None
    except Stopped as stop:
        raise ReadError(stopped(stop, expected, limits)) from None
    from graphrag.ingest.readers.pdf import read_pdf

    return read_pdf(pdf, max_chars=max_chars, limits=limits, on_ocr_page=on_ocr_page)


def _which(page: int, expected: str) -> str:
    """"the picture" for a picture's only or first frame, else "page 3 of the TIFF"."""
    return "the picture" if page <= 1 else f"page {page:,} of the {expected}"


def refusal(no: Refused, expected: str, limits: ReadLimits) -> str:
    """The message for a picture the child refused, naming the frame and the bound."""
    which = _which(no.page, expected)
    if no.kind == "scans":
        return (f"the {expected} holds {no.value:,} scans; the limit is {limits.jpeg_scans:,} (a progressive JPEG has "
                "about 10, and each scan is a pass of the decoder over the whole picture): re-export it")
    if no.kind == "bomb":
        size = f" (it holds {no.value:,})" if no.value else ""
        return f"{which} is larger than {limits.image_pixels:,} pixels a page{size}: scale it down"
    if no.kind == "pixels":
        return (f"{which} is {no.width:,} x {no.height:,} pixels; the limit is {limits.image_pixels:,} pixels a page "
                "(a 600 dpi A4 scan has 35 million): scale it down")
    if no.kind == "frames":
        held = f"more than {limits.ocr_pages + 1:,}" if no.detail == "more" else f"{no.value:,}"
        return f"the {expected} holds {held} pages; OCR reads at most {limits.ocr_pages:,} a document: split it"
    if no.kind == "mode":
        return f"{which} has the colour mode {no.detail!r}, which cannot be read: re-export it as RGB or greyscale"
    if no.kind == "unreadable":
        return f"corrupt {expected}: {no.detail}"
    if no.kind == "undecodable":
        return f"corrupt picture: page {no.page} cannot be decoded ({no.detail})"
    return (f"{which} needs more than {limits.picture_memory // 1_000_000:,} MB of memory to decode: it is too large "
            "or built to exhaust the reader")


def stopped(stop: Stopped, expected: str, limits: ReadLimits) -> str:
    """The message for a picture whose decoding a ceiling stopped."""
    if stop.reason == "start":
        return (f"the picture could not be decoded: no process could be started ({stop.detail}); try again when the "
                "machine is less busy")
    which = _which(stop.page, expected)
    if stop.reason == "time":
        return (f"decoding {which} passed its bound on time ({limits.picture_frame_seconds:g} s of processor time a "
                f"page, {limits.picture_seconds:g} s in all, {limits.picture_wall_seconds:g} s by the clock): it is "
                "too complex to read, or built to exhaust the reader")
    return (f"decoding {which} needed more than {limits.picture_memory // 1_000_000:,} MB of memory, or the decoder "
            "failed on it: it is too large, corrupt, or built to exhaust the reader")
