"""Readers for documents that are not plain text: PDF, HTML, DOCX, and pictures of pages (PNG, JPEG, TIFF: OCR).

Pure functions from a file's bytes to its text plus layout provenance (no store, no UI).
``read_document`` checks that the bytes are what the extension says before parsing, so a
renamed file gets a message naming what it really is.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.budget import CharBudget, TooManyWords, TooMuchText, check_words, too_much_text
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.images import IMAGE_FORMATS, image_kind
from graphrag.ingest.readers.layout import DOCX, HTML, PDF, Block, Layout, TextLine, sha256_bytes
from graphrag.ingest.readers.ocr import PageProgress

# A picture is read by OCR into a PDF of its pages, stored and shown as that PDF.
DOCUMENT_SUFFIXES = {".pdf": PDF, ".html": HTML, ".htm": HTML, ".docx": DOCX, **dict.fromkeys(IMAGE_FORMATS, PDF)}

__all__ = [
    "DOCUMENT_SUFFIXES",
    "Block",
    "CharBudget",
    "Layout",
    "PageProgress",
    "Read",
    "ReadError",
    "TextLine",
    "TooManyWords",
    "TooMuchText",
    "check_words",
    "read_document",
    "sha256_bytes",
    "sniff",
    "too_much_text",
]


@dataclass(frozen=True)
class Read:
    """A file's text, its title if it names one, and where each part of the text came from."""

    text: str
    title: str | None
    layout: Layout


def sniff(data: bytes) -> str | None:
    """What the bytes look like: "PDF", "DOCX", "ZIP", "HTML", "PNG", "JPEG", "TIFF" or None (unknown / plain text)."""
    if picture := image_kind(data):
        return picture
    head = data[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return "PDF"
    if data.startswith(b"PK\x03\x04"):
        return "DOCX" if b"word/" in data[:65536] or b"[Content_Types].xml" in data[:65536] else "ZIP"
    low = head[:512].lower()
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in low or b"<body" in low:
        return "HTML"
    return None


def read_document(data: bytes, suffix: str, decoded: str | None = None, max_chars: int = MAX_DOCUMENT_CHARS,
                  on_ocr_page: PageProgress | None = None) -> Read:
    """Read a PDF, HTML or DOCX file, or a picture of pages. Raises ReadError with a message to show the user;
    TooMuchText, as soon as the reader has counted more than ``max_chars`` characters. ``on_ocr_page`` is told
    as each page without a text layer is read by OCR."""
    suffix = suffix.lower()
    if not data.strip():
        raise ReadError("empty file")
    if suffix in IMAGE_FORMATS:
        from graphrag.ingest.readers.images import read_image

        text, title, layout = read_image(data, suffix, max_chars, on_ocr_page=on_ocr_page)
        return Read(text, title, layout)
    kind = sniff(data)
    expected = {".pdf": "PDF", ".docx": "DOCX", ".html": "HTML", ".htm": "HTML"}[suffix]
    if not data.strip():
        raise ReadError("empty file")
    if expected == "PDF" and kind is None and b"%PDF-" in data[:1024]:
        kind = "PDF"  # the format allows a few bytes of junk before the header
    if expected in ("PDF", "DOCX") and kind != expected:
        what = f"it looks like {'a' if kind != 'HTML' else 'an'} {kind} file" if kind else "its content is not that"
        raise ReadError(f"the extension says {expected} but {what}: rename it to its real type or re-export it")
    if expected == "HTML" and kind in ("PDF", "DOCX", "ZIP", "PNG", "JPEG", "TIFF"):
        raise ReadError(f"the extension says HTML but it looks like a {kind} file: rename it to its real type")
    if expected == "PDF":
        from graphrag.ingest.readers.pdf import read_pdf

        text, title, layout = read_pdf(data, max_chars=max_chars, on_ocr_page=on_ocr_page)
    elif expected == "DOCX":
        from graphrag.ingest.readers.word import read_docx

        text, title, layout = read_docx(data, max_chars)
    else:
        from graphrag.ingest.readers.webpage import read_html

        text, title, layout = read_html(data, decoded, max_chars)
    if len(text) > max_chars:  # the readers count as they go; ligatures and separators may add a few
        raise TooMuchText(too_much_text(len(text), max_chars))
    return Read(text, title, layout)
