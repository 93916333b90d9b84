"""DOCX reader: paragraphs in order with their heading path and paragraph number (python-docx).

The paragraph number counts non-empty paragraphs from the start of the document, headings and
table rows included, 1-based. Tracked changes are read as accepted (insertions kept, deletions left out) and say so in a
note; embedded objects and images are not read (text only) and are counted in a note. A table
with a worded header row is read row by row, each row one paragraph that carries its header
("Plan: Enterprise; Price per seat: 40 EUR", ``tables``); other tables one paragraph per cell paragraph. The archive is checked before parsing
(``check_archive``, against ``limits.LIMITS``): every part's size and compression ratio from the ZIP
directory, the number of parts, and the XML elements of every XML part; the body is streamed once
(paragraph by paragraph, memory freed as it goes) to count its characters, so a small file that
unpacks to millions of characters, or a style sheet of millions of styles, is refused before
python-docx reads it.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

from lxml import etree

from graphrag.config import MAX_DOCUMENT_CHARS
from graphrag.ingest.readers.budget import CharBudget
from graphrag.ingest.readers.errors import ReadError
from graphrag.ingest.readers.layout import DOCX, Layout, join_blocks, sha256_bytes
from graphrag.ingest.readers.limits import LIMITS, ReadLimits
from graphrag.ingest.readers.tables import ROW, TableTally, clean, has_header, row_statement, too_wide

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


def _count_tags(z: zipfile.ZipFile, name: str, limit: int, what: str) -> None:
    """Stream one XML part as bytes, in bounded memory, counting its opening tags (lxml keeps every
    element of a parsed tree in memory); refuse it past ``limit``."""
    tags = 0
    with z.open(name) as xml:
        last = b""
        while piece := xml.read(1 << 20):
            chunk = last + piece
            tags += piece.count(b"<") - chunk.count(b"</")  # opening tags (a "</" may span two pieces)
            last = piece[-1:]
            if tags > limit:
                raise ReadError(f"the DOCX part {name} has more than {limit:,} XML elements; {what}: it is "
                                "malformed or built to exhaust memory")


def check_archive(z: zipfile.ZipFile, max_chars: int, limits: ReadLimits = LIMITS) -> None:
    """Every bound on a DOCX before python-docx reads it: from the ZIP directory, the number of parts, each
    part's unpacked size (by kind: body, other XML, binary) and compression ratio, and their total; then
    the XML elements of every part, streamed; then the body's text, paragraph by paragraph."""
    infos = z.infolist()
    if len(infos) > limits.docx_parts:
        raise ReadError(f"the DOCX has {len(infos):,} parts; the limit is {limits.docx_parts:,} (Word writes a few "
                        "dozen): it is malformed or built to exhaust memory")
    total = 0
    for info in infos:
        name, size = info.filename, info.file_size
        total += size
        if name == "word/document.xml":
            limit = limits.docx_body_bytes
        elif name.lower().endswith((".xml", ".rels")):
            limit = limits.docx_xml_part_bytes
        else:
            limit = limits.docx_binary_part_bytes
        if size > limit:
            raise ReadError(f"the DOCX part {name} unpacks to {size:,} bytes; the limit is {limit:,} for that "
                            "part: it is malformed or built to exhaust memory")
        if size > limits.docx_ratio_floor and size > limits.docx_ratio * max(info.compress_size, 1):
            raise ReadError(f"the DOCX part {name} unpacks {size // max(info.compress_size, 1):,} times larger "
                            f"than it is packed ({size:,} bytes); the limit is {limits.docx_ratio} times: a zip "
                            "bomb, not a Word document")
    if total > limits.docx_unpacked:
        raise ReadError(f"the DOCX unpacks to {total:,} bytes; the limit is {limits.docx_unpacked:,}")
    # Every part, not only those named .xml: python-docx parses a part by the content type the archive gives
    # it, whatever its name. A picture's bytes hold a "<" in 256, well under the bound.
    for info in infos:
        body = info.filename == "word/document.xml"
        limit = max_chars if body else limits.docx_part_elements
        why = (f"a document within the {max_chars:,}-character limit needs far fewer" if body
               else "a Word document's parts have a few thousand")
        _count_tags(z, info.filename, limit, why)
    _count_body(z, max_chars)


def _count_body(z: zipfile.ZipFile, max_chars: int) -> None:
    """Stream word/document.xml as XML, counting the text paragraph by paragraph and refusing it once it
    passes ``max_chars`` characters."""
    budget = CharBudget(max_chars)
    paragraphs = 0
    has_text = False
    with z.open("word/document.xml") as xml:
        for _, el in etree.iterparse(xml, events=("end",), tag=(f"{_W}t", f"{_W}p"), resolve_entities=False,
                                     no_network=True):
            if el.tag == f"{_W}t":
                budget.add(len(el.text or ""), f"paragraph {paragraphs + 1:,}")
                has_text = has_text or bool(el.text)
                continue
            paragraphs += 1
            if has_text:  # the blank line that separates it from the next
                budget.add(2, f"paragraph {paragraphs:,}")
            has_text = False
            el.clear()  # counted: drop it and the finished siblings before it, so memory stays flat
            parent = el.getparent()
            while parent is not None and el.getprevious() is not None:
                del parent[0]


def _cells(tr: Any) -> list[str]:
    """A table row's cells by grid column: a cell spanning columns fills the first of them and leaves the
    others empty; a cell's text is its paragraphs' (nested tables' included), joined."""
    out: list[str] = []
    for tc in tr.findall(f"{_W}tc"):
        out.append(" ".join(t for p in tc.iter(f"{_W}p") if (t := _paragraph_text(p))))
        span = tc.find(f"{_W}tcPr/{_W}gridSpan")
        extra = int(span.get(f"{_W}val", "1")) - 1 if span is not None and span.get(f"{_W}val", "1").isdigit() else 0
        out.extend([""] * min(max(extra, 0), LIMITS.table_columns + 1))
    return out


def _table_blocks(tbl: Any, tally: TableTally) -> list[tuple[str, str]]:
    """A table's paragraphs as (text, kind): its header row (cells apart with tabs) and each further row as a
    statement carrying the header (``tables.row_statement``). A table without a worded header, or wider than
    the column bound, reads as before: each cell's paragraphs in order."""
    rows = tbl.findall(f"{_W}tr")
    header = _cells(rows[0]) if rows else []
    columns = max((len(tr.findall(f"{_W}tc")) for tr in rows), default=0)
    if too_wide(columns) or not has_header(header) or len(rows) < 2:
        if too_wide(columns):
            tally.wide += 1
            tally.widest = max(tally.widest, columns)
        return [(t, "body") for p in tbl.iter(f"{_W}p") if (t := _paragraph_text(p))]
    tally.tables += 1
    out = [("\t".join(clean(h) for h in header if clean(h)), "body")]
    for tr in rows[1:]:
        if statement := row_statement(header, _cells(tr)):
            out.append((statement, ROW))
            tally.rows += 1
    return out


def _paragraph_styles(document: Any) -> Callable[[Any], str]:
    """The style name of a top-level paragraph element, as python-docx's ``Paragraph.style`` gives it,
    read from the element: that property looks the default style up anew for every paragraph without
    one (about 10 ms each), which made a DOCX of 5,000 plain paragraphs take over a minute."""
    from docx.enum.style import WD_STYLE_TYPE

    names = {s.style_id: s.name or "" for s in document.styles if s.type == WD_STYLE_TYPE.PARAGRAPH}
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    default_name = (default.name or "") if default is not None else ""

    def style_of(p_el: Any) -> str:
        style = p_el.find(f"{_W}pPr/{_W}pStyle")
        style_id = style.get(f"{_W}val") if style is not None else None
        return names.get(style_id, default_name) if style_id else default_name

    return style_of


def read_docx(data: bytes, max_chars: int = MAX_DOCUMENT_CHARS) -> tuple[str, str | None, Layout]:
    """A DOCX file's text, title and layout; a ReadError says why when it is not a readable DOCX or
    its text passes ``max_chars`` characters."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            names = set(z.namelist())
            if "word/document.xml" not in names:
                raise ReadError("not a DOCX: the archive has no word/document.xml (is it another Office file?)")
            check_archive(z, max_chars)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, zlib.error) as exc:
        raise ReadError("corrupt or truncated DOCX: it is not a readable ZIP archive") from exc
    except etree.XMLSyntaxError as exc:
        raise ReadError(f"corrupt DOCX: its body is not well-formed XML ({exc})") from exc
    import docx  # python-docx

    try:
        document = docx.Document(io.BytesIO(data))
    except Exception as exc:  # python-docx raises several types on malformed parts
        raise ReadError(f"corrupt DOCX: {type(exc).__name__}: {exc}") from exc
    body = document.element.body
    tracked = len(body.findall(f".//{_W}ins")) + len(body.findall(f".//{_W}del"))
    objects = sum(len(body.findall(f".//{_W}{tag}")) for tag in _OBJECTS)
    style_of = _paragraph_styles(document)
    title = (document.core_properties.title or "").strip() or None

    blocks: list[tuple[str, str, str]] = []
    path: list[tuple[int, str]] = []
    tally = TableTally()
    budget = CharBudget(max_chars)  # a row repeats its header's labels: the text may outgrow the body's
    for el in body.iter(f"{_W}p", f"{_W}tbl"):
        if next(el.iterancestors(f"{_W}tbl"), None) is not None:
            continue  # inside a table: read with its table
        if el.tag == f"{_W}tbl":
            for t, kind in _table_blocks(el, tally):
                budget.add(len(t) + 2, f"table {tally.tables:,}")
                blocks.append((t, " > ".join(h for _, h in path), kind))
            continue
        p_el = el
        t = _paragraph_text(p_el)
        if not t:
            continue
        style = style_of(p_el) if p_el.getparent() is body else ""
        m = _HEADING.match(style or "")
        if style == "Title":
            title = title or t
            continue
        if m:
            level = int(m.group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, t))
            blocks.append((t, " > ".join(h for _, h in path), "body"))  # a heading's own path ends with itself
            continue
        blocks.append((t, " > ".join(h for _, h in path), "body"))
    if not blocks:
        raise ReadError("the DOCX has no text" + (" (only embedded objects or images; OCR is not supported)"
                                                  if objects else ""))
    notes = []
    if tracked:
        notes.append(f"{tracked} tracked changes read as accepted (insertions kept, deletions left out)")
    if objects:
        notes.append(f"{objects} embedded objects or images not read (text only)")
    if table_note := tally.note():
        notes.append(table_note)
    text, spans = join_blocks(blocks)
    return text, title, Layout(DOCX, sha256_bytes(data), blocks=spans, notes=tuple(notes))
