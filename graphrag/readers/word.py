"""DOCX reader: paragraphs in order with their heading path and paragraph number (python-docx).

The paragraph number counts non-empty paragraphs from the start of the document, headings and
table cells included, 1-based. Tracked changes are read as accepted (insertions kept, deletions left out) and say so in a
note; embedded objects and images are not read (text only) and are counted in a note. Tables
are read row by row, one paragraph per cell paragraph. The archive is checked before parsing:
a DOCX that unpacks to more than MAX_UNPACKED bytes is rejected (a zip bomb).
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Any

from graphrag.readers.errors import ReadError
from graphrag.readers.layout import DOCX, Layout, join_blocks, sha256_bytes

MAX_UNPACKED = 200_000_000
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING = re.compile(r"^heading\s*(\d)$", re.IGNORECASE)
_OBJECTS = ("object", "drawing", "pict")


def _paragraph_text(p_el: Any) -> str:  # an lxml element of python-docx's tree (lxml ships no types)
    """Text of a w:p with tracked insertions accepted and deletions dropped (w:delText is never read)."""
    out: list[str] = []
    for el in p_el.iter(f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr"):
        tag = el.tag
        if tag == f"{_W}t":
            out.append(el.text or "")
        else:
            out.append(" ")
    return " ".join("".join(out).split())


def read_docx(data: bytes) -> tuple[str, str | None, Layout]:
    """A DOCX file's text, title and layout; a ReadError says why when it is not a readable DOCX."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            if "word/document.xml" not in names:
                raise ReadError("not a DOCX: the archive has no word/document.xml (is it another Office file?)")
            unpacked = sum(i.file_size for i in z.infolist())
            if unpacked > MAX_UNPACKED:
                raise ReadError(f"the DOCX unpacks to {unpacked:,} bytes; the limit is {MAX_UNPACKED:,}")
    except zipfile.BadZipFile as exc:
        raise ReadError("corrupt or truncated DOCX: it is not a readable ZIP archive") from exc
    import docx  # python-docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several types on malformed parts
        raise ReadError(f"corrupt DOCX: {type(exc).__name__}: {exc}") from exc
    body = document.element.body
    tracked = len(body.findall(f".//{_W}ins")) + len(body.findall(f".//{_W}del"))
    objects = sum(len(body.findall(f".//{_W}{tag}")) for tag in _OBJECTS)
    styles = {p._p: (p.style.name if p.style is not None else "") for p in document.paragraphs}
    title = (document.core_properties.title or "").strip() or None

    blocks: list[tuple[str, str]] = []
    path: list[tuple[int, str]] = []
    for p_el in body.iter(f"{_W}p"):
        t = _paragraph_text(p_el)
        if not t:
            continue
        style = styles.get(p_el, "")
        m = _HEADING.match(style or "")
        if style == "Title":
            title = title or t
            continue
        if m:
            level = int(m.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, t))
            blocks.append((t, " > ".join(h for _, h in path)))  # a heading's own path ends with itself
            continue
        blocks.append((t, " > ".join(h for _, h in path)))
    if not blocks:
        raise ReadError("the DOCX has no text" + (" (only embedded objects or images; OCR is not supported)"
                                                  if objects else ""))
    notes = []
    if tracked:
        notes.append(f"{tracked} tracked changes read as accepted (insertions kept, deletions left out)")
    if objects:
        notes.append(f"{objects} embedded objects or images not read (text only)")
    text, spans = join_blocks(blocks)
    return text, title, Layout(DOCX, sha256_bytes(data), blocks=spans, notes=tuple(notes))
