"""Readers for documents that are not plain text: PDF, HTML and DOCX.

Pure functions from a file's bytes to its text plus layout provenance (no store, no UI).
``read_document`` checks that the bytes are what the extension says before parsing, so a
renamed file gets a message naming what it really is.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphrag.readers.errors import ReadError
from graphrag.readers.layout import DOCX, HTML, PDF, Block, Layout, TextLine, sha256_bytes

DOCUMENT_SUFFIXES = {".pdf": PDF, ".html": HTML, ".htm": HTML, ".docx": DOCX}

__all__ = [
    "DOCUMENT_SUFFIXES",
    "Block",
    "Layout",
    "Read",
    "ReadError",
    "TextLine",
    "read_document",
    "sha256_bytes",
    "sniff",
]


@dataclass(frozen=True)
class Read:
    """A file's text, its title if it names one, and where each part of the text came from."""

    text: str
    title: str | None
    layout: Layout


def sniff(data: bytes) -> str | None:
    """What the bytes look like: "PDF", "DOCX", "ZIP", "HTML" or None (unknown / plain text)."""
    head = data[:1024].lstrip()
    if head.startswith(b"%PDF-"):
        return "PDF"
    if data.startswith(b"PK\x03\x04"):
        return "DOCX" if b"word/" in data[:65536] or b"[Content_Types].xml" in data[:65536] else "ZIP"
    low = head[:512].lower()
    if low.startswith((b"<!doctype html", b"<html", b"<?xml")) or b"<html" in low or b"<body" in low:
        return "HTML"
    return None


def read_document(data: bytes, suffix: str, decoded: str | None = None) -> Read:
    """Read a PDF, HTML or DOCX file. Raises ReadError with a message to show the user."""
    suffix = suffix.lower()
    kind = sniff(data)
    expected = {".pdf": "PDF", ".docx": "DOCX", ".html": "HTML", ".htm": "HTML"}[suffix]
    if not data.strip():
        raise ReadError("empty file")
    if expected == "PDF" and kind is None and b"%PDF-" in data[:1024]:
        kind = "PDF"  # the format allows a few bytes of junk before the header
    if expected in ("PDF", "DOCX") and kind != expected:
        what = f"it looks like {'a' if kind != 'HTML' else 'an'} {kind} file" if kind else "its content is not that"
        raise ReadError(f"the extension says {expected} but {what}: rename it to its real type or re-export it")
    if expected == "HTML" and kind in ("PDF", "DOCX", "ZIP"):
        raise ReadError(f"the extension says HTML but it looks like a {kind} file: rename it to its real type")
    if expected == "PDF":
        from graphrag.readers.pdf import read_pdf

        text, title, layout = read_pdf(data)
    elif expected == "DOCX":
        from graphrag.readers.word import read_docx

        text, title, layout = read_docx(data)
    else:
        from graphrag.readers.webpage import read_html

        text, title, layout = read_html(data, decoded)
    return Read(text, title, layout)
